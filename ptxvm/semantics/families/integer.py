"""Integer arithmetic (PTX ISA 9.7.1): add sub mul mad mul24 mad24 clmad sad div rem abs neg min max.

Operands arrive in the instruction type's dtype (s32 -> int32, u16x2/s16x2 -> uint32 raw bits) and
results leave in the destination's. Arithmetic goes through the NumPy ufuncs, which wrap modulo
2^n as PTX does, for scalar immediates as well (Python operators on NumPy scalars would warn).
The .cc forms (add.cc, sub.cc, mad.cc) return (d, carry_out): see extended.py.
Every form was compared lane for lane with an H200 (tests/semantics/gpu_probe_intlogic.py).
These opcodes are shared with the floating-point families, so they are registered for the
integer types only (see _bytype.py).
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._bytype import typed_semantic
from ._ints import (choice, flag, halves, join_halves, mul_hi, mul_wide, saturate_s32, signed,
                    unsigned)
from .extended import add_cc, mad_cc, sub_cc

PACKED = {"u16x2": np.uint16, "s16x2": np.int16}


def _packed(op, t, relu=False):
    """Apply op to both 16-bit halves of the packed operands (u16x2 / s16x2)."""
    view = PACKED[t]

    def lanes(a, b):
        (al, ah), (bl, bh) = halves(a), halves(b)
        lo, hi = op(al.astype(view), bl.astype(view)), op(ah.astype(view), bh.astype(view))
        if relu:
            lo, hi = np.maximum(lo, view(0)), np.maximum(hi, view(0))
        return join_halves(lo, hi)

    return lanes


@typed_semantic("add", kind="int")
def add(spec):
    if spec.type in PACKED:
        return _packed(np.add, spec.type)
    if flag(spec, "cc"):
        return add_cc
    if flag(spec, "sat"):  # .s32 only: the exact sum, clamped to the s32 range
        return lambda a, b: saturate_s32(np.add(a.astype(np.int64), b))
    return np.add


@typed_semantic("sub", kind="int")
def sub(spec):
    if spec.type in PACKED:
        return _packed(np.subtract, spec.type)
    if flag(spec, "cc"):
        return sub_cc
    if flag(spec, "sat"):
        return lambda a, b: saturate_s32(np.subtract(a.astype(np.int64), b))
    return np.subtract


_MUL = {"lo": np.multiply, "hi": mul_hi, "wide": mul_wide}  # np.multiply wraps: the low half


def _mode(spec):
    return choice(spec, ("hi", "lo", "wide"), "mode", default="lo")


@typed_semantic("mul", kind="int")
def mul(spec):
    return _MUL[_mode(spec)]


@typed_semantic("mad", kind="int")
def mad(spec):
    part = _MUL[_mode(spec)]
    if flag(spec, "cc"):
        return mad_cc(part)
    if flag(spec, "sat"):  # mad.hi.sat.s32: t<63..32> + c, clamped to the s32 range
        return lambda a, b, c: saturate_s32(np.add(part(a, b).astype(np.int64), c))
    return lambda a, b, c: np.add(part(a, b), c)


def _product24(a, b):
    """The exact 48-bit product of the low 24 bits of a and b (sign-extended from bit 23 for
    .s32, zero-extended for .u32), in 64 bits. The upper 8 bits of each source are ignored (the
    manual does not say; an H200 ignores them in mul24 / mad24, .lo and .hi alike)."""
    if a.dtype.kind == "i":
        # (x << 8) >> 8 on int32: the shift-out wraps silently in the ufunc, >> is arithmetic
        a24 = np.right_shift(np.left_shift(a, 8), 8).astype(np.int64)
        b24 = np.right_shift(np.left_shift(b, 8), 8).astype(np.int64)
    else:
        a24 = (a & np.uint32(0xFFFFFF)).astype(np.uint64)
        b24 = (b & np.uint32(0xFFFFFF)).astype(np.uint64)
    return a24 * b24  # |product| < 2^48: exact


def _part24(spec):
    dt = np.dtype(np.int32 if spec.type == "s32" else np.uint32)
    if _mode(spec) == "hi":  # t<47..16>; astype keeps the low 32 bits (two's complement)
        return lambda a, b: np.right_shift(_product24(a, b), 16).astype(dt)
    return lambda a, b: _product24(a, b).astype(dt)  # t<31..0>


@semantic("mul24")
def mul24(spec):
    return _part24(spec)


@semantic("mad24")
def mad24(spec):
    part = _part24(spec)
    if flag(spec, "sat"):  # mad24.hi.sat.s32
        return lambda a, b, c: saturate_s32(np.add(part(a, b).astype(np.int64), c))
    return lambda a, b, c: np.add(part(a, b), c)


def clmul64(a, b) -> tuple:
    """The carry-less (GF(2) polynomial) product of 64-bit lanes a and b: (low, high) 64-bit halves
    of the 127-bit result. One shift/XOR per bit of b, over whole arrays."""
    a = np.asarray(a).view(np.uint64) if np.asarray(a).dtype.itemsize == 8 else np.asarray(a, np.uint64)
    b = np.asarray(b).view(np.uint64) if np.asarray(b).dtype.itemsize == 8 else np.asarray(b, np.uint64)
    a, b = np.broadcast_arrays(a, b)
    lo = np.zeros(a.shape, np.uint64)
    hi = np.zeros(a.shape, np.uint64)
    for i in range(64):
        take = ((b >> np.uint64(i)) & np.uint64(1)).astype(bool)
        if not take.any():
            continue
        lo ^= np.where(take, a << np.uint64(i), np.uint64(0))
        if i:
            hi ^= np.where(take, a >> np.uint64(64 - i), np.uint64(0))
    return lo, hi


@semantic("clmad")
def clmad(spec):
    """clmad.{lo,hi}.{u64,s64} d, a, b, c (PTX 9.3): one 64-bit half of the carry-less product of a
    and b, XORed with c (addition over GF(2))."""
    half = 1 if _mode(spec) == "hi" else 0
    dt = np.dtype(np.int64 if spec.type == "s64" else np.uint64)

    def lanes(a, b, c):
        part = clmul64(a, b)[half]
        c = np.asarray(c).astype(dt).view(np.uint64)
        return (part ^ c).view(dt)
    return lanes


@semantic("sad")
def sad(spec):
    # (a<b) ? b-a : a-b, compared in the type's signedness, subtracted modulo 2^n
    return lambda a, b, c: np.add(c, np.where(a < b, np.subtract(b, a), np.subtract(a, b)))


# Division by zero. The manual leaves it undefined. An H200 (CUDA 13.0, driver 580) gives all
# ones for x / 0 and for x % 0, for every type (-1 for the signed ones), whatever x is
# (tests/semantics/gpu_probe_intlogic.py, probes div.* / rem.*). INT_MIN / -1 = INT_MIN there too.
def _magnitude(x):
    """|x| as the unsigned type: |INT_MIN| = 2^(n-1) is representable there."""
    u = unsigned(x)
    return np.where(x < 0, np.negative(u), u)  # unsigned negation wraps: 2^n - u


def _nonzero(b):
    return np.where(b == 0, b.dtype.type(1), b)


def _udiv(a, b):
    q = np.floor_divide(a, _nonzero(b))  # unsigned: floor is truncation
    return np.where(b == 0, ~a.dtype.type(0), q)


def _urem(a, b):
    return np.where(b == 0, ~a.dtype.type(0), np.remainder(a, _nonzero(b)))


def _sdiv(a, b):
    # PTX truncates toward zero; NumPy's // floors. Divide the magnitudes, then set the sign.
    # INT_MIN / -1 gives 2^(n-1) here, whose signed view is INT_MIN, as PTX wraps.
    q = np.floor_divide(_magnitude(a), _nonzero(_magnitude(b)))
    q = signed(np.where((a < 0) != (b < 0), np.negative(q), q))
    return np.where(b == 0, a.dtype.type(-1), q)


def _srem(a, b):
    # PTX's remainder takes the sign of the dividend (C's %); NumPy's % takes the divisor's.
    r = np.remainder(_magnitude(a), _nonzero(_magnitude(b)))
    r = signed(np.where(a < 0, np.negative(r), r))
    return np.where(b == 0, a.dtype.type(-1), r)


@typed_semantic("div", kind="int")
def div(spec):
    return _sdiv if spec.type.startswith("s") else _udiv


@semantic("rem")
def rem(spec):
    return _srem if spec.type.startswith("s") else _urem


@typed_semantic("abs", kind="int")
def abs_(spec):
    return np.absolute  # the ufunc wraps: |INT_MIN| = INT_MIN, as PTX


@typed_semantic("neg", kind="int")
def neg(spec):
    return np.negative  # wraps: -INT_MIN = INT_MIN


def _minmax(op, spec):
    relu = flag(spec, "relu")  # .s32 and .s16x2: clamp the result below at 0
    if spec.type in PACKED:
        return _packed(op, spec.type, relu)
    if relu:
        return lambda a, b: np.maximum(op(a, b), a.dtype.type(0))
    return op


@typed_semantic("min", kind="int")
def min_(spec):
    return _minmax(np.minimum, spec)


@typed_semantic("max", kind="int")
def max_(spec):
    return _minmax(np.maximum, spec)
