"""Triton 3.9's f16 matmul for sm_90 (benchmarks/triton/matmul_f16_wgmma.ptx: wgmma.mma_async
m64n128k16, a 3-stage cp.async pipeline, ldmatrix) runs, gives the same bits with the compiled
tensor-core kernels and with the NumPy specification (launch jit=False), and agrees with an f32
matmul to f16 precision."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import ptxvm

PTX = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "triton" / "matmul_f16_wgmma.ptx"


@pytest.fixture(scope="module")
def kernel():
    return ptxvm.loads(PTX.read_text()).kernel("matmul_kernel")


@pytest.mark.parametrize("n", [256])  # 4 CTAs, 4 trips of the pipelined K loop
def test_triton_matmul_same_bits_both_paths(kernel, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(np.float16)
    b = rng.standard_normal((n, n)).astype(np.float16)
    out = {}
    for jit in (True, False):
        c = np.zeros((n, n), np.float16)
        kernel.launch(((n // 128) ** 2, 1, 1), (128, 1, 1), [a, b, c, n, n, n, n, n, n, 0, 0], shared_mem=98304, jit=jit)
        out[jit] = c
    assert np.array_equal(out[True].view(np.uint16), out[False].view(np.uint16))
    ref = a.astype(np.float32) @ b.astype(np.float32)
    assert np.allclose(out[True].astype(np.float32), ref, rtol=2e-3, atol=2e-2)
