"""The timing kernel suite: which kernel of suite.ptx runs with which launch and arguments.

Used by tools/device/timing_suite.py (CUDA events and ncu on the GPU) and by
tools/timing_accuracy.py (ptxvm.timing's prediction). Depends on NumPy only.

Each `Case` has a name (unique; two sizes of one kernel are two cases), the entry point, grid,
block, dynamic shared memory, `make(rng)` returning the argument list in parameter order (NumPy
arrays are device buffers, NumPy scalars are by-value parameters), `outputs` (indices of the
arguments read back), optional `const` (name -> array for __constant__ symbols) and `check`
(a function of the inputs that returns the expected outputs, for a correctness check on ptxvm).
"""
from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence

import numpy as np

HERE = Path(__file__).resolve().parent
PTX_PATH = HERE / "suite.ptx"

GRID_STRIDE_BLOCKS = 132 * 8  # grid-stride kernels: 8 blocks of 256 per SM (a full wave)


@dataclass(frozen=True)
class Case:
    name: str
    kernel: str
    grid: tuple
    block: tuple
    make: Callable[[np.random.Generator], list]
    outputs: Sequence[int] = ()
    shared: int = 0
    const: Optional[Callable[[], dict]] = None
    check: Optional[Callable[[list], dict]] = None
    note: str = ""
    module: str = "suite"  # the PTX file (relative to this folder, without .ptx)
    family: str = ""  # the unit of the calibration / validation split (benchmarks/timing/split.py)


def f32(rng, n):
    return rng.standard_normal(n, dtype=np.float32)


def zeros(n, dtype=np.float32):
    return np.zeros(n, dtype=dtype)


def _copy(n):
    return lambda rng: [f32(rng, n), zeros(n), np.int32(n)]


def _copy_f4(n4):
    return lambda rng: [f32(rng, 4 * n4), zeros(4 * n4), np.int32(n4)]


def _strided(n, stride):
    return lambda rng: [f32(rng, n * stride), zeros(n), np.int32(n), np.int32(stride)]


def _offset(n, off):
    return lambda rng: [f32(rng, n + off), zeros(n), np.int32(n), np.int32(off)]


def _reduce(n, blocks):
    return lambda rng: [f32(rng, n), zeros(blocks), np.int32(n)]


def _square(n):
    return lambda rng: [f32(rng, n * n), zeros(n * n), np.int32(n)]


def _gemm(m, n, k):
    return lambda rng: [f32(rng, m * k), f32(rng, k * n), zeros(m * n), np.int32(m), np.int32(n), np.int32(k)]


def _hgemm(m, n, k):
    def make(rng):
        a = (rng.integers(-2, 3, m * k) * 0.5).astype(np.float16)
        b = (rng.integers(-2, 3, n * k) * 0.5).astype(np.float16)
        return [a, b, zeros(m * n), np.int32(m), np.int32(n), np.int32(k)]
    return make


def _hist(n):
    return lambda rng: [rng.integers(0, 256, n, dtype=np.uint8), zeros(256, np.uint32), np.int32(n)]


def _hot(n, hot):
    return lambda rng: [f32(rng, n), f32(rng, hot), zeros(GRID_STRIDE_BLOCKS * 256), np.int32(n), np.int32(hot - 1)]


def _const_table():
    return {"c_table": (np.arange(4096, dtype=np.float32) % 17) * 0.125}


def _check_copy(args):
    return {1: args[0][: args[1].size]}


def _check_saxpy(args):
    n, a, x, y = args
    return {3: (np.float32(a) * x + y).astype(np.float32)}


def _check_strided(args):
    n, s = int(args[2]), int(args[3])
    return {1: args[0][: n * s : s]}


def _check_offset(args):
    n, off = int(args[2]), int(args[3])
    return {1: args[0][off : off + n]}


def _check_transpose(args):
    n = int(args[2])
    return {1: args[0].reshape(n, n).T.ravel()}


