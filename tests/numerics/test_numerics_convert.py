import functools
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import numerics_ref as R
from numerics_strategies import NUMERICS, float_bits, specials
from ptxvm.numerics import convert as C
from ptxvm.numerics.formats import BF16, E4M3, E5M2, F16, F32, F64, TF32
from ptxvm.numerics.rounding import Rounding

MODES = [Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP]
REF = {F64: R.F64, F32: R.F32, TF32: R.TF32, F16: R.F16, BF16: R.BF16,
       E4M3: R.E4M3, E5M2: R.E5M2}
INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


def ref_cvt(bits, src, dst, mode, ftz=False, sat=False, relu=False, satfinite=False):
    s, v = R.decode(R._flush_in(bits, REF[src], ftz and src is F32), REF[src])
    r = R.round_exact(s, v, REF[dst], mode.value, satfinite=satfinite)
    d = REF[dst]
    if ftz and dst is F32 and v not in (R.NAN, R.INF) and v != 0 \
            and R.round_unbounded(s, v, d.man_bits, mode.value) < R.p2(d.emin):
        r = R._pack(s, 0, 0, d)
    if relu:
        rs, rv = R.decode(r, d)
        if rv is R.NAN:
            r = d.canonical_nan
        elif rs:
            r = 0
    return R._post(r, d, ftz and dst is F32, sat)


def check_cvt(bits, src, dst, mode, **kw):
    got = C.cvt_float(np.array(bits, dtype=np.uint64).astype(src.dtype), src, dst, mode, **kw)
    assert got.dtype == dst.dtype
    for b, g in zip(bits, got):
        want = ref_cvt(int(b), src, dst, mode, **kw)
        assert int(g) == want, f"cvt {src}->{dst} {mode} {kw} {int(b):#x}: {int(g):#x} != {want:#x}"


NARROW = [(F32, F16), (F32, BF16), (F32, TF32), (F32, E4M3), (F32, E5M2), (F64, F32),
          (F64, F16), (F64, BF16), (F16, E4M3), (F16, E5M2), (BF16, F16), (F16, BF16)]


def _near_range(src, dst):
    """Source exponents around the destination's subnormal..overflow span."""
    lo = src.bias + dst.emin - dst.man_bits - 3
    hi = src.bias + dst.emax + 2
    top = (1 << src.exp_bits) - 1
    return (max(lo, 0), min(hi, top))


@pytest.mark.parametrize("src,dst", NARROW, ids=lambda f: f.name)
def test_narrowing_random(src, dst):
    bits = st.one_of(float_bits(src), float_bits(src, _near_range(src, dst)))
    modes = [Rounding.RN] if dst in (E4M3, E5M2) else MODES + ([Rounding.RNA] if dst is TF32 else [])

    @NUMERICS
    @given(st.lists(bits, min_size=1, max_size=40), st.sampled_from(modes),
           st.booleans(), st.booleans(), st.integers(0, 3))
    def run(values, mode, relu, satfinite, extra):
        kw = {"relu": relu, "satfinite": satfinite or dst in (E4M3, E5M2)}
        if extra == 1:
            kw["ftz"] = True
        if extra == 2:
            kw = {"sat": True}
        check_cvt(values, src, dst, mode, **kw)
    run()


@pytest.mark.parametrize("src,dst", NARROW, ids=lambda f: f.name)
def test_narrowing_specials(src, dst):
    vals = specials(src)
    for mode in MODES:
        check_cvt(vals, src, dst, mode, satfinite=dst in (E4M3, E5M2))
        check_cvt(vals, src, dst, mode, relu=True, satfinite=True)


@pytest.mark.parametrize("src", [F16, BF16, E4M3, E5M2])
@pytest.mark.parametrize("dst", [F32, F64])
def test_widening_exhaustive(src, dst):
    bits = np.arange(1 << src.width, dtype=np.uint64).astype(src.dtype)
    got = C.cvt_float(bits, src, dst)
    view = {F16: np.float16, BF16: ml_dtypes.bfloat16, E4M3: ml_dtypes.float8_e4m3fn,
            E5M2: ml_dtypes.float8_e5m2}[src]
    with np.errstate(invalid="ignore"):
        want = bits.view(view).astype(np.float64 if dst is F64 else np.float32)
    want_bits = want.view(dst.dtype)
    nan = np.isnan(want)
    assert np.array_equal(got[~nan], want_bits[~nan])
    assert np.all(got[nan] == dst.nan)


def test_widening_ftz_and_sat():
    check_cvt(specials(F16) + [0x0001, 0x83FF], F16, F32, Rounding.RN, sat=True)
    check_cvt(specials(F32), F32, F64, Rounding.RN, ftz=True)


