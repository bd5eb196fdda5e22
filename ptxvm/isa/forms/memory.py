"""ISA 9.7.9 Data movement: loads, stores, prefetches, cache policies, address-space conversions,
and the stack / multimem operations."""
from ..table import builder
from ..types import LDST, TYPES

S = {
    "level1::eviction_priority": ("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
                                  "L1::no_allocate"),
    "level2::eviction_priority": ("L2::evict_normal", "L2::evict_first", "L2::evict_last"),
    "level::cache_hint": ("L2::cache_hint",),
    "level::prefetch_size": ("L2::64B", "L2::128B", "L2::256B"),
    "scope": ("cta", "cluster", "gpu", "sys"),
    "vec": ("v2", "v4", "v8"),
    "type": LDST,
}
F = builder("memory", slots=S)

LD_SS = ("const", "global", "local", "param::entry", "param::func", "param", "shared", "shared::cta",
         "shared::cluster")
ST_SS = ("global", "local", "param", "param::func", "shared", "shared::cta", "shared::cluster")


def _bits(t):
    return TYPES[t].bits if t in TYPES else 32


def _vec_ok(v, limit=256):
    """A vector access moves at most 128 bits; the 256-bit accesses (.v8 of 32-bit types, .v4 of
    64-bit types; PTX 8.8, sm_100) exist for ld/st only. .b128 is scalar only."""
    vec, t = v.get("vec"), v.get("type")
    if not vec:
        return True
    if t == "b128":
        return False
    n, bits = int(vec[1:]), _bits(t)
    if n * bits <= 128:
        return True
    return limit >= 256 and n * bits == 256 and bits >= 32


def _global_only(v):
    """Cache hints, eviction priorities and prefetch sizes: .global or generic addresses only."""
    if v.get("ss") in (None, "global"):
        return True
    return not any(v.get(k) for k in ("level::cache_hint", "level1::eviction_priority", "level2::eviction_priority",
                                        "level::prefetch_size"))


def _l2_evict_ok(v):
    """.level2::eviction_priority goes with the 256-bit accesses only (ptxas 13)."""
    if not v.get("level2::eviction_priority"):
        return True
    vec, t = v.get("vec"), v.get("type")
    return vec is not None and int(vec[1:]) * _bits(t) == 256


def _wide_req(v):
    """256-bit vector access"""
    vec, t = v.get("vec"), v.get("type")
    return vec is not None and int(vec[1:]) * _bits(t) == 256


CP = [(lambda v, ops: ("cache-policy" in ops) == bool(v.get("level::cache_hint")),
       "the cache-policy operand goes with .L2::cache_hint (both or neither)")]
VECCHK = [(_vec_ok, "vector width times element size must be at most 128 bits (256 bits for .v8 of 32-bit "
           "types and .v4 of 64-bit types)"),
          (_global_only, "cache hints, eviction priorities and prefetch sizes need .global (or a generic address)"),
          (_l2_evict_ok, ".level2::eviction_priority needs a 256-bit access (.v8 of 32-bit or .v4 of 64-bit types)")]
VEC128 = [(lambda v: _vec_ok(v, 128), "vector width times element size must be at most 128 bits"),
          (_global_only, "prefetch sizes need .global (or a generic address)")]
LDREQ = {
    "level::cache_hint": "7.4 sm_80",
    "level::prefetch_size": "7.4 sm_75",
    "level::prefetch_size=L2::256B": "7.4 sm_80",
    "level1::eviction_priority": "7.4 sm_70",
    "level2::eviction_priority": "8.8 sm_100",
    "type=b128": "8.3 sm_70",
    _wide_req: "8.8 sm_100",
    "scope=cluster": "7.8 sm_90",
    "ss=shared::cta": "7.8 sm_30",
    "ss=shared::cluster": "7.8 sm_90",
    "ss=param::entry|param::func": "8.3",
}


def _req(*keys, **extra):
    out = {k: v for k, v in LDREQ.items() if callable(k) or k.split("=")[0] in keys}
    out.update(extra)
    return out


