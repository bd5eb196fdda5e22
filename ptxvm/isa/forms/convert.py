"""ISA 9.7.9 Data movement and conversion, register-to-register part: mov, prmt, cvt, cvt.pack.
(Memory instructions are in memory.py, shfl in warp.py.)"""
from ..table import IRND, RND, builder

F = builder("convert")

MOVT = ("pred", "b16", "b32", "b64", "b128", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64")
# mov d, a: a may be a register, special register, immediate, a variable's or function's address.
# With .v2/.v4 both operands are vectors (vector registers or braced lists). Without .vec a braced
# list on one side packs or unpacks: mov.b64 %rd, {%r1, %r2}; mov.b32 {%h1, %h2}, %r (first = low part).
F("mov{.vec}.type d, a", vec=("v2", "v4"), type=MOVT, ops={"d": "vec=vec |vec |reg", "a": "vec=vec |vec |ri"},
  since="1.0", req={"type=b128": "8.3 sm_70"}, check=[(lambda v: not v.get("vec") or (v["type"] != "pred" and int(v["vec"][1:]) * int(v["type"][1:]) <= 128),
         "no vectors of .pred, and at most 128 bits (ptxas)")])
F("prmt.b32{.mode} d, a, b, c", mode=("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"), since="2.0 sm_20")

CVT = ("u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "bf16", "f16", "f32", "f64")
_FLT = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_BITS = {"u8": 8, "s8": 8, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64}


def _cvt_rounding(v):
    """Which rounding the conversion takes (checked exhaustively against ptxas 13.0):
    int<-int: none; int<-float: an integer rounding; float<-int: a float rounding; a float type to
    itself: none or an integer rounding; narrowing float: a float rounding; widening float: none
    (with .bf16 on either side a float rounding is also accepted)."""
    d, a, ir, fr = v["dtype"], v["atype"], v.get("irnd"), v.get("frnd")
    df, af = d in _FLT, a in _FLT
    if not df and not af:
        return not ir and not fr
    if not df:
        return bool(ir)
    if not af:
        return bool(fr)
    if d == a:
        return not fr
    if _FLT[d] < _FLT[a]:
        return bool(fr)
    if "bf16" in (d, a):
        return not ir
    return not ir and not fr


def _cvt_sat(v):
    """.sat: never with .bf16; float destinations clamp to [0, 1]; int<-float saturates; int<-int
    only when the source's range does not fit in the destination (ptxas rejects a no-op .sat)."""
    if not v.get("sat"):
        return True
    d, a = v["dtype"], v["atype"]
    if "bf16" in (d, a):
        return False
    if d in _FLT or a in _FLT:
        return True
    if d[0] == "u":
        return a[0] == "s" or _BITS[a] > _BITS[d]
    return _BITS[a] > _BITS[d] or (a[0] == "u" and _BITS[a] >= _BITS[d])


def _cvt_bf16(v):
    """cvt with .bf16 (other than cvt.frnd.bf16.f32 and cvt.f32.bf16)"""
    d, a = v["dtype"], v["atype"]
    return "bf16" in (d, a) and (d, a) not in (("bf16", "f32"), ("f32", "bf16"))


F("cvt{.irnd}{.frnd}{.ftz}{.sat}.dtype.atype d, a", irnd=IRND, frnd=RND, dtype=CVT, atype=CVT, relaxed=True,
  since="1.0", excl=[("irnd", "frnd")],
  check=[(_cvt_rounding, "this conversion takes no / another rounding modifier (float-to-int: .rni .rzi .rmi .rpi; "
                         "int-to-float and narrowing float: .rn .rz .rm .rp; widening float and int-to-int: none)"),
         (lambda v: not v.get("ftz") or "f32" in (v["dtype"], v["atype"]), ".ftz applies to .f32 conversions only"),
         (_cvt_sat, ".sat does not apply to this conversion")],
  req={_cvt_bf16: "7.8 sm_90", "dtype=bf16": "7.0 sm_80", "atype=bf16": "7.1 sm_80",
       "dtype=f16": "1.0", "atype=f16": "1.0"},
  note="NaN converts to 0 for integer results; float-to-int saturates to the destination's range")
F("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a", frnd2=("rn", "rz"), dtype=("f16", "bf16"), atype=("f32",),
  check=[(lambda v: v.get("relu") or v.get("satfinite"), "needs .relu or .satfinite (else the general form)")],
  since="7.0 sm_75", req={".relu": "7.0 sm_80", "dtype=bf16": "7.0 sm_80", ".satfinite": "8.1 sm_75"})
F("cvt.frnd2{.relu}{.satfinite}.dtype.atype d, a, b", frnd2=("rn", "rz"), dtype=("f16x2", "bf16x2"),
  atype=("f32",), ops={"b": "f32"}, since="7.0 sm_80", req={".satfinite": "8.1 sm_80"})
F("cvt.rs{.relu}{.satfinite}.dtype.atype d, a, b, rbits", dtype=("f16x2", "bf16x2"), atype=("f32",),
  ops={"b": "f32"}, since="8.7 sm_100a")
F("cvt.rna{.satfinite}.dtype.atype d, a", dtype=("tf32",), atype=("f32",), since="7.0 sm_80",
  req={".satfinite": "8.1 sm_80"})
F("cvt.frnd2{.satfinite}{.relu}.dtype.atype d, a", frnd2=("rn", "rz"), dtype=("tf32",), atype=("f32",),
  since="7.8 sm_90", req={".satfinite": "8.6 sm_100"})
F8X2, F6X2, F4X2 = ("e4m3x2", "e5m2x2"), ("e2m3x2", "e3m2x2"), ("e2m1x2",)
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F8X2, atype=("f32",), ops={"d": "b16", "b": "f32"},
  since="7.8 sm_89")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a", dtype=F8X2, atype=("f16x2",), ops={"d": "b16"}, since="7.8 sm_89")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F8X2, ops={"a": "b16"}, since="7.8 sm_89")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e4m3x4", "e5m2x4"), atype=("f32",),
  ops={"d": "b32", "a": "f32"}, since="8.7 sm_100a")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F4X2, atype=("f32",), ops={"d": "b8", "b": "f32"},
  since="8.6 sm_100f")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F4X2, ops={"a": "b8"}, since="8.6 sm_100f")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e2m1x4",), atype=("f32",),
  ops={"d": "b16", "a": "f32"}, since="8.7 sm_100a")
