"""Hypothesis strategies producing raw bit patterns that hit the corners."""
from __future__ import annotations

import functools
import os

import numpy as np
from hypothesis import HealthCheck, settings, strategies as st

from ptxvm.numerics.formats import FloatFormat

# Hypothesis examples per test: small by default so the suite stays fast;
# PTXVM_NUMERICS_EXAMPLES=500 for a deep run.
EXAMPLES = int(os.environ.get("PTXVM_NUMERICS_EXAMPLES", "30"))

# Per-test settings (not a global profile, which would leak into other suites):
# generation of batched examples is slow on a loaded CI machine, not a bug.
NUMERICS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def specials(f: FloatFormat) -> list[int]:
    w, m, pad = f.width, f.man_bits, f.pad_bits
    sign = 1 << (w - 1)
    one = f.bias << m
    mags = [0, 1, 2, 3, f.man_mask - 1, f.man_mask, f.man_mask + 1,   # subnormals
            1 << m, (1 << m) + 1, one, one + 1, one - 1, one + (1 << (m - 1)),
            f.max_logical, f.max_logical - 1, f.max_logical - (1 << m)]
    if f.has_inf:
        mags += [f.inf_logical, f.inf_logical + 1, f.inf_logical | (f.man_mask >> 1),
                 f.inf_logical | (1 << (m - 1)), f.inf_logical | f.man_mask]
    else:
        mags += [f.exp_mask | f.man_mask]
    out = []
    for mag in mags:
        out += [mag << pad, (mag | sign) << pad]
    return sorted(set(out))


@functools.lru_cache(maxsize=None)
def _frac(m: int):
    full = st.integers(0, (1 << m) - 1)
    return st.one_of(
        full,
        st.tuples(full, st.integers(0, m)).map(lambda t: t[0] & ~((1 << t[1]) - 1)),
        st.integers(0, m - 1).map(lambda k: 1 << k),
        st.integers(0, m).map(lambda k: (1 << m) - (1 << k)),
        st.integers(0, m).map(lambda k: ((1 << m) - 1) >> k),
    )


@functools.lru_cache(maxsize=None)
def float_bits(f: FloatFormat, exp_range=None):
    """Bits of f: uniform, special, or structured (sparse fractions for ties)."""
    w, m = f.width, f.man_bits
    top = (1 << f.exp_bits) - 1
    lo, hi = exp_range if exp_range else (0, top)
    structured = st.builds(
        lambda s, e, fr: ((s << (w - 1)) | (e << m) | fr) << f.pad_bits,
        st.integers(0, 1), st.integers(lo, hi), _frac(m))
    return st.one_of(
        st.integers(0, (1 << w) - 1).map(lambda b: b << f.pad_bits),
        st.sampled_from(specials(f)),
        structured, structured,
    )


def near(f: FloatFormat, a: int, draw) -> int:
    """A pattern related to a: negated, neighbouring, or rescaled."""
    w, m = f.width, f.man_bits
    la = a >> f.pad_bits
    kind = draw(st.integers(0, 3))
    if kind == 0:
        lb = la ^ (1 << (w - 1))
    elif kind == 1:
        lb = la + draw(st.integers(-3, 3))
    elif kind == 2:
        e = (la >> m) & ((1 << f.exp_bits) - 1)
        e2 = min(max(e + draw(st.integers(-(m + 3), m + 3)), 0), (1 << f.exp_bits) - 1)
        lb = (la & ~(((1 << f.exp_bits) - 1) << m)) | (e2 << m)
        lb ^= draw(st.integers(0, 1)) << (w - 1)
        lb ^= draw(st.integers(0, 7))
    else:
        return draw(float_bits(f))
    return (lb % (1 << w)) << f.pad_bits


@functools.lru_cache(maxsize=None)
def operand_tuples(f: FloatFormat, arity: int):
    return _operand_tuples(f, arity)


@st.composite
def _operand_tuples(draw, f: FloatFormat, arity: int):
    a = draw(float_bits(f))
    rest = [near(f, a, draw) if draw(st.booleans()) else draw(float_bits(f))
            for _ in range(arity - 1)]
    return (a, *rest)


def arrays(tuples, f: FloatFormat):
    cols = list(zip(*tuples))
    return [np.array(c, dtype=np.uint64).astype(f.dtype) for c in cols]