# ---------------------------------------------------------------- ld
F("ld{.weak}{.ss}{.cop}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}"
  "{.level::prefetch_size}{.vec}.type d, [a]{.unified}{, cache-policy}",
  ss=LD_SS, cop=("ca", "cg", "cs", "lu", "cv"), relaxed=True, since="1.0",
  excl=[("cop", "level1::eviction_priority"), ("cop", "level2::eviction_priority")], check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level::prefetch_size", "level1::eviction_priority",
           "level2::eviction_priority", "type", "vec", "ss", cop="2.0 sm_20", **{".weak": "6.0 sm_70",
           "operand:unified": "8.7"}),
  note=".weak is the default; .unified and .L2::cache_hint only for .global or generic addresses")
# .volatile: global and shared memory (and generic addresses); .local from PTX 9.1; never .const
# or .param (ptxas 13.5: "Modifier '.volatile' cannot be applied to '.param' space")
VOLATILE_SS = ("global", "local", "shared", "shared::cta", "shared::cluster")
F("ld.volatile{.ss}{.level::prefetch_size}{.vec}.type d, [a]", ss=VOLATILE_SS, relaxed=True, since="1.1",
  check=VEC128, req=_req("level::prefetch_size", "type", "vec", "ss", **{"ss=local": "9.1"}))
F("ld.sem.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}"
  "{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy}",
  sem=("relaxed", "acquire"), ss=LD_SS, relaxed=True, since="6.0 sm_70", check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level::prefetch_size", "level1::eviction_priority", "level2::eviction_priority",
           "type", "vec", "scope", "ss"))
F("ld.mmio.relaxed.sys{.global}.type d, [a]", relaxed=True, since="8.2 sm_70")
F("ld.global{.cop}.nc{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}"
  "{.level::prefetch_size}{.vec}.type d, [a]{, cache-policy}", cop=("ca", "cg", "cs"), relaxed=True,
  since="3.1 sm_32", excl=[("cop", "level1::eviction_priority"), ("cop", "level2::eviction_priority")],
  check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level::prefetch_size", "level1::eviction_priority", "level2::eviction_priority",
           "type", "vec"))
# PTX 9.4 (sm_90): a (weak) or .nc load from global memory through the read-only proxy; ptxas 13.5
# takes it without .weak written, cache operators, eviction priorities, .volatile, .relaxed/.acquire, .shared
F("ld{.ss}.proxy::readonly{.vec}.type d, [a]", ss=("global",), relaxed=True, since="9.4 sm_90",
  check=VEC128)
F("ld.global.nc.proxy::readonly{.vec}.type d, [a]", relaxed=True, since="9.4 sm_90", check=VEC128)
F("ldu{.ss}{.vec}.type d, [a]", ss=("global",), vec=("v2", "v4"), relaxed=True, since="2.0 sm_20",
  check=VEC128, req=_req("type"))

# ---------------------------------------------------------------- st
F("st{.weak}{.ss}{.cop}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.vec}.type"
  " [a], b{, cache-policy}", ss=ST_SS, cop=("wb", "cg", "cs", "wt"), relaxed=True, since="1.0",
  excl=[("cop", "level1::eviction_priority"), ("cop", "level2::eviction_priority")], check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level1::eviction_priority", "level2::eviction_priority", "type", "vec", "ss",
           cop="2.0 sm_20", **{".weak": "6.0 sm_70"}))
F("st.volatile{.ss}{.vec}.type [a], b", ss=VOLATILE_SS, relaxed=True, since="1.1", check=VEC128,
  req=_req("type", "vec", "ss", **{"ss=local": "9.1"}))
F("st.sem.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.vec}.type"
  " [a], b{, cache-policy}", sem=("relaxed", "release"), ss=ST_SS, relaxed=True, since="6.0 sm_70",
  check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level1::eviction_priority", "level2::eviction_priority", "type", "vec",
           "scope", "ss"))
F("st.mmio.relaxed.sys{.global}.type [a], b", relaxed=True, since="8.2 sm_70")
F("st.async{.sem}{.scope}{.ss}{.completion_mechanism}{.vec}.type [a], b, [mbar]", sem=("weak",),
  scope=("cluster",), ss=("shared::cluster",), completion_mechanism=("mbarrier::complete_tx::bytes",),
  vec=("v2", "v4"), type=("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"), since="8.1 sm_90",
  check=VEC128 + [(lambda v: v.get("completion_mechanism") or not (v.get("sem") or v.get("scope") or v.get("ss")),
                   ".weak, .cluster and .shared::cluster need .mbarrier::complete_tx::bytes")],
  excl=[("sem", "scope")], family="async")
