"""The compiled tensor-core kernels (ptxvm.numerics.mma_jit) against the NumPy specification
(ptxvm.numerics.mma with the compiled path switched off), bit for bit, for every type pairing
and accumulator of mma, wmma, mma.sp and wgmma, on random and adversarial operands: NaN and
infinity, subnormals, exact cancellation, sums on rounding ties and grid edges, the largest
exponents, all zeros. The recorded GPU goldens (tests/engine/test_matrix.py, the matrix and wgmma
conformance families) replay through the compiled path, which is the default.
"""
from __future__ import annotations

import numpy as np
import pytest

from ptxvm import jit
from ptxvm.numerics import mma as MM
from ptxvm.numerics.formats import FORMATS

pytestmark = pytest.mark.skipif(not jit.numba_available(), reason="numba is not installed: no compiled path to compare")

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

FLOAT_KINDS = ("random", "specials", "subnormal", "cancel", "ties", "max_exp", "zero", "narrow")
INT_KINDS = ("random", "extremes", "zero")


def _fmt(t):
    return FORMATS[t]


def _float_bits(rng, t: str, shape, kind: str) -> np.ndarray:
    """Raw element bits of format t, drawn for one adversarial `kind`."""
    f = _fmt(t)
    w, pad = f.width, f.pad_bits
    sign = rng.integers(0, 2, shape).astype(np.uint64) << np.uint64(w - 1)
    emax_field = (1 << f.exp_bits) - (2 if f.has_inf else 1)
    frac = rng.integers(0, 1 << f.man_bits, shape).astype(np.uint64)
    if kind == "random":
        bits = rng.integers(0, 1 << w, shape).astype(np.uint64)
    elif kind == "narrow":  # exponents near 1.0: long carries and ties in the fused sum
        e = rng.integers(f.bias - 3, f.bias + 3, shape).astype(np.uint64)
        bits = sign | (e << np.uint64(f.man_bits)) | frac
    elif kind == "subnormal":
        e = rng.choice([0, 0, 0, 1, 2], shape).astype(np.uint64)
        bits = sign | (e << np.uint64(f.man_bits)) | frac
    elif kind == "max_exp":
        e = rng.integers(max(emax_field - 2, 1), emax_field + 1, shape).astype(np.uint64)
        bits = sign | (e << np.uint64(f.man_bits)) | frac
        if not f.has_inf:  # e4m3: S.1111.111 is NaN, keep it rare
            bits = np.where((bits & np.uint64((1 << (w - 1)) - 1)) == np.uint64((1 << (w - 1)) - 1),
                            bits - np.uint64(1), bits)
    elif kind == "zero":
        bits = sign * rng.integers(0, 2, shape).astype(np.uint64)
    else:  # specials, cancel, ties start from ordinary values
        e = rng.integers(max(f.bias - 8, 1), f.bias + 8, shape).astype(np.uint64)
        bits = sign | (e << np.uint64(f.man_bits)) | frac
    if kind == "specials":
        specials = [0, 1 << (w - 1), 1, f.man_mask, 1 << f.man_bits, f.max_logical, f.exp_mask | f.man_mask]
        if f.has_inf:
            specials += [f.inf_logical, f.inf_logical | (1 << (w - 1)), f.inf_logical | 1]
        pick = rng.random(shape) < 0.15
        bits = np.where(pick, rng.choice(np.array(specials, np.uint64), shape), bits)
    if kind == "ties":  # a few large terms and many tiny ones just on / below the grid
        small = rng.random(shape) < 0.7
        e = rng.integers(1, max(f.bias - 10, 2), shape).astype(np.uint64)
        tiny = (bits & np.uint64(1 << (w - 1))) | (e << np.uint64(f.man_bits)) | (frac & np.uint64(1))
        bits = np.where(small, tiny, bits)
    bits = bits << np.uint64(pad)
    if pad:  # tf32 containers: garbage in the low 13 bits must be ignored
        bits |= rng.integers(0, 1 << pad, shape).astype(np.uint64)
    return bits.astype(f.dtype)


