"""Correctly rounded f32 arithmetic in every PTX rounding mode.

Operands are widened to float64 (exact).  Products of two f32 are exact in
f64; sums and fma sums carry their TwoSum error, so the single rounding to
f32 (encode.round_float64) sees the exact value.  For div and sqrt the f64
RN result never lands on an f32 rounding breakpoint unless it is exact: an
f32 quotient/root differs from any 25-bit breakpoint by at least 2**-49
relative, more than half an f64 ulp (2**-53); so no residual is needed.
.ftz flushes subnormal inputs, and tiny results (IEEE tininess after
rounding, as measured on sm_90; see modifiers.flush_tiny).
"""
from __future__ import annotations

import numpy as np

from .eft import two_sum
from .encode import round_float64
from .formats import F32, as_bits, flush_subnormal
from .modifiers import exact_zero_sign, flush_tiny, saturate
from .rounding import Rounding


def _in(bits, ftz):
    b = as_bits(bits, F32)
    if ftz:
        b = flush_subnormal(b, F32)
    with np.errstate(invalid="ignore"):  # signalling NaNs
        return b.view(np.float32).astype(np.float64)


def _round(x, mode, residual=None, ftz=False, sat=False):
    bits = round_float64(x, F32, mode, residual)
    if ftz:
        bits = flush_tiny(bits, x, residual, F32, mode)
    return saturate(bits, F32) if sat else bits


def _sum(s, e, x, y, mode, ftz, sat):
    """Round the exact sum s + e, fixing the sign of exact zeros."""
    if mode is Rounding.RM:  # NumPy's RN zero signs are right for RN, RZ, RP
        zero = np.where(exact_zero_sign(True, np.signbit(x), np.signbit(y)), -0.0, 0.0)
        s = np.where(s == 0, zero, s)
    # e is NaN where s is infinite or NaN; the f32 rounding ignores it there.
    return _round(s, mode, np.sign(e), ftz, sat)


def add(a, b, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """add{.rnd}{.ftz}{.sat}.f32 on uint32 bits."""
    x, y = _in(a, ftz), _in(b, ftz)
    with np.errstate(invalid="ignore"):
        s, e = two_sum(x, y)
    return _sum(s, e, x, y, mode, ftz, sat)


def sub(a, b, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """sub{.rnd}{.ftz}{.sat}.f32: a + (-b)."""
    return add(a, as_bits(b, F32) ^ np.uint32(1 << 31), mode, ftz, sat)


def mul(a, b, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """mul{.rnd}{.ftz}{.sat}.f32 (the f64 product is exact)."""
    with np.errstate(invalid="ignore"):
        p = _in(a, ftz) * _in(b, ftz)
    return _round(p, mode, None, ftz, sat)


def fma(a, b, c, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """fma.rnd{.ftz}{.sat}.f32: a*b + c with one rounding."""
    z = _in(c, ftz)
    with np.errstate(invalid="ignore"):
        p = _in(a, ftz) * _in(b, ftz)
        s, e = two_sum(p, z)
    return _sum(s, e, p, z, mode, ftz, sat)


def div(a, b, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """div.rnd{.ftz}.f32 (IEEE, not div.approx / div.full)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        q = _in(a, ftz) / _in(b, ftz)
    return _round(q, mode, None, ftz, sat)


def rcp(a, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """rcp.rnd{.ftz}.f32: correctly rounded 1/a."""
    with np.errstate(divide="ignore"):
        q = 1.0 / _in(a, ftz)
    return _round(q, mode, None, ftz, sat)


def sqrt(a, mode: Rounding = Rounding.RN, ftz: bool = False, sat: bool = False):
    """sqrt.rnd{.ftz}.f32."""
    with np.errstate(invalid="ignore"):
        q = np.sqrt(_in(a, ftz))
    return _round(q, mode, None, ftz, sat)
