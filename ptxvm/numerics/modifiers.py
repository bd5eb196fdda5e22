"""Result modifiers shared by arithmetic and conversions (.sat, .relu, .ftz)."""
from __future__ import annotations

import numpy as np

from .formats import FloatFormat, as_bits, flush_subnormal, is_nan, sign_bit, to_float64
from .nans import nan_result


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


def finish(bits, fmt: FloatFormat, ftz: bool = False, sat: bool = False) -> np.ndarray:
    """Apply output .ftz and then .sat, in PTX order."""
    if ftz:
        bits = flush_subnormal(bits, fmt)
    if sat:
        bits = saturate(bits, fmt)
    return bits


def exact_zero_sign(mode_is_rm: bool, sign_a, sign_b) -> np.ndarray:
    """Sign of an exact zero sum x + y (IEEE 754 6.3).

    Opposite-signed terms give +0, except -0 when rounding toward -inf;
    equal signs keep that sign.
    """
    sign_a = np.asarray(sign_a, bool)
    sign_b = np.asarray(sign_b, bool)
    return (sign_a | sign_b) if mode_is_rm else (sign_a & sign_b)