def _check_gemm(args):
    a, b, _, m, n, k = args
    ref = a.reshape(int(m), int(k)).astype(np.float64) @ b.reshape(int(k), int(n)).astype(np.float64)
    return {2: ref.astype(np.float32).ravel()}


def _check_hgemm(args):
    a, b, _, m, n, k = args
    ref = a.reshape(int(m), int(k)).astype(np.float64) @ b.reshape(int(n), int(k)).astype(np.float64).T
    return {2: ref.astype(np.float32).ravel()}


def _check_hist(args):
    return {1: np.bincount(args[0], minlength=256).astype(np.uint32)}


def _check_collatz(args):
    start, n, cap = int(args[1]), int(args[2]), int(args[3])
    x = np.arange(start, start + n, dtype=np.uint64)
    steps = np.zeros(n, dtype=np.uint32)
    live = (x != 1) & (steps < cap)
    while live.any():
        xl = x[live]
        x[live] = np.where(xl & 1, 3 * xl + 1, xl >> 1)
        steps[live] += 1
        live = (x != 1) & (steps < cap)
    return {0: steps}


def _check_int_hash(args):
    out, iters = args
    h = np.arange(out.size, dtype=np.uint64)
    m = np.uint64(0xFFFFFFFF)
    for i in range(int(iters)):
        h ^= h >> np.uint64(16); h = (h * np.uint64(0x85EBCA6B)) & m
        h ^= h >> np.uint64(13); h = (h * np.uint64(0xC2B2AE35)) & m
        h ^= h >> np.uint64(16); h = (h + np.uint64(i)) & m
    return {0: h.astype(np.uint32)}


B = GRID_STRIDE_BLOCKS
M = 1 << 20

