"""Correct rounding of exact values into a float format.

The core is ``encode(sign, mant, exp, fmt, mode)``: the value
(-1)**sign * mant * 2**exp with ``mant`` a uint64 below 2**63 is rounded
into ``fmt`` with integer arithmetic only, so every mode (and subnormals,
overflow, ties) is exact and independent of the host rounding mode.

Inexact inputs use *round-to-odd* form: when the true value is not exactly
mant * 2**exp, mant must be odd and the true value must lie strictly
between (mant-1) * 2**exp and (mant+1) * 2**exp, and mant must carry at
least two more significant bits than the destination keeps.  Rounding that
odd stand-in then gives the same result as rounding the true value in every
mode, because no rounding breakpoint can fall inside the open interval.
"""
from __future__ import annotations

import numpy as np

from .eft import directed, sign as _sign, step
from .formats import F32, F64, FloatFormat
from .nans import nan_result
from .rounding import Rounding

_U1 = np.uint64(1)


def bit_length(m: np.ndarray) -> np.ndarray:
    """Vectorised int.bit_length for uint64 arrays (exact)."""
    m = np.asarray(m, dtype=np.uint64)
    hi = (m >> np.uint64(32)).astype(np.float64)
    lo = (m & np.uint64(0xFFFFFFFF)).astype(np.float64)
    return np.where(hi > 0, np.frexp(hi)[1] + 32, np.frexp(lo)[1]).astype(np.int64)


def _round_up(mode: Rounding, sign, kept, rem, half):
    if mode is Rounding.RN:
        return (rem > half) | ((rem == half) & ((kept & _U1) == _U1))
    if mode is Rounding.RNA:
        return rem >= half
    if mode is Rounding.RZ:
        return np.zeros(np.shape(rem), bool)
    inexact = rem != 0
    if mode is Rounding.RP:
        return inexact & ~sign
    if mode is Rounding.RM:
        return inexact & sign
    raise ValueError(mode)


def overflow_to_inf(mode: Rounding, sign) -> np.ndarray:
    """Whether an overflow in ``mode`` gives infinity (else the max finite)."""
    sign = np.asarray(sign, bool)
    if mode in (Rounding.RN, Rounding.RNA):
        return np.ones(sign.shape, bool)
    if mode is Rounding.RZ:
        return np.zeros(sign.shape, bool)
    return ~sign if mode is Rounding.RP else sign


def encode(sign, mant, exp, fmt: FloatFormat, mode: Rounding = Rounding.RN,
           satfinite: bool = False) -> np.ndarray:
    """Round (-1)**sign * mant * 2**exp into ``fmt``; returns storage bits.

    Overflow follows IEEE 754 for ``mode``; with ``satfinite`` it clamps to
    the largest finite magnitude instead.  Formats without infinity (E4M3)
    overflow to NaN unless ``satfinite``.
    """
    sign = np.asarray(sign).astype(bool)
    mant = np.asarray(mant, dtype=np.uint64)
    exp = np.asarray(exp, dtype=np.int64)
    sign, mant, exp = np.broadcast_arrays(sign, mant, exp)
    m = fmt.man_bits
    zero = mant == 0
    top = exp + bit_length(mant) - 1
    q = np.maximum(top - m, fmt.emin - m)          # exponent of the result ulp
    shift = q - exp                                 # bits to discard
    # Far below half an ulp: any nonzero mant acts as a quarter-ulp sticky.
    far = shift >= 64
    mant = np.where(far, _U1, mant)
    shift = np.where(far, 2, shift)
    right = shift > 0
    rs = np.clip(shift, 1, 63).astype(np.uint64)
    ls = np.clip(-shift, 0, 63).astype(np.uint64)
    kept = np.where(right, mant >> rs, mant << ls)
    rem = np.where(right, mant & ((_U1 << rs) - _U1), np.uint64(0))
    half = _U1 << (rs - _U1)
    sig = kept + _round_up(mode, sign, kept, rem, half).astype(np.uint64)
    # Biased-exponent field minus one, shifted, plus the significand with its
    # hidden bit: a carry out of the significand bumps the exponent for free,
    # and subnormals (field 0, no hidden bit) fall out of the same formula.
    mag = ((q + (m + fmt.bias - 1)).astype(np.uint64) << np.uint64(m)) + sig
    mag = np.where(zero, np.uint64(0), mag)
    over = mag > np.uint64(fmt.max_logical)
    if fmt.has_inf:
        to_inf = overflow_to_inf(mode, sign) & (not satfinite)
        big = np.where(to_inf, np.uint64(fmt.inf_logical), np.uint64(fmt.max_logical))
    else:
        big = np.uint64(fmt.max_logical)
    mag = np.where(over, big, mag)
    bits = (mag | (sign.astype(np.uint64) << np.uint64(fmt.width - 1)))
    bits = (bits << np.uint64(fmt.pad_bits)).astype(fmt.dtype)
    if not fmt.has_inf and not satfinite:
        bits = nan_result(over, bits, fmt)
    return bits