def test_tf32_keeps_low_bits_zero():
    x = np.array([0x3F800FFF, 0x3F801000, 0x3F803000, 0x7F7FFFFF, 0x00001FFF], np.uint32)
    out = C.f32_to_tf32(x)
    assert np.all(out & 0x1FFF == 0)
    assert [hex(v) for v in out] == ["0x3f800000", "0x3f802000", "0x3f804000",
                                     "0x7f800000", "0x2000"]
    assert hex(C.f32_to_tf32(x[:4], Rounding.RN)[1]) == "0x3f800000"   # tie to even
    assert hex(C.f32_to_tf32(x[3:4], satfinite=True)[0]) == "0x7f7fe000"


def test_fp8_edges():
    f = np.array([448.0, 464.0, 480.0, 1e9, -np.inf, np.nan, -1.0, 2.0 ** -9, 2.0 ** -10],
                 np.float32).view(np.uint32)
    e4 = C.f32_to_e4m3(f)
    assert [hex(v) for v in e4] == ["0x7e", "0x7e", "0x7e", "0x7e", "0xfe", "0x7f",
                                    "0xb8", "0x1", "0x0"]
    assert list(C.f32_to_e4m3(f, relu=True)[[4, 5, 6]]) == [0, 0x7F, 0]
    e5 = C.f32_to_e5m2(np.array([57344.0, 61440.0, np.inf, np.nan], np.float32).view(np.uint32))
    assert [hex(v) for v in e5] == ["0x7b", "0x7b", "0x7b", "0x7f"]


def test_packing_order():
    a = np.array([1.0], np.float32).view(np.uint32)
    b = np.array([-2.0], np.float32).view(np.uint32)
    assert hex(C.f32x2_to_x2(a, b, F16)[0]) == "0x3c00c000"
    assert hex(C.f32x2_to_x2(a, b, BF16)[0]) == "0x3f80c000"
    assert hex(C.f32x2_to_x2(a, b, E4M3)[0]) == "0x38c0"
    packed = C.x2_to_x2(np.array([0x38C0], np.uint16), E4M3, F16)
    assert hex(packed[0]) == "0x3c00c000"
    assert hex(C.x2_to_x2(packed, F16, E5M2)[0]) == "0x3cc0"


