"""ISA 9.7.9 Data movement: loads, stores, prefetches, cache policies, address-space conversions,
and the stack / multimem operations."""
from ..table import builder
from ..types import LDST

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


def _vec_ok(v):
    """.v8 only with 32-bit types, .v4 of 64-bit types and .v8 are the 256-bit (sm_100) accesses;
    .b128 only as a scalar, .v2 or .v4 (up to 512 bits? no: .v2/.v4 .b128 is not allowed)."""
    vec, t = v.get("vec"), v.get("type")
    if not vec:
        return True
    bits = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "b128": 128}.get(t, 64 if t and t[1:] == "64" else 32)
    if t == "b128":
        return False
    n = int(vec[1:])
    return n * bits <= 256 and (n * bits <= 128 or bits >= 32)


def _wide_req(v):
    vec, t = v.get("vec"), v.get("type")
    return vec == "v8" or (vec == "v4" and t is not None and t.endswith("64"))


CP = [(lambda v, ops: ("cache-policy" in ops) == bool(v.get("level::cache_hint")),
       "the cache-policy operand goes with .L2::cache_hint (both or neither)")]
VECCHK = [(_vec_ok, "vector width times element size must be at most 128 bits (256 bits for .v8 of 32-bit "
           "types and .v4 of 64-bit types)")]
LDREQ = {
    "level::cache_hint": "7.4 sm_80",
    "level::prefetch_size": "7.4 sm_75",
    "level::prefetch_size=L2::256B": "7.4 sm_80",
    "level1::eviction_priority": "7.4 sm_70",
    "level2::eviction_priority": "8.8 sm_100",
    "type=b128": "8.3 sm_70",
    "vec=v8": "8.8 sm_100",
    "scope=cluster": "7.8 sm_90",
    "ss=shared::cta": "7.8 sm_30",
    "ss=shared::cluster": "7.8 sm_90",
    "ss=param::entry|param::func": "8.3",
}


def _req(*keys, **extra):
    out = {k: v for k, v in LDREQ.items() if k.split("=")[0] in keys}
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
F("ld.volatile{.ss}{.level::prefetch_size}{.vec}.type d, [a]", ss=LD_SS, relaxed=True, since="1.1",
  check=VECCHK, req=_req("level::prefetch_size", "type", "vec", "ss"))
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
F("ldu{.ss}{.vec}.type d, [a]", ss=("global",), vec=("v2", "v4"), relaxed=True, since="2.0 sm_20",
  check=VECCHK, req=_req("type"))

# ---------------------------------------------------------------- st
F("st{.weak}{.ss}{.cop}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.vec}.type"
  " [a], b{, cache-policy}", ss=ST_SS, cop=("wb", "cg", "cs", "wt"), relaxed=True, since="1.0",
  excl=[("cop", "level1::eviction_priority"), ("cop", "level2::eviction_priority")], check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level1::eviction_priority", "level2::eviction_priority", "type", "vec", "ss",
           cop="2.0 sm_20", **{".weak": "6.0 sm_70"}))
F("st.volatile{.ss}{.vec}.type [a], b", ss=ST_SS, relaxed=True, since="1.1", check=VECCHK,
  req=_req("type", "vec", "ss"))
F("st.sem.scope{.ss}{.level1::eviction_priority}{.level2::eviction_priority}{.level::cache_hint}{.vec}.type"
  " [a], b{, cache-policy}", sem=("relaxed", "release"), ss=ST_SS, relaxed=True, since="6.0 sm_70",
  check=VECCHK, orule=CP,
  req=_req("level::cache_hint", "level1::eviction_priority", "level2::eviction_priority", "type", "vec",
           "scope", "ss"))
F("st.mmio.relaxed.sys{.global}.type [a], b", relaxed=True, since="8.2 sm_70")
F("st.async{.sem}{.scope}{.ss}{.completion_mechanism}{.vec}.type [a], b, [mbar]", sem=("weak",),
  scope=("cluster",), ss=("shared::cluster",), completion_mechanism=("mbarrier::complete_tx::bytes",),
  vec=("v2", "v4"), type=("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64"), since="8.1 sm_90",
  check=VECCHK, family="async")
F("st.async{.mmio}.sem.scope{.ss}.type [a], b", sem=("release",), scope=("gpu", "sys"), ss=("global",),
  type=("b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f32", "f64"),
  since="8.7 sm_90", family="async")
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
        return t in ("u32", "u64", "s32", "s64")
    return t in ("u32", "u64", "s32", "s64")


MMI = [(_mm_int_op, ".and/.or/.xor need .b32/.b64; .add/.min/.max need an integer type")]
F("multimem.ld_reduce{.ldsem}{.scope}{.ss}.op.type d, [a]", ldsem=("relaxed", "acquire"),
  op=("min", "max", "add", "and", "or", "xor"), type=INTT, since="8.1 sm_90", check=MMI, **MM)
F("multimem.ld_reduce.weak{.ss}.op.type d, [a]", op=("min", "max", "add", "and", "or", "xor"), type=INTT,
  since="8.1 sm_90", check=MMI, ss=("global",))
F("multimem.st{.stsem}{.scope}{.ss}.type [a], b", stsem=("relaxed", "release"), type=INTT, since="8.1 sm_90", **MM)
F("multimem.st.weak{.ss}.type [a], b", type=INTT, since="8.1 sm_90", ss=("global",))
F("multimem.red{.redsem}{.scope}{.ss}.op.type [a], b", redsem=("relaxed", "release"),
  op=("min", "max", "add", "and", "or", "xor"), type=INTT, since="8.1 sm_90", check=MMI, **MM)
F("multimem.ld_reduce{.ldsem}{.scope}{.ss}.op{.acc_prec}{.vec}.type d, [a]", ldsem=("relaxed", "acquire"),
  op=("min", "max", "add"), acc_prec=("acc::f32", "acc::f16"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100a", "acc_prec=acc::f16": "8.6 sm_100a"}, **MM)
F("multimem.ld_reduce.weak{.ss}.op{.acc_prec}{.vec}.type d, [a]", op=("min", "max", "add"),
  acc_prec=("acc::f32", "acc::f16"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100a", "acc_prec=acc::f16": "8.6 sm_100a"}, ss=("global",))
F("multimem.st{.stsem}{.scope}{.ss}{.vec}.type [a], b", stsem=("relaxed", "release"), type=FLT, since="8.1 sm_90",
  req={FP8: "8.6 sm_100a"}, **MM)
F("multimem.st.weak{.ss}{.vec}.type [a], b", type=FLT, since="8.1 sm_90", req={FP8: "8.6 sm_100a"},
  ss=("global",))
F("multimem.red{.redsem}{.scope}{.ss}.redop{.vec}.redtype [a], b", redsem=("relaxed", "release"), redop=("add",),
  redtype=FLTR, since="8.1 sm_90", ops={"b": "=redtype"}, **MM)