F("cvt.rn.satfinite{.relu}.dtype.atype d, a, b", dtype=F6X2, atype=("f32",), ops={"d": "b16", "b": "f32"},
  since="8.6 sm_100f")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("f16x2",), atype=F6X2, ops={"a": "b16"}, since="8.6 sm_100f")
F("cvt.rs{.relu}.satfinite.dtype.atype d, {a, b, e, f}, rbits", dtype=("e2m3x4", "e3m2x4"), atype=("f32",),
  ops={"d": "b32", "a": "f32"}, since="8.7 sm_100a")
F("cvt.frnd3{.satfinite}.dtype.atype d, a, b", frnd3=("rz", "rp"), dtype=("ue8m0x2",), atype=("f32",),
  ops={"d": "b16", "b": "f32"}, since="8.6 sm_100f")
F("cvt.frnd3{.satfinite}.dtype.atype d, a", frnd3=("rz", "rp"), dtype=("ue8m0x2",), atype=("bf16x2",),
  ops={"d": "b16"}, since="8.6 sm_100f")
F("cvt.rn.dtype.atype d, a", dtype=("bf16x2",), atype=("ue8m0x2",), ops={"a": "b16"}, since="8.6 sm_100f")
# the 8/6/4-bit pairs widened to bf16x2 (PTX 9.2, the sm_100 family and sm_120a/f; CUDA 13.5's nvcc emits them)
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("bf16x2",), atype=F8X2 + F6X2, ops={"a": "b16"}, since="9.2 sm_100f")
F("cvt.rn{.relu}.dtype.atype d, a", dtype=("bf16x2",), atype=F4X2, ops={"a": "b8"}, since="9.2 sm_100f")

F("cvt.pack.sat.convertType.abType d, a, b", convertType=("u16", "s16"), abType=("s32",),
  ops={"d": "b32", "a": "=abType", "b": "=abType"}, since="6.5 sm_72")
F("cvt.pack.sat.convertType.abType.cType d, a, b, c", convertType=("u2", "s2", "u4", "s4", "u8", "s8"),
  abType=("s32",), cType=("b32",), ops={"d": "b32", "a": "=abType", "b": "=abType", "c": "=cType"},
  since="6.5 sm_72", req={"convertType=u2|s2|u4|s4": "6.5 sm_75"})