def _cancel(a, b, t):
    """Exact cancellation: odd k of A is even k negated, B's odd rows equal the even ones."""
    f = _fmt(t)
    smask = f.dtype(1 << (f.width - 1 + f.pad_bits))
    a = a.copy()
    b = b.copy()
    a[..., 1::2] = a[..., 0::2] ^ smask
    b[..., 1::2, :] = b[..., 0::2, :]
    return a, b


def _operands(seed, kind, at, bt, ct, M, N, K, lead=(2,)):
    rng = np.random.default_rng(seed)
    a = _float_bits(rng, at, lead + (M, K), kind)
    b = _float_bits(rng, bt, lead + (K, N), kind)
    ckind = "narrow" if kind in ("cancel", "ties") else kind
    c = _float_bits(rng, ct, lead + (M, N), ckind)
    if kind == "cancel" and at == bt:
        a, b = _cancel(a, b, at)
    return a, b, c


def _both(fn, *args, **kw):
    with jit.override(False):
        spec = fn(*args, **kw)
    with jit.override(True):
        fast = fn(*args, **kw)
    return spec, fast


def _same(spec, fast):
    assert fast.dtype == spec.dtype and fast.shape == spec.shape
    bad = np.flatnonzero(spec.ravel() != fast.ravel())
    assert bad.size == 0, f"{bad.size} outputs differ, first at {bad[0]}: spec {spec.ravel()[bad[0]]:#x}, " \
                          f"compiled {fast.ravel()[bad[0]]:#x}"


# (shape, atype, btype, ctype, dtype) of the mma.sync float forms
MMA_FLOAT = [
    ("m16n8k8", "f16", "f16", "f32", "f32"), ("m16n8k16", "f16", "f16", "f32", "f32"),
    ("m16n8k16", "f16", "f16", "f16", "f16"), ("m16n8k8", "f16", "f16", "f16", "f16"),
    ("m16n8k16", "f16", "f16", "f16", "f32"), ("m16n8k16", "f16", "f16", "f32", "f16"),
    ("m16n8k8", "bf16", "bf16", "f32", "f32"), ("m16n8k16", "bf16", "bf16", "f32", "f32"),
    ("m16n8k4", "tf32", "tf32", "f32", "f32"), ("m16n8k8", "tf32", "tf32", "f32", "f32"),
] + [("m16n8k32", x, y, c, c) for x in ("e4m3", "e5m2") for y in ("e4m3", "e5m2") for c in ("f32", "f16")] \
  + [("m16n8k16", "e4m3", "e5m2", "f32", "f32"), ("m16n8k16", "e5m2", "e4m3", "f16", "f16")]


@pytest.mark.parametrize("form", MMA_FLOAT, ids="-".join)
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_mma_float_forms(form, kind):
    from ptxvm.semantics.families.matrix import parse_shape
    shape, at, bt, ct, dt = form
    M, N, K = parse_shape(shape)
    for seed in range(3):
        a, b, c = _operands(seed, kind, at, bt, ct, M, N, K)
        _same(*_both(MM.mma, a, b, c, shape, at, bt, ct, dt))


@settings(max_examples=40, deadline=None)
@given(form=st.sampled_from(MMA_FLOAT), kind=st.sampled_from(FLOAT_KINDS), seed=st.integers(0, 2**32 - 1),
       lead=st.sampled_from([(1,), (3,), (2, 2)]))
def test_mma_float_property(form, kind, seed, lead):
    from ptxvm.semantics.families.matrix import parse_shape
    shape, at, bt, ct, dt = form
    M, N, K = parse_shape(shape)
    a, b, c = _operands(seed, kind, at, bt, ct, M, N, K, lead)
    _same(*_both(MM.mma, a, b, c, shape, at, bt, ct, dt))


