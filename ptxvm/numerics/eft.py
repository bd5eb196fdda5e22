"""Error-free transformations on float64 arrays (exact under RN, no overflow),
and the step from a round-to-nearest result to a directed one.

NumPy's float64 arithmetic is IEEE round-to-nearest-even, which is all these
need; they never touch the host rounding mode.
"""
from __future__ import annotations

import numpy as np

from .rounding import Rounding

_SPLITTER = 134217729.0  # 2**27 + 1 (Veltkamp)


def two_sum(a, b):
    """s + e == a + b exactly, s = RN(a + b) (Knuth; valid with subnormals)."""
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


def split(a):
    """a == hi + lo with hi, lo of at most 26 significant bits (|a| < 2**995)."""
    c = _SPLITTER * a
    hi = c - (c - a)
    return hi, a - hi


def two_prod(a, b):
    """p + e == a * b exactly, p = RN(a * b) (Dekker).

    Exact only while no partial product under- or overflows; callers scale
    their operands into [0.25, 4) first.
    """
    p = a * b
    ah, al = split(a)
    bh, bl = split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


def sign(x) -> np.ndarray:
    """-1, 0 or +1 as int8 (NaN -> 0)."""
    return (np.asarray(x) > 0).astype(np.int8) - (np.asarray(x) < 0).astype(np.int8)


def step(x, direction) -> np.ndarray:
    """Neighbour of x toward +inf (direction > 0) or -inf (< 0); x where 0."""
    x = np.asarray(x)
    inf = np.asarray(np.inf, x.dtype)
    up = np.nextafter(x, inf)
    down = np.nextafter(x, -inf)
    return np.where(direction > 0, up, np.where(direction < 0, down, x))


def directed(s, rs, mode: Rounding):
    """Round exact = s + e in ``mode``, given s within one ulp of it and
    rs = sign(e) (s = RN(exact) qualifies).

    Works for float32 or float64 arrays: only nextafter is used.
    """
    if mode is Rounding.RN:
        return s
    inf = np.asarray(np.inf, s.dtype)
    if mode is Rounding.RZ:
        return np.where(np.where(s > 0, rs < 0, rs > 0), np.nextafter(s, s.dtype.type(0)), s)
    if mode is Rounding.RM:
        return np.where(rs < 0, np.nextafter(s, -inf), s)
    if mode is Rounding.RP:
        return np.where(rs > 0, np.nextafter(s, inf), s)
    raise ValueError(f"{mode} is not an IEEE arithmetic rounding mode")
