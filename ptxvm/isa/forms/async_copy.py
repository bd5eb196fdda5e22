"""Asynchronous copies and their completion: cp.async, cp.async.bulk(.tensor/.prefetch),
cp.reduce.async.bulk(.tensor), mbarrier, tensormap (ISA 9.7.9.25-27, 9.7.13.15)."""
from ..table import builder

S = {
    "level::cache_hint": ("L2::cache_hint",),
    "level::prefetch_size": ("L2::64B", "L2::128B", "L2::256B"),
    "state": ("shared", "shared::cta"),
}
F = builder("async", slots=S)

CP = [(lambda v, ops: ("cache-policy" in ops) == bool(v.get("level::cache_hint")),
       "the cache-policy operand goes with .L2::cache_hint (both or neither)")]

# ------------------------------------------------------------------ cp.async (PTX 7.0, sm_80)
# src-size (.u32) and ignore-src (.pred) are alternatives in the same position.
CPA = {"src-size": "ri u32 |pred", "cp-size": "imm u32"}
CPR = {"level::cache_hint": "7.4 sm_80", "level::prefetch_size": "7.4 sm_80"}
F("cp.async.ca.state.global{.level::cache_hint}{.level::prefetch_size} [dst], [src], cp-size{, src-size}"
  "{, cache-policy}", ops=CPA, since="7.0 sm_80", req=CPR, orule=CP, note="cp-size is 4, 8 or 16")
F("cp.async.cg.state.global{.level::cache_hint}{.level::prefetch_size} [dst], [src], 16{, src-size}"
  "{, cache-policy}", ops={"src-size": "ri u32 |pred"}, since="7.0 sm_80", req=CPR, orule=CP)
F("cp.async.commit_group", since="7.0 sm_80")
F("cp.async.wait_group N", since="7.0 sm_80")
F("cp.async.wait_all", since="7.0 sm_80")
F("cp.async.mbarrier.arrive{.noinc}{.state}.b64 [addr]", since="7.0 sm_80", req={"state=shared::cta": "7.8 sm_80"})

# ------------------------------------------------------------------ cp.async.bulk (PTX 8.0, sm_90)
CB = "mbarrier::complete_tx::bytes"
F("cp.async.bulk.dst.src.completion_mechanism{.level::cache_hint} [dstMem], [srcMem], size, [mbar]{, cache-policy}",
  dst=("shared::cta",), src=("global",), completion_mechanism=(CB,), since="8.6 sm_90", orule=CP)
# PTX 9.2: ignoreBytesLeft / ignoreBytesRight (0..15) bytes at the ends of the copy are not copied
F("cp.async.bulk.dst.src.completion_mechanism.ignore_oob{.level::cache_hint} [dstMem], [srcMem], size, "
  "ignoreBytesLeft, ignoreBytesRight, [mbar]{, cache-policy}", dst=("shared::cta",), src=("global",),
  completion_mechanism=(CB,), ops={"ignoreBytesLeft": "ri u32", "ignoreBytesRight": "ri u32"}, since="9.2 sm_90",
  orule=CP, note="ignoreBytesLeft and ignoreBytesRight are 0..15")
F("cp.async.bulk.dst.src.completion_mechanism{.multicast}{.level::cache_hint} [dstMem], [srcMem], size, [mbar]"
  "{, ctaMask}{, cache-policy}", dst=("shared::cluster",), src=("global",), completion_mechanism=(CB,),
  multicast=("multicast::cluster",), since="8.0 sm_90", req={"level::cache_hint": "8.0 sm_90"}, orule=CP + [
      (lambda v, ops: ("ctaMask" in ops) == bool(v.get("multicast")), "ctaMask goes with .multicast::cluster")])
F("cp.async.bulk.dst.src.completion_mechanism [dstMem], [srcMem], size, [mbar]", dst=("shared::cluster",),
  src=("shared::cta",), completion_mechanism=(CB,), since="8.0 sm_90")
