"""PTX value types as the conformance cases see them: width, storage dtype, register type.

NumPy only (the recorder imports this on the GPU machine). Every array in a golden holds raw bits
in an unsigned integer dtype, so comparisons are bit-for-bit and NaN payloads survive.
"""
from __future__ import annotations

import numpy as np

# PTX type -> (value width in bits, float format (exponent bits, mantissa bits) or None, signed)
_INFO = {
    "pred": (1, None, False),
    "b8": (8, None, False), "u8": (8, None, False), "s8": (8, None, True),
    "b16": (16, None, False), "u16": (16, None, False), "s16": (16, None, True),
    "b32": (32, None, False), "u32": (32, None, False), "s32": (32, None, True),
    "b64": (64, None, False), "u64": (64, None, False), "s64": (64, None, True),
    "f16": (16, (5, 10), True), "bf16": (16, (8, 7), True),
    "f32": (32, (8, 23), True), "f64": (64, (11, 52), True),
    "tf32": (32, (8, 23), True),
    "e4m3": (8, (4, 3), True), "e5m2": (8, (5, 2), True),
    "f16x2": (32, (5, 10), True), "bf16x2": (32, (8, 7), True),
    "u16x2": (32, None, False), "s16x2": (32, None, True),
    "e4m3x2": (16, (4, 3), True), "e5m2x2": (16, (5, 2), True),
    "b128": (128, None, False),
}

# Packed types: element type and element count.
PACKED = {
    "f16x2": ("f16", 2), "bf16x2": ("bf16", 2), "u16x2": ("u16", 2), "s16x2": ("s16", 2),
    "e4m3x2": ("e4m3", 2), "e5m2x2": ("e5m2", 2),
}

UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def width(t: str) -> int:
    return _INFO[t][0]


def float_format(t: str):
    """(exponent bits, mantissa bits) of a float type (of the element for packed types), else None."""
    return _INFO[t][1]


def is_float(t: str) -> bool:
    return _INFO[t][1] is not None


def is_signed_int(t: str) -> bool:
    return _INFO[t][1] is None and _INFO[t][2]


def is_int(t: str) -> bool:
    return t != "pred" and _INFO[t][1] is None


def storage_dtype(t: str) -> np.dtype:
    """Dtype of a golden array holding values of type t (predicates as u8 0/1)."""
    w = width(t)
    return np.dtype(np.uint8 if w <= 8 else UINT[w])


def reg_type(t: str) -> str:
    """The PTX register type the generated kernels declare for a value of type t.

    Bit-size registers are compatible with every type of their width; 8-bit values live in 16-bit
    registers (PTX has no useful 8-bit registers; ld/cvt widen into the larger register).
    """
    if t == "pred":
        return "pred"
    w = width(t)
    return "b%d" % max(w, 16)


def mem_type(t: str) -> str:
    """The ld/st type used to move a value of type t between memory and its register."""
    if t == "pred":
        return "u8"
    w = width(t)
    if t in ("s8",):
        return "s8"
    if t in ("u8", "b8", "e4m3", "e5m2"):
        return "u8"
    return "b%d" % w


def type_bytes(t: str) -> int:
    return storage_dtype(t).itemsize
