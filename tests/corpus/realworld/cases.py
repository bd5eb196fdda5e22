"""Launches of the real-world corpus (tests/corpus/realworld/ptx): which entry of which file, grid,
block, dynamic shared memory, deterministic inputs, and a NumPy sanity check of the outputs.

Used by tests/corpus/realworld/test_realworld.py (CPU engine against H200 goldens) and by
tools/device/record_realworld.py (records the goldens; needs only NumPy). Arguments are the
kernel's PTX parameters in order: `make(rng)` returns a list of `Arg`; an `in`/`out`/`inout` array
is passed as a device pointer, a `scalar` (NumPy scalar or raw bytes for a by-value struct) as is.
A `tmap_in`/`tmap_out` argument is a 128-byte CUtensorMap (cuTensorMapEncodeTiled on the GPU,
ptxvm.tensor_map on the engine) over its array, which is otherwise not passed.
Compilers' ABIs are spelled out by two helpers: `numba_array` (numba's 5 + 2*ndim parameters per
array) and `triton_scratch` (the two scratch pointers Triton 3.9 appends, null when the kernel's
scratch sizes are 0).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

try:  # ml_dtypes gives NumPy a bfloat16; the recorder only needs raw bits
    from ml_dtypes import bfloat16
except ImportError:  # pragma: no cover
    bfloat16 = None


@dataclass
class Arg:
    name: str
    kind: str  # "in", "out", "inout", "scalar"; "tmap_in" / "tmap_out": a tensor map over the array
    value: object
    box: tuple = None  # tensor maps: box (NumPy order), swizzle, dtype (cuTensorMapEncodeTiled's)
    swizzle: str = "none"
    dtype: str = None


@dataclass
class Case:
    name: str
    file: str            # PTX file stem in ptx/
    entry: str           # exact .entry name, or a prefix of one (numba's long mangled names)
    grid: tuple
    block: tuple
    make: Callable       # rng -> list[Arg]
    check: Callable = None  # dict name -> array (after the launch) -> None, asserting
    shared: int = 0
    stdout: Callable = None  # dict name -> input array -> expected device printf text (CPU side)
    tags: tuple = field(default_factory=tuple)
    # elements whose value depends on which thread's atomic lands first (the GPU does not promise
    # an order): arg name -> index; compared by `check` only, not bit for bit
    racy: dict = field(default_factory=dict)

    def rng(self):
        return np.random.default_rng(zlib.crc32(self.name.encode()))


def inp(name, a):
    return Arg(name, "in", np.ascontiguousarray(a))


def out(name, a):
    return Arg(name, "out", np.ascontiguousarray(a))


def io(name, a):
    return Arg(name, "inout", np.ascontiguousarray(a))


def sc(name, v):
    return Arg(name, "scalar", v)


def numba_array(name, a, kind="in"):
    """numba's kernel ABI for one array: meminfo, parent, nitems, itemsize, data, shape..., strides..."""
    a = np.ascontiguousarray(a)
    args = [sc(f"{name}.meminfo", np.uint64(0)), sc(f"{name}.parent", np.uint64(0)),
            sc(f"{name}.nitems", np.int64(a.size)), sc(f"{name}.itemsize", np.int64(a.itemsize)),
            Arg(name, kind, a)]
    args += [sc(f"{name}.shape{d}", np.int64(s)) for d, s in enumerate(a.shape)]
    args += [sc(f"{name}.stride{d}", np.int64(s)) for d, s in enumerate(a.strides)]
    return args


def triton_scratch():
    return [sc("global_scratch", np.uint64(0)), sc("profile_scratch", np.uint64(0))]


def _bf16_bits(x):
    """float32 -> bfloat16 bit patterns (round to nearest even; finite inputs) without ml_dtypes."""
    u = np.ascontiguousarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


CASES: list[Case] = []


def case(**kw):
    CASES.append(Case(**kw))


# ------------------------------------------------------------------------------------- CUDA C++
def _hist(rng):
    return [inp("data", rng.integers(0, 256, 2000, dtype=np.uint8)), sc("n", np.int32(2000)),
            io("bins", np.zeros(64, np.uint32))]


case(name="cuda_histogram", file="atomics.sm_90", entry="histogram", grid=(4,), block=(128,), make=_hist,
     check=lambda a: np.testing.assert_array_equal(a["bins"], np.bincount(a["data"] & 63, minlength=64)))


def _atomic_mix(rng):
    return [inp("in", rng.integers(-1000, 1000, 500, dtype=np.int32)), sc("n", np.int32(500)),
            io("ints", np.array([-2**31, 2**31 - 1, -1, 0, 0, 0], np.int32)),
            io("floats", np.array([0, -np.inf], np.float32)), io("wide", np.zeros(2, np.uint64))]


def _check_atomic_mix(a):
    v = a["in"]
    assert a["ints"][0] == v.max() and a["ints"][1] == v.min()
    assert a["ints"][2] == np.bitwise_and.reduce(v | 0x0F0F0000)
    assert a["ints"][3] == np.bitwise_or.reduce(v & 0x00FF00FF)
    assert a["ints"][4] == np.bitwise_xor.reduce(v) and a["ints"][5] == 500
    assert a["floats"][0] == (v & 255).sum() and a["floats"][1] == v.max() * 0.5
    assert a["wide"][0] == v.view(np.uint32).astype(np.uint64).sum()


case(name="cuda_atomic_mix", file="atomics.sm_90", entry="atomic_mix", grid=(4,), block=(128,),
     make=_atomic_mix, check=_check_atomic_mix)


def _cg_sum(rng):
    return [inp("in", rng.standard_normal(3000).astype(np.float32)), out("partial", np.zeros(4, np.float32)),
            sc("n", np.int32(3000))]


for _f in ("cg_reduce.sm_90", "cg_reduce.nvcc13.0-sm_90"):
    case(name=f"cuda_cg_block_sum.{_f.split('.', 1)[1]}", file=_f, entry="cg_block_sum", grid=(4,), block=(256,),
         make=_cg_sum, check=lambda a: _close(a["partial"].sum(), a["in"].sum(), 1e-4, 1e-3))


def _cg_max(rng):
    return [inp("in", rng.integers(-10**6, 10**6, 500, dtype=np.int32)), out("out", np.zeros(500, np.int32)),
            sc("n", np.int32(500))]


def _check_cg_max(a):
    v = np.concatenate([a["in"], np.full(12, -2**31, np.int32)]).reshape(-1, 16)
    want = (v.max(axis=1, keepdims=True) - v[:, :1]).repeat(16, axis=1).reshape(-1)[:500]
    np.testing.assert_array_equal(a["out"], want)


case(name="cuda_cg_block_max", file="cg_reduce.sm_90", entry="cg_block_max", grid=(2,), block=(256,),
     make=_cg_max, check=_check_cg_max)


def _scan(rng):
    return [inp("in", rng.integers(-50, 50, 1024, dtype=np.int32)), out("out", np.zeros(1024, np.int32)),
            out("totals", np.zeros(2, np.int32))]


def _check_scan(a):
    v = a["in"].reshape(2, 512)
    np.testing.assert_array_equal(a["out"].reshape(2, 512), np.cumsum(v, axis=1))
    np.testing.assert_array_equal(a["totals"], v.sum(axis=1))


case(name="cuda_cub_block_scan", file="cub_scan.sm_90", entry="cub_block_scan", grid=(2,), block=(128,),
     make=_scan, check=_check_scan)
case(name="cuda_cub_block_reduce_max", file="cub_scan.sm_90", entry="cub_block_reduce_max", grid=(2,),
     block=(128,), make=lambda rng: [inp("in", rng.standard_normal(256).astype(np.float32)),
                                     out("out", np.zeros(2, np.float32))],
     check=lambda a: np.testing.assert_array_equal(a["out"], a["in"].reshape(2, 128).max(axis=1)))


