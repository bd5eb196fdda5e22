"""Bit-for-bit regression against outputs recorded on an sm_90 GPU (H200).

data/sm90_goldens.npz holds, per PTX instruction variant, a sample of the
inputs and the hardware's result (h100_oracle.py collect + goldens); the
variant table in h100_oracle.py says what ptxvm.numerics call must match.
"""
from pathlib import Path

import numpy as np
import pytest

import h100_oracle as H

DATA = np.load(Path(__file__).parent / "data" / "sm90_goldens.npz")
VARIANTS = {v.name: v for v in H.build()}


@pytest.mark.sm90_nans
def test_every_recorded_variant_matches():
    missing = sorted(set(DATA.files) - set(VARIANTS))
    assert not missing, missing
    failures = []
    for name in DATA.files:
        v = VARIANTS[name]
        arr = DATA[name]
        ins = [arr[i].astype(H.REG[k][2]) for i, k in enumerate(v.srcs)]
        ours = np.asarray(v.ours(*ins)).astype(np.uint64)
        bad = np.nonzero(ours != arr[-1])[0]
        if len(bad):
            i = bad[0]
            failures.append(f"{v.ptx}: {len(bad)} differ, e.g. "
                            f"{[hex(int(x[i])) for x in ins]} -> {int(ours[i]):#x}, "
                            f"hardware {int(arr[-1][i]):#x}")
    assert not failures, "\n".join(failures)
    assert len(DATA.files) > 500


@pytest.mark.sm90_nans
def test_f64_nan_rules():
    from ptxvm.numerics import ieee64
    from ptxvm.numerics.rounding import Rounding
    qa, sb = np.uint64(0x7FF8000000000001), np.uint64(0xFFF0000000000002)
    one = np.uint64(0x3FF0000000000000)
    a, b = np.array([qa]), np.array([sb])
    assert ieee64.add(a, b)[0] == 0xFFF8000000000002          # b wins, quieted
    assert ieee64.sub(a, b)[0] == 0xFFF8000000000002          # sign of b kept
    assert ieee64.div(a, b)[0] == 0x7FF8000000000001          # a wins
    assert ieee64.fma(a, np.array([one]), b)[0] == 0xFFF8000000000002  # c over a
    inf = np.array([np.uint64(0x7FF0000000000000)])
    assert ieee64.sub(inf, inf, Rounding.RZ)[0] == 0xFFF8000000000000
    assert ieee64.sqrt(np.array([np.uint64(0xBFF0000000000000)]))[0] == 0xFFF8000000000000


def _u(*v, dt=np.uint32):
    return np.array(v, dtype=dt)


@pytest.mark.sm90_nans
def test_ftz_tininess_after_rounding():
    from ptxvm.numerics import convert, half, ieee32
    from ptxvm.numerics.formats import F32, F64
    from ptxvm.numerics.rounding import Rounding
    # 2**-126 * (1 - 2**-24) is a 24-bit number below the smallest normal:
    # tiny after rounding, flushed although RN to the subnormal grid gives 2**-126.
    assert ieee32.mul(_u(0x00800000), _u(0x3F7FFFFF), Rounding.RN, ftz=True)[0] == 0
    assert ieee32.mul(_u(0x00800000), _u(0x3F7FFFFF), Rounding.RN)[0] == 0x00800000
    # -(2**-126 - 2**-252) rounds to -2**-126 at 24 bits: not tiny, kept.
    m = _u(0x80800000)
    assert ieee32.fma(m, m, m, Rounding.RN, ftz=True)[0] == 0x80800000
    assert half.mul(_u(0x0400, dt=np.uint16), _u(0x3BFF, dt=np.uint16), ftz=True)[0] == 0
    x = _u(0x380FFFFFE0000000, 0xB80FFFFFE0000000, dt=np.uint64)
    assert list(convert.cvt_float(x, F64, F32, Rounding.RN, ftz=True)) == [0, 0x80000000]
    assert list(convert.cvt_float(x, F64, F32, Rounding.RN)) == [0x00800000, 0x80800000]


@pytest.mark.sm90_nans
def test_conversion_nan_rules():
    from ptxvm.numerics import convert
    from ptxvm.numerics.formats import BF16, F16, F32, F64, TF32
    from ptxvm.numerics.rounding import Rounding
    d = _u(0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF, dt=np.uint64)
    assert list(convert.cvt_float(d, F64, F32, Rounding.RZ)) == [0x7FC00000, 0xFFFFFFFF]
    assert list(convert.cvt_float(d, F64, F16)) == [0x7E00, 0xFFFF]
    assert convert.cvt_float(_u(0x7F81, dt=np.uint16), BF16, F32)[0] == 0x7F810000
    assert convert.cvt_float(_u(0x7C01, dt=np.uint16), F16, F32)[0] == 0x7FFFFFFF
    assert convert.cvt_float(_u(0x7C01, dt=np.uint16), F16, F64)[0] == 0x7FF8040000000000
    assert convert.cvt_float(_u(0x7F800001), F32, F64, ftz=True)[0] == 0x7FFFFFFFE0000000
    nan32 = _u(0x7F800001, 0xFFB07B62)
    assert list(convert.f32_to_tf32(nan32)) == [0x7F800000, 0xFFB06000]
    assert list(convert.f32_to_tf32(nan32, satfinite=True)) == [0x7F7FE000, 0xFFB04000]
    assert list(convert.f32_to_tf32(nan32, Rounding.RZ)) == [0x7FFFE000, 0x7FFFE000]
    f = _u(0x7FC00000)
    assert convert.float_to_int(f, F32, np.int32)[0] == 0
    assert convert.float_to_int(f, F32, np.uint64)[0] == 1 << 63
    g = _u(0x7FF8000000000000, dt=np.uint64)
    assert convert.float_to_int(g, F64, np.int8)[0] == -128
    assert convert.float_to_int(g, F64, np.uint16)[0] == 0x8000
    assert convert.float_to_int(g, F64, np.int64)[0] == -(1 << 63)