F("cp.async.bulk.dst.src.completion_mechanism{.level::cache_hint}{.cp_mask} [dstMem], [srcMem], size"
  "{, cache-policy}{, byteMask}", dst=("global",), src=("shared::cta",), completion_mechanism=("bulk_group",),
  cp_mask=("cp_mask",), since="8.0 sm_90", req={"cp_mask": "8.6 sm_100"}, orule=CP + [
      (lambda v, ops: ("byteMask" in ops) == bool(v.get("cp_mask")), "byteMask goes with .cp_mask")])
F("cp.async.bulk.prefetch.L2.src{.level::cache_hint} [srcMem], size{, cache-policy}", src=("global",),
  since="8.0 sm_90", orule=CP)
F("cp.async.bulk.commit_group", since="8.0 sm_90")
F("cp.async.bulk.wait_group{.read} N", since="8.0 sm_90")
F("cp.async.bulk.wait_group.sync_restrict::proxy::async N", since="9.5 sm_90")

DIM = ("1d", "2d", "3d", "4d", "5d")
TM = {"tensorMap": "ri b64"}  # a .param/.const/.global tensor map's name or its generic address
TCOORD = "dim of .s32 coordinates in tensorCoords"
LOAD_MODES = ("tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128")
IM2COL = ("im2col", "im2col::w", "im2col::w::128", "im2col_no_offs")
TENSOR_CHK = [(lambda v: v.get("load_mode") not in IM2COL or v["dim"] in ("3d", "4d", "5d"),
               "the im2col modes need a 3d, 4d or 5d tensor"),
              (lambda v: v.get("load_mode") not in ("tile::gather4", "tile::scatter4") or v["dim"] == "2d",
               ".tile::gather4 and .tile::scatter4 need a 2d tensor")]
IM2COL_OP = [(lambda v, ops: ("im2colInfo" in ops) == (v.get("load_mode") in IM2COL),
              "im2colInfo goes with the im2col load modes")]
LM_REQ = {"load_mode=tile::gather4|im2col::w|im2col::w::128": "8.6 sm_100f", "cta_group": "8.6 sm_100f"}


def _im2col_n(v):
    """im2colInfo: dim-2 offsets for .im2col, (wHalo, wOffset) for the .im2col::w modes"""
    mode = v.get("load_mode") or ""
    if not mode.startswith("im2col"):
        return None  # no im2colInfo operand in the tile modes
    return 2 if mode.startswith("im2col::w") else int(v["dim"][0]) - 2

F("cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.cta_group}{.level::cache_hint} [dstMem], "
  "[tensorMap, tensorCoords], [mbar]{, im2colInfo}{, cache-policy}", dim=DIM, dst=("shared::cta",), src=("global",),
  load_mode=LOAD_MODES, completion_mechanism=(CB,), cta_group=("cta_group::1", "cta_group::2"),
  ops={"im2colInfo": "vec u16"}, since="8.6 sm_90", req=LM_REQ, note=TCOORD, check=TENSOR_CHK, orule=CP + IM2COL_OP, counts={"im2colInfo": _im2col_n})
F("cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.multicast}{.cta_group}{.level::cache_hint} "
  "[dstMem], [tensorMap, tensorCoords], [mbar]{, im2colInfo}{, ctaMask}{, cache-policy}", dim=DIM,
  dst=("shared::cluster",), src=("global",), load_mode=LOAD_MODES, completion_mechanism=(CB,),
  multicast=("multicast::cluster",), cta_group=("cta_group::1", "cta_group::2"), ops={"im2colInfo": "vec u16"},
  since="8.0 sm_90", req=LM_REQ, note=TCOORD + "; .multicast::cluster is optimized for sm_90a", check=TENSOR_CHK,
  orule=CP + IM2COL_OP + [(lambda v, ops: ("ctaMask" in ops) == bool(v.get("multicast")),
                           "ctaMask goes with .multicast::cluster")], counts={"im2colInfo": _im2col_n})
F("cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.level::cache_hint} [tensorMap, tensorCoords],"
  " [srcMem]{, cache-policy}", dim=DIM, dst=("global",), src=("shared::cta",),
  load_mode=("tile", "tile::scatter4", "im2col_no_offs"), completion_mechanism=("bulk_group",), since="8.0 sm_90",
  req={"load_mode=tile::scatter4": "8.6 sm_100f"}, orule=CP, note=TCOORD, check=TENSOR_CHK)
