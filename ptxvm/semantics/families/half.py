"""Half-precision floating point (PTX ISA 9.7.4): add sub mul fma neg abs min max tanh ex2 on
.f16 .f16x2 .bf16 .bf16x2 (raw bits: uint16 lanes, uint32 for the x2 packings; element 0 of an
x2 register is its low half, and every op works on the two halves independently).

The shared opcodes are registered by floating.py (one float factory per opcode, see _bytype.py),
which calls the factories here for the half types.

Arithmetic is exact with one rounding (.rn, the only mode the ISA offers): operands widen exactly
to float32; a sum or product of two halves rounded there once is rounded correctly by a second
rounding to the half format (24 >= 2*11 + 2 bits); fma sums carry their TwoSum error, folded in
as a round-to-odd sticky bit (float32 for f16, float64 for bf16), so rounding that value once
more is the correct rounding of the exact result. The final rounding is NumPy's
float -> float16 cast (a single correctly rounded conversion) for f16, and for bf16 the
round-to-nearest-even bit trick on the upper half of the float32 (reached from float64 by a
round-to-odd step for fma).
`ptxvm.numerics.half` computes the same results with its general encoder (the tests compare
both); this path is the fast one (a few ms for 270k lanes).

Modifiers, in the ISA's order: .ftz flushes subnormal inputs and results to a signed zero (a
result rounded to exactly the smallest normal goes to numerics, which applies IEEE tininess
after rounding as sm_90 does); .relu clamps negative results (and -0.0) to +0.0, NaN -> canonical NaN; .sat clamps to
[+0.0, 1.0], NaN -> +0.0; .oob (fma) gives +0.0 for a lane where an operand is the OOB NaN
(no such pattern is known yet: see OOB_NAN).
Which NaN a NaN lane gets is decided by ptxvm.numerics (those lanes alone are recomputed with
numerics.half; sm_90 gives the canonical 0x7FFF). neg and abs only touch the sign bit (after
.ftz) but turn a NaN into the canonical NaN (measured); min/max select an operand's bits (see
_float.minmax).
"""
from __future__ import annotations

import numpy as np

from ...numerics.formats import F16, FloatFormat
from ...numerics import half as nhalf
from ...numerics.nans import nan_result
from ...numerics.rounding import Rounding
from . import approx
from ._float import (HALF, flag, halves, minmax as _minmax, patch, quiet, rounding, sum_to_odd,
                     unsupported)

# The "OOB NaN" that tensor loads write for out-of-bounds elements with the NaN fill mode, per
# format, which fma.oob turns into +0.0. The ISA does not give its encoding, and on the H200 no
# register value tried so far triggers it: every NaN in the goldens (0x7C01..0x7FFF, 0xFC01..
# 0xFFFF for f16, 0x7F81..0x7FFF, 0xFF81..0xFFFF for bf16, in every operand position) propagates
# as the canonical NaN, exactly like plain fma. So no pattern is listed (hardware question):
# .oob then changes nothing, which is what the goldens show.
OOB_NAN: dict = {}

_SIGN = np.uint16(0x8000)


# --------------------------------------------------------------------------- codecs


# f16 -> float64 / float32 by table lookup (NumPy's float16 casts are element-by-element loops)
with np.errstate(invalid="ignore"):
    _F16_TO_F64 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float64)
    _F16_TO_F32 = _F16_TO_F64.astype(np.float32)


