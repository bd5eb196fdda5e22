"""ISA 9.7.6 / 9.7.7 Comparison and selection: set, setp, selp, slct (also the half-precision forms)."""
from ..table import builder

F = builder("compare")

CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
       "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
CMPF = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
BOOL = ("and", "or", "xor")
STYPE = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
STYPE_H = STYPE + ("f16",)
UNSIGNED_CMP = frozenset(("lo", "ls", "hi", "hs"))
FLOAT_CMP = frozenset(("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"))


def _is_float(t) -> bool:
    return t is None or t.startswith(("f", "bf"))


def _cmp_checks(tslot):
    """ptxas: lo/ls/hi/hs need an integer or bit-size type, the unordered tests a float type,
    and .ftz an .f32 source."""
    return [
        (lambda v: not (v.get("CmpOp") in UNSIGNED_CMP and _is_float(v.get(tslot))),
         ".lo/.ls/.hi/.hs compare integers, not floating-point values"),
        (lambda v: not (v.get("CmpOp") in FLOAT_CMP and not _is_float(v.get(tslot))),
         "unordered comparisons and .num/.nan need a floating-point type"),
        (lambda v: not v.get("ftz") or v.get(tslot) in ("f32", "f16", "f16x2", None),
         ".ftz applies to .f32 comparisons only"),
    ]


# set: d = (a CmpOp b) [BoolOp c] as all-ones/1.0 or 0
F("set.CmpOp{.ftz}.dtype.stype d, a, b", CmpOp=CMP, dtype=("u32", "s32", "f32"), stype=STYPE, since="1.0",
  check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c", CmpOp=CMP, BoolOp=BOOL, dtype=("u32", "s32", "f32"),
  stype=STYPE, since="1.0", check=_cmp_checks("stype"))
F("set.CmpOp{.ftz}.dtype.stype d, a, b", CmpOp=CMPF, dtype=("f16",), stype=STYPE_H, since="4.2 sm_53",
  family="half", check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("f16",), stype=STYPE_H,
  since="4.2 sm_53", family="half", check=_cmp_checks("stype"))
F("set.CmpOp.dtype.stype d, a, b", CmpOp=CMPF, dtype=("bf16",), stype=STYPE_H + ("bf16",), since="7.8 sm_90", family="half",
  check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("bf16",), stype=STYPE_H + ("bf16",),
  since="7.8 sm_90", family="half", check=_cmp_checks("stype"))
F("set.CmpOp{.ftz}.dtype.stype d, a, b", CmpOp=CMPF, dtype=("u16", "s16", "u32", "s32"), stype=("f16",),
  since="6.5 sm_53", family="half", check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("u16", "s16", "u32", "s32"),
  stype=("f16",), since="6.5 sm_53", family="half", check=_cmp_checks("stype"))
F("set.CmpOp.dtype.stype d, a, b", CmpOp=CMPF, dtype=("u16", "s16", "u32", "s32"), stype=("bf16",),
  since="7.8 sm_90", family="half", check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("u16", "s16", "u32", "s32"),
  stype=("bf16",), since="7.8 sm_90", family="half", check=_cmp_checks("stype"))
F("set.CmpOp{.ftz}.dtype.stype d, a, b", CmpOp=CMPF, dtype=("f16x2", "u32", "s32"), stype=("f16x2",),
  since="4.2 sm_53", req={"dtype=u32|s32": "6.5 sm_53"}, family="half", check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp{.ftz}.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("f16x2", "u32", "s32"),
  stype=("f16x2",), since="4.2 sm_53", req={"dtype=u32|s32": "6.5 sm_53"}, family="half", check=_cmp_checks("stype"))
F("set.CmpOp.dtype.stype d, a, b", CmpOp=CMPF, dtype=("bf16x2", "u32", "s32"), stype=("bf16x2",),
  since="7.8 sm_90", family="half", check=_cmp_checks("stype"))
F("set.CmpOp.BoolOp.dtype.stype d, a, b, {!}c", CmpOp=CMPF, BoolOp=BOOL, dtype=("bf16x2", "u32", "s32"),
  stype=("bf16x2",), since="7.8 sm_90", family="half", check=_cmp_checks("stype"))

# setp: p = (a CmpOp b) [BoolOp c], q = !(a CmpOp b) [BoolOp c]
P = {"p": "pred sink"}
F("setp.CmpOp{.ftz}.type p{|q}, a, b", CmpOp=CMP, type=STYPE, ops=P, since="1.0", check=_cmp_checks("type"))
F("setp.CmpOp.BoolOp{.ftz}.type p{|q}, a, b, {!}c", CmpOp=CMP, BoolOp=BOOL, type=STYPE, ops=P, since="1.0",
  check=_cmp_checks("type"))
for t, since, ftz in (("f16", "4.2 sm_53", "{.ftz}"), ("f16x2", "4.2 sm_53", "{.ftz}"),
                      ("bf16", "7.8 sm_90", ""), ("bf16x2", "7.8 sm_90", "")):
    pair = "p|q" if t.endswith("x2") else "p"
    F(f"setp.CmpOp{ftz}.type {pair}, a, b", CmpOp=CMPF, type=(t,), ops=P, since=since, family="half",
      check=_cmp_checks("type"))
    F(f"setp.CmpOp.BoolOp{ftz}.type {pair}, a, b, {{!}}c", CmpOp=CMPF, BoolOp=BOOL, type=(t,), ops=P, since=since,
      family="half", check=_cmp_checks("type"))

F("selp.type d, a, b, c", type=STYPE, ops={"c": "pred !"}, since="1.0")
F("slct.dtype.ctype d, a, b, c", dtype=STYPE, ctype=("s32",), ops={"a": "=dtype", "b": "=dtype"}, since="1.0")
F("slct{.ftz}.dtype.ctype d, a, b, c", dtype=STYPE, ctype=("f32",), ops={"a": "=dtype", "b": "=dtype"}, since="1.0")