def _sort(rng):
    keys = rng.integers(0, 2**32, 1024, dtype=np.uint32)
    keys[::7] = keys[3]  # ties: the sort is stable
    return [inp("keys_in", keys), inp("vals_in", np.arange(1024, dtype=np.int32)),
            out("keys_out", np.zeros(1024, np.uint32)), out("vals_out", np.zeros(1024, np.int32))]


def _check_sort(a):
    k = a["keys_in"].reshape(2, 512)
    order = np.argsort(k, axis=1, kind="stable")
    np.testing.assert_array_equal(a["keys_out"].reshape(2, 512), np.take_along_axis(k, order, 1))
    np.testing.assert_array_equal(a["vals_out"].reshape(2, 512), order + np.array([[0], [512]]))


for _f in ("cub_sort.sm_90", "cub_sort.sm_90a"):
    case(name=f"cuda_cub_sort_pairs.{_f.split('.', 1)[1]}", file=_f, entry="cub_block_sort_pairs", grid=(2,),
         block=(128,), make=_sort, check=_check_sort)


def _jacobi(rng):
    return [inp("u", rng.random(24 * 20)), out("v", np.zeros(24 * 20)), sc("nx", np.int32(24)),
            sc("ny", np.int32(20)), out("resid", np.zeros(4))]


def _check_jacobi(a):
    u = a["u"].reshape(20, 24)
    v = u.copy()
    v[1:-1, 1:-1] = 0.25 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
    _close(a["v"].reshape(20, 24), v, 1e-15, 0)
    _close(a["resid"].sum(), np.abs(v - u).sum(), 1e-12, 0)


case(name="cuda_jacobi_f64", file="dp_stencil.sm_90", entry="jacobi_step", grid=(2,), block=(64,),
     make=_jacobi, check=_check_jacobi)


def _transpose(rng):
    return [inp("in", rng.standard_normal(40 * 24).astype(np.float32)), out("out", np.zeros(40 * 24, np.float32)),
            sc("rows", np.int32(40)), sc("cols", np.int32(24)), sc("tile", np.int32(16))]


case(name="cuda_transpose_dynamic_shared", file="dyn_shared.sm_90", entry="transpose_dyn", grid=(2, 3),
     block=(16, 16), shared=16 * 17 * 4, make=_transpose,
     check=lambda a: np.testing.assert_array_equal(a["out"].reshape(24, 40), a["in"].reshape(40, 24).T))


def _stencil(rng):
    return [inp("in", rng.standard_normal(300).astype(np.float32)), out("out", np.zeros(300, np.float32)),
            sc("n", np.int32(300)), sc("radius", np.int32(3))]


def _check_stencil(a):
    x = np.pad(a["in"].astype(np.float64), 3)
    w = 1.0 / (1 + np.arange(-3, 4) ** 2)
    _close(a["out"], np.convolve(x, w[::-1], "valid"), 1e-5, 1e-5)


case(name="cuda_stencil_dynamic_shared", file="dyn_shared.sm_90", entry="stencil_dyn", grid=(3,), block=(128,),
     shared=(128 + 6) * 4, make=_stencil, check=_check_stencil)


def _half(rng):
    a = rng.uniform(-4, 4, 256).astype(np.float16)
    b = rng.uniform(-4, 4, 256).astype(np.float16)
    a[:4] = [np.inf, -0.0, 65504, 6e-8]
    return [inp("a", a), inp("b", b), out("fma_out", np.zeros(256, np.float16)),
            out("misc", np.zeros(4 * 128, np.float16)), out("widened", np.zeros(128, np.float32)),
            sc("n", np.int32(128))]


def _check_half(a):
    x, y = a["a"].astype(np.float32), a["b"].astype(np.float32)
    with np.errstate(over="ignore"):
        want = (x * y + 0.25).astype(np.float16)
    ok = np.isfinite(want)
    _close(a["fma_out"][ok], want[ok], 2e-3, 2e-3)
    lo, hi = x[0::2], y[1::2]
    _close(a["misc"][0::4], np.maximum(lo, hi), 0, 0)


for _f in ("half_bf16.sm_90", "half_bf16.sm_90a"):
    case(name=f"cuda_half_math.{_f.split('.', 1)[1]}", file=_f, entry="half_math", grid=(1,), block=(128,),
         make=_half, check=_check_half)


def _bf16(rng):
    return [inp("a", rng.uniform(-8, 8, 200).astype(np.float32)), inp("b", rng.uniform(-8, 8, 200).astype(np.float32)),
            out("out", np.zeros(600, np.uint16)), out("back", np.zeros(200, np.float32)), sc("n", np.int32(200))]


def _check_bf16(a):
    if bfloat16 is None:
        return
    x = a["a"].astype(bfloat16).astype(np.float32)
    got = a["out"].view(bfloat16).astype(np.float32)
    _close(got[2::3], np.exp(x), 2e-2, 1e-3)


for _f in ("half_bf16.sm_90", "half_bf16.sm_90a"):
    case(name=f"cuda_bf16_math.{_f.split('.', 1)[1]}", file=_f, entry="bf16_math", grid=(2,), block=(128,),
         make=_bf16, check=_check_bf16)


def _local_sort(rng):
    return [inp("in", rng.integers(-100, 100, 64 * 16, dtype=np.int32)), out("out", np.zeros(64 * 17, np.int32)),
            sc("n", np.int32(64))]


def _check_local_sort(a):
    v = np.sort(a["in"].reshape(64, 16), axis=1)
    o = a["out"].reshape(64, 17)
    np.testing.assert_array_equal(o[:, :16], v)
    np.testing.assert_array_equal(o[:, 16], v[np.arange(64), a["in"].reshape(64, 16)[:, 0] & 15])


case(name="cuda_local_array_sort", file="local_array.sm_90", entry="local_sort", grid=(1,), block=(64,),
     make=_local_sort, check=_check_local_sort)


def _math32(rng):
    x = rng.uniform(-6, 6, 256).astype(np.float32)
    x[:6] = [0.0, -0.0, 1e-30, 88.7, -104.0, 1e4]
    return [inp("x", x), out("out", np.zeros(256 * 12, np.float32)), sc("n", np.int32(256))]


def _check_math32(a, rtol=2e-6):
    x = a["x"].astype(np.float64)
    o = a["out"].reshape(256, 12).astype(np.float64)
    from math import erf, lgamma
    ok = np.abs(x) < 50
    _close(o[ok, 0], np.sin(x[ok]), rtol, 2e-7)
    _close(o[ok, 2], np.exp(x[ok]), rtol * 2, 0)
    _close(o[:, 4], [erf(v) for v in x], rtol, 2e-7)
    _close(o[:, 5], np.tanh(x), rtol, 2e-7)
    _close(o[:, 10], [lgamma(abs(v) + np.float32(0.1)) for v in x.astype(np.float32)], 1e-5, 1e-5)
    _close(o[:, 11], np.cbrt(x), rtol, 0)


def _math64(rng):
    return [inp("x", rng.uniform(-5, 5, 128)), out("out", np.zeros(128 * 6)), sc("n", np.int32(128))]


def _check_math64(a):
    from math import erfc
    x, o = a["x"], a["out"].reshape(128, 6)
    _close(o[:, 0], np.sin(x), 1e-15, 1e-16)
    _close(o[:, 1], np.exp(x), 1e-15, 0)
    _close(o[:, 3], [erfc(v) for v in x], 1e-14, 0)
    _close(o[:, 5], np.hypot(x, 2.0), 1e-15, 0)


for _f, _t in (("mathlib.sm_90", 2e-6), ("mathlib.nvcc13.0-sm_90", 2e-6), ("mathlib.sm_90a-fastmath", 5e-4)):
    _v = _f.split(".", 1)[1]
    case(name=f"cuda_math_f32.{_v}", file=_f, entry="math_f32", grid=(2,), block=(128,), make=_math32,
         check=(lambda t: lambda a: _check_math32(a, t))(_t))
    case(name=f"cuda_math_f64.{_v}", file=_f, entry="math_f64", grid=(1,), block=(128,), make=_math64,
         check=_check_math64)


def _printf(rng):
    return [inp("vals", rng.uniform(-100, 100, 64).astype(np.float32)), io("count", np.zeros(1, np.int32))]