F("cp.async.bulk.prefetch.tensor.dim.L2.src{.load_mode}{.level::cache_hint} [tensorMap, tensorCoords]"
  "{, im2colInfo}{, cache-policy}", dim=DIM, src=("global",), load_mode=LOAD_MODES,
  ops={"im2colInfo": "vec u16"}, since="8.0 sm_90", req=LM_REQ, note=TCOORD, check=TENSOR_CHK, orule=CP + IM2COL_OP, counts={"im2colInfo": _im2col_n})

# ------------------------------------------------------------------ cp.reduce.async.bulk (PTX 8.0, sm_90)
RED_OPS = ("and", "or", "xor", "add", "inc", "dec", "min", "max")
RT = {"and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64"), "inc": ("u32",), "dec": ("u32",),
      "add": ("u32", "s32", "u64", "f32", "f64", "f16", "bf16"), "min": ("u32", "s32", "u64", "s64", "f16", "bf16"),
      "max": ("u32", "s32", "u64", "s64", "f16", "bf16")}
RCHK = [(lambda v: v.get("type") in RT.get(v.get("redOp"), ()), "this reduction does not take this type")]
# into shared::cluster the bitwise reductions take .b32 only: ptxas 13.0 refuses .b64 ("Illegal reduction
# operation"), though the ISA's syntax lists .b64 among the types (tests/conformance: the bulk family)
RT_CL = {"and": ("b32",), "or": ("b32",), "xor": ("b32",), "inc": ("u32",), "dec": ("u32",),
         "add": ("u32", "s32", "u64"), "min": ("u32", "s32"), "max": ("u32", "s32")}
F("cp.reduce.async.bulk.dst.src.completion_mechanism.redOp.type [dstMem], [srcMem], size, [mbar]",
  dst=("shared::cluster",), src=("shared::cta",), completion_mechanism=(CB,), redOp=RED_OPS,
  type=("b32", "u32", "s32", "b64", "u64"), since="8.0 sm_90",
  check=[(lambda v: v["type"] in RT_CL[v["redOp"]], "this reduction does not take this type")])
F("cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.redOp.type [dstMem], [srcMem], size"
  "{, cache-policy}", dst=("global",), src=("shared::cta",), completion_mechanism=("bulk_group",), redOp=RED_OPS,
  type=("f16", "bf16", "b32", "u32", "s32", "b64", "u64", "s64", "f32", "f64"), check=RCHK, since="8.0 sm_90",
  orule=CP)
F("cp.reduce.async.bulk.dst.src.completion_mechanism{.level::cache_hint}.add.noftz.type [dstMem], [srcMem], size"
  "{, cache-policy}", dst=("global",), src=("shared::cta",), completion_mechanism=("bulk_group",),
  type=("f16", "bf16"), since="8.0 sm_90", orule=CP)
F("cp.reduce.async.bulk.tensor.dim.dst.src.redOp{.load_mode}.completion_mechanism{.level::cache_hint} "
  "[tensorMap, tensorCoords], [srcMem]{, cache-policy}", dim=DIM, dst=("global",), src=("shared::cta",),
  redOp=RED_OPS, load_mode=("tile", "im2col_no_offs"), completion_mechanism=("bulk_group",), since="8.0 sm_90",
  orule=CP, note=TCOORD + "; the element type comes from the tensor map", check=TENSOR_CHK)

# ------------------------------------------------------------------ mbarrier (PTX 7.0, sm_80)
MB = {"state=shared::cta": "7.8 sm_80", "space=shared::cta": "7.8 sm_80"}
# ptxas 13: ".cta requires order", ".relaxed requires scope": the two go together
SS2 = [(lambda v: bool(v.get("sem")) == bool(v.get("scope")), ".sem and .scope go together (both or neither)")]
SEMSC = {"sem": "8.0 sm_80", "scope": "8.0 sm_80", "scope=cluster": "8.0 sm_90", "sem=relaxed": "8.6 sm_90"}
SPACE3 = ("shared", "shared::cta", "shared::cluster")
F("mbarrier.init{.state}.b64 [addr], count", ops={"count": "ri u32"}, since="7.0 sm_80", req=MB)
F("mbarrier.init.layout::v1{.state}.b64 [addr], count", ops={"count": "ri u32"}, since="9.3 sm_90")
F("mbarrier.inval{.state}.b64 [addr]", since="7.0 sm_80", req=MB)
F("mbarrier.check_layout.layout{.state}.b64 p, [addr]", layout=("layout::v0", "layout::v1"), ops={"p": "pred"},
  since="9.3 sm_90")
