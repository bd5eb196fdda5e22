"""ISA 9.7.8 Logic and shift instructions."""
from ..table import builder

F = builder("logic")

for op in ("and", "or", "xor"):
    F(f"{op}.type d, a, b", type=("pred", "b16", "b32", "b64"), since="1.0")
F("not.type d, a", type=("pred", "b16", "b32", "b64"), since="1.0")
F("cnot.type d, a", type=("b16", "b32", "b64"), since="1.0")
F("lop3.b32 d, a, b, c, immLut", since="4.3 sm_50")
F("lop3.BoolOp.b32 d|p, a, b, c, immLut, q", BoolOp=("or", "and"), ops={"q": "pred"}, since="8.2 sm_50")
F("shf.dir.mode.b32 d, a, b, c", dir=("l", "r"), mode=("clamp", "wrap"), ops={"c": "u32"}, since="3.1 sm_32")
F("shl.type d, a, b", type=("b16", "b32", "b64"), ops={"b": "u32"}, since="1.0")
F("shr.type d, a, b", type=("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"), ops={"b": "u32"},
  since="1.0")
