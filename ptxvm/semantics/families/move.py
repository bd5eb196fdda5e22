"""The pure part of mov (PTX ISA 9.7.9.1): copies, and packing / unpacking of vector operands.

The engine resolves special registers and addresses itself; what is left here is `mov d, a`,
the vector forms `mov.b64 %rd, {%r1, %r2}` (pack) and `mov.b64 {%r1, %r2}, %rd` (unpack),
whose first element is the least significant part, and `mov.v2/.v4` (one copy per element).
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._ints import UINT, unsigned


def pack(parts, part_bits: int):
    """Concatenate parts (least significant first) into one unsigned value of
    len(parts) * part_bits bits (at most 64)."""
    wide = UINT[part_bits * len(parts)]
    d = wide(0)
    for i, p in enumerate(parts):
        d = d | (unsigned(p).astype(wide) << wide(i * part_bits))
    return d


def unpack(wide, part_bits: int, n: int) -> tuple:
    """Split an unsigned value into n parts of part_bits bits, least significant first."""
    u, part = unsigned(wide), UINT[part_bits]
    return tuple((u >> u.dtype.type(i * part_bits)).astype(part) for i in range(n))


@semantic("mov")
def mov(spec):
    if spec.values.get("vec"):  # mov.v2/.v4 {d0, d1, ...}, {a0, a1, ...}: element by element
        return lambda *src: tuple(np.array(s, copy=True) for s in src)

    def lanes(*src):
        """mov d, a copies a; mov d, {a, b, ...} packs the parts into d."""
        if len(src) == 1:
            return np.array(src[0], copy=True)[()]
        return pack(src, src[0].dtype.itemsize * 8)

    return lanes