# ------------------------------------------------------------ integral rounding
def _round_int(q: Fraction, mode: Rounding) -> int:
    fl = q.numerator // q.denominator
    if mode is Rounding.RM:
        return fl
    if mode is Rounding.RP:
        return -((-q.numerator) // q.denominator)
    if mode is Rounding.RZ:
        return fl if q >= 0 else -((-q.numerator) // q.denominator)
    rem = q - fl
    return fl + (rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1))


def ref_float_to_int(bits, src, dtype, mode, ftz):
    s, v = R.decode(R._flush_in(bits, REF[src], ftz and src is F32), REF[src])
    info = np.iinfo(dtype)
    if v is R.NAN:
        return 0
    if v == R.INF:
        return info.min if s else info.max
    n = _round_int(-v if s else v, mode)
    return min(max(n, int(info.min)), int(info.max))


@pytest.mark.parametrize("src", [F16, BF16, F32, F64])
def test_float_to_int(src):
    near = (src.bias - 2, min(src.bias + 66, (1 << src.exp_bits) - 1))
    bits = st.one_of(float_bits(src), float_bits(src, near))

    @NUMERICS
    @given(st.lists(bits, min_size=1, max_size=40), st.sampled_from(MODES),
           st.sampled_from(INTS), st.booleans())
    def run(values, mode, dtype, ftz):
        arr = np.array(values, dtype=np.uint64).astype(src.dtype)
        got = C.float_to_int(arr, src, dtype, mode, ftz=ftz)
        assert got.dtype == dtype
        for b, g in zip(values, got):
            want = ref_float_to_int(b, src, dtype, mode, ftz)
            assert int(g) == want, f"{src}->{np.dtype(dtype)} {mode} {b:#x}: {int(g)} != {want}"
    run()


def test_float_to_int_edges():
    x = np.array([np.nan, -np.inf, np.inf, -0.0, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64,
                  -0.5, 0.5, 1.5, 2.5, -1.5, 255.5, -128.5], np.float64).view(np.uint64)
    rn = C.float_to_int(x, F64, np.int64, Rounding.RN)
    assert list(rn[:6]) == [0, -2 ** 63, 2 ** 63 - 1, 0, 2 ** 63 - 1, -2 ** 63]
    assert list(rn[7:12]) == [0, 0, 2, 2, -2]
    assert list(C.float_to_int(x, F64, np.uint64, Rounding.RZ)[:7]) == \
        [0, 0, 2 ** 64 - 1, 0, 2 ** 63, 0, 2 ** 64 - 1]
    assert list(C.float_to_int(x, F64, np.uint8, Rounding.RN)[12:]) == [255, 0]
    assert list(C.float_to_int(x, F64, np.int8, Rounding.RM)[12:]) == [127, -128]


@functools.lru_cache(maxsize=None)
def _int_values(dtype):
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    edges = [lo, hi, 0, 1, -1, lo + 1, hi - 1]
    for k in (12, 13, 24, 25, 53, 54, 62, 63):
        for d in (-1, 0, 1):
            edges += [(1 << k) + d, -(1 << k) + d, (1 << k) + (1 << (k - 12)) + d]
    edges = [e for e in edges if lo <= e <= hi]
    return st.one_of(st.integers(lo, hi), st.sampled_from(edges),
                     st.integers(0, 63).flatmap(lambda k: st.integers(max(lo, -(1 << k)), min(hi, 1 << k))))


@pytest.mark.parametrize("dst", [F16, BF16, F32, F64])
def test_int_to_float(dst):
    @NUMERICS
    @given(st.sampled_from(INTS).flatmap(lambda t: st.tuples(st.just(t), st.lists(_int_values(t), min_size=1, max_size=40))),
           st.sampled_from(MODES))
    def run(case, mode):
        dtype, values = case
        got = C.int_to_float(np.array(values, dtype=dtype), dst, mode)
        for v, g in zip(values, got):
            want = R.round_signed(Fraction(v), REF[dst], mode.value)
            assert int(g) == want, f"{np.dtype(dtype)} {v} -> {dst} {mode}: {int(g):#x} != {want:#x}"
    run()


@pytest.mark.parametrize("src", INTS)
def test_int_to_int(src):
    @NUMERICS
    @given(st.lists(_int_values(src), min_size=1, max_size=40), st.sampled_from(INTS))
    def run(values, dst):
        arr = np.array(values, dtype=src)
        info = np.iinfo(dst)
        sat = C.int_to_int(arr, dst, sat=True)
        wrap = C.int_to_int(arr, dst)
        bits = np.dtype(dst).itemsize * 8
        for v, s, w in zip(values, sat, wrap):
            assert int(s) == min(max(v, int(info.min)), int(info.max))
            m = v % (1 << bits)
            if info.min < 0 and m >= 1 << (bits - 1):
                m -= 1 << bits
            assert int(w) == m
    run()


@pytest.mark.parametrize("fmt", [F16, F32, F64])
@pytest.mark.parametrize("mode", MODES)
def test_round_to_integral(fmt, mode):
    vals = specials(fmt) + [int(v) for v in np.array(
        [0.5, 1.5, 2.5, -0.5, -2.5, 3.75, -3.25, 1e3 + 0.5, 2 ** 10 + 0.5],
        dtype={F16: np.float16, F32: np.float32, F64: np.float64}[fmt]).view(fmt.dtype)]
    got = C.round_to_integral(np.array(vals, dtype=np.uint64).astype(fmt.dtype), fmt, mode)
    for b, g in zip(vals, got):
        s, v = R.decode(b, REF[fmt])
        if v is R.NAN:
            want = REF[fmt].canonical_nan
        elif v == R.INF:
            want = b
        else:
            n = _round_int(-v if s else v, mode)
            want = R.round_exact(s, Fraction(abs(n)), REF[fmt], "rn")
        assert int(g) == want, f"{fmt} {mode} {b:#x}: {int(g):#x} != {want:#x}"


def test_named_wrappers_agree_with_cvt_float():
    f32 = np.array([1.0, -2.5e-8, 65520.0, 3.0e38, -1e-42], np.float32).view(np.uint32)
    f16 = np.array([0x3C00, 0x8001, 0x7BFF], np.uint16)
    pairs = [
        (C.f32_to_bf16(f32, Rounding.RZ), C.cvt_float(f32, F32, BF16, Rounding.RZ)),
        (C.f32_to_f16(f32, Rounding.RP, relu=True), C.cvt_float(f32, F32, F16, Rounding.RP, relu=True)),
        (C.f32_to_e5m2(f32), C.cvt_float(f32, F32, E5M2, satfinite=True)),
        (C.f32_to_f64(f32, ftz=True), C.cvt_float(f32, F32, F64, ftz=True)),
        (C.f64_to_f32(C.f32_to_f64(f32)), f32),
        (C.f16_to_f32(f16), C.cvt_float(f16, F16, F32)),
        (C.f16_to_f64(f16), C.cvt_float(f16, F16, F64)),
        (C.f64_to_f16(C.f16_to_f64(f16)), f16),
        (C.bf16_to_f32(np.array([0x3F80], np.uint16)), np.array([0x3F800000], np.uint32)),
        (C.e4m3_to_f16(np.array([0x38], np.uint8)), np.array([0x3C00], np.uint16)),
        (C.e5m2_to_f16(np.array([0x3C], np.uint8)), np.array([0x3C00], np.uint16)),
        (C.e4m3_to_f32(np.array([0x7E], np.uint8)), np.array([448.0], np.float32).view(np.uint32)),
        (C.e5m2_to_f32(np.array([0x7B], np.uint8)), np.array([57344.0], np.float32).view(np.uint32)),
    ]
    for got, want in pairs:
        assert got.dtype == want.dtype and np.array_equal(got, want)
