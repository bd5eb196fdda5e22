"""Scalar-reference harness for the integer, logic and compare semantics tests.

The references (in the test modules) are written from the manual's Semantics pseudocode on Python
numbers, one lane at a time, with wrap-around made explicit. `check` runs the vectorized lane
function over many lanes at once and compares every lane with the reference, which receives the
operands exactly as stored in the lanes (Python ints, floats, bools).

An operand is described by its PTX type ("s32", "f32", "f16x2", "pred") or by a pair
(type, [values]) that fixes the values to draw from (shift counts, bit positions, carries).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from hypothesis import strategies as st

from ptxvm.semantics import Spec, lane_function
from ptxvm.semantics.dtypes import bits_of, numpy_dtype

SEED = 20240611

# --------------------------------------------------------------------------- integers


def width(t: str) -> int:
    return bits_of(t)


def is_signed(t: str) -> bool:
    return t.startswith("s") and not t.endswith("x2")


def wrap(x: int, bits: int, signed: bool = False) -> int:
    """x modulo 2^bits, as the unsigned or the two's-complement signed value."""
    x &= (1 << bits) - 1
    if signed and x >> (bits - 1):
        x -= 1 << bits
    return x


def wrap_t(x: int, t: str) -> int:
    return wrap(x, width(t), is_signed(t))


def u(x: int, bits: int) -> int:
    """The unsigned bits of x."""
    return x & ((1 << bits) - 1)


def bit(x: int, i: int) -> int:
    return (x >> i) & 1 if i >= 0 else 0


def clamp_s32(x: int) -> int:
    return max(-(2**31), min(2**31 - 1, x))


FLOATS = ("f32", "f64")
HALVES = {"f16": [0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFE01, 0x0001,
                  0x8001, 0x03FF, 0x0400, 0x8400, 0x7BFF, 0x3C01, 0x3BFF],
          "bf16": [0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0xFFC1, 0x0001,
                   0x8001, 0x007F, 0x0080, 0x8080, 0x7F7F, 0x3F81, 0x3F7F]}
FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45,
               1.1754942e-38, -1.1754942e-38, 1.1754944e-38, -1.1754944e-38, 3.4028235e38,
               -3.4028235e38, 1e-300, -1e-310]


def edges(t: str) -> list:
    """Edge values of type t: 0, 1, -1, INT_MIN, INT_MAX, UINT_MAX and neighbours; for floats
    zeros, infinities, NaN, subnormals; for halves the same as bit patterns."""
    if t == "pred":
        return [False, True]
    if t in FLOATS:
        return FLOAT_EDGES
    if t in HALVES:
        return HALVES[t]
    if t in ("f16x2", "bf16x2"):
        h = HALVES[t[:-2]]
        return sorted({hi << 16 | lo for hi, lo in itertools.product(h[::3], h[1::3])})
    w, signed = width(t), is_signed(t)
    raw = {0, 1, 2, 3, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFFFF,
           0x800000, 0xFFFFFF, 0x7FFF8000, 0x80007FFF, 0xFFFF0001, 0x0001FFFF}
    raw |= {(1 << (w - 1)) - 1, 1 << (w - 1), (1 << (w - 1)) + 1, (1 << w) - 1, (1 << w) - 2}
    return sorted({wrap(r, w, signed) for r in raw})


