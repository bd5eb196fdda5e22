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
