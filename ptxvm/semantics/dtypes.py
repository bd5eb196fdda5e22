"""PTX types as NumPy dtypes. Registers hold raw bits; these are the views semantics compute in.

Half and 8-bit float types stay as raw unsigned bits: NumPy's float16 arithmetic does not round
like PTX (it computes in float32 and rounds twice), and it has no bf16 or fp8 at all.
"""
from __future__ import annotations

import numpy as np

_DTYPES = {
    "pred": np.bool_,
    "b8": np.uint8, "u8": np.uint8, "s8": np.int8,
    "b16": np.uint16, "u16": np.uint16, "s16": np.int16,
    "b32": np.uint32, "u32": np.uint32, "s32": np.int32,
    "b64": np.uint64, "u64": np.uint64, "s64": np.int64,
    "f32": np.float32, "f64": np.float64,
    # raw bits: computed by ptxvm.numerics, never by NumPy float arithmetic
    "f16": np.uint16, "bf16": np.uint16, "tf32": np.uint32,
    "e4m3": np.uint8, "e5m2": np.uint8,
    "f16x2": np.uint32, "bf16x2": np.uint32, "u16x2": np.uint32, "s16x2": np.uint32,
    "e4m3x2": np.uint16, "e5m2x2": np.uint16, "e2m1x2": np.uint8, "e2m3x2": np.uint16,
    "e3m2x2": np.uint16, "ue8m0x2": np.uint16, "f32x2": np.uint64,
    "texref": np.uint64, "samplerref": np.uint64, "surfref": np.uint64,
    "b128": "V16",  # 16 raw bytes, least significant first; engine/memory/wide.py splits them into u64 pairs
}

# The unsigned storage dtype of a register of each bit width.
STORAGE = {1: np.bool_, 8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64, 128: "V16"}


def numpy_dtype(ptx_type: str) -> np.dtype:
    try:
        return np.dtype(_DTYPES[ptx_type])
    except KeyError:
        raise KeyError(f"PTX type .{ptx_type} has no NumPy representation") from None


def bits_of(ptx_type: str) -> int:
    """Width in bits of a PTX type's value (1 for .pred)."""
    if ptx_type == "pred":
        return 1
    if ptx_type == "b128":
        return 128
    return np.dtype(_DTYPES[ptx_type]).itemsize * 8


def storage_dtype(ptx_type: str) -> np.dtype:
    """The dtype a register declared with this type is stored in (raw bits)."""
    return np.dtype(STORAGE[bits_of(ptx_type)])
