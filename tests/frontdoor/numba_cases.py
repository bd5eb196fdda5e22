"""Numba CUDA kernels a user writes, with their launch shapes and inputs.

Shared by tests/frontdoor/test_numba.py (runs them on ptxvm through ptxvm.numba) and
tools/device/record_numba.py (runs them through numba-cuda's own launch on a GPU and records the
outputs). The kernels are plain functions decorated by whoever runs them; device functions are
made by `device_functions(cuda)`, so this file imports no numba at module level.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass
class Case:
    name: str
    kernel: Callable          # kernel(cuda) -> the Python function to decorate with cuda.jit
    grid: object
    block: object
    inputs: Callable          # inputs(rng) -> list of arguments (arrays written in place)


def _axpy(cuda):
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = a * x[i] + y[i]
    return axpy


def _block_sums(cuda):
    def block_sums(x, partial):
        s = cuda.shared.array(256, dtype=np.float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = x[i] if i < x.size else np.float32(0)
        cuda.syncthreads()
        k = 128
        while k > 0:
            if t < k:
                s[t] += s[t + k]
            cuda.syncthreads()
            k //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = s[0]
    return block_sums


def _tiled_matmul(cuda):
    TILE = 16

    def tiled_matmul(A, B, C):
        sA = cuda.shared.array((TILE, TILE), dtype=np.float32)
        sB = cuda.shared.array((TILE, TILE), dtype=np.float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        row = cuda.blockIdx.y * TILE + ty
        col = cuda.blockIdx.x * TILE + tx
        acc = np.float32(0)
        for t in range((A.shape[1] + TILE - 1) // TILE):
            k = t * TILE
            sA[ty, tx] = A[row, k + tx] if row < A.shape[0] and k + tx < A.shape[1] else np.float32(0)
            sB[ty, tx] = B[k + ty, col] if k + ty < B.shape[0] and col < B.shape[1] else np.float32(0)
            cuda.syncthreads()
            for j in range(TILE):
                acc += sA[ty, j] * sB[j, tx]
            cuda.syncthreads()
        if row < C.shape[0] and col < C.shape[1]:
            C[row, col] = acc
    return tiled_matmul


def _histogram(cuda):
    def histogram(data, hist):
        local = cuda.shared.array(64, dtype=np.int32)
        t = cuda.threadIdx.x
        if t < 64:
            local[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < data.size:
            cuda.atomic.add(local, data[i] % 64, 1)
            i += stride
        cuda.syncthreads()
        if t < 64:
            cuda.atomic.add(hist, t, local[t])
    return histogram


def _warp_ops(cuda):
    def warp_ops(x, sums, ballots, xors):
        i = cuda.grid(1)
        lane = cuda.laneid
        v = x[i]
        s = v
        off = 16
        while off > 0:
            s += cuda.shfl_down_sync(0xFFFFFFFF, s, off)
            off //= 2
        if lane == 0:
            sums[i // 32] = s
        b = cuda.ballot_sync(0xFFFFFFFF, v % 3 == 0)
        ballots[i] = b ^ cuda.popc(b)
        xors[i] = cuda.shfl_xor_sync(0xFFFFFFFF, v, 5) - cuda.shfl_up_sync(0xFFFFFFFF, v, 3)
    return warp_ops


def _math32(cuda):
    def math32(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[0, i] = math.sin(v)
            out[1, i] = math.exp(v * np.float32(0.25))
            out[2, i] = math.log(abs(v) + np.float32(1))
            out[3, i] = math.sqrt(abs(v))
            out[4, i] = math.tanh(v)
            out[5, i] = math.erf(v)
            out[6, i] = math.pow(abs(v), np.float32(1.7))
            out[7, i] = math.atan2(v, np.float32(1.5))
    return math32


def _math64(cuda):
    def math64(x, out):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            out[0, i] = math.cos(v)
            out[1, i] = math.exp(v / 3.0)
            out[2, i] = math.log1p(abs(v))
            out[3, i] = math.atan(v) * math.sinh(v / 40.0)
            out[4, i] = math.hypot(v, 2.0)
            out[5, i] = math.floor(v * 7.5) + math.fmod(v, 0.7)
    return math64


def _local_sort(cuda):
    def local_sort(x, out):
        i = cuda.grid(1)
        if i < out.shape[0]:
            buf = cuda.local.array(8, dtype=np.int32)
            for k in range(8):
                buf[k] = x[i, k]
            for k in range(1, 8):
                v = buf[k]
                j = k - 1
                while j >= 0 and buf[j] > v:
                    buf[j + 1] = buf[j]
                    j -= 1
                buf[j + 1] = v
            for k in range(8):
                out[i, k] = buf[k]
    return local_sort


def device_functions(cuda):
    @cuda.jit(device=True)
    def clamp(v, lo, hi):
        return min(max(v, lo), hi)

    @cuda.jit(device=True)
    def smooth(v):
        return v * v * (3.0 - 2.0 * v)

    return clamp, smooth


def _device_fn(cuda):
    clamp, smooth = device_functions(cuda)

    def device_fn(x, out):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = smooth(clamp(x[i], 0.0, 1.0))
    return device_fn


def _stencil(cuda):
    def stencil(u, v):
        i, j = cuda.grid(2)
        n, m = u.shape
        if 0 < i < n - 1 and 0 < j < m - 1:
            v[i, j] = 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) - u[i, j]
    return stencil


def _scan(cuda):
    def scan(x, out):
        s = cuda.shared.array(128, dtype=np.int32)
        t = cuda.threadIdx.x
        base = cuda.blockIdx.x * 128
        s[t] = x[base + t]
        cuda.syncthreads()
        d = 1
        while d < 128:
            v = s[t - d] if t >= d else 0
            cuda.syncthreads()
            s[t] += v
            cuda.syncthreads()
            d *= 2
        out[base + t] = s[t]
    return scan


def _atomics_int(cuda):
    def atomics_int(x, res):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            cuda.atomic.max(res, 0, v)
            cuda.atomic.min(res, 1, v)
            cuda.atomic.add(res, 2, v & 0xFF)
            cuda.atomic.or_(res, 3, v & 0x7FFF)
            cuda.atomic.xor(res, 4, v)
            if i == 17:
                cuda.atomic.compare_and_swap(res[5:6], 0, v)
    return atomics_int


def _int_ops(cuda):
    def int_ops(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            x, y = a[i], b[i]
            out[0, i] = x // y                      # Python floor division
            out[1, i] = x % y                       # Python modulo (sign of y)
            out[2, i] = cuda.popc(x) + cuda.clz(x)
            out[3, i] = cuda.brev(x) >> 3
            out[4, i] = cuda.ffs(x)
            out[5, i] = (x * 2654435761) ^ (y << 7)
            out[6, i] = x >> (y & 31)
    return int_ops


def _fp16(cuda):
    def fp16(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[0, i] = cuda.fp16.hfma(a[i], b[i], a[i])
            out[1, i] = cuda.fp16.hmul(a[i], b[i])
            out[2, i] = cuda.fp16.hsub(a[i], b[i])
    return fp16


def _complex(cuda):
    def complex_mul(a, b, out):
        i = cuda.grid(1)
        if i < a.size:
            out[i] = a[i] * b[i] + a[i].conjugate()
    return complex_mul


def _f32(rng, n, lo=-4.0, hi=4.0):
    return rng.uniform(lo, hi, n).astype(np.float32)


CASES = [
    Case("axpy", _axpy, 8, 128, lambda r: [np.float32(1.7), _f32(r, 1000), _f32(r, 1000)]),
    Case("block_sums", _block_sums, 12, 256, lambda r: [_f32(r, 3000, 0, 1), np.zeros(12, np.float32)]),
    Case("tiled_matmul", _tiled_matmul, (3, 4), (16, 16),
         lambda r: [_f32(r, 60 * 45).reshape(60, 45), _f32(r, 45 * 40).reshape(45, 40), np.zeros((60, 40), np.float32)]),
    Case("histogram", _histogram, 6, 128, lambda r: [r.integers(0, 1 << 20, 5000).astype(np.int32), np.zeros(64, np.int32)]),
    Case("warp_ops", _warp_ops, 4, 64, lambda r: [r.integers(-1000, 1000, 256).astype(np.int32), np.zeros(8, np.int32),
                                                  np.zeros(256, np.uint32), np.zeros(256, np.int32)]),
    Case("math32", _math32, 4, 128, lambda r: [np.concatenate([_f32(r, 500, -20, 20), np.float32([0, -0.0, 1e-30, 88])]),
                                               np.zeros((8, 504), np.float32)]),
    Case("math64", _math64, 4, 128, lambda r: [r.uniform(-50, 50, 500), np.zeros((6, 500))]),
    Case("local_sort", _local_sort, 2, 64, lambda r: [r.integers(-99, 99, (100, 8)).astype(np.int32), np.zeros((100, 8), np.int32)]),
    Case("device_fn", _device_fn, 2, 128, lambda r: [r.uniform(-0.5, 1.5, 200), np.zeros(200)]),
    Case("stencil", _stencil, (4, 4), (8, 8), lambda r: [r.random((30, 31)), np.zeros((30, 31))]),
    Case("scan", _scan, 3, 128, lambda r: [r.integers(-50, 50, 384).astype(np.int32), np.zeros(384, np.int32)]),
    Case("atomics_int", _atomics_int, 4, 128, lambda r: [r.integers(-(1 << 30), 1 << 30, 500).astype(np.int32),
                                                         np.array([-(1 << 31), (1 << 31) - 1, 0, 0, 0, 0], np.int32)]),
    Case("int_ops", _int_ops, 2, 128, lambda r: [r.integers(-(1 << 31), 1 << 31, 256).astype(np.int32),
                                                 np.where(r.random(256) < 0.5, -1, 1).astype(np.int32)
                                                 * r.integers(1, 1000, 256).astype(np.int32),
                                                 np.zeros((7, 256), np.int32)]),
    Case("fp16", _fp16, 2, 128, lambda r: [_f32(r, 250, -30, 30).astype(np.float16), _f32(r, 250, -30, 30).astype(np.float16),
                                           np.zeros((3, 250), np.float16)]),
    Case("complex_mul", _complex, 1, 128, lambda r: [(r.random(100) + 1j * r.random(100)).astype(np.complex128),
                                                     (r.random(100) - 1j * r.random(100)).astype(np.complex128),
                                                     np.zeros(100, np.complex128)]),
]

BY_NAME = {c.name: c for c in CASES}


def inputs(case: Case, seed: int = 0) -> list:
    return case.inputs(np.random.default_rng([seed, sum(map(ord, case.name))]))
