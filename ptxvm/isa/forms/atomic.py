"""ISA 9.7.13 atom, red, red.async: atomic read-modify-write and reductions."""
from ..table import builder

S = {
    "sem": ("relaxed", "acquire", "release", "acq_rel"),
    "scope": ("cta", "cluster", "gpu", "sys"),
    "space": ("global", "shared", "shared::cta", "shared::cluster"),
    "level::cache_hint": ("L2::cache_hint",),
}
F = builder("atomic", slots=S)

T = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")
CP = [(lambda v, ops: ("cache-policy" in ops) == bool(v.get("level::cache_hint")),
       "the cache-policy operand goes with .L2::cache_hint (both or neither)")]
REQ = {"sem": "6.0 sm_70", "scope": "5.0 sm_60", "scope=cluster": "7.8 sm_90", "space=shared::cta": "7.8 sm_30",
       "space=shared::cluster": "7.8 sm_90", "level::cache_hint": "7.4 sm_80"}
OPT = {
    "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64"), "exch": ("b32", "b64"), "cas": ("b32", "b64"),
    "add": ("u32", "u64", "s32", "f32", "f64"), "inc": ("u32",), "dec": ("u32",),
    "min": ("u32", "u64", "s32", "s64"), "max": ("u32", "u64", "s32", "s64"),
}
OPCHK = [(lambda v: v.get("type") in OPT.get(v.get("op"), ()), "this operation does not take this type")]
HINT = [(lambda v: not v.get("level::cache_hint") or v.get("space") in (None, "global"),
         ".L2::cache_hint needs .global (or a generic address)")]
OPCHK = OPCHK + HINT


def _r(extra=None, **kw):
    out = dict(REQ)
    out.update(extra or {})
    out.update(kw)
    return out


ATOM_REQ = _r({"type=f32": "2.0 sm_20", "type=f64": "5.0 sm_60", "type=u64|s64|b64": "1.2 sm_12"})
F("atom{.sem}{.scope}{.space}.op{.level::cache_hint}.type d, [a], b{, cache-policy}",
  op=("and", "or", "xor", "exch", "add", "inc", "dec", "min", "max"), type=T, since="1.1", check=OPCHK,
  orule=CP, req=ATOM_REQ, ops={"d": "sink"})
F("atom{.sem}{.scope}{.space}.cas.type d, [a], b, c", type=("b32", "b64"), since="1.1", req=ATOM_REQ,
  ops={"d": "sink"})
F("atom{.sem}{.scope}{.space}.cas.type d, [a], b, c", type=("b16",), since="6.3 sm_70", req=REQ, ops={"d": "sink"})
F("atom{.sem}{.scope}{.space}.cas.type d, [a], b, c", type=("b128",), since="8.3 sm_90", ops={"d": "sink"},
  req=_r({"scope=sys": "8.4 sm_90"}))
F("atom{.sem}{.scope}{.space}.exch{.level::cache_hint}.type d, [a], b{, cache-policy}", type=("b128",),
  since="8.3 sm_90", req=_r({"scope=sys": "8.4 sm_90"}), orule=CP, ops={"d": "sink"}, check=HINT)
F("atom{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type d, [a], b{, cache-policy}",
  type=("f16", "f16x2", "bf16", "bf16x2"), since="6.3 sm_70", orule=CP, ops={"d": "sink"}, check=HINT,
  req=_r({"type=f16x2": "6.5 sm_60", "type=bf16|bf16x2": "7.8 sm_90"}))
V = {"sem": S["sem"], "scope": S["scope"]}
F("atom{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.type d, [a], b{, cache-policy}",
  vec_32_bit=("v2", "v4"), type=("f32",), slots=V, ops={"b": "vec=vec_32_bit"}, since="8.1 sm_90", orule=CP)
F("atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type d, [a], b{, cache-policy}",
  op=("add", "min", "max"), vec_16_bit=("v2", "v4", "v8"), half_word_type=("f16", "bf16"), slots=V,
  ops={"b": "vec=vec_16_bit"}, since="8.1 sm_90", orule=CP)
F("atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type d, [a], b{, cache-policy}",
  op=("add", "min", "max"), vec_32_bit=("v2", "v4"), packed_type=("f16x2", "bf16x2"), slots=V,
  ops={"b": "vec=vec_32_bit"}, since="8.1 sm_90", orule=CP)

# red: like atom without the result (the ISA 9.0 syntax lists .op before .space; nvcc writes
# red.global.add.u32 and red.relaxed.gpu.global.add.u32, the order kept here; ptxas takes both)
RS = {"sem": ("relaxed", "release"), "scope": S["scope"]}
RREQ = _r({"type=f32": "2.0 sm_20", "type=f64": "5.0 sm_60"})
F("red{.sem}{.scope}{.space}.op{.level::cache_hint}.type [a], b{, cache-policy}", slots=RS,
  op=("and", "or", "xor", "add", "inc", "dec", "min", "max"), type=T, since="1.2", check=OPCHK, orule=CP,
  req=RREQ)
F("red{.sem}{.scope}{.space}.add.noftz{.level::cache_hint}.type [a], b{, cache-policy}", slots=RS,
  type=("f16", "f16x2", "bf16", "bf16x2"), since="6.3 sm_70", orule=CP, check=HINT,
  req=_r({"type=f16x2": "6.5 sm_60", "type=bf16|bf16x2": "7.8 sm_90"}))
F("red{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.type [a], b{, cache-policy}", slots=RS,
  vec_32_bit=("v2", "v4"), type=("f32",), since="8.1 sm_90", orule=CP)
F("red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type [a], b{, cache-policy}",
  slots=RS, op=("add", "min", "max"), vec_16_bit=("v2", "v4", "v8"), half_word_type=("f16", "bf16"),
  since="8.1 sm_90", orule=CP)
F("red{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type [a], b{, cache-policy}",
  slots=RS, op=("add", "min", "max"), vec_32_bit=("v2", "v4"), packed_type=("f16x2", "bf16x2"),
  since="8.1 sm_90", orule=CP)

# red.async: a reduction on another CTA's shared memory, completing on an mbarrier (PTX 8.1 sm_90)
RA = {"sem": ("relaxed",), "scope": ("cluster",), "ss": ("shared::cluster",),
      "completion_mechanism": ("mbarrier::complete_tx::bytes",)}
for ops_, types in ((("inc", "dec"), ("u32",)), (("min", "max"), ("u32", "s32")), (("and", "or", "xor"), ("b32",))):
    F("red.async.sem.scope{.ss}.completion_mechanism.op.type [a], b, [mbar]", slots=RA, op=ops_, type=types,
      since="8.1 sm_90", family="async")
F("red.async.sem.scope{.ss}.completion_mechanism.add.type [a], b, [mbar]", slots=RA, type=("u32", "s32", "u64"),
  since="8.1 sm_90", family="async")
# the ISA 9.0 text lists .cluster too; ptxas 13.0: "Illegal modifier '.cluster' ... with '.release'"
# ptxas 13.5 (not 13.0): .mmio needs .sys ("Illegal modifier '.gpu' ... with '.mmio'"); both take .sys
F("red.async{.mmio}.sem.scope{.ss}.add.type [a], b", slots={"sem": ("release",), "scope": ("gpu", "sys"),
  "ss": ("global",)}, type=("u32", "s32", "u64", "s64"), since="8.7 sm_100", family="async",
  check=[(lambda v: not v.get("mmio") or v["scope"] == "sys", ".mmio goes with .sys (ptxas 13.5)")])
