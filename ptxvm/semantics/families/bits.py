"""Bit manipulation (PTX ISA 9.7.1): popc clz bfind fns brev bfe bfi szext bmsk.

Everything is computed on the unsigned view of the operand with vectorized bit tricks: no
floating-point log2 (inexact near 2^53 and above), no per-lane loops. Counts and positions are
returned as uint32, as PTX's destinations are .u32/.b32. Bit positions and lengths are computed
in int64 so that `width - pos` cannot wrap around.
Every form here was compared lane for lane with an H200 (tests/semantics/gpu_probe_intlogic.py);
the places where the hardware is not the manual's pseudocode are marked "H200".
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._ints import UINT, choice, low_mask, shl, shr, signed, unsigned, width

NOT_FOUND = np.uint32(0xFFFFFFFF)


def popcount(x):
    """Number of one bits of unsigned x, as uint32."""
    if hasattr(np, "bitwise_count"):  # NumPy >= 2.0
        return np.bitwise_count(x).astype(np.uint32)
    u, w = UINT[width(x)], width(x)  # SWAR fallback for older NumPy
    c = lambda v: u(int(v, 16) & ((1 << w) - 1))  # noqa: E731
    x = x - ((x >> u(1)) & c("5" * 16))
    x = (x & c("3" * 16)) + ((x >> u(2)) & c("3" * 16))
    x = (x + (x >> u(4))) & c("0f" * 8)
    return ((x * c("01" * 8)) >> u(w - 8)).astype(np.uint32)


def leading_zeros(x):
    """Number of leading zero bits of unsigned x (the width for 0), as uint32: smear the highest
    one bit rightwards, then count the ones."""
    u, w = x.dtype.type, width(x)
    s = 1
    while s < w:
        x = x | (x >> u(s))
        s *= 2
    return np.uint32(w) - popcount(x)


def bit_reverse(x):
    """Unsigned x with its bits in reverse order: swap ever larger neighbouring groups."""
    u, w = x.dtype.type, width(x)
    s = 1
    while s < w:
        low = u(sum(((1 << s) - 1) << i for i in range(0, w, 2 * s)))  # groups 0, 2, 4, ...
        x = ((x >> u(s)) & low) | ((x & low) << u(s))
        s *= 2
    return x


@semantic("popc")
def popc(spec):
    return popcount


@semantic("clz")
def clz(spec):
    return leading_zeros


@semantic("brev")
def brev(spec):
    return bit_reverse


@semantic("bfind")
def bfind(spec):
    shiftamt = spec.flag("shiftamt") or choice(spec, ("shiftamt",)) == "shiftamt"

    def lanes(a):
        u = unsigned(a)
        if a.dtype.kind == "i":  # for negative inputs find the most significant 0
            u = np.where(a < 0, ~u, u)
        lz = leading_zeros(u)
        d = lz if shiftamt else np.uint32(width(a) - 1) - lz
        return np.where(u == 0, NOT_FOUND, d)

    return lanes


@semantic("fns")
def fns(spec):
    def lanes(mask, base, offset):
        """The |offset|-th set bit of mask, walking up (offset > 0) or down (offset < 0) from
        bit `base` inclusive; offset 0 asks whether bit `base` itself is set."""
        mask, base, offset = np.broadcast_arrays(mask, base, offset)
        pos = np.arange(32)
        bits = ((mask.astype(np.uint32)[..., None] >> pos.astype(np.uint32)) & 1).astype(bool)
        b = base.astype(np.int64)[..., None]
        off = offset.astype(np.int64)[..., None]  # int64: |INT_MIN| fits
        # The manual's loop runs only while 0 <= pos <= 31: a base outside that finds nothing.
        # The manual calls base > 31 undefined; an H200 gives 0xFFFFFFFF for base 32..39 and
        # 0x80000000 / 0xFFFFFFFF (u32) and for negative s32 bases, as this does.
        window = np.where(off > 0, pos >= b, np.where(off < 0, pos <= b, pos == b))
        hits = bits & window & (b >= 0) & (b <= 31)
        upward = np.cumsum(hits, axis=-1)
        downward = np.cumsum(hits[..., ::-1], axis=-1)[..., ::-1]
        rank = np.where(off >= 0, upward, downward)
        nth = hits & (rank == np.maximum(np.abs(off), 1))
        d = np.where(nth.any(axis=-1), nth.argmax(axis=-1), NOT_FOUND).astype(np.uint32)
        # offset = INT_MIN (whose |offset| overflows s32) gives 0 on an H200 for every mask and
        # base, where the manual's loop would find nothing: tests/semantics/gpu_probe_intlogic.py
        return np.where(offset == np.iinfo(np.int32).min, np.uint32(0), d)

    return lanes


def _field(b, c, w):
    """pos, len and the field's length inside the operand. The manual restricts pos and len to
    0..255 (pos = b & 0xff, len = c & 0xff); an H200 does so for the 32-bit types, but its 64-bit
    bfe / bfi use the whole u32 values (pos = 256 is past the msb, not 0; len = 256 is the rest
    of the operand): tests/semantics/gpu_probe_intlogic.py, probes bfe.*64 / bfi.b64."""
    if w == 32:
        b, c = b & np.uint32(0xFF), c & np.uint32(0xFF)
    pos, length = b.astype(np.int64), c.astype(np.int64)
    return pos, length, np.clip(np.minimum(length, w - pos), 0, None)


@semantic("bfe")
def bfe(spec):
    def lanes(a, b, c):
        u, w = unsigned(a), width(a)
        pos, length, inside = _field(b, c, w)
        field = shr(u, pos) & low_mask(inside, w)
        if a.dtype.kind == "u":
            return field
        # sbit = a[min(pos+len-1, msb)] for len > 0; it fills every bit past the field
        top = np.clip(pos + length - 1, 0, w - 1)
        sbit = ((shr(u, top) & u.dtype.type(1)) == 1) & (length > 0)
        return signed(np.where(sbit, field | ~low_mask(inside, w), field))

    return lanes


@semantic("bfi")
def bfi(spec):
    def lanes(a, b, c, d):
        """f = b with bits [pos, pos+len) replaced by the low bits of a (pos = c, len = d)."""
        w = width(b)
        pos, _, inside = _field(c, d, w)
        m = shl(low_mask(inside, w), pos)
        return (b & ~m) | (shl(a, pos) & m)

    return lanes


@semantic("szext")
def szext(spec):
    clamp = choice(spec, ("clamp", "wrap"), "mode", default="wrap") == "clamp"
    sign_extend = spec.type == "s32"

    def lanes(a, b):
        u = unsigned(a)
        n = np.minimum(b, np.uint32(32)) if clamp else b & np.uint32(31)  # N, 0..32
        keep = low_mask(n, 32)
        if not sign_extend:
            return u & keep
        sign = ((shr(u, np.maximum(n, 1) - np.uint32(1)) & np.uint32(1)) == 1) & (n > 0)
        return signed(np.where(sign, u | ~keep, u & keep))

    return lanes


@semantic("bmsk")
def bmsk(spec):
    clamp = choice(spec, ("clamp", "wrap"), "mode", default="wrap") == "clamp"

    def lanes(a, b):
        """Ones in bits [a, a+b) (cut at bit 31); a and b wrap mod 32 or clamp at 32."""
        if clamp:
            start, n = np.minimum(a, np.uint32(32)), np.minimum(b, np.uint32(32))
        else:
            start, n = a & np.uint32(31), b & np.uint32(31)
        end = np.minimum(start.astype(np.int64) + n, 32)
        return low_mask(end, 32) & ~low_mask(start, 32)

    return lanes
