"""NaN policy: the one place that decides which NaN an operation returns.

``NAN_POLICY`` selects between

* ``SM90`` (default): what an sm_90 GPU (H100/H200) was measured to return,
  by tests/numerics/h100_oracle.py.  f32/f16/bf16 arithmetic returns the
  canonical NaN; f64 arithmetic returns the first NaN operand in a fixed
  per-instruction order, quieted, or 0xFFF8000000000000 for invalid
  operations (0/0, inf-inf, sqrt(-x)); conversions have the rules of
  ``convert_nan`` and ``int_nan``.
* ``CANONICAL``: every NaN result is the destination's canonical NaN
  (fmt.nan: 0x7FFFFFFF for f32, ...) and NaN -> integer gives 0, as the PTX
  manual describes.

Every producer of a NaN result in this package goes through this module.
"""
from __future__ import annotations

import enum

import numpy as np

from .formats import BF16, F32, F64, TF32, FloatFormat, as_bits, fields, is_nan, widen_bits


class NanPolicy(enum.Enum):
    SM90 = "sm90"
    CANONICAL = "canonical"


NAN_POLICY = NanPolicy.SM90

F64_DEFAULT_NAN = 0xFFF8000000000000
_F64_QUIET = np.uint64(1 << 51)
_F32_CANONICAL_AS_F64 = 0x7FFFFFFFE0000000   # cvt.ftz.f64.f32: f32 canonical, widened


def nan_result(mask, result, fmt: FloatFormat) -> np.ndarray:
    """``result`` with fmt's canonical NaN where ``mask``."""
    if not np.any(mask):
        return as_bits(result, fmt)
    return np.where(mask, as_bits(fmt.nan, fmt), as_bits(result, fmt))


def f64_nan(mask, result, operands, order) -> np.ndarray:
    """NaN results of f64 arithmetic.

    ``operands`` are the instruction's inputs (bits, PTX order); ``order``
    lists operand indices by priority, e.g. (1, 0) for add/mul: b's NaN wins
    over a's, (1, 2, 0) for fma, (0, 1) for div.
    """
    if NAN_POLICY is NanPolicy.CANONICAL:
        return nan_result(mask, result, F64)
    out = np.where(mask, np.uint64(F64_DEFAULT_NAN), as_bits(result, F64))
    for i in reversed(order):
        op = as_bits(operands[i], F64)
        out = np.where(mask & is_nan(op, F64), op | _F64_QUIET, out)
    return out


def convert_nan(mask, result, src_bits, src: FloatFormat, dst: FloatFormat, *,
                rna: bool = False, ftz: bool = False, satfinite: bool = False) -> np.ndarray:
    """NaN results of a float -> float cvt from NaN inputs ``src_bits``."""
    if NAN_POLICY is NanPolicy.CANONICAL:
        return nan_result(mask, result, dst)
    result = as_bits(result, dst)
    b = as_bits(src_bits, src)
    if dst is F64:
        if src is F32 and ftz:
            nan = np.uint64(_F32_CANONICAL_AS_F64)
        else:
            nan = widen_bits(b, src, F64)
    elif src is F64:
        # Sign kept, payload truncated to its top bits, quieted.
        sign, _, frac = fields(b, F64)
        logical = ((sign << np.uint64(dst.width - 1)) | np.uint64(dst.exp_mask)
                   | np.uint64(1 << (dst.man_bits - 1)) | (frac >> np.uint64(52 - dst.man_bits)))
        nan = (logical << np.uint64(dst.pad_bits)).astype(dst.dtype)
    elif src is BF16 and dst is F32:
        nan = b.astype(np.uint32) << np.uint32(16)             # not even quieted
    elif dst is TF32 and rna:
        # cvt.rna: the low 13 bits are cut, NaN or not (an sNaN may become
        # inf); .satfinite then steps one tf32 ulp down.
        nan = b & np.uint32(0xFFFFE000)
        if satfinite:
            nan = nan - np.uint32(0x2000)
    else:
        return nan_result(mask, result, dst)
    return np.where(mask, nan, result)


def int_nan(src: FloatFormat, dst) -> np.generic:
    """Value of cvt.{rni,...}.<int>.<float> for a NaN input.

    sm_90: f64 sources give the pattern 1 << (bits-1) in any integer type
    (INT_MIN for signed, 2**(bits-1) for unsigned); narrower float sources
    give 0x8000000000000000 for 64-bit destinations and 0 otherwise.
    """
    dst = np.dtype(dst)
    bits = dst.itemsize * 8
    if NAN_POLICY is NanPolicy.CANONICAL:
        pattern = 0
    elif src is F64 or bits == 64:
        pattern = 1 << (bits - 1)
    else:
        pattern = 0
    return np.array(pattern, dtype=f"u{dst.itemsize}").view(dst)[()]
