"""ISA 9.7.1 Integer arithmetic instructions."""
from ..table import builder

F = builder("integer")

INT = ("u16", "u32", "u64", "s16", "s32", "s64")
DIV0 = "division by zero yields an unspecified, machine-specific value"

# add / sub: .sat only with .s32, so .s32 has its own row (ISA: "add{.sat}.s32")
F("add.type d, a, b", type=("u16", "u32", "u64", "s16", "s64"), since="1.0")
F("add{.sat}.s32 d, a, b", since="1.0")
F("add.type d, a, b", type=("u16x2", "s16x2"), since="8.0 sm_90")
F("sub.type d, a, b", type=("u16", "u32", "u64", "s16", "s64"), since="1.0")
F("sub{.sat}.s32 d, a, b", since="1.0")

# mul / mad: .wide doubles the destination (and mad's addend) and exists for 16/32-bit types only
F("mul.mode.type d, a, b", mode=("hi", "lo"), type=INT, since="1.0")
F("mul.wide.type d, a, b", type=("u16", "u32", "s16", "s32"), ops={"d": "=type*2"}, since="1.0")
F("mad.mode.type d, a, b, c", mode=("hi", "lo"), type=INT, since="1.0")
F("mad.hi.sat.s32 d, a, b, c", since="1.0")
F("mad.wide.type d, a, b, c", type=("u16", "u32", "s16", "s32"), ops={"d": "=type*2", "c": "=type*2"},
  since="1.0")
# carry-less (polynomial over GF(2)) multiply of two 64-bit values, one half of the 128-bit product
# XORed with c (PTX 9.3; ptxas 13.5 takes .u64/.s64 only, from sm_80)
F("clmad.mode.type d, a, b, c", mode=("lo", "hi"), type=("u64", "s64"), since="9.3 sm_80")
F("mul24.mode.type d, a, b", mode=("hi", "lo"), type=("u32", "s32"), since="1.0")
F("mad24.mode.type d, a, b, c", mode=("hi", "lo"), type=("u32", "s32"), since="1.0")
F("mad24.hi.sat.s32 d, a, b, c", since="1.0")
F("sad.type d, a, b, c", type=INT, since="1.0")
F("div.type d, a, b", type=INT, since="1.0", undefined=DIV0)
F("rem.type d, a, b", type=INT, since="1.0", undefined=DIV0)
F("abs.type d, a", type=("s16", "s32", "s64"), since="1.0")
F("neg.type d, a", type=("s16", "s32", "s64"), since="1.0")

# min / max: .relu only with the signed .s16x2/.s32 types; packed types and .relu are PTX 8.0 sm_90
for op in ("min", "max"):
    F(f"{op}.atype d, a, b", atype=("u16", "u32", "u64", "u16x2", "s16", "s64"), since="1.0",
      req={"atype=u16x2": "8.0 sm_90"})
    F(f"{op}{{.relu}}.btype d, a, b", btype=("s16x2", "s32"), since="1.0",
      req={".relu": "8.0 sm_90", "btype=s16x2": "8.0 sm_90"})

F("popc.type d, a", type=("b32", "b64"), ops={"d": "u32"}, since="2.0 sm_20")
F("clz.type d, a", type=("b32", "b64"), ops={"d": "u32"}, since="2.0 sm_20")
F("bfind{.shiftamt}.type d, a", type=("u32", "u64", "s32", "s64"), ops={"d": "u32"}, since="2.0 sm_20")
F("fns.b32 d, mask, base, offset", ops={"base": "u32", "offset": "s32"}, since="6.0 sm_30",
  undefined="d is 0xffffffff when the N-th set bit does not exist")
F("brev.type d, a", type=("b32", "b64"), since="2.0 sm_20")
F("bfe.type d, a, b, c", type=("u32", "u64", "s32", "s64"), ops={"b": "u32", "c": "u32"}, since="2.0 sm_20")
F("bfi.type f, a, b, c, d", type=("b32", "b64"), ops={"c": "u32", "d": "u32"}, since="2.0 sm_20")
F("szext.mode.type d, a, b", mode=("clamp", "wrap"), type=("u32", "s32"), ops={"b": "u32"}, since="7.6 sm_70")
F("bmsk.mode.b32 d, a, b", mode=("clamp", "wrap"), ops={"a": "u32", "b": "u32"}, since="7.6 sm_70")
F("dp4a.atype.btype d, a, b, c", atype=("u32", "s32"), btype=("u32", "s32"), ops={"d": "u32", "c": "u32"},
  since="5.0 sm_61", note="d and c are .s32 when either input is signed, else .u32")
F("dp2a.mode.atype.btype d, a, b, c", mode=("lo", "hi"), atype=("u32", "s32"), btype=("u32", "s32"),
  ops={"d": "u32", "c": "u32"}, since="5.0 sm_61", note="d and c are .s32 when either input is signed")
