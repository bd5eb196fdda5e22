"""Floating-point formats and bit-level codecs.

Every value travels as raw bits in an unsigned integer array (the format's
``dtype``).  TF32 is stored the way PTX keeps it: an f32 bit pattern whose
low 13 bits are zero (``pad_bits``).  Functions here classify and decode
bits; rounding *into* a format lives in ``encode``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FloatFormat:
    name: str
    exp_bits: int
    man_bits: int
    dtype: type
    has_inf: bool = True
    pad_bits: int = 0
    canonical_nan: int = 0  # storage bits; 0 means "all ones but the sign"

    @property
    def width(self) -> int:
        """Logical width: sign + exponent + fraction (19 for TF32)."""
        return 1 + self.exp_bits + self.man_bits

    @property
    def precision(self) -> int:
        return self.man_bits + 1

    @property
    def bias(self) -> int:
        return (1 << (self.exp_bits - 1)) - 1

    @property
    def emin(self) -> int:
        return 1 - self.bias

    @property
    def emax(self) -> int:
        top = (1 << self.exp_bits) - 1
        return (top - 1 if self.has_inf else top) - self.bias

    @property
    def exp_mask(self) -> int:
        return ((1 << self.exp_bits) - 1) << self.man_bits

    @property
    def man_mask(self) -> int:
        return (1 << self.man_bits) - 1

    @property
    def sign_mask(self) -> int:
        return 1 << (self.width - 1)

    @property
    def max_logical(self) -> int:
        """Largest finite magnitude, as logical (unpadded) bits."""
        if self.has_inf:
            return self.exp_mask - 1
        return self.exp_mask | (self.man_mask - 1)  # E4M3: S.1111.110 = 448

    @property
    def inf_logical(self) -> int:
        return self.exp_mask

    # Storage-level constants (what a register holds).
    @property
    def max_finite(self) -> int:
        return self.max_logical << self.pad_bits

    @property
    def inf(self) -> int:
        if not self.has_inf:
            raise ValueError(f"{self.name} has no infinity")
        return self.inf_logical << self.pad_bits

    @property
    def nan(self) -> int:
        """The canonical NaN the NaN policy produces for this format."""
        if self.canonical_nan:
            return self.canonical_nan
        return ((1 << (self.width - 1)) - 1) << self.pad_bits

    @property
    def storage_bits(self) -> int:
        return np.dtype(self.dtype).itemsize * 8

    def __repr__(self) -> str:
        return self.name


F64 = FloatFormat("f64", 11, 52, np.uint64)
F32 = FloatFormat("f32", 8, 23, np.uint32)
TF32 = FloatFormat("tf32", 8, 10, np.uint32, pad_bits=13)
F16 = FloatFormat("f16", 5, 10, np.uint16)
BF16 = FloatFormat("bf16", 8, 7, np.uint16)
E4M3 = FloatFormat("e4m3", 4, 3, np.uint8, has_inf=False)
E5M2 = FloatFormat("e5m2", 5, 2, np.uint8)

FORMATS = {f.name: f for f in (F64, F32, TF32, F16, BF16, E4M3, E5M2)}

CANONICAL_NAN_F16 = F16.nan
CANONICAL_NAN_BF16 = BF16.nan
CANONICAL_NAN_F32 = F32.nan
CANONICAL_NAN_F64 = F64.nan
CANONICAL_NAN_E4M3 = E4M3.nan
CANONICAL_NAN_E5M2 = E5M2.nan


def as_bits(bits, fmt: FloatFormat) -> np.ndarray:
    """Coerce ints / arrays to the format's storage dtype."""
    return np.asarray(bits).astype(fmt.dtype, copy=False)


def _logical(bits, fmt: FloatFormat) -> np.ndarray:
    b = as_bits(bits, fmt).astype(np.uint64)
    return b >> np.uint64(fmt.pad_bits) if fmt.pad_bits else b


def fields(bits, fmt: FloatFormat):
    """(sign, biased exponent, fraction) as uint64 arrays."""
    b = _logical(bits, fmt)
    sign = b >> np.uint64(fmt.width - 1)
    exp = (b >> np.uint64(fmt.man_bits)) & np.uint64((1 << fmt.exp_bits) - 1)
    frac = b & np.uint64(fmt.man_mask)
    return sign, exp, frac


