"""Realistic kernel launches over the PTX corpus (tests/corpus/ptx/*.sm_90.ptx).

This module is a *manifest*: it says which kernel to launch with which grid,
block, dynamic shared memory and arguments.  Both the GPU recorder (which runs
the PTX through the CUDA driver and stores every output) and the CPU engine
(which runs the same PTX and compares) consume it.  It depends on NumPy only
and imports nothing from ptxvm.

Argument kinds (in kernel parameter order):

``In(name, make)``
    An input array.  ``make(rng)`` returns a NumPy array built from the
    ``numpy.random.Generator`` it is given; the device gets a copy.
``Out(name, dtype, count)``
    An output array of ``count`` elements, pre-filled with the poison byte
    ``POISON_BYTE`` (0xA5) in every byte, so unwritten elements are visible
    and deterministic.
``InOut(name, make)``
    Like ``In``, but read back after the launch (accumulators, in-place data).
``Scalar(ptx_type, value)``
    A by-value scalar of the given PTX type (``"s32"``, ``"u64"``, ``"f32"``...).
``Struct(bytes_value, align=None)``
    A by-value aggregate, passed as raw bytes (``.param .align A .b8 p[N]``).
``Texture(...)`` / ``Surface(...)``
    Only in ``ADVANCED_CASES``: a texture / surface object whose 64-bit handle
    is the parameter; the launcher creates it from the array ``make`` returns.

Arrays handed to the kernel are passed as 64-bit device pointers.

Outputs (``Out`` / ``InOut``) carry a ``check`` saying how an engine's result
is compared with the GPU's:

* ``EXACT`` (default): bit-for-bit.
* ``close(rtol, atol)``: the kernel uses ``.approx`` instructions (``ex2``,
  ``lg2``, ``rsqrt``, ``rcp``, ``sin`` ...) whose last bits are not specified
  by the PTX ISA, so only closeness can be expected.
* ``multiset(segment)``: the values depend on thread scheduling but their
  multiset per segment of ``segment`` elements does not (e.g. lock order).
* ``IGNORE``: scheduling-dependent values (documented next to the case).

Kernels whose natural output depends on the order of floating-point atomics
use integer-valued float inputs so that every partial sum is exact and the
result is order independent (documented next to each case).

``materialize(case, seed)`` builds the host arguments deterministically: each
argument draws from its own generator seeded with (seed, crc32(case name),
argument index), so adding an argument never changes the data of the others.

Lists: ``CORE_CASES`` (one case per kind of kernel: the curated set),
``EXTRA_CASES`` (every other kernel of the corpus that needs no special
hardware feature), ``CASES`` = ``CORE_CASES + EXTRA_CASES`` (what a recorder
or engine test runs), ``ADVANCED_CASES`` (need textures, wmma, cp.async,
clusters or mbarrier; each has ``feature`` set), ``ALL_CASES`` = everything.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "In", "Out", "InOut", "Scalar", "Struct", "Texture", "Surface", "Check", "Case",
    "EXACT", "IGNORE", "close", "multiset", "POISON_BYTE", "PTX_DIR", "CASES",
    "CORE_CASES", "EXTRA_CASES", "ADVANCED_CASES", "ALL_CASES", "materialize", "case_by_name", "ptx_path",
    "scalar_dtype",
]

PTX_DIR = Path(__file__).resolve().parent.parent / "corpus" / "ptx"
POISON_BYTE = 0xA5

# --------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Check:
    kind: str = "exact"               # exact | close | multiset | ignore
    rtol: float = 0.0
    atol: float = 0.0
    segment: Optional[int] = None     # multiset: compare sorted values per segment
    note: str = ""


EXACT = Check()
IGNORE = Check("ignore")


def close(rtol: float, atol: float = 0.0, note: str = "") -> Check:
    return Check("close", rtol=rtol, atol=atol, note=note)


def multiset(segment: int, note: str = "") -> Check:
    return Check("multiset", segment=segment, note=note)


Maker = Callable[[np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class In:
    name: str
    make: Maker


@dataclass(frozen=True)
class Out:
    name: str
    dtype: Any
    count: int
    check: Check = EXACT


@dataclass(frozen=True)
class InOut:
    name: str
    make: Maker
    check: Check = EXACT


@dataclass(frozen=True)
class Scalar:
    ptx_type: str
    value: Union[int, float]


@dataclass(frozen=True)
class Struct:
    bytes_value: bytes
    align: Optional[int] = None


@dataclass(frozen=True)
class Texture:
    """A texture object (cudaTextureObject_t) built from ``make(rng)``.

    ``make`` returns an array of shape (height, width, channels) for 2D or
    (width,) / (width, channels) for 1D.  ``linear`` selects a linear-memory
    (tex1Dfetch) texture instead of a CUDA array.
    """
    name: str
    make: Maker
    filter_mode: str = "point"        # point | linear
    address_mode: str = "clamp"       # clamp | wrap | mirror | border
    normalized_coords: bool = False
    linear: bool = False


@dataclass(frozen=True)
class Surface:
    """A surface object over a 2D CUDA array of shape (height, width[, channels]);
    read back after the launch like an InOut."""
    name: str
    make: Maker
    check: Check = EXACT


Arg = Union[In, Out, InOut, Scalar, Struct, Texture, Surface]


def _dim3(v) -> Tuple[int, int, int]:
    if isinstance(v, int):
        return (v, 1, 1)
    v = tuple(int(x) for x in v)
    return v + (1,) * (3 - len(v))


@dataclass(frozen=True)
class Case:
    name: str
    ptx: str                       # file name in tests/corpus/ptx
    kernel: str                    # .entry name
    grid: Tuple[int, int, int]
    block: Tuple[int, int, int]
    args: Tuple[Arg, ...]
    shared_bytes: int = 0          # dynamic shared memory
    feature: Optional[str] = None  # ADVANCED_CASES: the hardware feature needed
    cluster: Optional[Tuple[int, int, int]] = None  # launch-time cluster dims
    notes: str = ""

    def __post_init__(self):
        object.__setattr__(self, "grid", _dim3(self.grid))
        object.__setattr__(self, "block", _dim3(self.block))
        object.__setattr__(self, "args", tuple(self.args))
        if self.cluster is not None:
            object.__setattr__(self, "cluster", _dim3(self.cluster))

    @property
    def ptx_path(self) -> str:
        """Absolute path of the PTX file (also what tools/device/record_kernels.py reads)."""
        return str(PTX_DIR / self.ptx)

    @property
    def shared_mem(self) -> int:
        """Alias of shared_bytes (the name Kernel.launch and the recorder use)."""
        return self.shared_bytes

    @property
    def threads(self) -> int:
        g, b = self.grid, self.block
        return g[0] * g[1] * g[2] * b[0] * b[1] * b[2]

    @property
    def outputs(self) -> Tuple[Tuple[int, Arg], ...]:
        """(argument index, argument) of everything read back after the launch."""
        return tuple((i, a) for i, a in enumerate(self.args)
                     if isinstance(a, (Out, InOut, Surface)))


_SCALAR_DTYPES = {
    "u8": np.uint8, "s8": np.int8, "b8": np.uint8,
    "u16": np.uint16, "s16": np.int16, "b16": np.uint16, "f16": np.float16,
    "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "f32": np.float32,
    "u64": np.uint64, "s64": np.int64, "b64": np.uint64, "f64": np.float64,
}


def scalar_dtype(ptx_type: str) -> np.dtype:
    return np.dtype(_SCALAR_DTYPES[ptx_type.lstrip(".")])


def ptx_path(case: Case) -> Path:
    return Path(case.ptx_path)


def _rng(seed: int, case: Case, index: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), zlib.crc32(case.name.encode()), index])


def materialize(case: Case, seed: int = 0) -> list:
    """Host values for ``case.args``, in order.

    In / InOut / Out / Texture / Surface -> a fresh C-contiguous ndarray
    Scalar                               -> a NumPy scalar of the PTX type
    Struct                               -> ``bytes``
    """
    values = []
    for i, arg in enumerate(case.args):
        if isinstance(arg, (In, InOut, Texture, Surface)):
            a = np.ascontiguousarray(np.array(arg.make(_rng(seed, case, i)), copy=True))
            if a.dtype == object:
                raise TypeError(f"{case.name}: {arg.name} produced an object array")
            values.append(a)
        elif isinstance(arg, Out):
            dt = np.dtype(arg.dtype)
            raw = np.full(arg.count * dt.itemsize, POISON_BYTE, dtype=np.uint8)
            values.append(raw.view(dt))
        elif isinstance(arg, Scalar):
            values.append(np.array(arg.value).astype(scalar_dtype(arg.ptx_type))[()])
        elif isinstance(arg, Struct):
            values.append(bytes(arg.bytes_value))
        else:
            raise TypeError(f"unknown argument kind {arg!r}")
    return values


def resource_args(case: Case, values: list) -> tuple[list, dict]:
    """``values`` (from materialize) with Texture / Surface arguments made into ptxvm texture and
    surface objects, as the recorder made CUDA ones; and {position: the array a surface writes}."""
    import ptxvm

    args, surfaces = [], {}
    for i, (spec, v) in enumerate(zip(case.args, values)):
        if isinstance(spec, Texture):
            a = np.asarray(v, np.float32)
            args.append(ptxvm.texture_object(a, dims=1 if spec.linear or a.ndim == 1 else 2,
                                             address_mode=spec.address_mode, filter_mode=spec.filter_mode,
                                             normalized_coords=spec.normalized_coords, linear=spec.linear))
        elif isinstance(spec, Surface):
            surfaces[i] = a = np.array(v, np.float32)
            args.append(ptxvm.surface_object(a, dims=2))
        else:
            args.append(v)
    return args, surfaces


# --------------------------------------------------------------------------
# Data helpers (each returns a make(rng) function)
# --------------------------------------------------------------------------

def normal(n, dtype=np.float32, scale=1.0, shift=0.0) -> Maker:
    return lambda rng: (rng.standard_normal(n) * scale + shift).astype(dtype)


def uniform(n, lo, hi, dtype=np.float32) -> Maker:
    return lambda rng: rng.uniform(lo, hi, n).astype(dtype)


def integers(n, lo, hi, dtype=np.int32) -> Maker:
    """Uniform integers in [lo, hi)."""
    return lambda rng: rng.integers(lo, hi, n, dtype=np.int64).astype(dtype)


def bits(n, dtype) -> Maker:
    """Uniformly random bit patterns of an integer dtype."""
    dt = np.dtype(dtype)
    return lambda rng: rng.integers(0, 256, n * dt.itemsize, dtype=np.uint8).view(dt).copy()


def int_valued(n, lo, hi, dtype=np.float32) -> Maker:
    """Integer-valued floats in [lo, hi): sums of them are exact (order independent)."""
    return lambda rng: rng.integers(lo, hi, n).astype(dtype)


def const(values, dtype) -> Maker:
    arr = np.array(values, dtype=dtype)
    return lambda rng: arr.copy()


def permutation(n, dtype=np.int32) -> Maker:
    return lambda rng: rng.permutation(n).astype(dtype)


def uniform_shape(shape, lo, hi, dtype=np.float32) -> Maker:
    shape = tuple(shape)
    return lambda rng: rng.uniform(lo, hi, shape).astype(dtype)


def normal_shape(shape, dtype=np.float32) -> Maker:
    shape = tuple(shape)
    return lambda rng: rng.standard_normal(shape).astype(dtype)


def zeros_shape(shape, dtype=np.float32) -> Maker:
    shape = tuple(shape)
    return lambda rng: np.zeros(shape, dtype)


def bodies(n) -> Maker:
    """n float4 bodies: xyz ~ N(0, 1), mass w in [0.5, 1)."""
    def make(rng):
        p = rng.standard_normal((n, 4)).astype(np.float32)
        p[:, 3] = rng.uniform(0.5, 1.0, n)
        return p.reshape(-1)
    return make


def zeros(n, dtype) -> Maker:
    return lambda rng: np.zeros(n, dtype)


def full(n, value, dtype) -> Maker:
    return lambda rng: np.full(n, value, dtype)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def ptx(stem: str) -> str:
    return f"{stem}.sm_90.ptx"


I32_MIN, I32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)
U32_MAX, U64_MAX = int(np.iinfo(np.uint32).max), int(np.iinfo(np.uint64).max)

APPROX_F32 = close(2e-6, 1e-6, "libdevice expf/logf etc. use ex2/lg2/rcp/rsqrt .approx")


# --------------------------------------------------------------------------
# CSR matrix helpers (row lengths are fixed so that all arrays agree)
# --------------------------------------------------------------------------

def _csr_row_ptr(rows: int) -> np.ndarray:
    lengths = np.array([(r * 7) % 13 + (r % 3 == 0) * 20 for r in range(rows)], np.int64)
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)


def _csr_nnz(rows: int) -> int:
    return int(_csr_row_ptr(rows)[-1])


def _spmv_args(rows: int, cols: int):
    nnz = _csr_nnz(rows)
    return [Scalar("s32", rows),
            In("row_ptr", const(_csr_row_ptr(rows), np.int32)),
            In("col_idx", integers(nnz, 0, cols)),
            In("vals", normal(nnz)),
            In("x", normal(cols)),
            Out("y", np.float32, rows)]


# --------------------------------------------------------------------------
# Core cases
# --------------------------------------------------------------------------

def _core_cases() -> list:
    C = []

    n = 50_000  # 196 blocks of 256, last block 80 threads active
    C.append(Case("vector_add_f32", ptx("vector_add"), "vector_add_f32", cdiv(n, 256), 256, [
        In("a", normal(n)), In("b", normal(n)), Out("c", np.float32, n), Scalar("s32", n)]))

    n = 30_001  # grid-stride: 16 x 256 threads cover n in ~7.3 rounds
    C.append(Case("saxpy", ptx("saxpy"), "saxpy", 16, 256, [
        Scalar("s32", n), Scalar("f32", 2.5), In("x", normal(n)), InOut("y", normal(n))]))

    n, deg = 20_000, 7
    C.append(Case("fma_horner", ptx("fma_loop"), "fma_horner", cdiv(n, 256), 256, [
        In("x", uniform(n, -1, 1)), In("coeffs", normal(deg + 1)), Scalar("s32", deg),
        Out("y", np.float32, n), Scalar("s32", n)]))

    n = 65_537
    C.append(Case("reduce_partial_f32", ptx("reduce_shared"), "reduce_partial_f32", 64, 256, [
        In("in", normal(n)), Out("partial", np.float32, 64), Scalar("s32", n)],
        notes="shared-memory tree; per-block partial sums, fixed order"))

    # Float atomicAdd of block results: integer-valued inputs in [-8, 8] keep every
    # partial sum an exact integer (|sum| < 2^24), so the order of atomics is irrelevant.
    C.append(Case("reduce_atomic_f32", ptx("reduce_shared"), "reduce_atomic_f32", 64, 256, [
        In("in", int_valued(n, -8, 9)), InOut("out", zeros(1, np.float32)), Scalar("s32", n)],
        notes="integer-valued floats: atomicAdd order does not matter"))

    n = 100_000  # 6 warps per block: the second stage reads fewer than 32 warp sums
    C.append(Case("reduce_shfl_sum_f32", ptx("reduce_shuffle"), "reduce_shfl_sum_f32", 48, 192, [
        In("in", int_valued(n, -4, 5)), InOut("out", zeros(1, np.float32)), Scalar("s32", n)],
        notes="__shfl_down_sync + atomicAdd; integer-valued floats make the sum exact"))

    n = 100_000
    C.append(Case("histogram256", ptx("histogram"), "histogram256", 64, 256, [
        In("data", integers(n, 0, 256, np.uint8)), Scalar("s32", n),
        InOut("hist", zeros(256, np.uint32))]))

    rows, cols = 100, 75
    C.append(Case("transpose_tiled", ptx("transpose"), "transpose_tiled",
                  (cdiv(cols, 32), cdiv(rows, 32)), (32, 8), [
        In("in", normal(rows * cols)), Out("out", np.float32, rows * cols),
        Scalar("s32", rows), Scalar("s32", cols)],
        notes="[32][33] padded tile; partial tiles on both edges"))

    M, N, K = 120, 136, 100
    C.append(Case("sgemm_tiled16", ptx("sgemm"), "sgemm_tiled16", (cdiv(N, 16), cdiv(M, 16)),
                  (16, 16), [
        Scalar("s32", M), Scalar("s32", N), Scalar("s32", K), Scalar("f32", 1.5),
        In("A", normal(M * K)), In("B", normal(K * N)), Scalar("f32", -0.5),
        InOut("C", normal(M * N))]))

    M, N, K = 130, 100, 64
    C.append(Case("sgemm_reg4x4", ptx("sgemm"), "sgemm_reg4x4", (cdiv(N, 64), cdiv(M, 64)),
                  (16, 16), [
        Scalar("s32", M), Scalar("s32", N), Scalar("s32", K), Scalar("f32", 1.0),
        In("A", normal(M * K)), In("B", normal(K * N)), Scalar("f32", 0.0),
        InOut("C", normal(M * N))],
        notes="64x64 tile per block, 4x4 register block per thread"))

    n, b = 5000, 256
    C.append(Case("scan_hillis_steele", ptx("scan"), "scan_hillis_steele", cdiv(n, b), b, [
        In("in", normal(n)), Out("out", np.float32, n),
        Out("block_sums", np.float32, cdiv(n, b)), Scalar("s32", n)],
        shared_bytes=2 * b * 4, notes="double-buffered dynamic shared memory"))

    n, b = 10_000, 256
    C.append(Case("scan_warp_shfl", ptx("scan"), "scan_warp_shfl", cdiv(n, b), b, [
        In("in", integers(n, -100, 101)), Out("out", np.int32, n),
        Out("block_sums", np.int32, cdiv(n, b)), Scalar("s32", n)]))

    n = 3000  # three 1024-key segments, the last one padded
    C.append(Case("bitonic_sort_block", ptx("bitonic_sort"), "bitonic_sort_block",
                  cdiv(n, 1024), 512, [
        InOut("data", integers(n, -(10**9), 10**9)), Scalar("s32", n)]))

    rows, cols = 37, 300
    C.append(Case("softmax_rows_block", ptx("softmax"), "softmax_rows_block", rows, 128, [
        In("in", normal(rows * cols, scale=3.0)), Out("out", np.float32, rows * cols, APPROX_F32),
        Scalar("s32", rows), Scalar("s32", cols)]))

    n = 96  # 3 warps; divergent recursion is expensive on a CPU
    C.append(Case("recursion", ptx("recursion"), "recursion_kernel", cdiv(n, 64), 64, [
        In("n_in", integers(n, 0, 21)), Out("fact", np.uint64, n), Out("fib", np.int32, n),
        Out("gcd", np.uint32, n), Out("sum", np.int32, n), Scalar("s32", n)],
        notes="recursive __noinline__ device functions (call depth <= 20)"))

    n = 1000
    C.append(Case("function_pointers", ptx("func_ptr"), "apply_unary_table", cdiv(n, 128), 128, [
        In("in", uniform(n, -2, 2)), In("sel", integers(n, 0, 4)), Out("out", np.float32, n),
        Scalar("s32", n)],
        notes="indirect calls through a __device__ table of function addresses"))

    n = 300
    C.append(Case("printf", ptx("printf_kernel"), "printf_kernel", cdiv(n, 128), 128, [
        In("in", uniform(n, 0, 10)), Out("out", np.int32, n), Scalar("s32", n)],
        notes="prints 4 lines (one per block plus the last thread); stdout is not compared"))

    n = 2000
    C.append(Case("collatz", ptx("collatz"), "collatz_steps", cdiv(n, 128), 128, [
        In("start", integers(n, 1, 1_000_000, np.uint64)), Out("steps", np.int32, n),
        Scalar("s32", n)], notes="divergent trip counts within each warp"))

    # Lock acquisition order depends on scheduling: `order` holds, per block, each
    # thread id exactly `iters` times, in any order.
    iters, blocks, threads = 2, 4, 64
    C.append(Case("spinlock", ptx("spinlock"), "spinlock_counter", blocks, threads, [
        InOut("locks", zeros(blocks, np.int32)), InOut("counters", zeros(blocks, np.int32)),
        Out("order", np.int32, blocks * threads * iters,
            multiset(threads * iters, "lock acquisition order is scheduling dependent")),
        Scalar("s32", iters)],
        notes="atomicCAS/atomicExch lock per block, lanes of one warp contend"))

    # Block 0 produces, blocks 1.. consume; also safe when blocks run one at a time
    # in increasing order.  result[0] is never written (stays poison).
    n, blocks = 1000, 3
    C.append(Case("flag_wait", ptx("flag_wait"), "flag_producer_consumer", blocks, 128, [
        Out("payload", np.int32, n), InOut("flag", zeros(1, np.int32)),
        Out("result", np.int32, blocks), Scalar("s32", n), Scalar("s32", 1 << 20)],
        notes="volatile spin on a flag set by another block after __threadfence"))

    n = 700
    mixed = struct.pack("<b7xdh2xi", 65, 0.75, -3, 7)   # char, double, short, int: 24 bytes
    C.append(Case("struct_by_value", ptx("struct_arg"), "struct_mixed", cdiv(n, 128), 128, [
        Struct(mixed, align=8), Out("out", np.float64, n), Scalar("s32", n)],
        notes="struct {char; double; short; int} by value (.param .align 8 .b8 [24])"))

    n = 5000
    C.append(Case("constant_conv1d", ptx("constant_mem"), "conv1d_const", cdiv(n, 256), 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)],
        notes="statically initialised __constant__ taps"))

    n, b = 1000, 128
    C.append(Case("dynamic_smem", ptx("dynamic_smem"), "dyn_multi_array", cdiv(n, b), b, [
        In("x", normal(n)), In("keys", integers(n, -1000, 1000)), Out("out", np.float32, n),
        Scalar("s32", n)], shared_bytes=b * 8 + 16,
        notes="two arrays carved out of extern __shared__"))

    n = 10_000
    C.append(Case("cg_tile_reduce", ptx("coop_groups"), "cg_tile_reduce", 16, 256, [
        In("in", normal(n)), Out("out", np.float32, 16), Scalar("s32", n)],
        notes="cooperative_groups tiled_partition<32> + cg::reduce, per-block result"))

    n = 1000
    C.append(Case("cub_block_reduce", ptx("cub_block_reduce_scan"), "cub_block_reduce",
                  cdiv(n, 128), 128, [
        In("in", normal(n)), Out("block_sum", np.float32, cdiv(n, 128)),
        Out("block_max", np.int32, cdiv(n, 128)), Scalar("s32", n)]))

    n = 2000
    C.append(Case("cub_block_scan", ptx("cub_block_reduce_scan"), "cub_block_scan",
                  cdiv(n, 512), 128, [
        In("in", integers(n, -50, 51)), Out("inclusive", np.int32, n),
        Out("exclusive", np.int32, n), Scalar("s32", n)]))

    n = 3000
    C.append(Case("cub_radix_sort_keys", ptx("cub_radix_sort"), "cub_radix_sort_keys",
                  cdiv(n, 1024), 128, [
        In("in", bits(n, np.uint32)), Out("out", np.uint32, n), Scalar("s32", n)]))

    n = 1000
    C.append(Case("bf16_ops", ptx("half_bf16"), "bf16_ops", cdiv(n, 128), 128, [
        In("a", normal(n)), In("b", normal(n)), Out("out", np.float32, 3 * n),
        Out("packed", np.uint16, n), Scalar("s32", n)]))

    n = 2000
    C.append(Case("fp8_roundtrip", ptx("fp8_convert"), "fp8_roundtrip", cdiv(n, 256), 256, [
        In("in", normal(n, scale=100.0)), Out("e4m3", np.float32, n), Out("e5m2", np.float32, n),
        Out("raw_e4m3", np.uint8, n), Scalar("s32", n)],
        notes="values up to ~+-400 exercise saturation of e4m3 (max 448)"))

    n = 1000
    C.append(Case("inline_asm", ptx("inline_asm"), "inline_asm_ops", cdiv(n, 128), 128, [
        In("a", bits(n, np.uint32)), In("b", bits(n, np.uint32)), Out("out", np.uint32, 8 * n),
        Scalar("s32", n)], notes="add, lop3, prmt, bfe, bfi, mul.wide, %laneid via asm()"))

    n = 2000
    C.append(Case("math_f32", ptx("math_heavy"), "math_f32", cdiv(n, 128), 128, [
        In("x", uniform(n, -4, 4)), Out("out", np.float32, 16 * n, close(1e-5, 1e-6,
            "libdevice float functions use .approx instructions")), Scalar("s32", n)]))

    n = 1000
    C.append(Case("math_f64", ptx("math_heavy"), "math_f64", cdiv(n, 128), 128, [
        In("x", uniform(n, -3, 3, np.float64)), Out("out", np.float64, 12 * n, close(
            1e-13, 1e-15, "rcp/rsqrt .approx.ftz.f64 seeds refined by Newton steps")),
        Scalar("s32", n)]))

    # All final values are independent of the order of the atomics: integer data
    # (float/double adds of integers are exact), idempotent CAS/exch slots.
    n = 4000
    C.append(Case("atomics_zoo", ptx("atomics_zoo"), "atomics_zoo", cdiv(n, 256), 256, [
        In("vals", integers(n, -1000, 1001)), Scalar("s32", n),
        InOut("i32", const([0, 0, I32_MAX, I32_MIN, -1, 0, 0, 0] + [99] * 8, np.int32)),
        InOut("u32", const([0, U32_MAX, 0, 0, 0, 0] + [0] * 64, np.uint32)),
        InOut("u64", const([0, U64_MAX, 0, U64_MAX, 0, 0], np.uint64)),
        InOut("f32", const([0.0, -1e30, 0.0, 0.0], np.float32)),
        InOut("f64", const([0.0, 1e30], np.float64))],
        notes="atomic add/sub/min/max/and/or/xor/inc/dec/exch/cas on int, unsigned, "
              "u64, float and double; order independent by construction"))

    n = 1000
    C.append(Case("warp_vote", ptx("warp_intrinsics"), "warp_vote", cdiv(n, 128), 128, [
        In("in", integers(n, -150, 150)), Out("out", np.uint32, 4 * n), Scalar("s32", n)],
        notes="__ballot_sync, __any_sync, __all_sync, popc/ffs/clz/brev"))

    C.append(Case("warp_match", ptx("warp_intrinsics"), "warp_match", cdiv(n, 128), 128, [
        In("keys", integers(n, 0, 6)), Out("peers", np.uint32, n),
        Out("leader_count", np.int32, n), Out("all_same", np.int32, n), Scalar("s32", n)]))

    C.append(Case("warp_redux", ptx("warp_reduce_sm80"), "warp_redux", cdiv(n, 128), 128, [
        In("in", integers(n, -(10**6), 10**6)), Out("out", np.int32, 7 * cdiv(n, 128) * 4),
        Scalar("s32", n)], notes="__reduce_*_sync (redux.sync, sm_80+)"))

    return C


# --------------------------------------------------------------------------
# Extra cases: every other kernel of the corpus that needs no special feature
# --------------------------------------------------------------------------

def _extra_cases() -> list:
    C = []

    n = 4096
    C.append(Case("vector_add_i32", ptx("vector_add"), "vector_add_i32", cdiv(n + 1, 256), 256, [
        In("a", bits(n + 1, np.int32)), In("b", bits(n + 1, np.int32)),
        Out("c", np.int32, n + 1), Scalar("s32", n + 1)], notes="wrapping int32 adds"))

    n = 4097
    C.append(Case("vector_add_f64", ptx("vector_add"), "vector_add_f64", cdiv(n, 128), 128, [
        In("a", normal(n, np.float64)), In("b", normal(n, np.float64)),
        Out("c", np.float64, n), Scalar("s64", n)], notes="64-bit element count"))

    n = 10_000
    C.append(Case("daxpy", ptx("saxpy"), "daxpy", 8, 128, [
        Scalar("s32", n), Scalar("f64", -0.75), In("x", normal(n, np.float64)),
        InOut("y", normal(n, np.float64))]))

    n, inc = 3000, 3
    C.append(Case("saxpy_strided", ptx("saxpy"), "saxpy_strided", cdiv(n, 256), 256, [
        Scalar("s32", n), Scalar("f32", 0.5), In("x", normal(n * inc)), Scalar("s32", inc),
        In("y", normal(n)), Out("z", np.float32, n)]))

    n = 10_000
    C.append(Case("fma_unrolled", ptx("fma_loop"), "fma_unrolled", cdiv(n, 256), 256, [
        In("x", uniform(n, -1, 1)), Out("y", np.float32, n), Scalar("s32", n),
        Scalar("s32", 37)], notes="37 iterations: unrolled-by-8 loop plus remainder"))

    n = 5000
    C.append(Case("fma_f64", ptx("fma_loop"), "fma_f64", cdiv(n, 128), 128, [
        In("x", normal(n, np.float64)), Out("y", np.float64, n), Scalar("s32", n),
        Scalar("s32", 20)]))

    n = 65_537
    C.append(Case("reduce_atomic_i32", ptx("reduce_shared"), "reduce_atomic_i32", 64, 256, [
        In("in", integers(n, -100, 101)), InOut("out", zeros(1, np.int32)), Scalar("s32", n)]))

    n = 40_000
    C.append(Case("reduce_unrolled_f32", ptx("reduce_shared"), "reduce_unrolled_f32",
                  cdiv(n, 512), 256, [
        In("in", normal(n)), Out("partial", np.float32, cdiv(n, 512)), Scalar("u32", n)],
        notes="two loads per thread, last warp unrolled with volatile shared memory"))

    n = 77_777
    C.append(Case("reduce_shfl_max_i32", ptx("reduce_shuffle"), "reduce_shfl_max_i32", 30, 256, [
        In("in", integers(n, -(10**6), 10**6)), InOut("out", full(1, I32_MIN, np.int32)),
        Scalar("s32", n)]))

    n = 10_000
    C.append(Case("warp_allreduce_xor_f32", ptx("reduce_shuffle"), "warp_allreduce_xor_f32",
                  cdiv(n, 256), 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)]))

    n, nbins = 50_000, 100
    C.append(Case("histogram_float", ptx("histogram"), "histogram_float", 32, 256, [
        In("x", normal(n)), Scalar("s32", n), Scalar("f32", -3.0), Scalar("f32", 3.0),
        Scalar("s32", nbins), InOut("hist", zeros(nbins, np.int32))],
        shared_bytes=nbins * 4, notes="bins in dynamic shared memory"))

    rows, cols = 100, 75
    C.append(Case("transpose_naive", ptx("transpose"), "transpose_naive",
                  (cdiv(cols, 32), cdiv(rows, 32)), (32, 8), [
        In("in", normal(rows * cols)), Out("out", np.float32, rows * cols),
        Scalar("s32", rows), Scalar("s32", cols)]))

    rows, cols = 65, 130
    C.append(Case("transpose_tiled_f64", ptx("transpose"), "transpose_tiled_f64",
                  (cdiv(cols, 32), cdiv(rows, 32)), (32, 8), [
        In("in", normal(rows * cols, np.float64)), Out("out", np.float64, rows * cols),
        Scalar("s32", rows), Scalar("s32", cols)]))

    M, N, K = 33, 47, 29
    C.append(Case("sgemm_naive", ptx("sgemm"), "sgemm_naive", (cdiv(N, 16), cdiv(M, 16)),
                  (16, 16), [
        Scalar("s32", M), Scalar("s32", N), Scalar("s32", K), Scalar("f32", 1.0),
        In("A", normal(M * K)), In("B", normal(K * N)), Scalar("f32", 2.0),
        InOut("C", normal(M * N))]))

    n, b = 1000, 128
    C.append(Case("scan_add_block_offsets", ptx("scan"), "scan_add_block_offsets", cdiv(n, b), b, [
        InOut("out", integers(n, -100, 100)), In("scanned_sums", integers(cdiv(n, b), -1000, 1000)),
        Scalar("s32", n)]))

    n = 4096
    C.append(Case("bitonic_step_global", ptx("bitonic_sort"), "bitonic_step_global",
                  n // 256, 256, [
        InOut("data", normal(n)), Scalar("s32", 4), Scalar("s32", 16)],
        notes="one compare-exchange step (j=4, k=16) of a global bitonic sort"))

    rows, cols = 50, 70  # 4 warps (rows) per block, 13 blocks: the last 2 warps idle
    C.append(Case("softmax_rows_warp", ptx("softmax"), "softmax_rows_warp", cdiv(rows, 4), 128, [
        In("in", normal(rows * cols, scale=2.0)), Out("out", np.float32, rows * cols, APPROX_F32),
        Scalar("s32", rows), Scalar("s32", cols)]))

    n = 1000
    C.append(Case("function_pointers_binary", ptx("func_ptr"), "apply_binary_table",
                  cdiv(n, 128), 128, [
        In("a", integers(n, -1000, 1000)), In("b", integers(n, -1000, 1000)),
        In("sel", integers(n, 0, 4)), Out("out", np.int32, n), Scalar("s32", n)]))

    w, h = 96, 64
    C.append(Case("mandelbrot", ptx("collatz"), "mandelbrot", (cdiv(w, 16), cdiv(h, 8)), (16, 8), [
        Out("iters", np.int32, w * h), Scalar("s32", w), Scalar("s32", h),
        Scalar("f32", -2.0), Scalar("f32", -1.0), Scalar("f32", 3.0 / w), Scalar("f32", 2.0 / h),
        Scalar("s32", 200)]))

    n = 300  # every thread takes the one lock in turn: cost grows like n^2 on a CPU
    C.append(Case("spinlock_global_sum", ptx("spinlock"), "spinlock_global_sum", cdiv(n, 128), 128, [
        InOut("lock", zeros(1, np.int32)), InOut("total", zeros(1, np.uint64)),
        In("values", integers(n, 0, 1_000_000, np.uint32)), Scalar("s32", n)],
        notes="one lock shared by all blocks; the 64-bit total is order independent"))

    n = 1000
    affine = struct.pack("<ffii", 2.0, -1.0, n, 2)      # scale, bias, n, stride
    C.append(Case("struct_affine", ptx("struct_arg"), "struct_affine", cdiv(n, 128), 128, [
        Struct(affine, align=4), In("in", normal(2 * n)), Out("out", np.float32, n)]))

    n = 500
    mat = (np.arange(16, dtype=np.float32) * 0.25 - 2.0).tobytes()
    C.append(Case("struct_mat4", ptx("struct_arg"), "struct_mat4", cdiv(n, 128), 128, [
        Struct(mat, align=16), In("in", normal(4 * n)), Out("out", np.float32, 4 * n),
        Scalar("s32", n)], notes="64-byte __align__(16) struct"))

    n = 900
    nested = struct.pack("<ii3fB3x", -50, 50, 0.5, 1.5, 2.5, 0)
    C.append(Case("struct_nested", ptx("struct_arg"), "struct_nested", cdiv(n, 128), 128, [
        Struct(nested, align=4), In("in", integers(n, -100, 100)), Out("out", np.float32, n),
        Scalar("s32", n)]))

    n = 3000
    C.append(Case("constant_poly_f64", ptx("constant_mem"), "poly_const", cdiv(n, 128), 128, [
        In("x", uniform(n, -2, 2, np.float64)), Out("y", np.float64, n), Scalar("s32", n)]))

    n = 4000
    C.append(Case("constant_lut", ptx("constant_mem"), "popcount_lut_const", cdiv(n, 256), 256, [
        In("in", bits(n, np.uint32)), Out("out", np.int32, n), Scalar("s32", n)],
        notes="dynamically indexed __constant__ table and a __constant__ struct"))

    n, b = 1000, 128
    C.append(Case("dyn_reverse", ptx("dynamic_smem"), "dyn_reverse", cdiv(n, b), b, [
        InOut("data", integers(n, -(10**6), 10**6)), Scalar("s32", n)], shared_bytes=b * 4))

    n = 900
    C.append(Case("dyn_plus_static", ptx("dynamic_smem"), "dyn_plus_static", cdiv(n, b), b, [
        In("in", uniform(n, 0, 1, np.float64)), Out("out", np.float64, n), Scalar("s32", n)],
        shared_bytes=b * 8, notes="dynamic and static shared memory in one kernel"))

    n = 1000
    C.append(Case("cg_tile8_ops", ptx("coop_groups"), "cg_tile8_ops", cdiv(n, 128), 128, [
        In("in", integers(n, -1000, 1000)), Out("tile_max", np.int32, n // 8),
        Out("scan", np.int32, n), Scalar("s32", n)]))

    # rank_out assumes that the lanes taking the branch are converged when
    # coalesced_threads() runs (true on current GPUs and for a lock-step engine).
    C.append(Case("cg_coalesced_count", ptx("coop_groups"), "cg_coalesced_count",
                  cdiv(n, 128), 128, [
        In("in", integers(n, -5, 5)), InOut("positive_count", zeros(1, np.int32)),
        Out("rank", np.int32, n), Scalar("s32", n)]))

    n = 2500
    C.append(Case("cub_radix_sort_pairs_desc", ptx("cub_radix_sort"), "cub_radix_sort_pairs_desc",
                  cdiv(n, 1024), 128, [
        In("keys_in", normal(n)), In("vals_in", permutation(n)),
        Out("keys_out", np.float32, n), Out("vals_out", np.int32, n), Scalar("s32", n)]))

    n2 = 2048
    a_half2 = np.array([1.5, -0.5], np.float16).tobytes()
    C.append(Case("haxpy_half2", ptx("half_bf16"), "haxpy_half2", cdiv(n2, 256), 256, [
        Scalar("s32", n2), Struct(a_half2, align=4),
        In("x", uniform(2 * n2, -2, 2, np.float16)), InOut("y", uniform(2 * n2, -2, 2, np.float16))],
        notes="__half2 passed by value (.param .align 4 .b8 [4])"))

    n = 1000
    C.append(Case("half_ops", ptx("half_bf16"), "half_ops", cdiv(n, 128), 128, [
        In("in", uniform(n, -4, 4)), Out("out", np.float32, 2 * n), Scalar("s32", n)],
        notes="bit exact: ptxas contracts the unrounded mul.f16x2 + add.f16x2 into one fma, and so "
              "does the engine (engine/contraction.py; 39 of 2000 differed before)"))

    n2 = 4096
    C.append(Case("half2_dot", ptx("half_bf16"), "half2_dot", 8, 256, [
        In("x", uniform(2 * n2, -1, 1, np.float16)), In("y", uniform(2 * n2, -1, 1, np.float16)),
        Out("partial", np.float32, 8), Scalar("s32", n2)]))

    n = 1000
    C.append(Case("fp8x2_pack", ptx("fp8_convert"), "fp8x2_pack", cdiv(n, 128), 128, [
        In("in", normal(2 * n, scale=10.0)), Out("packed", np.uint16, n),
        Out("back", np.float32, 2 * n), Scalar("s32", n)]))

    n = 1500
    C.append(Case("fp8_quant_dequant", ptx("fp8_convert"), "fp8_quant_dequant", cdiv(n, 256), 256, [
        In("in", normal(n)), Scalar("f32", 64.0), Out("q", np.uint8, n), Out("deq", np.float32, n),
        Scalar("s32", n)]))

    n = 1000
    C.append(Case("inline_asm_float", ptx("inline_asm"), "inline_asm_float", cdiv(n, 128), 128, [
        In("x", uniform(n, 0.5, 4.0)), Out("y", np.float32, n), Scalar("s32", n)]))

    # %clock/%clock64/%globaltimer values are not compared, only flags derived
    # from them: every element is expected to be 15 (monotonic clocks, nonzero timer).
    C.append(Case("inline_asm_clock", ptx("inline_asm"), "inline_asm_clock", 2, 64, [
        Out("ok", np.uint32, 128), Scalar("s32", 100)]))

    n = 1000
    C.append(Case("math_misc", ptx("math_heavy"), "math_misc", cdiv(n, 128), 128, [
        In("x", uniform(n, -3, 3)), Out("out", np.float32, 6 * n, close(
            1e-5, 1e-6, "sincosf/erfinvf/normcdff use .approx instructions")),
        Out("iout", np.int32, 3 * n), Scalar("s32", n)]))

    n = 1000
    C.append(Case("atomics_scoped", ptx("atomics_zoo"), "atomics_scoped", cdiv(n, 128), 128, [
        InOut("block_counts", zeros(cdiv(n, 128), np.int32)), InOut("total", zeros(1, np.uint64)),
        InOut("flags16", zeros(16, np.uint16)), Scalar("s32", n)],
        notes="atomicAdd_block / atomicAdd_system / 16-bit atomicCAS"))

    # masks = __activemask() inside a divergent branch: which lanes are converged
    # there is up to the scheduler, so it is not compared.
    C.append(Case("warp_activemask_syncwarp", ptx("warp_intrinsics"), "warp_activemask_syncwarp",
                  cdiv(n, 128), 128, [
        In("in", integers(n, -100, 100)), Out("masks", np.uint32, n, IGNORE),
        Out("rotated", np.int32, n), Scalar("s32", n)]))

    C.append(Case("warp_shuffles", ptx("warp_intrinsics"), "warp_shuffles", cdiv(n, 128), 128, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)],
        notes="__shfl_sync with widths 8/16/32 and a double shuffle"))

    C.append(Case("warp_redux_masked", ptx("warp_reduce_sm80"), "warp_redux_masked",
                  cdiv(n, 128), 128, [
        In("in", integers(n, -1000, 1000)), Out("out", np.int32, n), Scalar("s32", n)]))

    n = 10_000
    C.append(Case("stencil1d", ptx("stencil"), "stencil1d", cdiv(n, 256), 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)]))

    rows, cols = 70, 90
    C.append(Case("jacobi2d", ptx("stencil"), "jacobi2d", (cdiv(cols, 16), cdiv(rows, 16)),
                  (16, 16), [
        In("u", normal(rows * cols)), Out("unew", np.float32, rows * cols),
        Scalar("s32", rows), Scalar("s32", cols)]))

    n = 500
    C.append(Case("nbody_accel", ptx("nbody"), "nbody_accel", cdiv(n, 128), 128, [
        In("pos", bodies(n)), Out("acc", np.float32, 3 * n, close(1e-5, 1e-5, "rsqrtf")),
        Scalar("s32", n), Scalar("f32", 0.01)]))

    C.append(Case("nbody_integrate", ptx("nbody"), "nbody_integrate", cdiv(n, 128), 128, [
        InOut("pos", bodies(n)), InOut("vel", normal(4 * n, scale=0.1)), In("acc", normal(3 * n)),
        Scalar("s32", n), Scalar("f32", 0.01)]))

    C.append(Case("spmv_csr_scalar", ptx("spmv_csr"), "spmv_csr_scalar", cdiv(1000, 128), 128,
                  _spmv_args(1000, 800)))
    C.append(Case("spmv_csr_vector", ptx("spmv_csr"), "spmv_csr_vector", cdiv(300, 4), 128,
                  _spmv_args(300, 800), notes="one warp per row"))

    w, h = 100, 60
    C.append(Case("rgba_to_gray", ptx("image_vec"), "rgba_to_gray", (cdiv(w, 16), cdiv(h, 16)),
                  (16, 16), [
        In("rgba", integers(4 * w * h, 0, 256, np.uint8)), Out("gray", np.uint8, w * h),
        Scalar("s32", w), Scalar("s32", h)]))
    C.append(Case("box_blur_u8", ptx("image_vec"), "box_blur_u8", (cdiv(w, 16), cdiv(h, 16)),
                  (16, 16), [
        In("in", integers(w * h, 0, 256, np.uint8)), Out("out", np.uint8, w * h),
        Scalar("s32", w), Scalar("s32", h)]))

    n4 = 1000
    C.append(Case("float4_scale", ptx("image_vec"), "float4_scale", cdiv(n4, 128), 128, [
        In("in", normal(4 * n4)), Out("out", np.float32, 4 * n4), Scalar("f32", 0.5),
        Scalar("s32", n4)]))
    n = 1000
    C.append(Case("pack_short2", ptx("image_vec"), "pack_short2", cdiv(n, 128), 128, [
        In("in", integers(2 * n, -70_000, 70_000)), Out("out", np.int16, 2 * n), Scalar("s32", n)]))

    # The PTX has plain mul.f32 + sub.f32 pairs (no .rn), which ptxas contracts into fma;
    # the engine does the same (engine/contraction.py), bit exact (723 of 2000 differed before).
    C.append(Case("cpp_complex_pow", ptx("cpp_features"), "cpp_complex_pow", cdiv(n, 128), 128, [
        In("z", uniform(2 * n, -1.2, 1.2)), Out("out", np.float32, 2 * n),
        Scalar("s32", n), Scalar("s32", 5)]))
    C.append(Case("cpp_lambda_f32", ptx("cpp_features"), "cpp_lambda_f32", cdiv(n, 128), 128, [
        In("in", uniform(n, -1, 1)), Out("out", np.float32, n), Scalar("s32", n),
        Scalar("f32", 2.0)]))
    C.append(Case("cpp_lambda_i64", ptx("cpp_features"), "cpp_lambda_i64", cdiv(n, 128), 128, [
        In("in", bits(n, np.int64)), Out("out", np.int64, n), Scalar("s32", n)]))

    n = 3000
    C.append(Case("median_filter9", ptx("local_memory"), "median_filter9", cdiv(n, 128), 128, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)],
        notes="per-thread array in .local memory, insertion sort"))
    n = 2000
    C.append(Case("local_table", ptx("local_memory"), "local_table", cdiv(n, 128), 128, [
        In("idx", integers(n, 0, 32)), Out("out", np.int32, n), Scalar("s32", n),
        Scalar("s32", 12345)]))

    n = 1000
    C.append(Case("bitops32", ptx("bitops"), "bitops32", cdiv(n, 128), 128, [
        In("a", bits(n, np.uint32)), In("b", bits(n, np.uint32)), Out("out", np.uint32, 16 * n),
        Scalar("s32", n)]))
    C.append(Case("bitops64", ptx("bitops"), "bitops64", cdiv(n, 128), 128, [
        In("a", bits(n, np.uint64)), In("b", bits(n, np.uint64)), Out("out", np.uint64, 8 * n),
        Scalar("s32", n)]))

    return C


# --------------------------------------------------------------------------
# Advanced cases (need textures, tensor cores, cp.async, clusters, mbarrier)
# --------------------------------------------------------------------------

def _advanced_cases() -> list:
    C = []

    M, N, K = 64, 64, 32   # 16x16 tiles; blockDim (128, 1): 4 warps along N
    C.append(Case("wmma_gemm_f16_f32", ptx("wmma_gemm"), "wmma_gemm_f16_f32",
                  (N // 16 // 4, M // 16), (128, 1), [
        In("A", uniform(M * K, -1, 1, np.float16)), In("B", uniform(K * N, -1, 1, np.float16)),
        In("C", normal(M * N)), Out("D", np.float32, M * N, close(
            1e-5, 1e-5, "tensor-core accumulation order is unspecified")),
        Scalar("s32", M), Scalar("s32", N), Scalar("s32", K), Scalar("f32", 1.0),
        Scalar("f32", 0.5)], feature="wmma"))
    C.append(Case("wmma_tile_f16_f16", ptx("wmma_gemm"), "wmma_tile_f16_f16", 2, 64, [
        In("A", uniform(512, -1, 1, np.float16)), In("B", uniform(512, -1, 1, np.float16)),
        Out("D", np.float16, 512, close(2e-3, 2e-3, "f16 accumulation order is unspecified"))],
        feature="wmma"))

    # inline-PTX GEMMs: ldmatrix (.x4, .x4.trans) into mma.sync.m16n8k16, stmatrix; bit for bit
    M, N, K = 48, 64, 64   # 12 tiles of 16x16, one per warp, 4 warps per CTA
    C.append(Case("mma_ldmatrix_gemm_f32", ptx("mma_ldmatrix_gemm"), "mma_ldmatrix_gemm_f32", 3, 128, [
        In("A", uniform(M * K, -1, 1, np.float16)), In("Bt", uniform(N * K, -1, 1, np.float16)),
        In("C", normal(M * N)), Out("D", np.float32, M * N), Scalar("s32", M), Scalar("s32", N),
        Scalar("s32", K)], feature="mma"))
    C.append(Case("mma_ldmatrix_gemm_f16", ptx("mma_ldmatrix_gemm"), "mma_ldmatrix_gemm_f16", 3, 128, [
        In("A", uniform(M * K, -1, 1, np.float16)), In("B", uniform(K * N, -1, 1, np.float16)),
        Out("D", np.float16, M * N), Scalar("s32", M), Scalar("s32", N), Scalar("s32", K)], feature="mma"))
    # Hopper warpgroup GEMM (inline PTX, sm_90a): 128-byte swizzled shared-memory tiles, four chained
    # wgmma.mma_async per K block of 64, one commit_group / wait_group
    M, N, K = 64, 128, 128
    C.append(Case("wgmma_gemm_f16_f32", "wgmma_gemm.sm_90a.ptx", "wgmma_gemm_f16_f32", (N // 64, M // 64), 128, [
        In("A", uniform(M * K, -1, 1, np.float16)), In("Bt", uniform(N * K, -1, 1, np.float16)),
        Out("D", np.float32, M * N), Scalar("s32", M), Scalar("s32", N), Scalar("s32", K)], feature="wgmma"))

    w, h = 40, 24
    C.append(Case("tex2d_sample", ptx("texture_surface"), "tex2d_sample",
                  (cdiv(w, 16), cdiv(h, 8)), (16, 8), [
        Texture("tex", uniform_shape((h, w, 4), 0, 1),
                filter_mode="linear", address_mode="clamp", normalized_coords=True),
        Out("out", np.float32, 4 * w * h),  # bit exact: texture_filter.py
        Scalar("s32", w), Scalar("s32", h), Scalar("f32", 0.01), Scalar("f32", -0.02)],
        feature="texture"))
    n = 1000
    C.append(Case("tex1d_fetch_scale", ptx("texture_surface"), "tex1d_fetch_scale",
                  cdiv(n, 128), 128, [
        Texture("tex", normal(n), linear=True), Out("out", np.float32, n), Scalar("s32", n),
        Scalar("f32", 3.0)], feature="texture"))
    C.append(Case("tex_blur_to_surface", ptx("texture_surface"), "tex_blur_to_surface",
                  (cdiv(w, 16), cdiv(h, 8)), (16, 8), [
        Texture("tex", uniform_shape((h, w, 4), 0, 1),
                filter_mode="point", address_mode="clamp"),
        Surface("surf", zeros_shape((h, w, 4))),
        Scalar("s32", w), Scalar("s32", h)], feature="texture"))
    C.append(Case("surf_read_modify_write", ptx("texture_surface"), "surf_read_modify_write",
                  (cdiv(w, 16), cdiv(h, 8)), (16, 8), [
        Surface("surf", normal_shape((h, w))),
        Scalar("s32", w), Scalar("s32", h), Scalar("f32", 2.0)], feature="surface"))

    tiles, blocks = 4, 6
    n = tiles * blocks * 256
    C.append(Case("cp_async_double_buffer", ptx("cp_async"), "cp_async_double_buffer", blocks, 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", tiles), Scalar("f32", 0.5)],
        feature="cp.async"))
    n = 1000
    C.append(Case("cp_async_16B", ptx("cp_async"), "cp_async_16B", cdiv(n, 256), 256, [
        In("in", normal(4 * n)), Out("out", np.float32, 4 * n), Scalar("s32", n)],
        feature="cp.async"))
    C.append(Case("cg_memcpy_async_sum", ptx("cp_async"), "cg_memcpy_async_sum", cdiv(n, 256), 256, [
        In("in", integers(n, -100, 100)), Out("out", np.int32, n), Scalar("s32", n)],
        feature="cp.async"))
    C.append(Case("cuda_pipeline_copy", ptx("cp_async"), "cuda_pipeline_copy", cdiv(n, 256), 256, [
        In("in", normal(n, np.float64)), Out("out", np.float64, n), Scalar("s32", n)],
        feature="cp.async"))

    n = 1000   # __cluster_dims__(2,1,1): the grid must be a multiple of 2
    C.append(Case("cluster_pair_sum", ptx("cluster_dsmem"), "cluster_pair_sum", 4, 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)],
        feature="cluster", notes="cluster dims from .reqnctapercluster in the PTX"))
    n, blocks = 2000, 16   # __cluster_dims__(4,1,1): 4 clusters
    C.append(Case("cluster_histogram", ptx("cluster_dsmem"), "cluster_histogram", blocks, 128, [
        In("in", integers(n, -1000, 1000)), Scalar("s32", n),
        Out("hist", np.int32, (blocks // 4) * 256)], feature="cluster",
        notes="distributed shared memory atomics (map_shared_rank)"))
    C.append(Case("cluster_info", ptx("cluster_dsmem"), "cluster_info", 4, 32, [
        Out("out", np.uint32, 4 * 4 * 32)], feature="cluster", cluster=(2, 1, 1),
        notes="cluster shape given at launch (cudaLaunchAttributeClusterDimension)"))

    n = 1000
    C.append(Case("mbarrier_split_phase", ptx("mbarrier"), "mbarrier_split_phase", cdiv(n, 256), 256, [
        In("in", normal(n)), Out("out", np.float32, n), Scalar("s32", n)], feature="mbarrier"))
    rounds, blocks = 5, 3
    C.append(Case("mbarrier_producer_consumer", ptx("mbarrier"), "mbarrier_producer_consumer",
                  blocks, 128, [
        In("in", integers(blocks * rounds * 32, -100, 100)), Out("out", np.int32, blocks * 128),
        Scalar("s32", rounds)], feature="mbarrier"))
    C.append(Case("mbarrier_bulk_copy", ptx("mbarrier"), "mbarrier_bulk_copy", 4, 128, [
        In("in", normal(4 * 128 * 4)), Out("out", np.float32, 4 * 128 * 4)],
        feature="cp.async.bulk", notes="TMA bulk copy completed through mbarrier tx-count"))

    # the cluster probes of tests/engine/async_cases.py (PTX kept outside the nvcc corpus)
    probes = "../../kernels/ptx/cluster_probes.sm_90.ptx"
    C.append(Case("dsmem_histogram", probes, "dsmem_histogram", 8, 64, [
        In("in", integers(500, 0, 2**31, np.uint32)), Out("hist", np.uint32, 128), Scalar("u32", 500)],
        feature="cluster", notes="red.shared::cluster on mapa addresses; .reqnctapercluster 4"))
    C.append(Case("remote_mbarrier", probes, "remote_mbarrier", 6, 32, [
        Out("out", np.uint32, 96), Out("info", np.uint32, 96 * 4)], feature="cluster",
        notes="st.shared::cluster and mbarrier.arrive on another CTA's barrier; getctarank, isspacep"))
    return C


CORE_CASES: Tuple[Case, ...] = tuple(_core_cases())
EXTRA_CASES: Tuple[Case, ...] = tuple(_extra_cases())
CASES: Tuple[Case, ...] = CORE_CASES + EXTRA_CASES
ADVANCED_CASES: Tuple[Case, ...] = tuple(_advanced_cases())
ALL_CASES: Tuple[Case, ...] = CASES + ADVANCED_CASES

_BY_NAME = {c.name: c for c in ALL_CASES}
assert len(_BY_NAME) == len(ALL_CASES), "duplicate case names"


def case_by_name(name: str) -> Case:
    return _BY_NAME[name]


if __name__ == "__main__":  # a short listing
    for group, cases in (("CORE_CASES", CORE_CASES), ("EXTRA_CASES", EXTRA_CASES),
                         ("ADVANCED_CASES", ADVANCED_CASES)):
        print(f"{group}: {len(cases)}")
        for c in cases:
            extra = f" [{c.feature}]" if c.feature else ""
            print(f"  {c.name:28s} {c.kernel:28s} grid={c.grid} block={c.block} "
                  f"smem={c.shared_bytes} threads={c.threads}{extra}")
