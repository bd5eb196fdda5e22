"""Byte permute (PTX ISA 9.7.8.7 prmt): pick four bytes of the pair {b, a} into d.

The source bytes are numbered {b, a} = {b7 b6 b5 b4, b3 b2 b1 b0}. Without a mode, c holds four
4-bit selectors (c[3:0] for d.b0 ... c[15:12] for d.b3): the low 3 bits pick the byte, the top
bit replicates that byte's sign bit over the whole result byte. With a mode, c[1:0] picks a row
of the mode's table below.
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._ints import choice

# Source byte for d.b0, d.b1, d.b2, d.b3, per mode and c[1:0] (the manual's table lists them
# the other way round, d.b3 first).
MODES = {
    "f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],  # forward 4 extract
    "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],  # backward 4 extract
    "rc8": [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],  # replicate 8
    "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],  # edge clamp left
    "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],  # edge clamp right
    "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]],  # replicate 16
}


def _byte(pair, index):
    """Byte `index` (0..7, uint64) of the 64-bit pair."""
    return (pair >> (index * np.uint64(8))) & np.uint64(0xFF)


def _assemble(nibbles):
    d = np.uint64(0)
    for i, byte in enumerate(nibbles):
        d = d | (byte << np.uint64(8 * i))
    return d.astype(np.uint32)


@semantic("prmt")
def prmt(spec):
    mode = choice(spec, tuple(MODES), "mode")

    def generic(a, b, c):
        pair = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
        c = c.astype(np.uint64)
        out = []
        for i in range(4):
            sel = (c >> np.uint64(4 * i)) & np.uint64(0xF)
            byte = _byte(pair, sel & np.uint64(7))
            sign = np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0))
            out.append(np.where(sel & np.uint64(8), sign, byte))  # msb set: replicate the sign
        return _assemble(out)

    if mode is None:
        return generic
    table = np.array(MODES[mode], dtype=np.uint64)

    def with_mode(a, b, c):
        pair = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
        rows = table[(c & np.uint32(3)).astype(np.intp)]  # (..., 4) source byte numbers
        return _assemble(_byte(pair, rows[..., i]) for i in range(4))

    return with_mode