def _magnitude(bits, fmt):
    return _logical(bits, fmt) & np.uint64(fmt.sign_mask - 1)


def sign_bit(bits, fmt: FloatFormat) -> np.ndarray:
    return (_logical(bits, fmt) >> np.uint64(fmt.width - 1)).astype(bool)


def is_nan(bits, fmt: FloatFormat) -> np.ndarray:
    mag = _magnitude(bits, fmt)
    if fmt.has_inf:
        return mag > np.uint64(fmt.inf_logical)
    return mag == np.uint64(fmt.exp_mask | fmt.man_mask)


def is_inf(bits, fmt: FloatFormat) -> np.ndarray:
    mag = _magnitude(bits, fmt)
    if not fmt.has_inf:
        return np.zeros(mag.shape, bool)
    return mag == np.uint64(fmt.inf_logical)


def is_finite(bits, fmt: FloatFormat) -> np.ndarray:
    return ~(is_nan(bits, fmt) | is_inf(bits, fmt))


def is_zero(bits, fmt: FloatFormat) -> np.ndarray:
    return _magnitude(bits, fmt) == 0


def is_subnormal(bits, fmt: FloatFormat) -> np.ndarray:
    mag = _magnitude(bits, fmt)
    return (mag != 0) & (mag <= np.uint64(fmt.man_mask))


def flush_subnormal(bits, fmt: FloatFormat) -> np.ndarray:
    """Replace subnormals by a zero of the same sign (PTX .ftz)."""
    b = as_bits(bits, fmt)
    sign_only = b & fmt.dtype(fmt.sign_mask << fmt.pad_bits)
    return np.where(is_subnormal(b, fmt), sign_only, b)


def to_float64(bits, fmt: FloatFormat) -> np.ndarray:
    """Exact value of each encoding as float64 (every format here fits).

    NaN payloads are not preserved; use the bits for that.
    """
    if fmt is F64:
        return as_bits(bits, fmt).view(np.float64)
    if fmt is F32:
        with np.errstate(invalid="ignore"):  # signalling NaNs
            return as_bits(bits, fmt).view(np.float32).astype(np.float64)
    sign, exp, frac = fields(bits, fmt)
    normal = exp != 0
    mant = np.where(normal, frac | np.uint64(1 << fmt.man_bits), frac).astype(np.float64)
    e = np.where(normal, exp.astype(np.int64), 1) - (fmt.bias + fmt.man_bits)
    val = np.ldexp(mant, e.astype(np.int32))
    val = np.where(is_inf(bits, fmt), np.inf, val)
    val = np.where(is_nan(bits, fmt), np.nan, val)
    return np.where(sign.astype(bool), -val, val)


def to_float32(bits, fmt: FloatFormat) -> np.ndarray:
    """Exact value as float32 for formats no wider than f32."""
    if fmt is F64:
        raise ValueError("f64 values do not fit float32 exactly")
    if fmt is F32:
        return as_bits(bits, fmt).view(np.float32)
    return to_float64(bits, fmt).astype(np.float32)


def f32_bits(x) -> np.ndarray:
    """Bits of float32 values (``np.float32`` array or Python floats)."""
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def f64_bits(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def widen_bits(bits, src: FloatFormat, dst: FloatFormat) -> np.ndarray:
    """Exact widening src -> dst (both IEEE-like, dst wider in both fields).

    NaNs keep their payload, shifted into the top of dst's fraction, and
    are quieted; the NaN *policy* (nans.py) decides whether that is used.
    """
    sign, exp, frac = fields(bits, src)
    shift = dst.man_bits - src.man_bits
    x = to_float64(bits, src)
    out = np.empty(np.shape(x), dtype=dst.dtype)
    finite = np.isfinite(x)
    if dst is F64:
        out[...] = x.view(np.uint64)
    else:
        out[...] = x.astype(np.float32).view(np.uint32)  # exact: src fits f32
    quiet = np.uint64(1 << (dst.man_bits - 1))
    payload = (frac << np.uint64(shift)) | quiet
    nan_bits = (sign << np.uint64(dst.width - 1)) | np.uint64(dst.inf_logical) | payload
    return np.where(finite | np.isinf(x), out, nan_bits.astype(dst.dtype))