def to_f64(bits, fmt: FloatFormat) -> np.ndarray:
    """Exact float64 values of f16 / bf16 lanes (NaN payloads are not kept: use the bits)."""
    b = np.asarray(bits).astype(np.uint16, copy=False)
    if fmt is F16:
        return _F16_TO_F64[b]
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def to_f32(bits, fmt: FloatFormat) -> np.ndarray:
    b = np.asarray(bits).astype(np.uint16, copy=False)
    if fmt is F16:
        return _F16_TO_F32[b]
    return (b.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _f32_odd(x):
    """float64 -> float32 bits with round-to-odd (exact values stay; overflow gives the odd max)."""
    r = x.astype(np.float32)
    rb = r.view(np.uint32)
    back = r.astype(np.float64)
    fix = back != x
    fix &= (rb & np.uint32(1)) == 0
    fix &= ~np.isnan(x)
    if fix.any():
        rb += fix                               # one ulp away from zero, or toward it
        fix &= np.abs(x) < np.abs(back)
        rb -= fix
        rb -= fix
    return rb


def round_rn(x, fmt: FloatFormat) -> np.ndarray:
    """Bits of RN(x) in fmt, for float32 or float64 lanes whose value is exact, in round-to-odd
    form (_float.sum_to_odd), or - float32 only - RN of a sum or product of two halves (24 >=
    2*11 + 2 bits: rounding that once more is innocuous). NaN lanes hold no particular NaN: the
    caller decides them."""
    x = np.asarray(x)
    if fmt is F16:
        return x.astype(np.float16).view(np.uint16)   # one correct RN conversion
    rb = x.view(np.uint32).copy() if x.dtype == np.float32 else _f32_odd(x)   # 53 -> 24 bits, to odd
    # RN-even of the upper half: add 0x7FFF plus the kept lsb, keep the upper 16 bits
    rb += np.uint32(0x7FFF) + ((rb >> np.uint32(16)) & np.uint32(1))
    return (rb >> np.uint32(16)).astype(np.uint16)


# --------------------------------------------------------------------------- modifiers on bits


def flush(b, fmt: FloatFormat):
    """.ftz: subnormals (exponent field 0) become a zero of the same sign."""
    exp = np.uint16(fmt.exp_mask)
    return np.where((b & exp) == 0, b & _SIGN, b)


def _is_nan(b, fmt):
    return (b & ~_SIGN) > np.uint16(fmt.inf_logical)


def saturate(b, fmt: FloatFormat):
    """.sat: clamp to [+0.0, 1.0]; NaN and -0.0 -> +0.0 (1.0 is 0x3C00 / 0x3F80)."""
    one = np.uint16(fmt.bias << fmt.man_bits)
    zero = ((b & _SIGN) != 0) | _is_nan(b, fmt)
    return np.where(zero, np.uint16(0), np.minimum(b, one))   # positive bits order as values


def relu(b, fmt: FloatFormat):
    """.relu: negative results and -0.0 -> +0.0 (NaN lanes are decided by the caller)."""
    return np.where((b & _SIGN) != 0, np.uint16(0), b)


# --------------------------------------------------------------------------- arithmetic


# Operands arrive as exact float32 values. A sum or product of two halves rounded to float32 and
# then to the half format is the correctly rounded result (24 >= 2p + 2 for p = 11 and 8, the
# double-rounding bound; a bf16 product below float32's normal range is exact there or lands
# off every bf16 tie). fma keeps the exact product and folds the TwoSum error of the addition
# into a round-to-odd sum: in float32 for f16 (the f16 product is exact there), in float64
# for bf16 (whose products can leave float32's range).


def _add(x, y, fmt):
    return x + y


def _sub(x, y, fmt):
    return x - y


def _mul(x, y, fmt):
    return x * y


def _fma(x, y, z, fmt):
    if fmt is F16:
        return sum_to_odd(x * y, z)
    return sum_to_odd(np.multiply(x, y, dtype=np.float64), np.asarray(z).astype(np.float64))


CORE = {"add": _add, "sub": _sub, "mul": _mul, "fma": _fma}


def arith(op: str, spec, t: str):
    """add/sub/mul/fma {.rn}{.ftz}{.sat}{.relu}{.oob} on one of f16 bf16 f16x2 bf16x2."""
    fmt = HALF[t]
    rnd, _ = rounding(spec)
    if rnd is not None and rnd.value != "rn":
        unsupported(spec, "half-precision arithmetic only rounds to nearest (.rn)")
    core, exact = CORE[op], getattr(nhalf, op)
    ftz, sat, rl, oob = flag(spec, "ftz"), flag(spec, "sat"), flag(spec, "relu"), flag(spec, "oob")

    def reference(*b):
        return exact(*b, fmt, Rounding.RN, ftz=ftz, sat=sat, relu=rl)

    @quiet
    def one(*ops):
        bs = [np.asarray(o).astype(np.uint16, copy=False) for o in ops]
        s = core(*(to_f32(flush(b, fmt) if ftz else b, fmt) for b in bs), fmt)
        out = round_rn(s, fmt)
        if ftz:
            out = flush(out, fmt)
        if rl:
            out = relu(out, fmt)
        if sat:
            out = saturate(out, fmt)
        redo = np.isnan(s)                               # which NaN: numerics decides
        if ftz:   # rounded to exactly the smallest normal: numerics decides tininess
            redo |= (out & ~_SIGN) == np.uint16(1 << fmt.man_bits)
        out = patch(out, redo, reference, bs)
        if oob and fmt in OOB_NAN:
            hit = np.zeros(np.shape(out), bool)
            for b in bs:
                hit = hit | (b == OOB_NAN[fmt])
            out = np.where(hit, np.uint16(0), out)
        return out

    return halves(one) if t.endswith("x2") else one


def sign_op(op: str, spec, t: str):
    """neg / abs: flip / clear the sign bit (after .ftz); a NaN becomes the canonical NaN
    (measured on sm_90: 0x7FFF whatever the input NaN)."""
    fmt = HALF[t]
    ftz = flag(spec, "ftz")

    def one(a):
        b = np.asarray(a).astype(np.uint16, copy=False)
        if ftz:
            b = flush(b, fmt)
        out = b ^ _SIGN if op == "neg" else b & ~_SIGN
        nan = _is_nan(b, fmt)
        return nan_result(nan, out, fmt) if nan.any() else out

    return halves(one) if t.endswith("x2") else one


def minmax(is_max: bool, spec, t: str):
    """min / max {.ftz}{.NaN}{.xorsign.abs}."""
    fmt = HALF[t]
    ftz, nan, xs, ab = flag(spec, "ftz"), flag(spec, "NaN"), flag(spec, "xorsign"), flag(spec, "abs")

    def one(*ops):
        bs = [np.asarray(o).astype(np.uint16, copy=False) for o in ops]
        if ftz:
            bs = [flush(b, fmt) for b in bs]
        return _minmax(is_max, nan, fmt, [to_f32(b, fmt) for b in bs], bs, xorsign=xs, absolute=ab)

    return halves(one) if t.endswith("x2") else one


def unary_approx(name: str, spec, t: str):
    """tanh.approx / ex2.approx{.ftz} on f16 / bf16 (and x2): see approx.py."""
    fn = approx.half_unary(name, HALF[t], flag(spec, "ftz"))
    return halves(fn) if t.endswith("x2") else fn


__all__ = ["OOB_NAN", "arith", "sign_op", "minmax", "unary_approx", "to_f32", "to_f64",
           "round_rn", "flush", "saturate", "relu"]