CASES: list[Case] = [
    Case("copy_f32", "copy_f32", (B,), (256,), _copy(8 * M), (1,), check=_check_copy),
    Case("copy_f4", "copy_f4", (B,), (256,), _copy_f4(4 * M), (1,), check=_check_copy),
    Case("saxpy", "saxpy", (B,), (256,), lambda r: [np.int32(8 * M), np.float32(2.5), f32(r, 8 * M), f32(r, 8 * M)], (3,),
         check=_check_saxpy),
    Case("copy_stride2", "copy_strided", (B,), (256,), _strided(4 * M, 2), (1,), check=_check_strided),
    Case("copy_stride8", "copy_strided", (B,), (256,), _strided(2 * M, 8), (1,), check=_check_strided),
    Case("copy_stride32", "copy_strided", (B,), (256,), _strided(1 * M, 32), (1,), check=_check_strided),
    Case("copy_misaligned", "copy_offset", (B,), (256,), _offset(8 * M, 1), (1,), check=_check_offset),
    Case("reduce_shared", "reduce_shared", (B,), (256,), _reduce(8 * M, B), (1,)),
    Case("reduce_shfl", "reduce_shfl", (B,), (256,), _reduce(8 * M, B), (1,)),
    Case("transpose_naive", "transpose_naive", (64, 64), (32, 8), _square(2048), (1,), check=_check_transpose),
    Case("transpose_shared", "transpose_shared", (64, 64), (32, 8), _square(2048), (1,), check=_check_transpose),
    Case("transpose_padded", "transpose_padded", (64, 64), (32, 8), _square(2048), (1,), check=_check_transpose),
    Case("sgemm_naive", "sgemm_naive", (16, 16), (16, 16), _gemm(256, 256, 256), (2,), check=_check_gemm),
    Case("sgemm_tiled", "sgemm_tiled", (16, 16), (16, 16), _gemm(256, 256, 512), (2,), check=_check_gemm),
    Case("hgemm_mma", "hgemm_mma", (128,), (256,), _hgemm(256, 512, 512), (2,), check=_check_hgemm),
    Case("fma_throughput", "fma_throughput", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(512), np.float32(0.999)], (0,)),
    Case("fma_latency", "fma_latency", (132,), (64,), lambda r: [zeros(132 * 64), np.int32(4096), np.float32(0.999)], (0,)),
    Case("sfu_loop", "sfu_loop", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(384)], (0,)),
    Case("f64_loop", "f64_loop", (264,), (256,), lambda r: [zeros(264 * 256, np.float64), np.int32(512), np.float64(0.999)], (0,)),
    Case("int_hash", "int_hash", (264,), (256,), lambda r: [zeros(264 * 256, np.uint32), np.int32(384)], (0,),
         check=_check_int_hash),
    Case("collatz", "collatz", (512,), (256,), lambda r: [zeros(512 * 256, np.uint32), np.uint32(1), np.int32(512 * 256), np.int32(1000)],
         (0,), check=_check_collatz),
    Case("hist_shared", "hist_shared", (B,), (256,), _hist(8 * M), (1,), check=_check_hist),
    Case("hist_global", "hist_global", (B,), (256,), _hist(2 * M), (1,), check=_check_hist),
    Case("stencil1d", "stencil1d", (B,), (256,), lambda r: [f32(r, 4 * M), zeros(4 * M), np.int32(4 * M)], (1,)),
    Case("stencil2d", "stencil2d", (64, 256), (32, 8), lambda r: [f32(r, 2048 * 2048), zeros(2048 * 2048), np.int32(2048)], (1,)),
    Case("hot_stream_ca", "hot_stream_ca", (B,), (256,), _hot(8 * M, 8192), (2,)),
    Case("hot_stream_cs", "hot_stream_cs", (B,), (256,), _hot(8 * M, 8192), (2,)),
    Case("const_broadcast", "const_broadcast", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(512)], (0,), const=_const_table),
    Case("const_scattered", "const_scattered", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(512)], (0,), const=_const_table),
    Case("smem_column", "smem_column", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(256)], (0,)),
    Case("smem_column_padded", "smem_column_padded", (264,), (256,), lambda r: [zeros(264 * 256), np.int32(256)], (0,)),
    Case("lowocc_smem", "lowocc_smem", (264,), (256,), lambda r: [f32(r, 264 * 24576), zeros(264 * 256), np.int32(24576), np.int32(2)],
         (1,), shared=24576 * 4, note="96 KiB dynamic shared per block: at most 2 blocks per SM"),
    Case("tail_132", "tail_chain", (132,), (64,), lambda r: [zeros(132 * 64), np.int32(8192), np.float32(0.999)], (0,),
         shared=120 * 1024, note="120 KiB dynamic shared: one block per SM, one full wave"),
    Case("tail_133", "tail_chain", (133,), (64,), lambda r: [zeros(133 * 64), np.int32(8192), np.float32(0.999)], (0,),
         shared=120 * 1024, note="one block more than SMs: a second wave of one block"),
    Case("launch_empty", "empty_kernel", (1,), (32,), lambda r: [], (), note="launch overhead alone"),
    Case("launch_empty_waves", "empty_kernel", (132 * 16,), (256,), lambda r: [], (),
         note="2112 empty CTAs: two full waves of 8 CTAs per SM (CTA launch cost)"),
]

# The 36 cases above are the suite the model was tuned on before issue 20 (all calibration);
# their family is the kernel's name. families.py holds the held-out families of issue 20.
LEGACY_FAMILIES = frozenset(c.kernel for c in CASES)
CASES = [replace(c, family=c.kernel) for c in CASES]


def _families():
    spec = importlib.util.spec_from_file_location("timing_suite_families", HERE / "families.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CASES += _families().build(Case)
CASE_BY_NAME = {c.name: c for c in CASES}
assert len(CASE_BY_NAME) == len(CASES), "duplicate case names"


def ptx_path(case: Case) -> Path:
    return HERE / f"{case.module}.ptx"


def cubin_path(case: Case) -> Path:
    """The cubin build.py makes from the case's PTX (ptxas -arch=sm_90a), which the GPU loads."""
    return HERE / "cubin" / f"{case.module.replace('/', '__')}.cubin"


def materialize(case: Case, seed: int = 0) -> list:
    return case.make(np.random.default_rng(seed))


def threads(case: Case) -> int:
    g = int(np.prod(case.grid))
    b = int(np.prod(case.block))
    return g * b
