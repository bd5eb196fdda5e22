import ml_dtypes
import numpy as np
import pytest

import numerics_ref as R
from ptxvm.numerics import formats as Fm
from ptxvm.numerics.formats import BF16, E4M3, E5M2, F16, F32, F64, TF32
from ptxvm.numerics.rounding import Rounding

REF = {F16: R.F16, BF16: R.BF16, E4M3: R.E4M3, E5M2: R.E5M2}
VIEW = {F16: np.float16, BF16: ml_dtypes.bfloat16, E4M3: ml_dtypes.float8_e4m3fn,
        E5M2: ml_dtypes.float8_e5m2}


@pytest.mark.parametrize("fmt", list(REF), ids=str)
def test_classify_exhaustive(fmt):
    bits = np.arange(1 << fmt.width, dtype=np.uint64).astype(fmt.dtype)
    with np.errstate(invalid="ignore"):
        ml = bits.view(VIEW[fmt]).astype(np.float64)
    nan, inf, zero = np.isnan(ml), np.isinf(ml), ml == 0
    sub = (np.abs(ml) < float(ml_dtypes.finfo(VIEW[fmt]).smallest_normal)) & ~zero
    assert np.array_equal(Fm.is_nan(bits, fmt), nan)
    assert np.array_equal(Fm.is_inf(bits, fmt), inf)
    assert np.array_equal(Fm.is_zero(bits, fmt), zero)
    assert np.array_equal(Fm.is_subnormal(bits, fmt), sub)
    assert np.array_equal(Fm.is_finite(bits, fmt), ~(nan | inf))
    assert np.array_equal(Fm.sign_bit(bits, fmt), np.signbit(ml))
    flushed = Fm.flush_subnormal(bits, fmt)
    sign = bits & fmt.dtype(fmt.sign_mask)
    assert np.array_equal(flushed, np.where(sub, sign, bits))
    val = Fm.to_float64(bits, fmt)
    assert np.array_equal(np.isnan(val), nan)
    assert np.array_equal(val[~nan].view(np.uint64), ml[~nan].view(np.uint64))
    # The Fraction reference agrees on a sample (it drives the other tests).
    for b in bits[:: max(1, len(bits) // 512)]:
        s, v = R.decode(int(b), REF[fmt])
        got = Fm.to_float64(np.array([b]), fmt)[0]
        assert (v is R.NAN and np.isnan(got)) or float(-v if s else v) == got


def test_constants():
    assert (F32.nan, F64.nan, F16.nan, BF16.nan) == (0x7FFFFFFF, 0x7FFFFFFFFFFFFFFF, 0x7FFF, 0x7FFF)
    assert (E4M3.nan, E5M2.nan) == (0x7F, 0x7F)
    assert E4M3.max_finite == 0x7E and E5M2.max_finite == 0x7B
    assert Fm.to_float64(np.array([0x7E], np.uint8), E4M3)[0] == 448
    assert F16.max_finite == 0x7BFF and BF16.max_finite == 0x7F7F
    assert TF32.max_finite == 0x7F7FE000 and TF32.inf == 0x7F800000
    assert F32.emin == -126 and F64.emax == 1023 and E4M3.emax == 8


def test_f32_f64_classify():
    vals = np.array([0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 3e38], np.float32)
    b = vals.view(np.uint32)
    assert list(Fm.is_subnormal(b, F32)) == [0, 0, 0, 0, 0, 0, 1, 1, 0]
    assert list(Fm.sign_bit(b, F32)) == [0, 1, 0, 0, 1, 0, 0, 1, 0]
    assert list(Fm.flush_subnormal(b, F32)[6:8]) == [0, 0x80000000]
    d = vals.astype(np.float64).view(np.uint64)
    assert list(Fm.is_nan(d, F64)) == [0, 0, 0, 0, 0, 1, 0, 0, 0]
    assert Fm.is_subnormal(np.array([1, 1 << 52], np.uint64), F64).tolist() == [True, False]


def test_widen_bits_keeps_payload():
    f16 = np.array([0x7C01, 0xFE00, 0x3C00, 0x0001], np.uint16)
    out = Fm.widen_bits(f16, F16, F32)
    assert [hex(v) for v in out] == ["0x7fc02000", "0xffc00000", "0x3f800000", "0x33800000"]


def test_rounding_enum():
    assert Rounding.from_ptx(".rni") is Rounding.RN
    assert Rounding.from_ptx("rzi") is Rounding.RZ and Rounding.from_ptx("rna") is Rounding.RNA
    assert Rounding.RM.ptx_integer == "rmi"