def decompose_f64(x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split finite float64 values into (sign, mant, exp), value = mant*2**exp."""
    b = np.asarray(x, dtype=np.float64).view(np.uint64)
    sign = (b >> np.uint64(63)).astype(bool)
    e = ((b >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    frac = b & np.uint64((1 << 52) - 1)
    mant = np.where(e == 0, frac, frac | np.uint64(1 << 52))
    exp = np.where(e == 0, -1074, e - 1075)
    return sign, mant, exp


def round_float64(x, fmt: FloatFormat, mode: Rounding = Rounding.RN,
                  residual=None, satfinite: bool = False) -> np.ndarray:
    """Round float64 values (plus an optional tiny residual) into ``fmt``.

    ``residual`` gives the sign (-1, 0, +1) of exact - x, where the exact
    value is within half an f64 ulp of x (as from TwoSum): this avoids the
    double rounding that a plain f64 -> narrow conversion would commit.
    ``fmt`` must be narrower than f64 by at least two bits of precision
    whenever a residual is given.  Infinities map to infinity (or the max
    finite under ``satfinite``); NaNs to the policy NaN.
    """
    x = np.asarray(x, dtype=np.float64)
    if fmt is F32 and mode is not Rounding.RNA and not satfinite:
        return _round_to_f32(x, mode, residual)
    sign, mant, exp = decompose_f64(x)
    if residual is not None:
        if fmt is F64:
            raise ValueError("residual rounding needs a narrower format")
        r = np.asarray(residual).astype(np.int64)
        r = np.where(sign, -r, r)                   # relative to |x|
        mant = (mant << _U1).astype(np.int64) + r
        mant = mant.astype(np.uint64)
        exp = exp - 1
    finite = np.isfinite(x)
    mant = np.where(finite, mant, np.uint64(0))
    bits = encode(sign, mant, exp, fmt, mode, satfinite)
    if fmt.has_inf and not satfinite:
        inf_bits = np.uint64(fmt.inf_logical << fmt.pad_bits)
    else:
        inf_bits = np.uint64(fmt.max_logical << fmt.pad_bits)
    big = np.where(sign, np.uint64(fmt.sign_mask << fmt.pad_bits) | inf_bits, inf_bits)
    bits = np.where(np.isinf(x), big.astype(fmt.dtype), bits)
    nan = np.isnan(x)
    if not fmt.has_inf and not satfinite:
        nan = nan | np.isinf(x)
    return nan_result(nan, bits, fmt)


_F32_OVERFLOW = 2.0 ** 128


def _round_to_f32(x, mode: Rounding, residual) -> np.ndarray:
    """Fast path of round_float64 for f32, on floats instead of integers.

    NumPy's f64 -> f32 cast is IEEE round-to-nearest-even (subnormals and
    overflow included); y = RN(x) is then within one f32 ulp of the exact
    value, and the sign of (exact - y) decides the directed result.  Only a
    tie (x exactly halfway) needs the residual in RN.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        y = x.astype(np.float32)
        yd = y.astype(np.float64)
        over = np.isinf(yd) & np.isfinite(x)
        any_over = bool(over.any())
        if any_over:  # compare against 2**128, the first value past max
            yd = np.where(over, np.copysign(_F32_OVERFLOW, x), yd)
        diff = np.sign(x - yd)
        if mode is Rounding.RN:
            if residual is not None:
                inexact = (diff != 0) & (residual != 0)
                if inexact.any():
                    nb = step(y, diff)
                    tie = inexact & (x == (yd + nb.astype(np.float64)) * 0.5)
                    y = np.where(tie & (residual == diff), nb, y)
        else:
            rs = diff if residual is None else np.where(diff != 0, diff, residual)
            y = directed(y, rs, mode)
            if any_over:  # past the RN threshold, exact > max whatever the residual
                big = np.where(overflow_to_inf(mode, np.signbit(x)), np.float32(np.inf),
                               np.float32(np.finfo(np.float32).max))
                y = np.where(over, np.copysign(big, x).astype(np.float32), y)
    return nan_result(np.isnan(x), y.view(np.uint32), F32)