@settings(max_examples=60, deadline=None)
@given(form=st.sampled_from(MMA_FLOAT), kinds=st.tuples(*[st.sampled_from(FLOAT_KINDS)] * 3),
       seed=st.integers(0, 2**32 - 1))
def test_mixed_kinds_property(form, kinds, seed):
    """A, B and C each from its own generator (e.g. subnormal A, huge B, NaN-laced C)."""
    from ptxvm.semantics.families.matrix import parse_shape
    shape, at, bt, ct, dt = form
    M, N, K = parse_shape(shape)
    rng = np.random.default_rng(seed)
    a = _float_bits(rng, at, (2, M, K), kinds[0])
    b = _float_bits(rng, bt, (2, K, N), kinds[1])
    c = _float_bits(rng, ct, (2, M, N), kinds[2])
    _same(*_both(MM.mma, a, b, c, shape, at, bt, ct, dt))


# wgmma: dense f16/bf16/tf32/fp8 with either accumulator, N from 8 to 256
WGMMA_FLOAT = [("f16", "f16", "f32", 16), ("f16", "f16", "f16", 16), ("bf16", "bf16", "f32", 16),
               ("tf32", "tf32", "f32", 8)] + \
              [(x, y, d, 32) for x in ("e4m3", "e5m2") for y in ("e4m3", "e5m2") for d in ("f32", "f16")]


@pytest.mark.parametrize("form", WGMMA_FLOAT, ids=lambda f: "-".join(map(str, f)))
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_wgmma_float_forms(form, kind):
    at, bt, dt, K = form
    for seed, N in ((0, 8), (1, 64)):
        a, b, c = _operands(seed, kind, at, bt, dt, 64, N, K, lead=(1,))
        _same(*_both(MM.wgmma_float, a, b, c, at, bt, dt, dt))


@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_wgmma_n256(kind):
    a, b, c = _operands(7, kind, "f16", "f16", "f32", 64, 256, 16, lead=(1,))
    _same(*_both(MM.wgmma_float, a, b, c, "f16", "f16", "f32", "f32"))


# wmma: the tf32 two-step form, mixed f16/f32 accumulators, every f16/bf16 shape
WMMA_FLOAT = [("m16n16k8", "tf32", "tf32", "f32", "f32")] + \
             [(s, "f16", "f16", c, d) for s in ("m16n16k16", "m32n8k16", "m8n32k16")
              for c in ("f16", "f32") for d in ("f16", "f32")] + \
             [(s, "bf16", "bf16", "f32", "f32") for s in ("m16n16k16", "m32n8k16", "m8n32k16")]


@pytest.mark.parametrize("form", WMMA_FLOAT, ids="-".join)
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_wmma_float_forms(form, kind):
    from ptxvm.semantics.families.matrix import parse_shape
    shape, at, bt, ct, dt = form
    M, N, K = parse_shape(shape)
    a, b, c = _operands(3, kind, at, bt, ct, M, N, K)
    _same(*_both(MM.wmma, a, b, c, shape, at, bt, ct, dt))


SPARSE = [("m16n8k16", "f16", "f32"), ("m16n8k32", "f16", "f16"), ("m16n8k16", "bf16", "f32"),
          ("m16n8k8", "tf32", "f32"), ("m16n8k64", "e4m3", "f32"), ("m16n8k64", "e5m2", "f16")]


