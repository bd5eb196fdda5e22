"""f16 and bf16 arithmetic (add, sub, mul, fma) and their packed x2 forms.

Operands widen to float64 exactly; a product of two halves is exact there,
and sums carry their TwoSum error, so each result is a single correct
rounding straight from the exact value (never via f32, which would round
twice).  PTX only offers .rn for these, but every mode works.
"""
from __future__ import annotations

import numpy as np

from .convert import pack2, unpack2
from .eft import sign, two_sum
from .encode import round_float64
from .formats import F16, FloatFormat, as_bits, flush_subnormal, to_float64
from .modifiers import exact_zero_sign, flush_tiny, relu as _relu, saturate
from .rounding import Rounding


def _in(bits, fmt, ftz):
    b = as_bits(bits, fmt)
    return to_float64(flush_subnormal(b, fmt) if ftz else b, fmt)


def _out(x, fmt, mode, rs, ftz, sat, relu):
    bits = round_float64(x, fmt, mode, rs)
    if ftz:
        bits = flush_tiny(bits, x, rs, fmt, mode)
    if relu:
        bits = _relu(bits, fmt)
    if sat:
        bits = saturate(bits, fmt)
    return bits


def _sum(x, y, fmt, mode, ftz, sat, relu):
    with np.errstate(invalid="ignore"):
        s, e = two_sum(x, y)
    zero = np.where(exact_zero_sign(mode is Rounding.RM, np.signbit(x), np.signbit(y)), -0.0, 0.0)
    s = np.where(s == 0, zero, s)
    rs = np.where(np.isfinite(e), sign(e), 0)
    return _out(s, fmt, mode, rs, ftz, sat, relu)


def add(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, *,
        ftz: bool = False, sat: bool = False, relu: bool = False) -> np.ndarray:
    """add{.rnd}{.ftz}{.sat}.{f16,bf16}."""
    return _sum(_in(a, fmt, ftz), _in(b, fmt, ftz), fmt, mode, ftz, sat, relu)


def sub(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, *,
        ftz: bool = False, sat: bool = False, relu: bool = False) -> np.ndarray:
    """sub{.rnd}{.ftz}{.sat}.{f16,bf16}: a + (-b)."""
    neg = as_bits(b, fmt) ^ fmt.dtype(1 << (fmt.storage_bits - 1))
    return add(a, neg, fmt, mode, ftz=ftz, sat=sat, relu=relu)


def mul(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, *,
        ftz: bool = False, sat: bool = False, relu: bool = False) -> np.ndarray:
    """mul{.rnd}{.ftz}{.sat}.{f16,bf16} (the f64 product is exact)."""
    with np.errstate(invalid="ignore"):
        p = _in(a, fmt, ftz) * _in(b, fmt, ftz)
    return _out(p, fmt, mode, None, ftz, sat, relu)


def fma(a, b, c, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, *,
        ftz: bool = False, sat: bool = False, relu: bool = False) -> np.ndarray:
    """fma.rn{.ftz}{.sat}{.relu}.{f16,bf16}: one rounding of a*b + c."""
    with np.errstate(invalid="ignore"):
        p = _in(a, fmt, ftz) * _in(b, fmt, ftz)
    return _sum(p, _in(c, fmt, ftz), fmt, mode, ftz, sat, relu)


def _x2(fn, regs, fmt, mode, kw):
    lanes = [unpack2(r, fmt) for r in regs]
    hi = fn(*(l[0] for l in lanes), fmt, mode, **kw)
    lo = fn(*(l[1] for l in lanes), fmt, mode, **kw)
    return pack2(hi, lo, fmt)


def add_x2(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, **kw):
    """add.{f16x2,bf16x2} on uint32 registers, lane by lane."""
    return _x2(add, (a, b), fmt, mode, kw)


def sub_x2(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, **kw):
    return _x2(sub, (a, b), fmt, mode, kw)


def mul_x2(a, b, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, **kw):
    return _x2(mul, (a, b), fmt, mode, kw)


def fma_x2(a, b, c, fmt: FloatFormat = F16, mode: Rounding = Rounding.RN, **kw):
    return _x2(fma, (a, b, c), fmt, mode, kw)
