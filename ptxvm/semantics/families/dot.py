"""Integer dot products (PTX ISA 9.7.1.23-24): dp4a, dp2a.

a and b hold packed 8- or 16-bit elements, sign- or zero-extended per .atype / .btype; the
products are summed exactly in int64 and added to c, and the result wraps to 32 bits (astype
from int64 keeps the low 32 bits). d and c are .u32 when both types are .u32, else .s32.
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._ints import choice


def elements(x, bits: int, signed: bool):
    """The 32 // bits packed elements of x (least significant first), extended to int64."""
    u = x.astype(np.uint32).astype(np.int64)
    top = 1 << (bits - 1)
    out = []
    for i in range(0, 32, bits):
        e = (u >> i) & ((1 << bits) - 1)
        out.append((e ^ top) - top if signed else e)  # sign extension from bit bits-1
    return out


def _types(spec):
    ts = list(spec.types.values())
    atype, btype = spec.types.get("atype", ts[0]), spec.types.get("btype", ts[-1])
    out = np.uint32 if atype == btype == "u32" else np.int32
    return atype == "s32", btype == "s32", out


@semantic("dp4a")
def dp4a(spec):
    sa, sb, out = _types(spec)

    def lanes(a, b, c):
        acc = c.astype(np.int64)
        for x, y in zip(elements(a, 8, sa), elements(b, 8, sb)):
            acc = acc + x * y
        return acc.astype(out)

    return lanes


@semantic("dp2a")
def dp2a(spec):
    sa, sb, out = _types(spec)
    first = 2 if choice(spec, ("lo", "hi"), "mode", default="lo") == "hi" else 0

    def lanes(a, b, c):
        acc = c.astype(np.int64)
        bs = elements(b, 8, sb)[first:first + 2]  # .lo: bytes 0, 1 of b; .hi: bytes 2, 3
        for x, y in zip(elements(a, 16, sa), bs):
            acc = acc + x * y
        return acc.astype(out)

    return lanes