F("st.async{.mmio}.sem.scope{.ss}.type [a], b", sem=("release",), scope=("gpu", "sys"), ss=("global",),
  type=("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"),
  since="8.7 sm_100", family="async",
  check=[(lambda v: not v.get("mmio") or v["scope"] == "sys", ".mmio goes with .sys (ptxas 13.5)")])
F("st.bulk{.weak}{.shared::cta} [a], size, initval", ops={"size": "ri u64", "initval": "imm b64"},
  since="8.6 sm_100", note="initval must be 0")

# ---------------------------------------------------------------- prefetch, cache policy
F("prefetch{.space}.level [a]", space=("global", "local"), level=("L1", "L2"), since="2.0 sm_20")
F("prefetch.global.level::eviction_priority [a]", **{"level::eviction_priority": ("L2::evict_last",
  "L2::evict_normal")}, since="7.4 sm_80")
F("prefetchu.L1 [a]", since="2.0 sm_20")
F("prefetch{.tensormap_space}.tensormap [a]", tensormap_space=("const", "param"), since="8.0 sm_90")
F("applypriority{.global}.level::eviction_priority [a], size", **{"level::eviction_priority": ("L2::evict_normal",)},
  ops={"size": "imm u64"}, since="7.4 sm_80", note="size must be 128")
F("applypriority.async.bulk.global.bulk_group.level::eviction_priority [a], size",
  **{"level::eviction_priority": ("L2::evict_normal",)}, ops={"size": "ri u32"}, since="9.4 sm_107f",
  note="ptxas 13.5 takes it on sm_107a/f only")
F("discard{.global}.level [a], size", level=("L2",), ops={"size": "imm u64"}, since="7.4 sm_80",
  note="size must be 128; the line's contents become undefined", undefined="memory contents after discard")
PRI = {"level::primary_priority": ("L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"),
       "level::secondary_priority": ("L2::evict_first", "L2::evict_unchanged")}
F("createpolicy.range{.global}.level::primary_priority{.level::secondary_priority}.b64 cache-policy, [a], "
  "primary-size, total-size", slots=PRI, ops={"cache-policy": "out", "primary-size": "ri u32",
  "total-size": "ri u32"}, since="7.4 sm_80")
F("createpolicy.fractional.level::primary_priority{.level::secondary_priority}.b64 cache-policy{, fraction}",
  slots=PRI, ops={"cache-policy": "out", "fraction": "ri f32"}, since="7.4 sm_80")
F("createpolicy.cvt.L2.b64 cache-policy, access-property", ops={"cache-policy": "out", "access-property": "reg b64"},
  since="7.4 sm_80")

# ---------------------------------------------------------------- address spaces
SPACE = ("const", "global", "local", "shared", "shared::cta", "shared::cluster", "param", "param::entry")
SPREQ = {"space=shared::cta": "7.8 sm_30", "space=shared::cluster": "7.8 sm_90", "space=param": "7.7 sm_70",
         "space=param::entry": "8.3 sm_70"}
F("isspacep.space p, a", space=SPACE, ops={"p": "pred", "a": "ptr"}, since="2.0 sm_20", req=SPREQ)
F("cvta.space.size p, a", space=SPACE, size=("u32", "u64"), since="2.0 sm_20", req=SPREQ,
  note="a may be a register, or a variable's name (+ offset) of that space")
F("cvta.to.space.size p, a", space=SPACE, size=("u32", "u64"), since="2.0 sm_20", req=SPREQ)
F("mapa{.space}.type d, a, b", space=("shared::cluster",), type=("u32", "u64"), ops={"b": "u32"}, since="7.8 sm_90")
F("getctarank{.space}.type d, a", space=("shared::cluster",), type=("u32", "u64"), ops={"d": "u32"},
  since="7.8 sm_90")