@pytest.mark.parametrize("form", SPARSE, ids="-".join)
@pytest.mark.parametrize("kind", FLOAT_KINDS)
def test_mma_sp_float(form, kind):
    """mma.sp (and wgmma.sp, which runs the same way): a per-row B operand, leading axes [W, M]."""
    from ptxvm.semantics.families.matrix import parse_shape
    shape, at, dt = form
    M, N, K = parse_shape(shape)
    rng = np.random.default_rng(11)
    a = _float_bits(rng, at, (2, M, K // 2), kind)
    bsel = _float_bits(rng, at, (2, M, K // 2, N), kind)
    c = _float_bits(rng, dt, (2, M, N), "narrow" if kind in ("cancel", "ties") else kind)
    _same(*_both(MM.mma_sp, a, bsel, c, shape, at, at, dt, dt))


def _int_bits(rng, t, shape, kind):
    w = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32}[t]
    if kind == "zero":
        return np.zeros(shape, np.uint32)
    if kind == "extremes":
        vals = [0, 1, (1 << w) - 1, 1 << (w - 1), (1 << (w - 1)) - 1] if w > 1 else [0, 1]
        return rng.choice(np.array(vals, np.uint64), shape).astype(np.uint32)
    # random, with garbage above the element width that the rule must ignore
    return rng.integers(0, 1 << 32, shape, dtype=np.uint64).astype(np.uint32)


INT_FORMS = [(x, y) for x in ("s8", "u8") for y in ("s8", "u8")] + [(x, y) for x in ("s4", "u4") for y in ("s4", "u4")]


@pytest.mark.parametrize("types", INT_FORMS, ids="-".join)
@pytest.mark.parametrize("kind", INT_KINDS)
@pytest.mark.parametrize("satfinite", [False, True])
def test_imma(types, kind, satfinite):
    at, bt = types
    rng = np.random.default_rng(5)
    K = 32
    a, b = _int_bits(rng, at, (3, 16, K), kind), _int_bits(rng, bt, (3, K, 8), kind)
    c = _int_bits(rng, "s32", (3, 16, 8), "extremes" if kind == "extremes" else "random")
    if kind == "extremes":  # C near the clamp limits
        c = rng.choice(np.array([0x7fffffff, 0x80000000, 0x7ffffff0, 0x80000010, 0], np.uint32), (3, 16, 8))
    _same(*_both(MM.imma, a, b, c, at, bt, satfinite))


@pytest.mark.parametrize("op", ["and", "xor"])
@pytest.mark.parametrize("kind", INT_KINDS)
def test_bmma(op, kind):
    rng = np.random.default_rng(9)
    a, b = _int_bits(rng, "b1", (2, 8, 128), kind), _int_bits(rng, "b1", (2, 128, 8), kind)
    c = _int_bits(rng, "s32", (2, 8, 8), "random")
    _same(*_both(MM.bmma, a, b, c, op))


@settings(max_examples=30, deadline=None)
@given(types=st.sampled_from(INT_FORMS), seed=st.integers(0, 2**32 - 1), satfinite=st.booleans(),
       kind=st.sampled_from(INT_KINDS))
def test_imma_property(types, seed, satfinite, kind):
    rng = np.random.default_rng(seed)
    at, bt = types
    a, b = _int_bits(rng, at, (2, 8, 16), kind), _int_bits(rng, bt, (2, 16, 8), kind)
    c = _int_bits(rng, "s32", (2, 8, 8), "random")
    _same(*_both(MM.imma, a, b, c, at, bt, satfinite))


def test_crafted_edges():
    """Hand-made single outputs at the edges of the rule (docs/notes/matrix-numerics.md)."""
    f16 = lambda x: np.asarray(x, np.float64).astype(np.float16).view(np.uint16)  # noqa: E731
    f32 = lambda x: np.asarray(x, np.float32).view(np.uint32)  # noqa: E731
    cases = [  # (a row, b column, c): f16 inputs, f32 and f16 accumulators
        ([2.0**6, -(2.0**6), 2.0**-7], [2.0**6, 2.0**6, 2.0**-6], 0.0),
        ([2.0**6, -(2.0**6), 2.0**-7], [2.0**6, 2.0**6, 2.0**-7], 0.0),
        ([2047.0, 2.0**-7], [-2.0, 2.0**-7], 4096.0),
        ([2.0**-15], [-(2.0**-15)], 1.0),
        ([1.5 * 2.0**-12], [2.0**-11], -1.0),
        ([2.0**-11], [1.0], 1.0), ([2.0**-11, 2.0**-12], [1.0, 2.0**-12], 1.0),
        ([256.0], [256.0], 0.0), ([2.0**-12], [2.0**-12], 0.0), ([-0.0], [1.0], -0.0),
        ([65504.0, 65504.0], [65504.0, 65504.0], 3.0e38), ([np.inf], [0.0], 1.0), ([np.inf, 1.0], [1.0, -np.inf], 0.0),
    ]
    for av, bv, cv in cases:
        for ct in ("f32", "f16"):
            a = np.zeros((1, 16, 16), np.uint16)
            b = np.zeros((1, 16, 8), np.uint16)
            a[0, 0, :len(av)] = f16(av)
            b[0, :len(bv), 0] = f16(bv)
            c = np.zeros((1, 16, 8), np.uint32 if ct == "f32" else np.uint16)
            with np.errstate(over="ignore"):  # 3e38 is +inf as an f16 C
                c[0, 0, 0] = (f32 if ct == "f32" else f16)(cv)
            _same(*_both(MM.mma, a, b, c, "m16n8k16", "f16", "f16", ct, ct))


def test_switch_off_runs_the_spec(monkeypatch):
    """PTXVM_JIT=0 selects the NumPy path; an override wins over the environment."""
    monkeypatch.setenv("PTXVM_JIT", "0")
    assert not jit.enabled()
    with jit.override(True):
        assert jit.enabled()
    monkeypatch.setenv("PTXVM_JIT", "1")
    assert jit.enabled()
    with jit.override(False):
        assert not jit.enabled()
        with jit.override(None):
            assert not jit.enabled()


def test_without_numba_the_spec_runs_and_says_so_once(monkeypatch):
    a, b, c = _operands(1, "random", "f16", "f16", "f32", 16, 8, 16)
    with jit.override(True):
        fast = MM.mma(a, b, c, "m16n8k16", "f16", "f16", "f32", "f32")
    monkeypatch.setattr(jit, "_numba", False)
    monkeypatch.setattr(jit, "_warned", False)
    with jit.override(True):  # the compiled path asked for (as by default), but numba "missing"
        with pytest.warns(jit.SlowPathWarning, match="slow"):
            slow = MM.mma(a, b, c, "m16n8k16", "f16", "f16", "f32", "f32")
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            MM.mma(a, b, c, "m16n8k16", "f16", "f16", "f32", "f32")  # no second notice
    _same(slow, fast)


@pytest.mark.parametrize("kind", ("random", "specials", "zero", "ties"))
@pytest.mark.parametrize("threads", (2, 3, 7))
def test_rows_split_over_threads_give_the_same_bits(kind, threads, monkeypatch):
    """A call large enough for ptxvm.cores' threads (MMA_THREADS_MIN products) splits its L * M
    rows into ranges that run side by side; the bits are those of one thread and of the spec."""
    from ptxvm import cores

    monkeypatch.setattr(MM, "MMA_THREADS_MIN", 1)
    monkeypatch.setattr(cores, "usable", lambda: threads)
    a, b, c = _operands(threads, kind, "f16", "f16", "f32", 13, 24, 16, lead=(5,))  # 65 rows: uneven ranges
    spec, split = _both(MM.fused_mma, a, b, c, _fmt("f16"), _fmt("f16"), _fmt("f32"), _fmt("f32"), MM.Rounding.RZ)
    monkeypatch.setattr(cores, "usable", lambda: 1)
    with jit.override(True):
        alone = MM.fused_mma(a, b, c, _fmt("f16"), _fmt("f16"), _fmt("f32"), _fmt("f32"), MM.Rounding.RZ)
    _same(spec, split)
    _same(alone, split)