def random_values(t: str, n: int, rng) -> list:
    """Random values of type t: random bit patterns (so NaN payloads and subnormals for floats),
    plus small integers."""
    if t == "pred":
        return [bool(x) for x in rng.integers(0, 2, n)]
    w = width(t)
    bits = rng.integers(0, 1 << w, n, dtype=np.uint64 if w == 64 else np.int64).astype(np.uint64)
    stored = bits.astype(numpy_dtype(t) if t not in FLOATS else {32: np.uint32, 64: np.uint64}[w])
    if t in FLOATS:
        stored = stored.view(numpy_dtype(t))
        small = rng.normal(0, 1e3, n // 4).astype(numpy_dtype(t))
        return [x.item() for x in stored] + [x.item() for x in small]
    small = [wrap(int(x), w, is_signed(t)) for x in rng.integers(-300, 300, n // 4)]
    return [x.item() for x in stored] + small


def kind(op):
    return op if isinstance(op, str) else op[0]


def rows_for(operands, n_random: int = 150, max_grid: int = 800, seed: int = 0) -> list:
    """Operand rows: every combination of edge values (or a sample of them when there are too
    many), then rows of random values mixed with edge values."""
    rng = np.random.default_rng(SEED + seed)
    grids = [edges(op) if isinstance(op, str) else list(op[1]) for op in operands]
    if math.prod(map(len, grids)) <= max_grid:
        rows = list(itertools.product(*grids))
    else:
        rows = [tuple(g[rng.integers(len(g))] for g in grids) for _ in range(max_grid)]
    pools = [random_values(op, n_random, rng) if isinstance(op, str) else list(op[1]) for op in operands]
    for i in range(n_random):
        rows.append(tuple(g[rng.integers(len(g))] if rng.random() < 0.25 else p[i % len(p)]
                          for g, p in zip(grids, pools)))
    return rows


def rows_strategy(operands, max_size: int = 16):
    """Hypothesis rows of operands, biased towards the edge values."""
    def one(op):
        if not isinstance(op, str):
            return st.sampled_from(list(op[1]))
        t = op
        if t == "pred":
            return st.booleans()
        if t in FLOATS:
            fw = 32 if t == "f32" else 64
            return st.one_of(st.sampled_from(edges(t)), st.floats(width=fw, allow_nan=True))
        return st.one_of(st.sampled_from(edges(t)), st.integers(0, (1 << width(t)) - 1).map(
            lambda x: wrap(x, width(t), is_signed(t))))
    return st.lists(st.tuples(*map(one, operands)), min_size=1, max_size=max_size)


# --------------------------------------------------------------------------- harness


def column(values, op):
    t = kind(op)
    return np.array(values, dtype=numpy_dtype(t))


def _same(got, want) -> bool:
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return got == want and isinstance(got, bool) == isinstance(want, bool)


def check(spec: Spec, operands, ref, rows, out=None):
    """Run the lane function of `spec` once over all rows (one lane per row) and compare each
    lane with ref(*row). `out`: the expected result type(s) (PTX names)."""
    fn = lane_function(spec)
    cols = [column([r[i] for r in rows], op) for i, op in enumerate(operands)]
    got = fn(*cols)
    results = got if isinstance(got, tuple) else (got,)
    if out is not None:
        for r, t in zip(results, out if isinstance(out, tuple) else (out,)):
            assert np.asarray(r).dtype == numpy_dtype(t), f"{spec}: result {np.asarray(r).dtype}, want {t}"
    results = [np.broadcast_to(r, (len(rows),)).tolist() for r in results]
    stored_rows = list(zip(*(c.tolist() for c in cols)))  # the operands exactly as the lanes hold them
    for i, stored in enumerate(stored_rows):
        want = ref(*stored)
        want = want if isinstance(want, tuple) else (want,)
        lane = tuple(r[i] for r in results)
        if lane == want and all(type(g) is type(w) for g, w in zip(lane, want)):
            continue
        assert len(lane) == len(want) and all(_same(g, w) for g, w in zip(lane, want)), (
            f"{spec.opcode} {dict(spec.values)} {dict(spec.types)} operands {stored}: "
            f"got {lane}, want {want}")


def spec(opcode: str, t=None, types=None, **values) -> Spec:
    return Spec(opcode, values=values, types=types if types is not None else {"type": t})


class Case:
    """One instruction form under test: its Spec, operands, scalar reference, result types."""

    def __init__(self, name, spec, operands, ref, out=None, n_random=150):
        self.name, self.spec, self.operands, self.ref, self.out = name, spec, operands, ref, out
        self.n_random = n_random

    def __repr__(self):
        return self.name


def run_grid(case: Case):
    check(case.spec, case.operands, case.ref, rows_for(case.operands, case.n_random), case.out)


def run_rows(case: Case, rows):
    check(case.spec, case.operands, case.ref, rows, case.out)
