"""Real compiler output replayed as the H200 ran it: ptxas contracted a multiply into an add in
both kernels (engine/contraction.py). The goldens are the H200's results (README.md here)."""
from pathlib import Path

import numpy as np
import pytest

import ptxvm

HERE = Path(__file__).parent


def _complex_mul(contract):
    g = np.load(HERE / "complex_mul_h200.npz")
    a, b = g["complex_mul.arg0"], g["complex_mul.arg1"]
    out = np.zeros_like(g["complex_mul.arg2"])
    mod = ptxvm.load(HERE / "complex_mul_dev.ptx", contract=contract)
    kernel = mod[mod.ast.functions()[0].name]
    params = []
    for arr in (a, b, out):   # numba's array: meminfo, parent, nitems, itemsize, data, shape, strides
        params += [np.uint64(0), np.uint64(0), np.int64(arr.size), np.int64(arr.itemsize), arr,
                   np.int64(arr.shape[0]), np.int64(arr.strides[0])]
    kernel.launch(1, 128, params)
    return out, g["complex_mul.arg2"]


def _layernorm(contract):
    g = np.load(HERE / "layernorm_fwd_h200.npz")
    x, w, b = g["layernorm_fwd.arg0"], g["layernorm_fwd.arg2"], g["layernorm_fwd.arg3"]
    y, mean, rstd = (np.zeros_like(g[f"layernorm_fwd.arg{i}"]) for i in (1, 4, 5))
    mod = ptxvm.load(HERE / "tr_layernorm_fwd_dev.ptx", contract=contract)
    # Triton's launch: the arguments, then its global and profile scratch pointers (none here)
    mod["layernorm_fwd"].launch(32, 128, [x, y, w, b, mean, rstd, np.int32(200), np.int32(200),
                                          np.float32(1e-5), np.uint64(0), np.uint64(0)], shared_mem=1024)
    return (y, mean, rstd), tuple(g[f"layernorm_fwd.arg{i}"] for i in (1, 4, 5))


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


def test_complex_mul_matches_the_h200():
    got, want = _complex_mul(None)
    assert np.array_equal(_bits(got), _bits(want))


def test_complex_mul_without_contraction_rounds_twice():
    got, want = _complex_mul(False)
    assert not np.array_equal(_bits(got), _bits(want))   # 6 of 100 differ in an ulp


def test_layernorm_fwd_matches_the_h200():
    got, want = _layernorm(None)
    for g, w in zip(got, want):
        assert np.array_equal(_bits(g), _bits(w))


def test_layernorm_fwd_without_contraction_misses_rstd():
    (y, mean, rstd), (_, _, want) = _layernorm(False)
    assert not np.array_equal(_bits(rstd), _bits(want))


def test_environment_switch(monkeypatch):
    monkeypatch.setenv("PTXVM_CONTRACT", "0")
    got, want = _complex_mul(None)
    assert not np.array_equal(_bits(got), _bits(want))
    got, want = _complex_mul(True)    # an explicit option wins over the environment
    assert np.array_equal(_bits(got), _bits(want))
