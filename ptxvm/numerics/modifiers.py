"""Result modifiers shared by arithmetic and conversions (.sat, .relu, .ftz)."""
from __future__ import annotations

import numpy as np

from .encode import overflow_to_inf
from .formats import FloatFormat, as_bits, is_nan, sign_bit, to_float64
from .nans import nan_result
from .rounding import Rounding


def one_bits(fmt: FloatFormat) -> int:
    return (fmt.bias << fmt.man_bits) << fmt.pad_bits


def saturate(bits, fmt: FloatFormat) -> np.ndarray:
    """PTX .sat: clamp to [+0.0, 1.0]; NaN and -0.0 become +0.0."""
    b = as_bits(bits, fmt)
    x = to_float64(b, fmt)
    zero = np.isnan(x) | (x <= 0)
    out = np.where(x >= 1, fmt.dtype(one_bits(fmt)), b)
    return np.where(zero, fmt.dtype(0), out)


def relu(bits, fmt: FloatFormat) -> np.ndarray:
    """PTX .relu: negative results (and -0.0) become +0.0; NaN -> policy NaN."""
    b = as_bits(bits, fmt)
    nan = is_nan(b, fmt)
    out = np.where(sign_bit(b, fmt) & ~nan, fmt.dtype(0), b)
    return nan_result(nan, out, fmt)


def flush_tiny(bits, x, residual, fmt: FloatFormat, mode: Rounding) -> np.ndarray:
    """Output .ftz as sm_90 does it: IEEE 754 tininess *after rounding*.

    The exact result is x (float64) plus a residual of sign ``residual``
    (None: x is exact, or lands on the thresholds below only when exact).
    It is tiny when rounding it to full precision with an unbounded
    exponent gives less than the smallest normal; tiny results become a
    zero of their sign.  So a value just below the smallest normal that
    rounds up to it survives, while one that rounds to a subnormal does not.
    """
    emin, p = fmt.emin, fmt.precision
    neg = np.signbit(x)
    away = overflow_to_inf(mode, neg) if mode is not Rounding.RZ else np.zeros(neg.shape, bool)
    nearest = mode in (Rounding.RN, Rounding.RNA)
    ax = np.abs(x)
    r = np.zeros(ax.shape) if residual is None else \
        np.where(neg, -np.asarray(residual, np.float64), np.asarray(residual, np.float64))
    if nearest:
        t = 2.0 ** emin - 2.0 ** (emin - p - 1)    # ties round up to 2**emin
        tiny = (ax < t) | ((ax == t) & (r < 0))
    else:
        t = np.where(away, 2.0 ** emin - 2.0 ** (emin - p), 2.0 ** emin)
        tiny = (ax < t) | ((ax == t) & np.where(away, r <= 0, r < 0))
    zero = np.where(neg, fmt.dtype(fmt.sign_mask << fmt.pad_bits), fmt.dtype(0))
    return np.where(tiny, zero, as_bits(bits, fmt))


def exact_zero_sign(mode_is_rm: bool, sign_a, sign_b) -> np.ndarray:
    """Sign of an exact zero sum x + y (IEEE 754 6.3).

    Opposite-signed terms give +0, except -0 when rounding toward -inf;
    equal signs keep that sign.
    """
    sign_a = np.asarray(sign_a, bool)
    sign_b = np.asarray(sign_b, bool)
    return (sign_a | sign_b) if mode_is_rm else (sign_a & sign_b)