def _printf_text(a):
    lines = []
    for b in range(2):
        for t in range(0, 32, 8):
            g = b * 32 + t
            v = a["vals"][g]
            lines.append(f"block {b} thread {t}: {float(v):8.3f} {float(v) * 1e10:e} "
                         f"[{'odd' if g & 1 else 'even'}] {g * 255:x}")
    return lines


case(name="cuda_printf", file="printf_kernel.sm_90", entry="say_hello", grid=(2,), block=(32,), make=_printf,
     check=lambda a: np.testing.assert_array_equal(a["count"], [8]), stdout=_printf_text)


def _sgemm(rng):
    M, N, K = 40, 36, 50
    return [sc("M", np.int32(M)), sc("N", np.int32(N)), sc("K", np.int32(K)), sc("alpha", np.float32(1.5)),
            inp("A", rng.standard_normal(M * K).astype(np.float32)), inp("B", rng.standard_normal(K * N).astype(np.float32)),
            sc("beta", np.float32(-0.5)), io("C", rng.standard_normal(M * N).astype(np.float32))]


def _check_sgemm(a):
    A, B = a["A"].reshape(40, 50).astype(np.float64), a["B"].reshape(50, 36).astype(np.float64)
    C0 = a["C.in"].reshape(40, 36).astype(np.float64)
    _close(a["C"].reshape(40, 36), 1.5 * A @ B - 0.5 * C0, 1e-4, 1e-4)


case(name="cuda_sgemm_tiled", file="sgemm_tiled.sm_90", entry="sgemm_tiled", grid=(3, 3), block=(16, 16),
     make=_sgemm, check=_check_sgemm)


def _templ(dtype, unroll, a_, b_):
    def make(rng):
        x = (rng.standard_normal(301) * 100).astype(dtype)
        struct = np.array([a_, b_], dtype).tobytes()
        return [inp("in", x), out("out", np.zeros(301, dtype)), sc("n", np.int32(301)), sc("f", struct)]

    def check(a):
        x = a["in"]
        want = (x * dtype(a_) + dtype(b_)) if dtype is not np.int32 else (x * a_ + b_).astype(np.int32)
        _close(a["out"], want, 1e-6, 1e-6)
    return make, check