F("mbarrier.expect_tx{.sem}{.scope}{.space}.b64 [addr], txCount", sem=("relaxed",), scope=("cta", "cluster"),
  space=SPACE3, since="8.0 sm_90", req={"sem=relaxed": "8.0 sm_90"}, check=SS2)
F("mbarrier.complete_tx{.sem}{.scope}{.space}.b64 [addr], txCount", sem=("relaxed",), scope=("cta", "cluster"),
  space=SPACE3, since="8.0 sm_90", check=SS2)
# state-writing forms on the own CTA's barrier, and the .shared::cluster forms (a remote barrier:
# no state comes back, the destination is the sink `_`)
for head, extra, since in (("mbarrier.arrive", "{, count}", "7.0 sm_80"), ("mbarrier.arrive.expect_tx", ", txCount", "8.0 sm_90"),
                           ("mbarrier.arrive_drop", "{, count}", "7.0 sm_80"),
                           ("mbarrier.arrive_drop.expect_tx", ", tx_count", "8.0 sm_90")):
    F(f"{head}{{.sem}}{{.scope}}{{.state}}.b64 state, [addr]{extra}", sem=("release", "relaxed"),
      scope=("cta", "cluster"), ops={"state": "out reg b64 sink", **({"count": "ri u32"} if extra == "{, count}" else {})},
      since=since,
      req={**MB, **SEMSC, **({"operand:count": "7.8 sm_90"} if extra == "{, count}" else {})}, check=SS2)
    F(f"{head}{{.sem}}{{.scope}}.shared::cluster.b64 _, [addr]{extra}", sem=("release", "relaxed"),
      scope=("cta", "cluster"), ops={"count": "ri u32"} if extra == "{, count}" else {}, since="8.0 sm_90",
      req=SEMSC, check=SS2)
F("mbarrier.arrive.noComplete{.release}{.cta}{.state}.b64 state, [addr], count", ops={"state": "b64 sink",
  "count": "ri u32"}, since="7.0 sm_80", req={**MB, ".release": "8.0 sm_80", ".cta": "8.0 sm_80"},
  check=[(lambda v: bool(v.get("release")) == bool(v.get("cta")), ".release and .cta go together")])
F("mbarrier.arrive_drop.noComplete{.release}{.cta}{.state}.b64 state, [addr], count",
  ops={"state": "b64 sink", "count": "ri u32"}, since="7.0 sm_80",
  req={**MB, ".release": "8.0 sm_80", ".cta": "8.0 sm_80"},
  check=[(lambda v: bool(v.get("release")) == bool(v.get("cta")), ".release and .cta go together")])
WS = dict(sem=("acquire", "relaxed"), scope=("cta", "cluster"))
WREQ = {**MB, "sem": "8.0 sm_80", "scope": "8.0 sm_80", "scope=cluster": "8.0 sm_90", "sem=relaxed": "8.6 sm_90"}
F("mbarrier.test_wait{.sem}{.scope}{.state}.b64 waitComplete, [addr], state", ops={"state": "reg b64"},
  since="7.0 sm_80", req=WREQ, **WS, check=SS2)
F("mbarrier.test_wait.parity{.sem}{.scope}{.state}.b64 waitComplete, [addr], phaseParity", since="7.1 sm_80",
  req=WREQ, **WS, check=SS2)
F("mbarrier.try_wait{.sem}{.scope}{.state}.b64 waitComplete, [addr], state{, suspendTimeHint}",
  ops={"state": "reg b64"}, since="7.8 sm_90", req=WREQ, **WS, check=SS2)
F("mbarrier.try_wait.parity{.sem}{.scope}{.state}.b64 waitComplete, [addr], phaseParity{, suspendTimeHint}",
  since="7.8 sm_90", req=WREQ, **WS, check=SS2)
