"""Integer helpers shared by the integer, extended-precision, bit, logic and compare families.

NumPy is not PTX in a few places, and these helpers are where the difference is handled once:
- Python operators on NumPy *scalars* (immediates) warn on overflow; the ufuncs (np.add,
  np.multiply, np.negative, ...) wrap modulo 2^n silently, as PTX does, for scalars and arrays.
- `<<` / `>>` by a count >= the width is undefined in C; PTX clamps the count to the width.
  `shl` / `shr` clamp explicitly and never shift by >= the width.
- Bit manipulation is done on the unsigned view of a value (`unsigned`); astype between integer
  types of one width is a two's-complement reinterpretation in NumPy (a C cast), never a clip.
"""
from __future__ import annotations

import numpy as np

from ..registry import Spec

UINT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SINT = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
M32 = np.uint64(0xFFFFFFFF)


def choice(spec: Spec, options, *slots: str, default=None):
    """The modifier out of `options` that the instruction carries (slot names from the ISA table
    are tried first, then any slot value, then the written modifiers), else `default`."""
    for s in slots:
        v = spec.get(s)
        if isinstance(v, str) and v.lstrip(".") in options:
            return v.lstrip(".")
    for k, v in spec.values.items():
        if isinstance(v, str) and v.lstrip(".") in options:
            return v.lstrip(".")
        if v is True and k.lstrip(".") in options:
            return k.lstrip(".")
    for m in spec.modifiers:
        if m.lstrip(".") in options:
            return m.lstrip(".")
    return default


def flag(spec: Spec, name: str) -> bool:
    return spec.flag(name) or ("." + name) in spec.modifiers


def width(x) -> int:
    return x.dtype.itemsize * 8


def unsigned(x):
    """The same bits as an unsigned integer (a free view for arrays, a cast for scalars)."""
    return x.astype(UINT[width(x)], copy=False)


def signed(x):
    return x.astype(SINT[width(x)], copy=False)


def shl(x, n):
    """x << n with PTX's clamp: a count >= the width gives 0 (C and NumPy leave it undefined)."""
    w = width(x)
    if np.ndim(n) == 0:  # one count for every lane (an immediate): no per-lane select
        return np.left_shift(x, x.dtype.type(n)) if n < w else np.zeros_like(x)
    s = np.minimum(n, w - 1).astype(x.dtype)
    return np.where(n >= w, x.dtype.type(0), np.left_shift(x, s))


def shr(x, n):
    """x >> n with PTX's clamp. Signed x shifts arithmetically (NumPy's >> on signed integers is
    arithmetic), and a count >= the width gives the sign fill, which is x >> (width-1); unsigned
    x shifts logically and a count >= the width gives 0."""
    w = width(x)
    if np.ndim(n) == 0:  # one count for every lane (an immediate): no per-lane select
        if n < w or x.dtype.kind == "i":
            return np.right_shift(x, x.dtype.type(min(n, w - 1)))
        return np.zeros_like(x)
    s = np.minimum(n, w - 1).astype(x.dtype)
    out = np.right_shift(x, s)
    if x.dtype.kind == "i":
        return out
    return np.where(n >= w, x.dtype.type(0), out)


def low_mask(n, w: int):
    """The mask of the n low bits of a w-bit value (all ones once n >= w), as uint<w>."""
    u = UINT[w]
    low = np.left_shift(u(1), np.minimum(n, w - 1).astype(u)) - u(1)
    return np.where(n >= w, ~u(0), low)


def mul_wide_u64(a, b):
    """The 128-bit product of two uint64 values as (lo, hi), from 32-bit limbs: NumPy has no
    128-bit integers, and each limb product fits in 64 bits."""
    a0, a1 = a & M32, a >> np.uint64(32)
    b0, b1 = b & M32, b >> np.uint64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> np.uint64(32)) + (p01 & M32) + (p10 & M32)  # < 3 * 2^32, no overflow
    hi = p11 + (p01 >> np.uint64(32)) + (p10 >> np.uint64(32)) + (mid >> np.uint64(32))
    lo = np.multiply(a, b)  # wraps modulo 2^64, which is the low half
    return lo, hi


def mul_hi(a, b):
    """The high half of the double-width product of a and b (same dtype, signed or unsigned)."""
    w, dt = width(a), a.dtype
    if w <= 32:
        wide = np.int64 if dt.kind == "i" else np.uint64
        return np.right_shift(np.multiply(a.astype(wide), b.astype(wide)), w).astype(dt)
    _, hi = mul_wide_u64(unsigned(a), unsigned(b))
    if dt.kind == "i":
        # signed high half = unsigned high half - (a<0 ? b : 0) - (b<0 ? a : 0)  (mod 2^64)
        hi = hi - np.where(a < 0, unsigned(b), np.uint64(0)) - np.where(b < 0, unsigned(a), np.uint64(0))
    return hi.astype(dt)


def mul_wide(a, b):
    """a * b in twice the width (16->32, 32->64), as PTX's .wide."""
    w = width(a)
    wide = (SINT if a.dtype.kind == "i" else UINT)[2 * w]
    return np.multiply(a.astype(wide), b.astype(wide))


def saturate_s32(x64):
    """Clamp an int64 result to the s32 range, as .sat does."""
    return np.clip(x64, -(2**31), 2**31 - 1).astype(np.int32)


def halves(x):
    """The two 16-bit halves (lo, hi) of packed u16x2 bits, as uint16."""
    x = x.astype(np.uint32, copy=False)
    return x.astype(np.uint16), (x >> np.uint32(16)).astype(np.uint16)


def join_halves(lo, hi):
    """Pack two 16-bit values (any 16-bit dtype) into 32 bits, lo in bits 15..0."""
    return (unsigned(hi).astype(np.uint32) << np.uint32(16)) | unsigned(lo).astype(np.uint32)