# ---------------------------------------------------------------- stack (ISA 9.7.20)
F("alloca.type ptr, size{, immAlign}", type=("u32", "u64"), ops={"size": "ri =type"}, since="7.3 sm_52")
F("stacksave.type d", type=("u32", "u64"), since="7.3 sm_52")
F("stackrestore.type a", type=("u32", "u64"), ops={"a": "reg"}, since="7.3 sm_52")

# ---------------------------------------------------------------- multimem (ISA 9.7.9.x, PTX 8.1)
MM = dict(ss=("global",), scope=("cta", "cluster", "gpu", "sys"))
INTT = ("b32", "b64", "u32", "u64", "s32", "s64")
FLT = ("f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "e5m2", "e5m2x2", "e5m2x4", "e4m3", "e4m3x2", "e4m3x4")
FLTR = ("f16", "f16x2", "bf16", "bf16x2", "f32", "f64")
FP8 = "type=e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4"


def _mm_int_op(v):
    op, t = v.get("op"), v.get("type")
    if op in ("and", "or", "xor"):
        return t in ("b32", "b64")
    if op == "add":
        return t in ("u32", "u64", "s32")
    return t in ("u32", "u64", "s32", "s64")


MMSEM = [(lambda v: bool(v.get("ldsem") or v.get("stsem") or v.get("redsem")) == bool(v.get("scope")),
          "the memory-ordering qualifier and .scope go together (both or neither)")]
MMI = [(_mm_int_op, ".and/.or/.xor need .b32/.b64; .add needs .u32/.s32/.u64; .min/.max an integer type")] + MMSEM
ACC = [(lambda v: v.get("acc_prec") != "acc::f16" or v.get("type", "")[:2] == "e4" or v.get("type", "")[:2] == "e5",
        ".acc::f16 goes with the fp8 types (.e4m3*, .e5m2*)")]
MMV = [(lambda v: not v.get("vec") or (int(v["vec"][1:]) * _bits(v.get("type") or v.get("redtype")) <= 128
                                        and (v.get("type") or v.get("redtype")) != "f64"),
        "vector width times element size must be at most 128 bits (and no vectors of .f64)")] + MMSEM
F("multimem.ld_reduce{.ldsem}{.scope}{.ss}.op.type d, [a]", ldsem=("relaxed", "acquire"),
  op=("min", "max", "add", "and", "or", "xor"), type=INTT, since="8.1 sm_90", check=MMI, **MM)
F("multimem.ld_reduce.weak{.ss}.op.type d, [a]", op=("min", "max", "add", "and", "or", "xor"), type=INTT,
  since="8.1 sm_90", check=MMI, ss=("global",))
F("multimem.st{.stsem}{.scope}{.ss}.type [a], b", stsem=("relaxed", "release"), type=INTT, since="8.1 sm_90",
  check=MMSEM, **MM)
F("multimem.st.weak{.ss}.type [a], b", type=INTT, since="8.1 sm_90", ss=("global",))
F("multimem.red{.redsem}{.scope}{.ss}.op.type [a], b", redsem=("relaxed", "release"),
  op=("min", "max", "add", "and", "or", "xor"), type=INTT, since="8.1 sm_90", check=MMI, **MM)
F("multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a]", ldsem=("relaxed", "acquire"),
  op=("min", "max", "add"), acc_prec=("acc::f32", "acc::f16"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100f", "acc_prec=acc::f16": "8.6 sm_100f"}, check=MMV + ACC, **MM)
F("multimem.ld_reduce.weak{.ss}.op{.acc_prec}{.vec}.type d, [a]", op=("min", "max", "add"),
  acc_prec=("acc::f32", "acc::f16"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100f", "acc_prec=acc::f16": "8.6 sm_100f"}, check=MMV + ACC, ss=("global",))
F("multimem.st{.stsem}{.scope}{.ss}{.vec}.type [a], b", stsem=("relaxed", "release"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100f"}, check=MMV, **MM)
F("multimem.st.weak{.ss}{.vec}.type [a], b", type=FLT, since="8.1 sm_90", req={FP8: "8.6 sm_100f"},
  check=MMV, ss=("global",))
F("multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype [a], b", redsem=("relaxed", "release"), redop=("add",),
  redtype=FLTR, since="8.1 sm_90", ops={"b": "=redtype"}, check=MMV, **MM)