F("mbarrier.pending_count.b64 count, state", ops={"count": "out reg u32", "state": "reg b64"}, since="7.0 sm_80")

# ------------------------------------------------------------------ tensormap (PTX 8.3, sm_90a)
TMS = ("global", "shared::cta")
# the field decides the value's type (ptxas 13): 64-bit address and strides, 32-bit the rest; the
# enumerated fields take an immediate
TM64 = ("global_address", "global_stride")
TMCHK = [(lambda v: (v["field"] in TM64) == (v["type"] == "b64"), ".global_address and .global_stride are .b64, "
          "the other fields .b32")]
F("tensormap.replace.mode.field{.ss}.b1024.type [addr], new_val", mode=("tile",),
  field=("global_address", "rank"), ss=TMS, type=("b32", "b64"), since="8.3 sm_90a", check=TMCHK)
F("tensormap.replace.mode.field{.ss}.b1024.type [addr], new_val", mode=("tile",),
  field=("elemtype", "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode"), ss=TMS,
  type=("b32",), ops={"new_val": "imm"}, since="8.3 sm_90a", req={"field=swizzle_atomicity": "8.6 sm_100f"})
F("tensormap.replace.mode.field{.ss}.b1024.type [addr], ord, new_val", mode=("tile",),
  field=("box_dim", "global_dim", "global_stride", "element_stride"), ss=TMS, type=("b32", "b64"),
  ops={"ord": "imm u32"}, since="8.3 sm_90a", check=TMCHK)
# PTX 9.5: the map's allocation class (.alloc_same only with a new global address)
F("tensormap.replace.mode.field.alloc{.ss}.b1024.type [addr], new_val", mode=("tile",), field=("global_address",),
  alloc=("alloc_large", "alloc_small", "alloc_same"), ss=TMS, type=("b64",), since="9.5 sm_90a")
F("tensormap.replace.mode.alloc{.ss}.b1024 [addr]", mode=("tile",), alloc=("alloc_large", "alloc_small"), ss=TMS,
  since="9.5 sm_90a")
F("tensormap.query.alloc_class_large{.ss}.b1024 p, [addr]", ss=TMS, ops={"p": "pred"}, since="9.5 sm_90a")
F("tensormap.cp_fenceproxy.cp_qualifiers.fence_qualifiers.sync.aligned [dst], [src], size",
  cp_qualifiers=("global.shared::cta",),
  fence_qualifiers=tuple(f"tensormap::generic.release.{s}" for s in ("cta", "cluster", "gpu", "sys")),
  ops={"size": "imm u32"}, since="8.3 sm_90", note="size must be 128", family="sync")

# ------------------------------------------------------------------ fabric (PTX 9.3, sm_100)
# verification only (the operations that move data, fabric.try_*, are not in the table yet)
F("fabric.submit{.op_restrict::fetching}", since="9.3 sm_100", nodst=True)
F("fabric.submit.commit_group", since="9.5 sm_100")
F("fabric.wait.sync_restrict::reads", since="9.3 sm_100", deprecated="PTX 9.5: use .sync_restrict::read N")
F("fabric.wait.sync_restrict::read N", ops={"N": "imm u32"}, since="9.5 sm_100")

# ------------------------------------------------------------------ clusterlaunchcontrol (PTX 8.6, sm_100)
F("clusterlaunchcontrol.try_cancel.async{.space}.completion_mechanism{.multicast::cluster::all}.b128 [addr], [mbar]",
  space=("shared::cta",), completion_mechanism=(CB,), since="8.6 sm_100",
  req={".multicast::cluster::all": "8.6 sm_100f"})
F("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 pred, try_cancel_response",
  ops={"try_cancel_response": "reg b128"}, since="8.6 sm_100")
F("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {xdim, ydim, zdim, _}, try_cancel_response",
  ops={"try_cancel_response": "reg b128"}, since="8.6 sm_100")
F("clusterlaunchcontrol.query_cancel.get_first_ctaid::dimension.b32.b128 reg, try_cancel_response",
  slots={"get_first_ctaid::dimension": ("get_first_ctaid::x", "get_first_ctaid::y", "get_first_ctaid::z")},
  ops={"try_cancel_response": "reg b128"}, since="8.6 sm_100")
