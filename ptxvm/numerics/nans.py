"""NaN policy: the one place that decides which NaN an operation returns.

PTX documents canonical NaNs for most floating-point results; whether the
H100 propagates payloads anywhere is to be confirmed against hardware, so
the choice is a single switch here.  Every producer of a NaN result in this
package goes through ``nan_result``.
"""
from __future__ import annotations

import enum

import numpy as np

from .formats import FloatFormat, as_bits, is_nan


class NanPolicy(enum.Enum):
    CANONICAL = "canonical"    # always fmt.nan (0x7FFFFFFF for f32, ...)
    PROPAGATE = "propagate"    # first NaN operand of the same format, quieted


NAN_POLICY = NanPolicy.CANONICAL


def nan_result(mask, result, fmt: FloatFormat, *operands) -> np.ndarray:
    """Return ``result`` with the NaN chosen by the policy where ``mask``.

    ``operands`` are the instruction's inputs as bits in ``fmt``; they only
    matter under PROPAGATE.
    """
    out = np.where(mask, as_bits(fmt.nan, fmt), as_bits(result, fmt))
    if NAN_POLICY is NanPolicy.PROPAGATE and operands:
        quiet = fmt.dtype(1 << (fmt.man_bits - 1 + fmt.pad_bits))
        chosen = np.zeros(np.shape(out), bool)
        for op in operands:
            op = as_bits(op, fmt)
            take = mask & ~chosen & is_nan(op, fmt)
            out = np.where(take, op | quiet, out)
            chosen |= take
    return out
