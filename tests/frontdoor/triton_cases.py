"""Triton kernels a user writes, with their launches and inputs.

Shared by tests/frontdoor/test_triton.py (runs them on ptxvm through ptxvm.triton) and
tools/device/record_triton.py (runs them through Triton's own launcher on a GPU, with torch
tensors, and records the outputs and the PTX Triton made there). Inputs are NumPy arrays; the
recorder turns them into CUDA tensors. Kernels are defined at import, so this file needs triton.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import triton
import triton.language as tl

try:
    import ml_dtypes
except ImportError:  # pragma: no cover
    ml_dtypes = None


@dataclass
class Case:
    name: str
    kernel: object                 # the @triton.jit function
    grid: object                   # tuple, or a function of the meta-parameters
    inputs: Callable               # inputs(rng) -> list of positional arguments
    meta: dict = field(default_factory=dict)   # constexprs and launch options (num_warps, ...)


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def layernorm_fwd(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * stride + cols, xc * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def layernorm_bwd_dx(dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr, dx_ptr, stride, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * stride + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / n
    c2 = tl.sum(wdy, axis=0) / n
    tl.store(dx_ptr + row * stride + cols, (wdy - (xhat * c1 + c2)) * rstd, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, IN_TF32: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="tf32" if IN_TF32 else "ieee")
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, NUM_SMS: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tiles_m = tl.cdiv(M, BM)
    tiles = tiles_m * tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tiles, NUM_SMS):
        rm = (tile % tiles_m) * BM + tl.arange(0, BM)
        rn = (tile // tiles_m) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            rk = k + tl.arange(0, BK)
            a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
            b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


@triton.jit
def attention_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq, sm_scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    bh = tl.program_id(1)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    base = bh * seq * D
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, seq, BN):
        rn = start + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[None, :] * D + rd[:, None])
        s = tl.dot(q, k) * sm_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


@triton.jit
def dropout_kernel(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * BLOCK + offs, tl.cumsum(tl.load(x_ptr + row * BLOCK + offs), axis=0))


@triton.jit
def sort_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + row * BLOCK + offs, tl.sort(tl.load(x_ptr + row * BLOCK + offs)))


@triton.jit
def histogram_kernel(x_ptr, hist_ptr, n, BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + (x % BINS), 1, mask=mask)


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(out_ptr + 0 * n + offs, tl.sin(x), mask=mask)
    tl.store(out_ptr + 1 * n + offs, tl.exp2(x * 0.5), mask=mask)
    tl.store(out_ptr + 2 * n + offs, tl.log(tl.abs(x) + 1.0), mask=mask)
    tl.store(out_ptr + 3 * n + offs, tl.sqrt_rn(tl.abs(x)), mask=mask)
    tl.store(out_ptr + 4 * n + offs, tl.extra.cuda.libdevice.tanh(x), mask=mask)
    tl.store(out_ptr + 5 * n + offs, tl.extra.cuda.libdevice.erf(x), mask=mask)
    tl.store(out_ptr + 6 * n + offs, tl.extra.cuda.libdevice.pow(tl.abs(x), 1.7), mask=mask)
    tl.store(out_ptr + 7 * n + offs, tl.div_rn(x, 3.0) + tl.fma(x, x, 0.5), mask=mask)


@triton.jit
def argmax_kernel(x_ptr, idx_ptr, val_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    v, i = tl.max(x, axis=0, return_indices=True)
    tl.store(idx_ptr + row, i)
    tl.store(val_ptr + row, v)


@triton.jit
def matmul_tma_host(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([pid_m * BM, k])
        b = b_desc.load([k, pid_n * BN])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def matmul_tma_device(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pid_m * BM, k]), b_desc.load([k, pid_n * BN]), acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def matmul_fp8(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
        b = tl.load(b_ptr + rk[:, None] + rn[None, :] * K)   # B stored N x K (K-major), as fp8 wgmma wants
        acc = tl.dot(a, tl.trans(tl.trans(b)), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def cluster_add(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0 + 1.0, mask=mask)


def _f32(r, *shape, lo=-2.0, hi=2.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def _f16(r, *shape):
    return r.standard_normal(shape).astype(np.float16)


def _bf16(r, *shape):
    return r.standard_normal(shape).astype(np.float32).astype(ml_dtypes.bfloat16)


def _matmul_inputs(r, dt, M=64, N=64, K=64):
    make = {"f16": _f16, "bf16": _bf16}.get(dt, lambda r, *s: _f32(r, *s))
    a, b = make(r, M, K), make(r, K, N)
    c = np.zeros((M, N), np.float32 if dt in ("f32", "tf32") else a.dtype)
    return [a, b, c, M, N, K, K, 1, N, 1, N, 1]


CASES = [
    Case("vector_add", add_kernel, lambda m: (triton.cdiv(3000, m["BLOCK"]),),
         lambda r: [_f32(r, 3000), _f32(r, 3000), np.zeros(3000, np.float32), 3000], {"BLOCK": 1024}),
    Case("softmax", softmax_kernel, (48,), lambda r: [np.zeros((48, 100), np.float32), _f32(r, 48, 100, lo=-8, hi=8),
                                                       100, 100, 100], {"BLOCK": 128, "num_warps": 4}),
    Case("layernorm_fwd", layernorm_fwd, (32,),
         lambda r: [_f32(r, 32, 200), np.zeros((32, 200), np.float32), _f32(r, 200), _f32(r, 200),
                    np.zeros(32, np.float32), np.zeros(32, np.float32), 200, 200, 1e-5], {"BLOCK": 256}),
    Case("layernorm_bwd_dx", layernorm_bwd_dx, (32,),
         lambda r: [_f32(r, 32, 200), _f32(r, 32, 200), _f32(r, 200), _f32(r, 32, lo=-0.1, hi=0.1),
                    _f32(r, 32, lo=0.5, hi=2), np.zeros((32, 200), np.float32), 200, 200], {"BLOCK": 256}),
    Case("matmul_f16", matmul_kernel, (1, 1), lambda r: _matmul_inputs(r, "f16"),
         {"BM": 64, "BN": 64, "BK": 32, "IN_TF32": False, "num_warps": 4, "num_stages": 3}),
    Case("matmul_bf16", matmul_kernel, (2, 1), lambda r: _matmul_inputs(r, "bf16", M=128, K=48),
         {"BM": 64, "BN": 64, "BK": 16, "IN_TF32": False, "num_warps": 4}),
    Case("matmul_tf32", matmul_kernel, (1, 2), lambda r: _matmul_inputs(r, "tf32", N=128),
         {"BM": 64, "BN": 64, "BK": 32, "IN_TF32": True, "num_warps": 4}),
    Case("matmul_f32_ieee", matmul_kernel, (2, 2), lambda r: _matmul_inputs(r, "f32", M=60, N=70, K=50),
         {"BM": 32, "BN": 64, "BK": 16, "IN_TF32": False, "num_warps": 4}),
    Case("persistent_matmul", persistent_matmul, (3,),
         lambda r: [_f16(r, 128, 64), _f16(r, 64, 128), np.zeros((128, 128), np.float16), 128, 128, 64],
         {"NUM_SMS": 3, "BM": 64, "BN": 64, "BK": 32, "num_warps": 4}),
    Case("attention_fwd", attention_fwd, (2, 2),
         lambda r: [_f16(r, 2, 128, 64), _f16(r, 2, 128, 64), _f16(r, 2, 128, 64), np.zeros((2, 128, 64), np.float16),
                    128, 0.125], {"D": 64, "BM": 64, "BN": 32, "num_warps": 4}),
    Case("dropout", dropout_kernel, lambda m: (triton.cdiv(2000, m["BLOCK"]),),
         lambda r: [_f32(r, 2000), np.zeros(2000, np.float32), 2000, 0.3, 1234], {"BLOCK": 512}),
    Case("cumsum", cumsum_kernel, (8,), lambda r: [r.integers(-100, 100, (8, 256)).astype(np.int32),
                                                   np.zeros((8, 256), np.int32)], {"BLOCK": 256}),
    Case("sort", sort_kernel, (4,), lambda r: [_f32(r, 4, 128), np.zeros((4, 128), np.float32)], {"BLOCK": 128}),
    Case("histogram", histogram_kernel, lambda m: (triton.cdiv(5000, m["BLOCK"]),),
         lambda r: [r.integers(0, 1 << 20, 5000).astype(np.int32), np.zeros(32, np.int32), 5000],
         {"BINS": 32, "BLOCK": 256}),
    Case("math", math_kernel, (2,), lambda r: [_f32(r, 700, lo=-20, hi=20), np.zeros(8 * 700, np.float32), 700],
         {"BLOCK": 512}),
    Case("argmax", argmax_kernel, (16,), lambda r: [_f32(r, 16, 90), np.zeros(16, np.int32), np.zeros(16, np.float32), 90],
         {"BLOCK": 128}),
]



def _fp8(r, *shape):
    return (r.standard_normal(shape) * 2).astype(np.float32).astype(ml_dtypes.float8_e4m3fn)


def _descriptors(r):
    """f16 matrices for host-side TMA descriptors (made by `descriptor_args`: the recorder from CUDA
    tensors with TensorDescriptor.from_tensor, ptxvm with ptxvm.triton.tensor_descriptor)."""
    return [_f16(r, 128, 64), _f16(r, 64, 128), np.zeros((128, 128), np.float16), 64]


DESCRIPTOR_BLOCKS = {"matmul_tma_host": [[64, 32], [32, 64], [64, 64], None]}


CASES += [
    Case("matmul_tma_host", matmul_tma_host, (2, 2), _descriptors, {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4}),
    Case("matmul_tma_device", matmul_tma_device, (2, 2),
         lambda r: [_f16(r, 128, 64), _f16(r, 64, 128), np.zeros((128, 128), np.float16), 128, 128, 64],
         {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4}),
    Case("matmul_fp8", matmul_fp8, (1, 1), lambda r: [_fp8(r, 64, 64), _fp8(r, 64, 64), np.zeros((64, 64), np.float32),
                                                      64, 64, 64], {"BM": 64, "BN": 64, "BK": 32, "num_warps": 4}),
    Case("cluster_add", cluster_add, (4,), lambda r: [_f32(r, 1000), np.zeros(1000, np.float32), 1000],
         {"BLOCK": 256, "num_ctas": 2}),
]

BY_NAME = {c.name: c for c in CASES}


def inputs(case: Case, seed: int = 0) -> list:
    return case.inputs(np.random.default_rng([seed, sum(map(ord, case.name))]))


def launch_meta(case: Case) -> dict:
    return dict(case.meta)
