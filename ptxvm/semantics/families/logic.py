"""Logic and shift (PTX ISA 9.7.7): and or xor not cnot lop3 shl shr shf.

.pred operands are NumPy bool arrays, for which & | ^ ~ are the logical operations; .bN operands
are unsigned, for which they are bitwise. Shift counts are uint32 and PTX clamps them at the
operand width (shl by >= width gives 0, shr.s the sign fill): _ints.shl/shr do that explicitly,
because `<<` / `>>` by >= the width is undefined in C and NumPy's result is not PTX's contract.
"""
from __future__ import annotations

import functools

import numpy as np

from ..registry import semantic
from ._ints import choice, shl, shr


@semantic("and")
def and_(spec):
    return np.bitwise_and


@semantic("or")
def or_(spec):
    return np.bitwise_or


@semantic("xor")
def xor(spec):
    return np.bitwise_xor


@semantic("not")
def not_(spec):
    return np.invert  # bitwise for .bN, logical for .pred (bool)


@semantic("cnot")
def cnot(spec):
    return lambda a: (a == 0).astype(a.dtype)  # C's !a: 1 for 0, else 0


def lut3(a, b, c, lut):
    """F(a, b, c) for the 8-bit truth table `lut`: bit 4*a + 2*b + c of lut, per bit position
    (ta = 0xF0, tb = 0xCC, tc = 0xAA give the index bits): the OR of the minterms lut selects."""
    minterms = [(a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c) for i in range(8)]
    zero = np.zeros_like(minterms[0])
    if np.ndim(lut) == 0:  # the usual case, an immediate: OR only the selected minterms
        selected = (m for i, m in enumerate(minterms) if int(lut) >> i & 1)
    else:  # a table per lane
        lut = np.asarray(lut).astype(np.uint32)
        selected = (np.where((lut >> np.uint32(i)) & np.uint32(1) == 1, m, zero) for i, m in enumerate(minterms))
    return functools.reduce(np.bitwise_or, selected, zero)


@semantic("lop3")
def lop3(spec):
    boolop = choice(spec, ("and", "or"), "boolop", "bool", "op")
    if boolop is None:
        return lut3
    combine = np.logical_and if boolop == "and" else np.logical_or

    def with_predicate(a, b, c, lut, q):
        """lop3.BoolOp d|p: p = (d != 0) BoolOp q; returns (d, p)."""
        d = lut3(a, b, c, lut)
        return d, combine(d != 0, q)

    return with_predicate


@semantic("shl")
def shl_(spec):
    return lambda a, b: shl(a, b)


@semantic("shr")
def shr_(spec):
    return lambda a, b: shr(a, b)  # arithmetic for .sN (int dtypes), logical for .bN/.uN


@semantic("shf")
def shf(spec):
    left = choice(spec, ("l", "r"), "dir", "direction", "mode", default="l") == "l"
    clamp = choice(spec, ("clamp", "wrap"), "mode", "shift", default="wrap") == "clamp"

    def lanes(a, b, c):
        """Shift the 64-bit pair {b, a} (b = bits 63..32) by n = min(c, 32) or c & 31; .l keeps
        the high 32 bits, .r the low 32 bits."""
        n = (np.minimum(c, np.uint32(32)) if clamp else c & np.uint32(31)).astype(np.uint64)
        pair = (b.astype(np.uint64) << np.uint64(32)) | a.astype(np.uint64)
        if left:  # bits 63..32 of pair << n (n <= 32, so no count reaches 64)
            return ((pair << n) >> np.uint64(32)).astype(np.uint32)
        return (pair >> n).astype(np.uint32)  # astype keeps the low 32 bits

    return lanes