for _entry, _dt, _u, _ab in (("_Z9transformIfLi4E4AxpbIfEEvPKT_PS2_iT1_", np.float32, 4, (1.25, -3.5)),
                             ("_Z9transformIiLi2E4AxpbIiEEvPKT_PS2_iT1_", np.int32, 2, (-7, 11)),
                             ("_Z9transformIdLi1E4AxpbIdEEvPKT_PS2_iT1_", np.float64, 1, (0.1, 2.0))):
    _m, _c = _templ(_dt, _u, *_ab)
    case(name=f"cuda_template_{np.dtype(_dt).name}", file="templates.sm_90", entry=_entry,
         grid=(-(-301 // (64 * _u)),), block=(64,), make=_m, check=_c)


def _warp(rng):
    v = rng.integers(-200, 900, 64, dtype=np.int32)
    return [inp("in", v), out("out", np.zeros(64 * 8, np.int32))]


def _check_warp(a):
    v, o = a["in"].reshape(2, 32), a["out"].reshape(2, 32, 8)
    np.testing.assert_array_equal(o[:, 0, 0], v.sum(axis=1))
    np.testing.assert_array_equal(o[:, :, 1], v.max(axis=1, keepdims=True).repeat(32, 1))
    np.testing.assert_array_equal(o[:, :, 6], v.sum(axis=1, keepdims=True).repeat(32, 1))
    np.testing.assert_array_equal(o[:, :, 7], v.min(axis=1, keepdims=True).repeat(32, 1))
    np.testing.assert_array_equal(o[:, :, 3], np.roll(v, -5, axis=1))


for _f in ("warp_shuffle.sm_90", "warp_shuffle.nvcc13.0-sm_90"):
    _v = _f.split(".", 1)[1]
    case(name=f"cuda_warp_ops.{_v}", file=_f, entry="warp_ops", grid=(1,), block=(64,), make=_warp,
         check=_check_warp)
    case(name=f"cuda_warp_partial.{_v}", file=_f, entry="warp_partial", grid=(1,), block=(64,),
         make=lambda rng: [inp("in", rng.integers(-64, 64, 64).astype(np.float32)), out("out", np.zeros(64, np.float32))],
         check=lambda a: np.testing.assert_array_equal(
             a["out"].reshape(2, 32)[:, 0::2], a["in"].reshape(2, 32)[:, 0::2].sum(axis=1, keepdims=True).repeat(16, 1)))


# ---------------------------------------------------------------------------------------- Triton
def _t_add(rng):
    return [inp("x", rng.standard_normal(1000).astype(np.float32)), inp("y", rng.standard_normal(1000).astype(np.float32)),
            out("out", np.zeros(1000, np.float32)), sc("n", np.int32(1000))] + triton_scratch()


case(name="triton_vector_add", file="t_vector_add", entry="vector_add", grid=(4,), block=(128,), make=_t_add,
     check=lambda a: np.testing.assert_array_equal(a["out"], a["x"] + a["y"]))


def _t_transpose(rng):
    return [inp("src", rng.random(50 * 40).astype(np.float32)), out("dst", np.zeros(40 * 50, np.float32)),
            sc("rows", np.int32(50)), sc("cols", np.int32(40)), sc("stride_src", np.int32(40)),
            sc("stride_dst", np.int32(50))] + triton_scratch()


def _check_t_transpose(a):
    s = a["src"].reshape(50, 40)
    np.testing.assert_array_equal(a["dst"].reshape(40, 50), np.where(s > 0.5, s * 2, s).T)


case(name="triton_masked_transpose", file="t_masked_transpose", entry="masked_transpose", grid=(2, 2),
     block=(128,), shared=4096, make=_t_transpose, check=_check_t_transpose)


def _check_random(a):
    f = a["out_f"]
    assert ((f >= 0) & (f < 1)).all() and 0.4 < f.mean() < 0.6
    assert len(np.unique(a["out_i"])) > 990


case(name="triton_random", file="t_random", entry="random_fill", grid=(4,), block=(128,),
     make=lambda rng: [out("out_f", np.zeros(1000, np.float32)), out("out_i", np.zeros(1000, np.int32)),
                       sc("seed", np.int32(1234)), sc("n", np.int32(1000))] + triton_scratch(),
     check=_check_random)


def _t_math(rng):
    return [inp("x", rng.uniform(-5, 5, 300).astype(np.float32)), out("out", np.zeros(300 * 8, np.float32)),
            sc("n", np.int32(300))] + triton_scratch()


def _check_t_math(a):
    from math import erf
    x, o = a["x"].astype(np.float64), a["out"].reshape(300, 8)
    _close(o[:, 0], np.exp(x), 1e-5, 0)
    _close(o[:, 2], np.sqrt(np.abs(x)), 1e-6, 0)
    _close(o[:, 4], [erf(v) for v in x], 1e-6, 1e-7)
    _close(o[:, 5], np.tanh(x), 1e-6, 1e-7)
    _close(o[:, 7], np.abs(x) ** 1.37, 1e-5, 1e-7)


case(name="triton_math", file="t_math", entry="math_zoo", grid=(3,), block=(128,), make=_t_math, check=_check_t_math)


def _t_softmax(rng):
    return [inp("x", rng.standard_normal(8 * 128).astype(np.float32) * 3), out("out", np.zeros(8 * 128, np.float32)),
            sc("n_cols", np.int32(100)), sc("stride", np.int32(128))] + triton_scratch()


def _check_t_softmax(a):
    x = a["x"].reshape(8, 128)[:, :100].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    _close(a["out"].reshape(8, 128)[:, :100], e / e.sum(axis=1, keepdims=True), 1e-5, 1e-7)


case(name="triton_softmax", file="t_softmax", entry="softmax", grid=(8,), block=(128,), shared=16,
     make=_t_softmax, check=_check_t_softmax)


def _t_layernorm(rng):
    return [inp("x", rng.standard_normal(6 * 200).astype(np.float16)), inp("w", rng.random(200).astype(np.float32)),
            inp("b", rng.random(200).astype(np.float32)), out("y", np.zeros(6 * 200, np.float32)),
            out("mean", np.zeros(6, np.float32)), out("rstd", np.zeros(6, np.float32)),
            sc("n_cols", np.int32(200)), sc("eps", np.float32(1e-5))] + triton_scratch()


def _check_t_layernorm(a):
    x = a["x"].reshape(6, 200).astype(np.float64)
    m, v = x.mean(axis=1), x.var(axis=1)
    _close(a["mean"], m, 1e-5, 1e-6)
    _close(a["y"].reshape(6, 200), (x - m[:, None]) / np.sqrt(v[:, None] + 1e-5) * a["w"] + a["b"], 1e-4, 1e-5)


case(name="triton_layernorm", file="t_layernorm", entry="layernorm", grid=(6,), block=(128,), shared=16,
     make=_t_layernorm, check=_check_t_layernorm)


def _t_stats(rng):
    x = rng.standard_normal(8 * 100).astype(np.float32)
    return [inp("x", x), out("sum", np.zeros(8, np.float32)), out("max", np.zeros(8, np.float32)),
            out("argmax", np.zeros(8, np.int32)), sc("n_cols", np.int32(100))] + triton_scratch()


def _check_t_stats(a):
    x = a["x"].reshape(8, 100)
    _close(a["sum"], x.astype(np.float64).sum(axis=1), 1e-5, 1e-5)
    np.testing.assert_array_equal(a["max"], x.max(axis=1))
    np.testing.assert_array_equal(a["argmax"], x.argmax(axis=1))


case(name="triton_row_stats", file="t_row_stats", entry="row_stats", grid=(8,), block=(64,), shared=16,
     make=_t_stats, check=_check_t_stats)
case(name="triton_cumsum", file="t_cumsum", entry="row_cumsum", grid=(4,), block=(128,), shared=32,
     make=lambda rng: [inp("x", rng.integers(-1000, 1000, 4 * 256, dtype=np.int32)),
                       out("out", np.zeros(4 * 256, np.int32))] + triton_scratch(),
     check=lambda a: np.testing.assert_array_equal(a["out"].reshape(4, 256), np.cumsum(a["x"].reshape(4, 256), 1)))
case(name="triton_sort", file="t_sort", entry="row_sort", grid=(4,), block=(128,), shared=512,
     make=lambda rng: [inp("x", rng.standard_normal(4 * 128).astype(np.float32)),
                       out("out", np.zeros(4 * 128, np.float32))] + triton_scratch(),
     check=lambda a: np.testing.assert_array_equal(a["out"].reshape(4, 128), np.sort(a["x"].reshape(4, 128), 1)))


def _t_atomics(rng):
    return [inp("x", rng.integers(0, 10**6, 1000, dtype=np.int32)), io("counts", np.zeros(16, np.int32)),
            io("maxes", np.zeros(16, np.int32)), sc("n", np.int32(1000))] + triton_scratch()


def _check_t_atomics(a):
    x = a["x"]
    np.testing.assert_array_equal(a["counts"], np.bincount(x & 15, minlength=16))
    np.testing.assert_array_equal(a["maxes"], [x[(x & 15) == b].max(initial=0) for b in range(16)])


case(name="triton_atomics", file="t_atomics", entry="bucket_count", grid=(4,), block=(128,), make=_t_atomics,
     check=_check_t_atomics)


def _t_mm(dtype, out_dtype):
    M, N, K = 96, 64, 64

    def make(rng):
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        if dtype == "bf16":
            a, b = _bf16_bits(a), _bf16_bits(b)
        elif dtype == "fp16":
            a, b = a.astype(np.float16), b.astype(np.float16)
        c = np.zeros((M, N), np.float16 if out_dtype == "fp16" else np.float32)
        return [inp("a", a), inp("b", b), out("c", c), sc("M", np.int32(M)), sc("N", np.int32(N)),
                sc("K", np.int32(K)), sc("stride_am", np.int32(K)), sc("stride_bk", np.int32(N)),
                sc("stride_cm", np.int32(N))] + triton_scratch()

    def check(a):
        A, B = a["a"], a["b"]
        if dtype == "bf16":
            A, B = A.view(bfloat16), B.view(bfloat16)
        want = A.astype(np.float64) @ B.astype(np.float64)
        tol = 2e-2 if out_dtype == "fp16" or dtype == "fp32" else 1e-4  # fp16 result; tf32 inputs
        _close(a["c"].astype(np.float64), want, tol, tol)
    return make, check


for _n, _dt, _od, _sh in (("f16", "fp16", "fp16", 8192), ("bf16", "bf16", "fp32", 16384),
                          ("tf32", "fp32", "fp32", 49152)):
    _m, _c = _t_mm(_dt, _od)
    case(name=f"triton_matmul_{_n}", file=f"t_matmul_{_n}", entry="matmul", grid=(2, 1), block=(128,), shared=_sh,
         make=_m, check=_c)


def _t_attn(rng):
    q, k, v = (rng.standard_normal((64, 32)).astype(np.float16) for _ in range(3))
    return [inp("q", q), inp("k", k), inp("v", v), out("o", np.zeros((64, 32), np.float16)),
            sc("seq", np.int32(64)), sc("sm_scale", np.float32(32 ** -0.5))] + triton_scratch()


def _check_t_attn(a):
    q, k, v = (a[n].astype(np.float64) for n in "qkv")
    s = q @ k.T * 32 ** -0.5
    p = np.exp(s - s.max(axis=1, keepdims=True))
    _close(a["o"], p @ v / p.sum(axis=1, keepdims=True), 2e-2, 2e-2)


case(name="triton_attention_fwd", file="t_attention_fwd", entry="attention_fwd", grid=(1,), block=(128,),
     shared=6144, make=_t_attn, check=_check_t_attn)


def triton_descriptor(name, a, box, swizzle, kind):
    """Triton's host TensorDescriptor: the CUtensorMap, then the shape (i32) and strides (i64, elements)."""
    a = np.ascontiguousarray(a)
    return ([Arg(name, kind, a, box=tuple(box), swizzle=swizzle, dtype={"float32": "f32", "float16": "f16"}[a.dtype.name])]
            + [sc(f"{name}.shape{d}", np.int32(n)) for d, n in enumerate(a.shape)]
            + [sc(f"{name}.stride{d}", np.int64(st // a.itemsize)) for d, st in enumerate(a.strides)])


case(name="triton_tma_scale", file="t_tma_scale", entry="tma_scale", grid=(2, 2), block=(128,), shared=4104,
     make=lambda rng: triton_descriptor("x", rng.standard_normal((64, 64)).astype(np.float32), (32, 32), "128B", "tmap_in")
     + triton_descriptor("y", np.zeros((64, 64), np.float32), (32, 32), "128B", "tmap_out") + triton_scratch(),
     check=lambda a: np.testing.assert_array_equal(a["y"], a["x"] * np.float32(2) + np.float32(1)))



def _t_matmul_ws(rng):
    a = rng.standard_normal((128, 256)).astype(np.float16)
    b = rng.standard_normal((256, 128)).astype(np.float16)
    return (triton_descriptor("a", a, (64, 32), "64B", "tmap_in") + triton_descriptor("b", b, (32, 64), "128B", "tmap_in")
            + triton_descriptor("c", np.zeros((128, 128), np.float16), (64, 64), "128B", "tmap_out")
            + [sc("K", np.int32(256))] + triton_scratch())


def _check_t_matmul_ws(a):
    want = a["a"].astype(np.float32) @ a["b"].astype(np.float32)
    _close(a["c"].astype(np.float32), want, 2e-3, 0.05)


case(name="triton_tma_matmul_warp_specialized", file="t_tma_matmul_ws", entry="tma_matmul_ws", grid=(2, 2),
     block=(384,), shared=41120, make=_t_matmul_ws, check=_check_t_matmul_ws)


# ----------------------------------------------------------------------------------------- numba
def _nb_saxpy(rng):
    x, y = (rng.standard_normal(1000).astype(np.float32) for _ in range(2))
    return ([sc("a", np.float32(2.5))] + numba_array("x", x) + numba_array("y", y)
            + numba_array("out", np.zeros(1000, np.float32), "out"))


case(name="numba_saxpy", file="nb_saxpy", entry="_ZN10rw_kernels5saxpy", grid=(8,), block=(128,), make=_nb_saxpy,
     check=lambda a: _close(a["out"], np.float32(2.5) * a["x"] + a["y"], 1e-6, 1e-6))
case(name="numba_block_sum", file="nb_block_sum", entry="_ZN10rw_kernels9block_sum", grid=(8,), block=(128,),
     make=lambda rng: numba_array("x", rng.standard_normal(1000).astype(np.float32))
     + numba_array("partial", np.zeros(8, np.float32), "out"),
     check=lambda a: _close(a["partial"], np.pad(a["x"], (0, 24)).reshape(8, 128).sum(axis=1), 1e-5, 1e-5))


def _check_nb_local(a):
    x = a["x"]
    buf = np.cumsum(x[:, ::-1], axis=1)
    idx = (np.arange(8)[None, :] * 3 + x[:, :1]) & 7
    np.testing.assert_array_equal(a["out"], np.take_along_axis(buf, idx, 1))


case(name="numba_local_array", file="nb_local_array", entry="_ZN10rw_kernels20local_reverse_prefix", grid=(1,),
     block=(64,), make=lambda rng: numba_array("x", rng.integers(-50, 50, (64, 8), dtype=np.int32))
     + numba_array("out", np.zeros((64, 8), np.int32), "out"), check=_check_nb_local)


def _check_nb_atomics(a):
    x = a["x"]
    np.testing.assert_array_equal(a["bins"], np.bincount(x & 31, minlength=32))
    np.testing.assert_array_equal(a["extremes"], [x.max(), x.min()])


case(name="numba_atomics", file="nb_atomics", entry="_ZN10rw_kernels11atomic_hist", grid=(4,), block=(128,),
     make=lambda rng: numba_array("x", rng.integers(-10**5, 10**5, 500, dtype=np.int32))
     + numba_array("bins", np.zeros(32, np.int32), "inout")
     + numba_array("extremes", np.array([-2**31, 2**31 - 1], np.int32), "inout"),
     check=_check_nb_atomics)


def _check_nb_dev(a):
    x = a["x"]
    t = np.clip((x + 1) / 2, 0, 1)
    _close(a["out"], t * t * (3 - 2 * t) + np.clip(x, -0.5, 0.5), 1e-15, 1e-15)


case(name="numba_device_funcs", file="nb_device_funcs", entry="_ZN10rw_kernels12device_calls", grid=(3,),
     block=(128,), make=lambda rng: numba_array("x", rng.uniform(-2, 2, 300))
     + numba_array("out", np.zeros(300), "out"), check=_check_nb_dev)


def _check_nb_m32(a):
    from math import erf
    x, o = a["x"].astype(np.float64), a["out"].astype(np.float64)
    _close(o[:, 0], np.sin(x), 2e-6, 2e-7)
    _close(o[:, 1], np.exp(x), 2e-6, 0)
    _close(o[:, 2], [erf(v) for v in x], 2e-6, 2e-7)
    _close(o[:, 5], np.arctan2(x, 1.5), 2e-6, 0)
    _close(o[:, 7], np.abs(x) ** 0.75, 2e-6, 0)


case(name="numba_math_f32", file="nb_math_f32", entry="_ZN10rw_kernels10math_funcs", grid=(2,), block=(128,),
     make=lambda rng: numba_array("x", rng.uniform(-6, 6, 256).astype(np.float32))
     + numba_array("out", np.zeros((256, 8), np.float32), "out"), check=_check_nb_m32)


def _check_nb_m64(a):
    from math import lgamma
    x, o = a["x"], a["out"]
    _close(o[:, 0], np.cos(x), 1e-15, 1e-16)
    _close(o[:, 1], np.expm1(x), 1e-15, 0)
    _close(o[:, 2], [lgamma(abs(v) + 0.5) for v in x], 1e-13, 1e-15)
    _close(o[:, 3], np.hypot(x, 3.0), 1e-15, 0)


case(name="numba_math_f64", file="nb_math_f64", entry="_ZN10rw_kernels12math_funcs64", grid=(1,), block=(128,),
     make=lambda rng: numba_array("x", rng.uniform(-5, 5, 128)) + numba_array("out", np.zeros((128, 4)), "out"),
     check=_check_nb_m64)
case(name="numba_print", file="nb_print", entry="_ZN10rw_kernels12print_values", grid=(1,), block=(64,),
     make=lambda rng: numba_array("x", rng.integers(-10**12, 10**12, 64, dtype=np.int64)),
     stdout=lambda a: [f"item {i} value {a['x'][i]}" for i in range(0, 64, 16)])
case(name="numba_rowsum_2d", file="nb_rowsum_2d", entry="_ZN10rw_kernels16matrix_rowsum_2d", grid=(2, 4),
     block=(16, 8), make=lambda rng: numba_array("m", rng.integers(-1000, 1000, (20, 30), dtype=np.int32))
     + numba_array("out", np.zeros(20, np.int32), "inout"),
     check=lambda a: np.testing.assert_array_equal(a["out"], a["m"].sum(axis=1)))


def _check_nb_vote(a):
    x, o = a["x"].reshape(2, 32), a["out"].reshape(2, 32, 3)
    bits = ((x > 0) << np.arange(32)).sum(axis=1).astype(np.uint32)
    np.testing.assert_array_equal(o[:, :, 0], bits[:, None].repeat(32, 1))
    np.testing.assert_array_equal(o[:, 0, 1], x.sum(axis=1).astype(np.uint32))


case(name="numba_warp_vote", file="nb_warp_vote", entry="_ZN10rw_kernels9warp_vote", grid=(1,), block=(64,),
     make=lambda rng: numba_array("x", rng.integers(-100, 100, 64, dtype=np.int32))
     + numba_array("out", np.zeros((64, 3), np.uint32), "out"), check=_check_nb_vote)



# ------------------------------------------------------------------------------- second batch
def _rowsum_async(rng):
    return [inp("in", rng.standard_normal(4 * 300).astype(np.float32)), out("out", np.zeros(4 * 64, np.float32)),
            sc("cols", np.int32(300))]


def _check_rowsum_async(a):
    x = a["in"].reshape(4, 300).astype(np.float64)
    prod = x * np.roll(x, -1, axis=1)
    want = np.array([[prod[b, t::64].sum() for t in range(64)] for b in range(4)])
    _close(a["out"].reshape(4, 64), want, 1e-5, 1e-5)


case(name="cuda_cg_memcpy_async", file="memcpy_async.sm_90", entry="cg_async_rowsum", grid=(4,), block=(64,),
     shared=300 * 4, make=_rowsum_async, check=_check_rowsum_async)


def _pipeline(rng):
    return [inp("in", rng.integers(-5, 5, 3 * 5 * 64, dtype=np.int32)), out("out", np.zeros(3 * 64, np.int32)),
            sc("tiles", np.int32(5))]


def _check_pipeline(a):
    x = a["in"].reshape(3, 5, 64).astype(np.int64)
    acc = np.zeros((3, 64), np.int64)
    for t in range(5):
        acc = acc * 3 + x[:, t, (np.arange(64) + t) % 64]
    np.testing.assert_array_equal(a["out"].reshape(3, 64), acc.astype(np.int32))


case(name="cuda_pipeline_cp_async", file="memcpy_async.sm_90", entry="pipeline_tiles", grid=(3,), block=(64,),
     make=_pipeline, check=_check_pipeline)


def _check_cub_warp(a):
    v, o = a["in"].reshape(-1, 32), a["out"].reshape(-1, 32, 3)
    np.testing.assert_array_equal(o[:, 0, 0], v.sum(axis=1))
    seg = v.reshape(-1, 4, 8).sum(axis=2)
    np.testing.assert_array_equal(o[:, ::8, 2], seg)


case(name="cuda_cub_warp_ops", file="cub_warp.sm_90", entry="cub_warp_ops", grid=(2,), block=(128,),
     make=lambda rng: [inp("in", rng.integers(-100, 100, 256, dtype=np.int32)), out("out", np.zeros(768, np.int32))],
     check=_check_cub_warp)


def _check_cub_hist(a):
    x = (a["in"] % 32).reshape(2, 512)
    np.testing.assert_array_equal(a["hist"].reshape(2, 32), [np.bincount(r, minlength=32) for r in x])
    x = np.sort(x, axis=1)  # the sort-based histogram sorts the items in place
    want = np.ones_like(x, dtype=np.int32)
    want[:, 1:] = x[:, 1:] != x[:, :-1]
    np.testing.assert_array_equal(a["flags"].reshape(2, 512), want)


case(name="cuda_cub_histogram_flags", file="cub_warp.sm_90", entry="cub_histogram_flags", grid=(2,), block=(128,),
     make=lambda rng: [inp("in", np.repeat(rng.integers(0, 256, 512, dtype=np.uint8), 2)),
                       out("hist", np.zeros(64, np.uint32)), out("flags", np.zeros(1024, np.int32))],
     check=_check_cub_hist)


def _fp8(rng):
    x = (rng.standard_normal(200) * 50).astype(np.float32)
    x[:8] = [0.0, -0.0, 1e-9, 448.0, 500.0, -60000.0, np.inf, np.nan]
    return [inp("in", x), out("e4", np.zeros(200, np.uint8)), out("e5", np.zeros(200, np.uint8)),
            out("back", np.zeros(400, np.float32)), sc("n", np.int32(200))]


def _check_fp8(a):
    try:
        from ml_dtypes import float8_e4m3fn, float8_e5m2
    except ImportError:
        return
    x = a["in"][8:]
    np.testing.assert_array_equal(a["e4"][8:], x.astype(float8_e4m3fn).view(np.uint8))
    np.testing.assert_array_equal(a["e5"][8:][np.abs(x) < 57344], x[np.abs(x) < 57344].astype(float8_e5m2).view(np.uint8))


case(name="cuda_fp8_roundtrip", file="fp8_atomic_ref.sm_90", entry="fp8_roundtrip", grid=(2,), block=(128,),
     make=_fp8, check=_check_fp8)


def _check_atomic_ref(a):
    v = a["in"]
    assert a["counters"][0] == v.sum() and a["counters"][1] == max(v.max(), -2**31 + 1)
    assert a["counters"][2] == 1 and a["counters"][3] == 1
    np.testing.assert_array_equal(a["block_out"], (np.pad(v, (0, 84)) & 0xFF).reshape(3, 128).sum(axis=1))


case(name="cuda_atomic_ref", file="fp8_atomic_ref.sm_90", entry="atomic_ref_ops", grid=(3,), block=(128,),
     make=lambda rng: [inp("in", rng.integers(-1000, 1000, 300, dtype=np.int32)), sc("n", np.int32(300)),
                       io("counters", np.array([0, -2**31 + 1, 0, 0], np.int32)), out("block_out", np.zeros(3, np.int32))],
     check=_check_atomic_ref)


def _apply_ops(rng):
    p = np.zeros(1, [("scale", "<f4", 4), ("offset", "<i4"), ("mode", "<i4")])
    p["scale"] = [0.5, -2.0, 3.0, 1.25]
    p["offset"], p["mode"] = -40, 1
    return [sc("p", p.tobytes()), inp("in", rng.standard_normal(200).astype(np.float32)),
            out("out", np.zeros(200, np.float32)), sc("n", np.int32(200))]


def _check_apply_ops(a):
    i = np.arange(200)
    x = a["in"] * np.array([0.5, -2.0, 3.0, 1.25], np.float32)[i & 3]
    y = (i - 40).astype(np.float32)
    want = np.choose((i + 1) % 3, [x + y, x * y, np.maximum(x, y)])
    np.testing.assert_array_equal(a["out"], want)


for _f in ("launch_bounds.sm_90", "launch_bounds.sm_90-lineinfo"):
    case(name=f"cuda_function_pointers.{_f.split('.', 1)[1]}", file=_f, entry="apply_ops", grid=(2,), block=(128,),
         make=_apply_ops, check=_check_apply_ops)
case(name="cuda_maxnreg_poly", file="launch_bounds.sm_90", entry="poly_maxnreg", grid=(1,), block=(100,),
     make=lambda rng: [inp("x", rng.uniform(-1, 1, 100)), out("y", np.zeros(100)), sc("n", np.int32(100))],
     check=lambda a: _close(a["y"], np.polyval(1.0 / np.arange(13, 0, -1), a["x"]), 1e-14, 1e-15))
case(name="cuda_local_array_sort.sm_90-G", file="local_array.sm_90-G", entry="local_sort", grid=(1,), block=(64,),
     make=_local_sort, check=_check_local_sort)


def _t_dot(dtype, m, n, k):
    def make(rng):
        if dtype == "fp8":
            a = rng.integers(0, 256, (m, k), dtype=np.uint8)
            b = rng.integers(0, 256, (k, n), dtype=np.uint8)
            a[(a & 0x7F) == 0x7F] = 0x3C  # no NaNs (e4m3fn has NaN at S.1111.111)
            b[(b & 0x7F) == 0x7F] = 0x3C
            c = np.zeros((m, n), np.float32)
        elif dtype == "int8":
            a = rng.integers(-128, 128, (m, k), dtype=np.int8)
            b = rng.integers(-128, 128, (k, n), dtype=np.int8)
            c = np.zeros((m, n), np.int32)
        else:
            a = rng.standard_normal((m, k)).astype(np.float16)
            b = rng.standard_normal((k, n)).astype(np.float16)
            c = np.zeros((m, n), np.float32)
        return [inp("a", a), inp("b", b), out("c", c)] + triton_scratch()

    def check(a):
        A, B = a["a"], a["b"]
        if dtype == "fp8":
            try:
                from ml_dtypes import float8_e4m3fn
            except ImportError:
                return
            A, B = A.view(float8_e4m3fn), B.view(float8_e4m3fn)
        want = A.astype(np.float64) @ B.astype(np.float64)
        if dtype == "int8":
            np.testing.assert_array_equal(a["c"], want.astype(np.int64))
        else:
            _close(a["c"], want, 0, 2e-3 * np.abs(want).max())  # fp8 wgmma accumulates imprecisely
    return make, check


for _n, _dt, _shape, _blk, _sh in (("t_dot_fp8", "fp8", (64, 64, 64), 128, 16384),
                                   ("t_dot_int8", "int8", (64, 64, 64), 128, 16384),
                                   ("t_dot_f16_8warps", "f16", (128, 64, 32), 256, 32768)):
    _m, _c = _t_dot(_dt, *_shape)
    case(name=f"triton_{_n[2:]}", file=_n, entry="dot_tile", grid=(1,), block=(_blk,), shared=_sh, make=_m, check=_c)


def _check_t_misc(a):
    x = a["x"].reshape(2, 128)
    o = a["out"].reshape(2, 128, 4)
    u = x.view(np.uint32)
    np.testing.assert_array_equal(o[..., 0].view(np.uint32), (u << 7) | (u >> 25))
    np.testing.assert_array_equal(o[..., 1].view(np.uint32), u.byteswap())
    np.testing.assert_array_equal(o[..., 2], np.cumprod((x & 7) + 1, axis=1).astype(np.int32))
    hi = ((u.astype(np.uint64) * 0x9E3779B9) >> 32).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(o[:, 1:, 3], hi[:, 1:])
    np.testing.assert_array_equal(a["hist"], np.bincount((x & 15).reshape(-1), minlength=16))


case(name="triton_misc", file="t_misc", entry="misc_ops", grid=(2,), block=(128,), shared=128,
     make=lambda rng: [inp("x", rng.integers(-2**31, 2**31, 256, dtype=np.int64).astype(np.int32)),
                       out("out", np.zeros(1024, np.int32)), io("hist", np.zeros(16, np.int32))] + triton_scratch(),
     check=_check_t_misc)
case(name="triton_device_print", file="t_device_print", entry="printing", grid=(3,), block=(32,),
     make=lambda rng: [inp("x", rng.integers(-1000, 1000, 90, dtype=np.int32)), sc("n", np.int32(90))]
     + triton_scratch())


_COEFFS = np.array([0.5, -1.25, 2.0, 0.125, -3.0, 1.0, 0.75, -0.5], np.float32)


def _check_nb_const(a):
    acc = np.zeros_like(a["x"])
    for c in _COEFFS:
        acc = acc * a["x"] + c
    _close(a["out"], acc, 1e-5, 1e-5)  # NVVM contracts to fma


case(name="numba_const_array", file="nb_const_array", entry="_ZN7rw_more10const_poly", grid=(2,), block=(128,),
     make=lambda rng: numba_array("x", rng.uniform(-2, 2, 200).astype(np.float32))
     + numba_array("out", np.zeros(200, np.float32), "out"), check=_check_nb_const)


def _check_nb_complex(a):
    z, w = a["z"].astype(np.complex128), a["w"].astype(np.complex128)
    _close(a["out"].view(np.float32), (z * w + np.conj(z) / (w + 2)).astype(np.complex64).view(np.float32), 1e-5, 1e-5)


def _cplx(rng, n):
    return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)


case(name="numba_complex", file="nb_complex", entry="_ZN7rw_more11complex_ops", grid=(1,), block=(128,),
     make=lambda rng: numba_array("z", _cplx(rng, 100)) + numba_array("w", _cplx(rng, 100))
     + numba_array("out", np.zeros(100, np.complex64), "out"), check=_check_nb_complex)


def _check_nb_cas(a):
    x = a["x"]
    assert a["slots"][0] in x
    assert set(a["slots"][1:]) <= {0, 7} and all(a["slots"][1 + b] == 7 for b in set(x & 3))
    np.testing.assert_array_equal(a["inc"], [300 % 100, 5 - 300 % 1000 if 5 >= 300 else (5 - 300) % 1000])


case(name="numba_atomic_cas", file="nb_atomic_cas", entry="_ZN7rw_more11atomic_misc", grid=(3,), block=(128,),
     make=lambda rng: numba_array("x", rng.integers(1, 10**6, 300, dtype=np.int32))
     + numba_array("slots", np.zeros(5, np.int32), "inout") + numba_array("inc", np.array([0, 5], np.uint32), "inout"),
     check=_check_nb_cas, racy={"slots": 0})  # slots[0]: the first compare-and-swap to land wins


_XORO = np.dtype([("s0", "<u8"), ("s1", "<u8")])


def _xoro(rng):
    states = np.zeros(256, _XORO)
    states["s0"] = rng.integers(1, 2**63, 256, dtype=np.int64).astype(np.uint64)
    states["s1"] = rng.integers(1, 2**63, 256, dtype=np.int64).astype(np.uint64)
    return (numba_array("states", states, "inout") + numba_array("u", np.zeros(256, np.float32), "out")
            + numba_array("g", np.zeros(256, np.float32), "out"))


def _check_xoro(a):
    u, g = a["u"], a["g"]
    assert ((u >= 0) & (u < 1)).all() and 0.4 < u.mean() < 0.6
    assert abs(g.mean()) < 0.2 and 0.8 < g.std() < 1.2
    assert (a["states"]["s0"] != a["states.in"]["s0"]).all()


case(name="numba_xoroshiro", file="nb_xoroshiro", entry="_ZN7rw_more8rng_fill", grid=(2,), block=(128,),
     make=_xoro, check=_check_xoro)



# ------------------------------------------------------------------------ LLVM's NVPTX back end
# LLVM IR (src/llvm/*.ll) through upstream LLVM's code generator, not NVIDIA's NVVM: its own
# register naming, .ptr parameter annotations, mad.lo/prmt/shf idioms, .func calls with
# func_retval0, a .local depot, $-named globals
def _ll_vadd(rng):
    return [inp("a", rng.standard_normal(1000).astype(np.float32)), inp("b", rng.standard_normal(1000).astype(np.float32)),
            out("c", np.zeros(1000, np.float32)), sc("n", np.int32(1000))]


def _check_ll_vadd(a):
    fma = (a["a"].astype(np.float64) * a["b"] + 1).astype(np.float32)  # exact product, one rounding
    np.testing.assert_array_equal(a["c"], np.maximum(fma, np.float32(-2)))


case(name="llvm_vadd", file="ll_vadd", entry="vadd", grid=(4,), block=(256,), make=_ll_vadd, check=_check_ll_vadd)


def _ll_blocksum(rng):
    return [inp("x", rng.integers(0, 1000, 1024).astype(np.int32)), io("out", np.zeros(2, np.int32))]


def _check_ll_blocksum(a):
    sums = a["x"].reshape(4, 256).sum(1)
    assert a["out"][0] == sums.sum() and a["out"][1] == sums.max()


case(name="llvm_blocksum", file="ll_blocksum", entry="blocksum", grid=(4,), block=(256,), make=_ll_blocksum,
     check=_check_ll_blocksum)


def _ll_mix(rng):
    x = rng.integers(-2**31, 2**31, 64, dtype=np.int64).astype(np.int32)
    x[:3] = (0, -1, 1)
    f = np.concatenate([rng.standard_normal(58) * 3e9, [np.nan, np.inf, -np.inf, -0.0, 2.5e9, -2.5e9]]).astype(np.float32)
    return [inp("x", x), inp("f", f), out("out", np.zeros((64, 11), np.int32))]


def _check_ll_mix(a):
    u = a["x"].view(np.uint32).astype(np.int64)
    f = a["f"].astype(np.float64)
    pop = np.array([bin(int(v)).count("1") for v in u])
    clz = np.array([32 - int(v).bit_length() for v in u])
    ctz = np.array([((int(v) & -int(v)).bit_length() - 1) if v else 32 for v in u])
    sh = clz % 32
    fshl = np.where(sh == 0, u, ((u << sh) | (pop >> (32 - sh))) & 0xFFFFFFFF)
    sat = np.trunc(np.clip(np.nan_to_num(f, nan=0.0), -2.0**31, 2.0**31 - 1)).astype(np.int64)
    got = a["out"].astype(np.int64) & 0xFFFFFFFF
    want = np.stack([pop, clz, ctz, u.astype(np.uint32).byteswap().astype(np.int64), fshl,
                     np.array([int(f"{int(v):032b}"[::-1], 2) for v in u]), sat,
                     np.minimum(a["x"].astype(np.int64), sat), got[:, 8], u // 7,
                     np.fmod(a["x"].astype(np.int64), -13)], 1) & 0xFFFFFFFF
    np.testing.assert_array_equal(got, want)
    m = got[:, 8].astype(np.uint32).view(np.float32)  # max.NaN.f32 with 0.5: NaN stays (canonical)
    assert np.isnan(m[np.isnan(a["f"])]).all()
    np.testing.assert_array_equal(m[~np.isnan(a["f"])], np.maximum(a["f"][~np.isnan(a["f"])], np.float32(0.5)))


case(name="llvm_bit_mix", file="ll_mix", entry="mix", grid=(1,), block=(64,), make=_ll_mix, check=_check_ll_mix)

_SWITCH = {0: lambda v: 11, 1: lambda v: v * 13, 2: lambda v: v ^ 255, 3: lambda v: v << 5, 4: lambda v: 1000 - v,
           5: lambda v: v + 77, 6: lambda v: v | 4096, 7: lambda v: v * v}


def _ll_switch(rng):
    return [inp("x", rng.integers(-2, 10, 64).astype(np.int32)), out("out", np.zeros(64, np.int32))]


case(name="llvm_switch", file="ll_switchy", entry="switchy", grid=(1,), block=(64,), make=_ll_switch,
     check=lambda a: np.testing.assert_array_equal(
         a["out"], np.array([_SWITCH.get(int(v), lambda v: -1)(int(v)) for v in a["x"]], np.int32)))
case(name="llvm_switch_table", file="ll_switch_table", entry="sw16", grid=(1,), block=(64,), make=_ll_switch,
     check=lambda a: np.testing.assert_array_equal(
         a["out"], np.array([v * (7 * v + 3) if 0 <= v < 16 else -1 for v in a["x"]], np.int32)))


def _ll_local(rng):
    return [inp("x", rng.integers(0, 100, 64).astype(np.int32)), out("out", np.zeros(64, np.int32))]


case(name="llvm_local_array", file="ll_localarr", entry="localarr", grid=(1,), block=(64,), make=_ll_local,
     check=lambda a: np.testing.assert_array_equal(a["out"], (a["x"] & 15) * np.arange(64, dtype=np.int32)))


def _ll_vec(rng):
    return [inp("x", rng.standard_normal((64, 4)).astype(np.float32)), inp("h", rng.standard_normal((64, 2)).astype(np.float16)),
            out("out", np.zeros((64, 4), np.float32)), out("hout", np.zeros((64, 2), np.float16))]


def _check_ll_vec(a):
    np.testing.assert_array_equal(a["out"], a["x"] * np.float32([2, 3, 0.5, -1]))
    h = a["h"].astype(np.float32)
    np.testing.assert_array_equal(a["hout"], ((h * h).astype(np.float16).astype(np.float32) + 1).astype(np.float16))


case(name="llvm_vec4_half2", file="ll_vec4half", entry="vec4half", grid=(1,), block=(64,), make=_ll_vec,
     check=_check_ll_vec)


def _ll_calls(rng):
    return [inp("x", rng.integers(0, 2**63, 64, dtype=np.int64).astype(np.uint64)), io("out", np.zeros(65, np.uint64))]


def _check_ll_calls(a):
    k = (-7046029254386353131) % 2**64
    want = [((int(v) * k) >> 64) ^ int(float(int(v))) for v in a["x"]]  # uitofp rounds to nearest, fptoui back
    assert [int(v) for v in a["out"][:64]] == [w & (2**64 - 1) for w in want]
    assert int(a["out"][64]) in {int(v) for v in a["x"]}  # the one compare-and-swap that found 0


case(name="llvm_calls_i128", file="ll_calls", entry="calls", grid=(1,), block=(64,), make=_ll_calls,
     check=_check_ll_calls, racy={"out": 64})


def _ll_scoped(rng):
    return [io("cnt", np.zeros(2, np.int32)), out("out", np.zeros(4 * 128, np.int32))]


def _check_ll_scoped(a):
    assert list(a["cnt"]) == [512, 4]  # 512 device-scope adds; the exchange stores %nctaid.x
    np.testing.assert_array_equal(a["out"], np.concatenate([np.arange(128) % 32 + b for b in range(4)]))


case(name="llvm_scoped_atomics", file="ll_scoped", entry="scoped", grid=(4,), block=(128,), shared=512,
     make=_ll_scoped, check=_check_ll_scoped)


def _ll_narrow(rng):
    bf = rng.standard_normal(64).astype(np.float32)
    return [inp("b", rng.integers(-128, 128, 64).astype(np.int8)), inp("s", rng.integers(-3000, 3000, 64).astype(np.int16)),
            inp("bf", _bf16_bits(bf)), out("out", np.zeros(64, np.int32)), out("bfo", np.zeros(64, np.uint16))]


def _bf16_value(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def _check_ll_narrow(a):
    b, s = a["b"].astype(np.int32), a["s"].astype(np.int32)
    m = (b * s).astype(np.int16).astype(np.int32)
    q = (np.trunc(m / 7).astype(np.int32) >> 2).astype(np.int16)  # sdiv truncates, then ashr
    want = np.maximum(q.view(np.uint16), a["s"].view(np.uint16)).astype(np.int32) | ((a["b"].view(np.uint8) >> 3).astype(np.int32) << 16)
    np.testing.assert_array_equal(a["out"], want)
    h = _bf16_value(a["bf"])
    sq = _bf16_value(_bf16_bits(h * h))  # mul.rn.bf16, then add.rn.bf16: two roundings
    np.testing.assert_array_equal(a["bfo"], _bf16_bits(sq + np.float32(1)))


case(name="llvm_narrow_ints_bf16", file="ll_narrow", entry="narrow", grid=(1,), block=(64,), make=_ll_narrow,
     check=_check_ll_narrow)


def _ll_dynidx(rng):
    return [inp("x", rng.integers(-1000, 1000, (64, 8)).astype(np.int32)), out("out", np.zeros(1024 + 64, np.int32)),
            inp("src", np.arange(256, dtype=np.uint8))]


def _check_ll_dynidx(a):
    k = np.arange(64) % 8
    want = a["x"][:, ::-1].copy()
    want[np.arange(64), k] = a["x"][np.arange(64), k]
    np.testing.assert_array_equal(a["out"][:512].reshape(64, 8), want)
    np.testing.assert_array_equal(a["out"][1024:], 0x04030201 + np.arange(64))  # bytes 1..4, little-endian


case(name="llvm_vector_dynamic_index", file="ll_dynidx", entry="dynidx", grid=(1,), block=(64,), make=_ll_dynidx,
     check=_check_ll_dynidx)


def _ll_fnptr(rng):
    return [inp("x", rng.integers(-1000, 1000, 64).astype(np.int32)), out("out", np.zeros(64, np.int32))]


def _check_ll_fnptr(a):
    t, x = np.arange(64), a["x"]
    np.testing.assert_array_equal(a["out"], np.where(t % 3 == 0, x + t, np.where(t % 3 == 1, x * t, x ^ t)))


case(name="llvm_function_pointers", file="ll_fnptr", entry="fnptr", grid=(1,), block=(64,), make=_ll_fnptr,
     check=_check_ll_fnptr)


def _ll_memcpy(rng):
    return [out("dst", np.zeros(64 * 72, np.uint8)), inp("src", rng.integers(0, 256, 64 * 72).astype(np.uint8)),
            sc("bad", np.int32(-1))]  # no thread traps (tests/corpus/realworld/test_realworld.py has the trap)


def _check_ll_memcpy(a):
    want = a["src"].reshape(64, 72).copy()
    want[:, 64:] = 0xAA
    np.testing.assert_array_equal(a["dst"].reshape(64, 72), want)


def _ll_packed(rng):
    return [out("out", np.zeros(64, np.int32))]


def _check_ll_packed(a):
    t = np.arange(64)
    v = np.where(t % 2 == 0, 11, 44) + 7 - 3 + 9  # table[0] through the first pointer, table[2 + 1] the second
    np.testing.assert_array_equal(a["out"], (v * 31) ^ t)


case(name="llvm_packed_pointers_alias", file="ll_packed_alias", entry="packed_alias", grid=(1,), block=(64,),
     make=_ll_packed, check=_check_ll_packed)
case(name="llvm_memcpy_memset", file="ll_memcpy_trap", entry="memcpy_trap", grid=(1,), block=(64,),
     make=_ll_memcpy, check=_check_ll_memcpy)
case(name="llvm_blocksum_O0", file="ll_blocksum.O0", entry="blocksum", grid=(4,), block=(256,), make=_ll_blocksum,
     check=_check_ll_blocksum)
case(name="llvm_calls_i128_O0", file="ll_calls.O0", entry="calls", grid=(1,), block=(64,), make=_ll_calls,
     check=_check_ll_calls, racy={"out": 64})

def entry_name(case: Case, entries: list[str]) -> str:
    if case.entry in entries:
        return case.entry
    hits = [e for e in entries if e.startswith(case.entry)]
    if len(hits) != 1:
        raise LookupError(f"{case.name}: {case.entry!r} matches {hits} of {entries}")
    return hits[0]


BY_NAME = {c.name: c for c in CASES}
