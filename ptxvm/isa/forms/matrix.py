"""Warp-level and warpgroup-level matrix instructions: wmma, mma, mma.sp, ldmatrix, stmatrix,
movmatrix (ISA 9.7.14), wgmma (9.7.15) and tcgen05 (9.7.16).

Operands d, a, b, c are vectors of registers (fragments); their element counts follow from the
shape and types where the rule is simple (`counts=`), else they are left open (checked by semantics).
"""
import re

from ..table import RND, builder
from ..types import TYPES

# tensor-memory addresses are 32-bit registers
F = builder("matrix", ops={"taddr": "b32", "d-tmem": "b32", "sp-meta-tmem": "b32", "scale-A-tmem": "b32",
                           "scale-B-tmem": "b32"})

UNALIGNED = "all threads of the warp (warpgroup) must execute it convergently (.aligned), else undefined"
_SHAPE = re.compile(r"m(\d+)n(\d+)k(\d+)")


def _mnk(v):
    m = _SHAPE.match(v["shape"])
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def _bits(t, v=None):
    if v is not None and str(v.get("kind", "")).endswith("f8f6f4"):
        return 8  # fp6/fp4 elements sit in 8-bit containers for kind::f8f6f4
    return TYPES[t].bits


def _regs(elems, bits, threads=32):
    """Registers per thread for `elems` elements of `bits` bits (32-bit registers, 64-bit for f64)."""
    reg = 64 if bits == 64 else 32
    return max(1, elems * bits // (threads * reg))


def mma_counts(sparse=False, threads=32):
    def d(v):
        m, n, k = _mnk(v)
        return _regs(m * n, _bits(v["dtype"]), threads)

    def a(v):
        m, n, k = _mnk(v)
        return _regs(m * k // (2 if sparse else 1), _bits(v["atype"], v), threads)

    def b(v):
        m, n, k = _mnk(v)
        return _regs(k * n, _bits(v["btype"], v), threads)

    def c(v):
        m, n, k = _mnk(v)
        return _regs(m * n, _bits(v["ctype"]), threads)

    return {"d": d, "a": a, "b": b, "c": c}


def _wmma_n(frag, tslot):
    """wmma fragment registers: like mma, except that .f16 A and B fragments are always 8 registers."""
    def n(v):
        m, nn, k = _mnk(v)
        t = v.get(tslot) or "f16"
        if t == "f16" and frag in "ab":
            return 8
        elems = {"a": m * k, "b": k * nn, "c": m * nn, "d": m * nn}[frag]
        return _regs(elems, TYPES[t].bits)
    return n


WC = {"d": _wmma_n("d", "dtype"), "a": _wmma_n("a", "atype"), "b": _wmma_n("b", "btype"), "c": _wmma_n("c", "ctype")}
FRAG = {"d": "vec pack", "a": "vec pack", "b": "vec pack", "c": "vec pack"}
LAY = {"alayout": ("row",), "blayout": ("col",)}

# ------------------------------------------------------------------ wmma (PTX 6.0, sm_70)
WSS = ("global", "shared", "shared::cta")
WREQ = {"ss=shared::cta": "7.8 sm_70"}
WL = {"r": "vec", "stride": "ri u32"}
W3 = ("m16n16k16", "m8n32k16", "m32n8k16")
LOADS = [  # (fragment, type slot, shapes, types, since, layouts)
    ("a", W3, ("f16",), "6.3 sm_70", None), ("b", W3, ("f16",), "6.3 sm_70", None),
    ("c", W3, ("f16", "f32"), "6.3 sm_70", None),
    ("a", W3, ("s8", "u8"), "6.3 sm_72", None), ("b", W3, ("s8", "u8"), "6.3 sm_72", None),
    ("c", W3, ("s32",), "6.3 sm_72", None),
    ("a", W3, ("bf16",), "7.0 sm_80", None), ("b", W3, ("bf16",), "7.0 sm_80", None),
    ("a", ("m16n16k8",), ("tf32",), "7.0 sm_80", None), ("b", ("m16n16k8",), ("tf32",), "7.0 sm_80", None),
    ("c", ("m16n16k8",), ("f32",), "7.0 sm_80", None),
    ("a", ("m8n8k4",), ("f64",), "7.0 sm_80", None), ("b", ("m8n8k4",), ("f64",), "7.0 sm_80", None),
    ("c", ("m8n8k4",), ("f64",), "7.0 sm_80", None),
    ("a", ("m8n8k32",), ("s4", "u4"), "6.3 sm_75", "row"), ("b", ("m8n8k32",), ("s4", "u4"), "6.3 sm_75", "col"),
    ("c", ("m8n8k32",), ("s32",), "6.3 sm_75", None),
    ("a", ("m8n8k128",), ("b1",), "6.3 sm_75", "row"), ("b", ("m8n8k128",), ("b1",), "6.3 sm_75", "col"),
    ("c", ("m8n8k128",), ("s32",), "6.3 sm_75", None),
]
for frag, shapes, types, since, lay in LOADS:
    F(f"wmma.load.{frag}.sync.aligned.layout.shape{{.ss}}.{frag}type r, [p]{{, stride}}",
      layout=(lay,) if lay else ("row", "col"), shape=shapes, ss=WSS, **{f"{frag}type": types},
      ops={"r": "vec pack " + "=" + f"{frag}type", "stride": "ri u32"}, since=since, req=WREQ, undefined=UNALIGNED,
      counts={"r": _wmma_n(frag, f"{frag}type")})
for shapes, types, since in ((W3, ("f16", "f32", "s32"), "6.3 sm_70"), (("m8n8k32", "m8n8k128"), ("s32",), "6.3 sm_75"),
                             (("m16n16k8",), ("f32",), "7.0 sm_80"), (("m8n8k4",), ("f64",), "7.0 sm_80")):
    F("wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}", layout=("row", "col"), shape=shapes,
      ss=WSS, type=types, ops={"r": "vec pack", "stride": "ri u32"}, since=since,
      req={**WREQ, "type=s32": "6.3 sm_72"} if "s32" in types and since.startswith("6.3 sm_70") else WREQ,
      undefined=UNALIGNED, counts={"r": _wmma_n("d", "type")})
WM = dict(alayout=("row", "col"), blayout=("row", "col"))
F("wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c", shape=W3, dtype=("f16", "f32"),
  ctype=("f16", "f32"), ops=dict(FRAG, a="vec b32", b="vec b32"), since="6.3 sm_70", undefined=UNALIGNED, counts=WC, **WM)
SAMEAB = [(lambda v: v["atype"] == v["btype"], ".atype and .btype must be the same (ptxas 13)")]
F("wmma.mma.sync.aligned.alayout.blayout.shape.dtype.atype.btype.ctype{.satfinite} d, a, b, c", shape=W3,
  dtype=("s32",), atype=("s8", "u8"), btype=("s8", "u8"), ctype=("s32",), ops=FRAG, since="6.3 sm_72", check=SAMEAB,
  undefined=UNALIGNED, counts=WC, **WM)
F("wmma.mma.sync.aligned.alayout.blayout.shape.dtype.atype.btype.ctype d, a, b, c", shape=W3, dtype=("f32",),
  atype=("bf16",), btype=("bf16",), ctype=("f32",), ops=FRAG, since="7.0 sm_80", undefined=UNALIGNED, counts=WC, **WM)
F("wmma.mma.sync.aligned.alayout.blayout.shape.dtype.atype.btype.ctype d, a, b, c", shape=("m16n16k8",),
  dtype=("f32",), atype=("tf32",), btype=("tf32",), ctype=("f32",), ops=FRAG, since="7.0 sm_80",
  undefined=UNALIGNED, counts=WC, **WM)
F("wmma.mma.sync.aligned.alayout.blayout.shape{.rnd}.dtype.atype.btype.ctype d, a, b, c", shape=("m8n8k4",),
  rnd=RND, dtype=("f64",), atype=("f64",), btype=("f64",), ctype=("f64",), ops=FRAG, since="7.0 sm_80",
  undefined=UNALIGNED, counts=WC, **WM)
F("wmma.mma.sync.aligned.alayout.blayout.shape.dtype.atype.btype.ctype{.satfinite} d, a, b, c",
  shape=("m8n8k32",), dtype=("s32",), atype=("s4", "u4"), btype=("s4", "u4"), ctype=("s32",), ops=FRAG,
  since="6.3 sm_75", check=SAMEAB, undefined=UNALIGNED, counts=WC, **LAY)
F("wmma.mma.op.popc.sync.aligned.alayout.blayout.shape.dtype.atype.btype.ctype d, a, b, c", op=("xor", "and"),
  shape=("m8n8k128",), dtype=("s32",), atype=("b1",), btype=("b1",), ctype=("s32",), ops=FRAG,
  since="6.3 sm_75", req={"op=and": "7.1 sm_80"}, undefined=UNALIGNED, counts=WC, **LAY)

# ------------------------------------------------------------------ mma (PTX 6.4, sm_70)
F32F16 = ("f16", "f32")
F("mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype d, a, b, c", shape=("m8n8k4",),
  alayout=("row", "col"), blayout=("row", "col"), dtype=F32F16, atype=("f16",), btype=("f16",), ctype=F32F16,
  ops=FRAG, since="6.4 sm_70", undefined=UNALIGNED,
  check=[(lambda v: v["ctype"] != "f32" or v["dtype"] == "f32", ".dtype must be .f32 when .ctype is .f32")],
  counts={"a": lambda v: 2, "b": lambda v: 2, "c": lambda v: 4 if v["ctype"] == "f16" else 8,
          "d": lambda v: 4 if v["dtype"] == "f16" else 8})
MC = mma_counts()


def mma(shapes, dtype, atype, btype, ctype, since, req=None, extra="", **kw):
    F(f"mma.sync.aligned.shape.alayout.blayout{extra}.dtype.atype.btype.ctype d, a, b, c", shape=shapes,
      dtype=dtype, atype=atype, btype=btype, ctype=ctype, ops=FRAG, since=since, req=req or {}, counts=MC,
      undefined=UNALIGNED, **LAY, **kw)


SAMEDC = [(lambda v: v["dtype"] == v["ctype"], ".dtype and .ctype must be the same")]
mma(("m16n8k8", "m16n8k16"), F32F16, ("f16",), ("f16",), F32F16, "6.5 sm_75", {"shape=m16n8k16": "7.0 sm_80"},
    check=SAMEDC)
mma(("m16n8k4",), ("f32",), ("tf32",), ("tf32",), ("f32",), "7.0 sm_80")
mma(("m16n8k8",), ("f32",), ("bf16", "tf32"), ("bf16", "tf32"), ("f32",), "7.0 sm_80",
    check=[(lambda v: v["atype"] == v["btype"], ".atype and .btype must be the same")])
mma(("m16n8k16",), ("f32",), ("bf16",), ("bf16",), ("f32",), "7.0 sm_80")
mma(("m16n8k16", "m16n8k32"), F32F16, ("e4m3", "e5m2"), ("e4m3", "e5m2"), F32F16, "8.4 sm_89",
    {"shape=m16n8k16": "8.7 sm_89", "dtype=f16": "8.7 sm_89"}, check=SAMEDC)
F8F6F4 = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1")


def _fp4or6(v):
    """an FP6 or FP4 operand"""
    return v["atype"] in ("e3m2", "e2m3", "e2m1") or v["btype"] in ("e3m2", "e2m3", "e2m1")
F("mma.sync.aligned.shape.alayout.blayout.kind.dtype.atype.btype.ctype d, a, b, c", shape=("m16n8k32",),
  kind=("kind::f8f6f4",), dtype=F32F16, atype=F8F6F4, btype=F8F6F4, ctype=F32F16, ops=FRAG, since="8.6 sm_120a",
  req={_fp4or6: "8.7 sm_120a"}, counts=MC, undefined=UNALIGNED, check=SAMEDC, **LAY)
# .kind::mxf4nvf4: .scale_vec::2X scales with .ue8m0, .scale_vec::4X with .ue4m3 (ptxas 13)
SVS_ST = [(lambda v: v["kind"] != "kind::mxf4nvf4" or (v["scale_vec_size"] == "scale_vec::2X") == (v["stype"] == "ue8m0"),
           ".kind::mxf4nvf4: .scale_vec::2X goes with .ue8m0, .scale_vec::4X with .ue4m3")]
BS = ("d, a, b, c, scale-a-data, {byte-id-a, thread-id-a}, scale-b-data, {byte-id-b, thread-id-b}")
BSOPS = dict(FRAG, **{"scale-a-data": "ri b32", "scale-b-data": "ri b32", "byte-id-a": "u16", "byte-id-b": "u16"})
for shape, kind, svs, opt, at, st in (
        ("m16n8k64", "kind::mxf4", ("scale_vec::2X",), True, ("e2m1",), ("ue8m0",)),
        ("m16n8k64", "kind::mxf4nvf4", ("scale_vec::2X", "scale_vec::4X"), False, ("e2m1",), ("ue8m0", "ue4m3")),
        ("m16n8k32", "kind::mxf8f6f4", ("scale_vec::1X",), True, F8F6F4, ("ue8m0",))):
    sv = "{.scale_vec_size}" if opt else ".scale_vec_size"
    F(f"mma.sync.aligned.shape.alayout.blayout.kind.block_scale{sv}.dtype.atype.btype.ctype.stype {BS}",
      shape=(shape,), kind=(kind,), scale_vec_size=svs, dtype=("f32",), atype=at, btype=at, ctype=("f32",),
      stype=st, ops=BSOPS, since="8.7 sm_120a", counts=MC, undefined=UNALIGNED, check=SVS_ST, **LAY)
mma(("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"), ("f64",), ("f64",), ("f64",), ("f64",), "7.0 sm_80",
    {"shape=m16n8k4|m16n8k8|m16n8k16": "7.8 sm_90"})
mma(("m8n8k16", "m16n8k16", "m16n8k32"), ("s32",), ("u8", "s8"), ("u8", "s8"), ("s32",), "6.5 sm_75",
    {"shape=m16n8k16|m16n8k32": "7.0 sm_80"}, extra="{.satfinite}")
mma(("m8n8k32", "m16n8k32", "m16n8k64"), ("s32",), ("u4", "s4"), ("u4", "s4"), ("s32",), "6.5 sm_75",
    {"shape=m16n8k32|m16n8k64": "7.0 sm_80"}, extra="{.satfinite}")
F("mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype.bitOp.popc d, a, b, c",
  shape=("m8n8k128", "m16n8k128", "m16n8k256"), dtype=("s32",), atype=("b1",), btype=("b1",), ctype=("s32",),
  bitOp=("xor", "and"), ops=FRAG, since="7.0 sm_75", counts=MC, undefined=UNALIGNED,
  req={"shape=m16n8k128|m16n8k256": "7.0 sm_80", "bitOp=and": "7.1 sm_80"}, **LAY)

# ------------------------------------------------------------------ mma.sp (PTX 7.1, sm_80)
SPV = ("sp", "sp::ordered_metadata")
SPOPS = dict(FRAG, e="ri b32", f="imm u32")
SC = mma_counts(sparse=True)
SPREQ = {"spvariant=sp::ordered_metadata": "8.5 sm_80"}


def mmasp(shapes, dtype, atype, btype, ctype, since, req=None, extra="", spv=SPV, **kw):
    F(f"mma.spvariant.sync.aligned.shape.alayout.blayout{extra}.dtype.atype.btype.ctype d, a, b, c, e, f",
      spvariant=spv, shape=shapes, dtype=dtype, atype=atype, btype=btype, ctype=ctype, ops=SPOPS, since=since,
      req={**SPREQ, **(req or {})}, counts=SC, undefined=UNALIGNED, **LAY, **kw)


mmasp(("m16n8k16", "m16n8k32"), F32F16, ("f16",), ("f16",), F32F16, "7.1 sm_80", check=SAMEDC)
mmasp(("m16n8k16", "m16n8k32"), ("f32",), ("bf16",), ("bf16",), ("f32",), "7.1 sm_80")
mmasp(("m16n8k8", "m16n8k16"), ("f32",), ("tf32",), ("tf32",), ("f32",), "7.1 sm_80")
mmasp(("m16n8k64",), ("f32",), ("e4m3", "e5m2"), ("e4m3", "e5m2"), ("f32",), "8.4 sm_89")
F("mma.spvariant.sync.aligned.shape.alayout.blayout.kind.dtype.atype.btype.ctype d, a, b, c, e, f",
  spvariant=("sp::ordered_metadata",), shape=("m16n8k64",), kind=("kind::f8f6f4",), dtype=F32F16, atype=F8F6F4,
  btype=F8F6F4, ctype=F32F16, ops=SPOPS, since="8.7 sm_120a", counts=SC, undefined=UNALIGNED, check=SAMEDC, **LAY)
BSP = BS.replace("c, scale", "c, e, f, scale")
for shape, kind, svs, opt, at, st in (
        ("m16n8k128", "kind::mxf4", ("scale_vec::2X",), True, ("e2m1",), ("ue8m0",)),
        ("m16n8k128", "kind::mxf4nvf4", ("scale_vec::2X", "scale_vec::4X"), False, ("e2m1",), ("ue8m0", "ue4m3")),
        ("m16n8k64", "kind::mxf8f6f4", ("scale_vec::1X",), True, F8F6F4, ("ue8m0",))):
    sv = "{.scale_vec_size}" if opt else ".scale_vec_size"
    F(f"mma.spvariant.sync.aligned.shape.alayout.blayout.kind.block_scale{sv}.dtype.atype.btype.ctype.stype {BSP}",
      spvariant=("sp::ordered_metadata",), shape=(shape,), kind=(kind,), scale_vec_size=svs, dtype=("f32",),
      atype=at, btype=at, ctype=("f32",), stype=st, ops=dict(BSOPS, e="ri b32", f="imm u32"), since="8.7 sm_120a",
      counts=SC, undefined=UNALIGNED, check=SVS_ST, **LAY)
mmasp(("m16n8k32", "m16n8k64"), ("s32",), ("u8", "s8"), ("u8", "s8"), ("s32",), "7.1 sm_80", extra="{.satfinite}")
mmasp(("m16n8k64", "m16n8k128"), ("s32",), ("u4", "s4"), ("u4", "s4"), ("s32",), "7.1 sm_80", extra="{.satfinite}")

# ------------------------------------------------------------------ ldmatrix / stmatrix / movmatrix
MSS = ("shared", "shared::cta")
F("ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type r, [p]", shape=("m8n8", "m16n16"), num=("x1", "x2", "x4"),
  ss=MSS, type=("b16", "b8"), ops={"r": "vec b32"}, since="6.5 sm_75", undefined=UNALIGNED,
  req={"shape=m16n16": "8.6 sm_100f", "type=b8": "8.6 sm_100f", "ss=shared::cta": "7.8 sm_75"},
  check=[(lambda v: (v["shape"] == "m8n8") == (v["type"] == "b16"), ".m8n8 goes with .b16, .m16n16 with .b8"),
         (lambda v: v["shape"] != "m16n16" or v.get("trans"), ".m16n16 needs .trans"),
         (lambda v: v["shape"] != "m16n16" or v["num"] != "x4", ".m16n16 loads one or two matrices (.x1, .x2)")],
  counts={"r": lambda v: int(v["num"][1:]) * (2 if v["shape"] == "m16n16" else 1)})
F("ldmatrix.sync.aligned.shape.num{.ss}.dst_fmt.src_fmt r, [p]", shape=("m8n16",), num=("x1", "x2", "x4"),
  ss=MSS, dst_fmt=("b8x16",), src_fmt=("b6x16_p32", "b4x16_p64"), ops={"r": "vec b32"}, since="8.6 sm_100f",
  undefined=UNALIGNED, counts={"r": lambda v: int(v["num"][1:])})
F("ldmatrix.sync.aligned.shape.num.trans{.ss}.dst_fmt.src_fmt r, [p]", shape=("m16n16",), num=("x1", "x2"),
  ss=MSS, dst_fmt=("b8x16",), src_fmt=("b6x16_p32", "b4x16_p64"), ops={"r": "vec b32"}, since="8.6 sm_100f",
  undefined=UNALIGNED, counts={"r": lambda v: 2 * int(v["num"][1:])})
F("stmatrix.sync.aligned.shape.num{.trans}{.ss}.type [p], r", shape=("m8n8", "m16n8"), num=("x1", "x2", "x4"),
  ss=MSS, type=("b16", "b8"), ops={"r": "vec b32"}, since="7.8 sm_90", undefined=UNALIGNED,
  req={"shape=m16n8": "8.6 sm_100f", "type=b8": "8.6 sm_100f"},
  check=[(lambda v: (v["shape"] == "m8n8") == (v["type"] == "b16"), ".m8n8 goes with .b16, .m16n8 with .b8"),
         (lambda v: v["shape"] != "m16n8" or v.get("trans"), ".m16n8 needs .trans")],
  counts={"r": lambda v: int(v["num"][1:])})
F("movmatrix.sync.aligned.shape.trans.type d, a", shape=("m8n8",), type=("b16",), ops={"d": "b32", "a": "b32"},
  since="7.8 sm_75", undefined=UNALIGNED)

# ------------------------------------------------------------------ wgmma (PTX 8.0, sm_90a)
WG = "8.0 sm_90a"
F("wgmma.fence.sync.aligned", since=WG)
F("wgmma.commit_group.sync.aligned", since=WG)
F("wgmma.wait_group.sync.aligned N", since=WG)


def _ns(k, ns):
    return tuple(f"m64n{n}k{k}" for n in ns)


N8 = range(8, 257, 8)
NI = (8, 16, 24) + tuple(range(32, 257, 16))
WGOPS = {"d": "vec pack inout", "a-desc": "ri b64 |vec", "scale-d": "pred |imm", "imm-scale-a": "imm s32",
         "imm-scale-b": "imm s32", "imm-trans-a": "imm u32", "imm-trans-b": "imm u32"}


def _wgd(v):
    m, n, k = _mnk(v)
    return n // 4 if v["dtype"] == "f16" else n // 2


def wg(shapes, dtype, atype, btype, trans, sp=False, head="", req=None):
    sps = "sp-meta, sp-sel, " if sp else ""
    tail = ", imm-scale-a, imm-scale-b" if dtype != ("s32",) else ""
    if trans:
        tail += "{, imm-trans-a}, imm-trans-b"  # no imm-trans-a when A is in registers
    ops = {k: v for k, v in WGOPS.items() if k in ("d", "a-desc", "scale-d") or k in tail}
    if sp:
        ops.update({"sp-meta": "ri b32", "sp-sel": "imm u32"})
    F(f"wgmma.mma_async{'.sp' if sp else ''}.sync.aligned.shape{head}.dtype.atype.btype d, a-desc, b-desc, {sps}scale-d{tail}",
      shape=shapes, dtype=dtype, atype=atype, btype=btype, ops=ops, since="8.2 sm_90a" if sp else WG,
      counts={"d": _wgd}, req=req or {}, undefined=UNALIGNED,
      note="a-desc: a shared-memory matrix descriptor, or A in registers {a0, ...} (then no imm-trans-a)")


def _mixed_int(v):
    """mixed .s8/.u8 operands (ptxas 13: PTX ISA 8.4)"""
    return v["atype"] != v["btype"]


for sp in (False, True):
    ks = 2 if sp else 1
    wg(_ns(16 * ks, N8), F32F16, ("f16",), ("f16",), True, sp)
    wg(_ns(16 * ks, N8), ("f32",), ("bf16",), ("bf16",), True, sp)
    wg(_ns(8 * ks, N8), ("f32",), ("tf32",), ("tf32",), False, sp)
    wg(_ns(32 * ks, N8), F32F16, ("e4m3", "e5m2"), ("e4m3", "e5m2"), False, sp)
    wg(_ns(32 * ks, NI), ("s32",), ("s8", "u8"), ("s8", "u8"), False, sp, head="{.satfinite}",
       req={_mixed_int: "8.4 sm_90a"})
F("wgmma.mma_async.sync.aligned.shape.dtype.atype.btype.op.popc d, a-desc, b-desc, scale-d", shape=_ns(256, NI),
  dtype=("s32",), atype=("b1",), btype=("b1",), op=("and",), since=WG, counts={"d": _wgd},
  ops={k: WGOPS[k] for k in ("d", "a-desc", "scale-d")}, undefined=UNALIGNED)

# ------------------------------------------------------------------ tcgen05 (PTX 8.6, sm_100a)
TC = "8.6 sm_100f"  # sm_100a in PTX 8.6; family-specific (sm_100f) since PTX 8.8
CG = ("cta_group::1", "cta_group::2")
F("tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols", cta_group=CG, since=TC)
F("tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols", cta_group=CG, since=TC, nodst=True)
F("tcgen05.relinquish_alloc_permit.cta_group.sync.aligned", cta_group=CG, since=TC)
F("tcgen05.commit.cta_group.completion_mechanism{.shared::cluster}{.multicast}.b64 [mbar]{, ctaMask}",
  cta_group=CG, completion_mechanism=("mbarrier::arrive::one",), multicast=("multicast::cluster",), since=TC,
  orule=[(lambda v, ops: ("ctaMask" in ops) == bool(v.get("multicast")), "ctaMask goes with .multicast::cluster")])
F("tcgen05.cp.cta_group.shape{.multicast}{.dst_src_fmt} [taddr], s-desc", cta_group=CG,
  shape=("128x256b", "4x256b", "128x128b", "64x128b", "32x128b"),
  multicast=("warpx2::02_13", "warpx2::01_23", "warpx4"), dst_src_fmt=("b8x16.b6x16_p32", "b8x16.b4x16_p64"),
  ops={"s-desc": "ri b64"}, since=TC,
  check=[(lambda v: (v["shape"] == "64x128b") == (v.get("multicast") in ("warpx2::02_13", "warpx2::01_23"))
          and (v["shape"] == "32x128b") == (v.get("multicast") == "warpx4"),
          ".64x128b needs .warpx2::02_13 or .warpx2::01_23, .32x128b needs .warpx4, other shapes no multicast")])
F("tcgen05.shift.cta_group.down [taddr]", cta_group=CG, since="8.6 sm_100a")  # arch-specific (ptxas 13)
F("tcgen05.fence", fence=("fence::before_thread_sync", "fence::after_thread_sync"), since=TC, semkey="tcgen05.fence")
F("tcgen05.wait_operation.sync.aligned", wait_operation=("wait::ld", "wait::st"), since=TC)
NUM = ("x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128")
_PER = {"16x64b": 1, "16x128b": 2, "16x256b": 4, "32x32b": 1, "16x32bx2": 1}


def _tcount(v):
    return _PER[v["shape"]] * int(v["num"][1:])


TCOUNT = [(lambda v: _tcount(v) <= 128, "at most 128 registers per thread (shape times .num)")]


F("tcgen05.ld.sync.aligned.shape.num{.pack}.b32 r, [taddr]", shape=("16x64b", "16x128b", "16x256b", "32x32b"),
  num=NUM, pack=("pack::16b",), ops={"r": "vec"}, since=TC, counts={"r": _tcount}, check=TCOUNT)
F("tcgen05.ld.sync.aligned.shape.num{.pack}.b32 r, [taddr], immHalfSplitoff", shape=("16x32bx2",), num=NUM,
  pack=("pack::16b",), ops={"r": "vec"}, since=TC, counts={"r": _tcount}, check=TCOUNT)
for shape, extra in (("32x32b", ""), ("16x32bx2", ", immHalfSplitoff")):
    F(f"tcgen05.ld.red.sync.aligned.shape.num.redOp{{.abs}}{{.NaN}}.type r, redval, [taddr]{extra}",
      shape=(shape,), num=NUM, redOp=("min", "max"), type=("f32",), ops={"r": "vec", "redval": "out reg"},
      since="8.8 sm_101f", counts={"r": _tcount}, check=TCOUNT)
    F(f"tcgen05.ld.red.sync.aligned.shape.num.redOp.type r, redval, [taddr]{extra}",
      shape=(shape,), num=NUM, redOp=("min", "max"), type=("u32", "s32"), ops={"r": "vec", "redval": "out reg"},
      since="8.8 sm_101f", counts={"r": _tcount}, check=TCOUNT)
F("tcgen05.st.sync.aligned.shape.num{.unpack}.b32 [taddr], r", shape=("16x64b", "16x128b", "16x256b", "32x32b"),
  num=NUM, unpack=("unpack::16b",), ops={"r": "vec"}, since=TC, counts={"r": _tcount}, check=TCOUNT)
F("tcgen05.st.sync.aligned.shape.num{.unpack}.b32 [taddr], immHalfSplitoff, r", shape=("16x32bx2",), num=NUM,
  unpack=("unpack::16b",), ops={"r": "vec"}, since=TC, counts={"r": _tcount}, check=TCOUNT)

OPS_A = ("fill", "use", "lastuse", "discard")
COLL_A = tuple(f"collector::a::{o}" for o in OPS_A)
COLL_B = tuple(f"collector::{b}::{o}" for b in ("b0", "b1", "b2", "b3") for o in OPS_A)
KF = ("kind::f16", "kind::tf32", "kind::f8f6f4")
KB = ("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4")
SVS = ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32")
ASH = [(lambda v: not v.get("ashift") or v.get("collector_usage") not in ("collector::a::fill", "collector::a::use"),
        ".ashift cannot be combined with .collector::a::fill or .collector::a::use")]


def _mxf4_block32(v):
    """.kind::mxf4 without .scale_vectorsize (the default .block32)"""
    return v["kind"] == "kind::mxf4" and not v.get("scale_vectorsize")


NVF4 = [(lambda v: v["kind"] != "kind::mxf4nvf4" or v.get("scale_vectorsize") not in (None, "scale_vec::1X"),
         ".kind::mxf4nvf4 needs a .scale_vectorsize other than .scale_vec::1X"),
        (lambda v: v["kind"] != "kind::mxf4" or v.get("scale_vectorsize") != "scale_vec::1X",
         ".kind::mxf4 cannot take .scale_vec::1X")]


def _nvf4_vec(v):
    """.kind::mxf4nvf4 with .scale_vec::2X/.scale_vec::4X"""
    return v["kind"] == "kind::mxf4nvf4" and v.get("scale_vectorsize") in ("scale_vec::2X", "scale_vec::4X")
TOPS = {"d-tmem": "addr b32", "a-desc": "ri b64 |addr", "disable-output-lane": "vec b32 opt",
        "scale-input-d": "imm u32"}
for sp in ("", ".sp"):
    spm = " [sp-meta-tmem]," if sp else ""
    F(f"tcgen05.mma{sp}.cta_group.kind{{.ashift}}{{.collector_usage}} [d-tmem], a-desc, b-desc,{spm} idesc"
      "{, disable-output-lane}, enable-input-d{, scale-input-d}", cta_group=CG, kind=KF, collector_usage=COLL_A,
      ops=TOPS, since=TC, check=ASH, note=".ashift needs A in tensor memory ([a-tmem])")
    F(f"tcgen05.mma{sp}.cta_group.kind.block_scale{{.scale_vectorsize}}{{.collector_usage}} [d-tmem], a-desc,"
      f" b-desc,{spm} idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d", cta_group=CG, kind=KB,
      scale_vectorsize=SVS, collector_usage=COLL_A, ops={k: TOPS[k] for k in ("d-tmem", "a-desc")}, since=TC,
      req={"scale_vectorsize=block16|block32": "8.8 sm_100f", _mxf4_block32: "8.8 sm_100f",
           _nvf4_vec: "8.7 sm_100a", **({"kind=kind::mxf4|kind::mxf4nvf4": "8.6 sm_100a"} if sp else {})},
      check=NVF4)
    F(f"tcgen05.mma{sp}.cta_group.kind::i8{{.ashift}}{{.collector_usage}} [d-tmem], a-desc, b-desc,{spm} idesc"
      "{, disable-output-lane}, enable-input-d", cta_group=CG, collector_usage=COLL_A,
      ops={k: TOPS[k] for k in ("d-tmem", "a-desc", "disable-output-lane")}, since="8.6 sm_100a", check=ASH)
    F(f"tcgen05.mma.ws{sp}.cta_group::1.kind{{.collector_usage}} [d-tmem], a-desc, b-desc,{spm} idesc, "
      "enable-input-d{, zero-column-mask-desc}", kind=KF, collector_usage=COLL_B,
      ops={k: TOPS[k] for k in ("d-tmem", "a-desc")}, since=TC)
    F(f"tcgen05.mma.ws{sp}.cta_group::1.kind::i8{{.collector_usage}} [d-tmem], a-desc, b-desc,{spm} idesc, "
      "enable-input-d{, zero-column-mask-desc}", collector_usage=COLL_B,
      ops={k: TOPS[k] for k in ("d-tmem", "a-desc")}, since="8.6 sm_100a")
