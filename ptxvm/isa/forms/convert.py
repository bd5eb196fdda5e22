"""ISA 9.7.9 Data movement and conversion, register-to-register part: mov, prmt, cvt, cvt.pack.
(Memory instructions are in memory.py, shfl in warp.py.)"""
from ..table import IRND, RND, builder

F = builder("convert")

MOVT = ("pred", "b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
# mov d, a: a may be a register, special register, immediate, a variable's or function's address;
# a vector {a, b} on either side packs or unpacks (mov.b32 d, {lo, hi}; mov.b64 {lo, hi}, a)
F("mov.type d, a", type=MOVT, ops={"d": "|vec", "a": "|vec"}, since="1.0", req={"type=b128": "8.3 sm_70"})
F("prmt.b32{.mode} d, a, b, c", mode=("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"), since="2.0 sm_20")

CVT = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64")
F("cvt{.irnd}{.frnd}{.ftz}{.sat}.dtype.atype d, a", irnd=IRND, frnd=RND, dtype=CVT, atype=CVT, relaxed=True,
  since="1.0", excl=[("irnd", "frnd")],
  note="integer rounding for float-to-int and same-size float-to-float; float rounding for int-to-float "
       "and narrowing float-to-float (rounding required there); NaN converts to 0 for integer results")
F("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a", frnd2=("rn", "rz"), dtype=("f16", "bf16"), atype=("f32",),
  check=[(lambda v: v.get("relu") or v.get("satfinite"), "needs .relu or .satfinite (else the general form)")],
  since="7.0 sm_80", req={".satfinite": "8.1 sm_80"})
F("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a, b", frnd2=("rn", "rz"), dtype=("f16x2", "bf16x2"),
  atype=("f32",), ops={"b": "f32"}, since="7.0 sm_80", req={".satfinite": "8.1 sm_80"})
F("cvt.rs{.relu}{.satfinite}.dtype.atype d, a, b, rbits", dtype=("f16x2", "bf16x2"), atype=("f32",),
  ops={"b": "f32"}, since="8.7 sm_100a")
F("cvt.rna{.satfinite}.dtype.atype d, a", dtype=("tf32",), atype=("f32",), since="7.0 sm_80",
  req={".satfinite": "8.1 sm_80"})
F("cvt.frnd2{.satfinite}{.relu}.dtype.atype d, a", frnd2=("rn", "rz"), dtype=("tf32",), atype=("f32",),
  since="7.8 sm_90", req={".satfinite": "8.1 sm_90"})
F8X2, F6X2, F4X2 = ("e4m3x2", "e5m2x2"), ("e2m3x2", "e3m2x2"), ("e2m1x2",)
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F8X2, atype=("f32",), ops={"d": "b16", "b": "f32"},
  since="7.8 sm_89")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a", dtype=F8X2, atype=("f16x2",), ops={"d": "b16"}, since="7.8 sm_89")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F8X2, ops={"a": "b16"}, since="7.8 sm_89")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e4m3x4", "e5m2x4"), atype=("f32",),
  ops={"d": "b32", "a": "f32"}, since="8.7 sm_100a")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F4X2, atype=("f32",), ops={"d": "b8", "b": "f32"},
  since="8.6 sm_100a")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F4X2, ops={"a": "b8"}, since="8.6 sm_100a")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e2m1x4",), atype=("f32",),
  ops={"d": "b16", "a": "f32"}, since="8.7 sm_100a")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F6X2, atype=("f32",), ops={"d": "b16", "b": "f32"},
  since="8.6 sm_100a")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F6X2, ops={"a": "b16"}, since="8.6 sm_100a")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e2m3x4", "e3m2x4"), atype=("f32",),
  ops={"d": "b32", "a": "f32"}, since="8.7 sm_100a")
F("cvt.frnd3{.satfinite}.dtype.atype d, a, b", frnd3=("rz", "rp"), dtype=("ue8m0x2",), atype=("f32",),
  ops={"d": "b16", "b": "f32"}, since="8.6 sm_100a")
F("cvt.frnd3{.satfinite}.dtype.atype d, a", frnd3=("rz", "rp"), dtype=("ue8m0x2",), atype=("bf16x2",),
  ops={"d": "b16"}, since="8.6 sm_100a")
F("cvt.rn.dtype.atype d, a", dtype=("bf16x2",), atype=("ue8m0x2",), ops={"a": "b16"}, since="8.6 sm_100a")

F("cvt.pack.sat.convertType.abType d, a, b", convertType=("u16", "s16"), abType=("s32",),
  ops={"d": "b32", "a": "=abType", "b": "=abType"}, since="6.5 sm_72")
F("cvt.pack.sat.convertType.abType.cType d, a, b, c", convertType=("u2", "s2", "u4", "s4", "u8", "s8"),
  abType=("s32",), cType=("b32",), ops={"d": "b32", "a": "=abType", "b": "=abType", "c": "=cType"},
  since="6.5 sm_72", req={"convertType=u2|s2|u4|s4": "6.5 sm_75"})
