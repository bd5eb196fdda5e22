"""ptxvm.numba: Numba CUDA kernels compiled by numba-cuda and run on the CPU engine, compared bit
for bit with the same kernels launched by numba-cuda on an H200 (tools/device/record_numba.py)."""
from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

numba = pytest.importorskip("numba", reason="numba is not installed (pip install 'ptxvm[numba]')")
try:
    from numba import cuda
    from numba.cuda import compile_ptx  # noqa: F401  (numba-cuda, not the deprecated built-in target)
except Exception as e:  # noqa: BLE001
    pytest.skip(f"numba-cuda is not usable here: {e}", allow_module_level=True)

import ptxvm
import ptxvm.numba as pn

from . import numba_cases as C

GOLDEN = pathlib.Path(__file__).parent.parent / "goldens" / "frontdoor" / "numba.npz"


def _compiles(case) -> bool:
    try:
        pn.jit(cuda.jit(case.kernel(cuda))).ptx(C.inputs(case))
        return True
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"numba-cuda cannot compile here: {e}")


@pytest.fixture(scope="module")
def golden():
    if not GOLDEN.exists():
        pytest.skip(f"no H200 golden at {GOLDEN} (record it with tools/device/record_numba.py)")
    z = np.load(GOLDEN)
    return z, json.loads(bytes(z["meta"]).decode())


def _mismatches(name, args, z) -> dict:
    out = {}
    for i, v in enumerate(args):
        if isinstance(v, np.ndarray):
            want, got = z[f"{name}.arg{i}"], np.asarray(v)
            assert got.dtype == want.dtype and got.shape == want.shape
            n = int((got.view(np.uint8).reshape(got.shape + (-1,)) != want.view(np.uint8).reshape(want.shape + (-1,)))
                    .any(-1).sum())
            if n:
                out[i] = n
    return out


def _body(ptx: str) -> str:
    """PTX without comments, .loc lines, the version line and Numba's mangled-name hashes."""
    import re

    keep = []
    for line in ptx.splitlines():
        t = line.split("//")[0].strip()
        if t and not t.startswith((".loc", ".version", ".file")):
            keep.append(re.sub(r"B\d+v\d+B\d+\w+?E5Array", "E5Array", t))
    return "\n".join(keep)


@pytest.mark.parametrize("name", [c.name for c in C.CASES])
def test_numba_kernel_matches_h200(name, golden):
    """Bit for bit with the H200. Where this numba-cuda (and its NVVM) compiles the kernel to
    other PTX than the H200's did, the H200's own PTX must replay bit for bit instead, and the
    difference is the compilers', not ptxvm's."""
    z, meta = golden
    case = C.BY_NAME[name]
    if meta["status"].get(name) != "ok":
        pytest.skip(f"not recorded on the GPU: {meta['status'].get(name)}")
    args = C.inputs(case)
    k = pn.jit(cuda.jit(case.kernel(cuda)))
    k.run(case.grid, case.block, *args)
    bad = _mismatches(name, args, z)
    if not bad:
        return
    recorded = bytes(z[f"{name}.ptx"]).decode()
    mine = k.compile(k.signature(args))[2][0]
    assert _body(mine) != _body(recorded), f"{name}: same PTX as on the H200, yet elements differ: {bad}"
    from ptxvm.frontdoor.numba_cuda import _copy_back, _marshal

    args = C.inputs(case)
    mod = ptxvm.loads(recorded, f"<{name} as compiled on the H200>")
    params, staged = _marshal(args, k.signature(args))
    mod.kernel(next(iter(mod.kernels))).launch(case.grid, case.block, params)
    for host, dev in staged:
        _copy_back(host, dev)
    bad = _mismatches(name, args, z)
    assert not bad, f"{name}: the H200's own PTX replayed on ptxvm differs: {bad} (argument: count)"


def test_decorator_form_and_scalars():
    @cuda.jit
    def axpy(a, x, y):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = a * x[i] + y[i]

    x = np.arange(300, dtype=np.float32)
    y = np.ones(300, np.float32)
    k = pn.jit(axpy)
    k[3, 128](np.float32(2), x, y)
    assert np.array_equal(y, np.float32(2) * x + 1)
    k[3, 128](3, x, y)  # a Python int is typed int64, as Numba types it: a second specialization
    assert np.array_equal(y, (np.float32(2) * x + 1) + 3 * x)
    assert len(k._compiled) == 2
    assert isinstance(k.last_stats.thread_instructions, int)


def test_arrays_of_any_layout_are_written_back():
    @cuda.jit
    def fill(a):
        i, j = cuda.grid(2)
        if i < a.shape[0] and j < a.shape[1]:
            a[i, j] = i * 100 + j

    want = np.arange(7)[:, None] * 100 + np.arange(5)
    f = np.zeros((7, 5), order="F")
    pn.run(fill, (1, 1), (8, 8), f)
    assert np.array_equal(f, want)
    big = np.zeros((14, 10))
    view = big[::2, ::2]
    pn.run(fill, (1, 1), (8, 8), view)
    assert np.array_equal(view, want) and big[1::2].sum() == 0


def test_dynamic_shared_memory_and_printf(capfd):
    @cuda.jit
    def rev(a):
        s = cuda.shared.array(0, dtype=np.int32)
        t = cuda.threadIdx.x
        s[t] = a[t]
        cuda.syncthreads()
        a[t] = s[cuda.blockDim.x - 1 - t]
        if t == 0:
            print("first", a[0])

    a = np.arange(64, dtype=np.int32)
    pn.jit(rev)[1, 64, 0, 64 * 4](a)
    assert np.array_equal(a, np.arange(64)[::-1])
    assert "first 63" in capfd.readouterr().out


def test_unsupported_argument_is_a_clear_error():
    @cuda.jit
    def k(a):
        pass

    with pytest.raises(TypeError, match="argument 0"):
        pn.run(k, 1, 1, "a string")


def test_a_fault_names_the_kernel_and_leaves_arrays_alone():
    @cuda.jit
    def oob(a):
        a[cuda.threadIdx.x * 1000000] = 1.0

    a = np.zeros(8)
    with pytest.raises(ptxvm.KernelFault):
        pn.run(oob, 1, 32, a)
    assert not a.any()


def test_dlpack_arrays_are_accepted_and_written_in_place():
    class Wrapped:
        """A minimal DLPack producer over a NumPy array (what torch/JAX CPU arrays offer)."""

        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    @cuda.jit
    def double(a):
        i = cuda.grid(1)
        if i < a.size:
            a[i] *= 2

    host = np.arange(10, dtype=np.int32)
    pn.run(double, 1, 32, Wrapped(host))
    assert np.array_equal(host, np.arange(10) * 2)


def test_grid_sync_through_the_device_runtime():
    """numba-cuda's grid.sync() calls libcudadevrt (cudaCGGetIntrinsicHandle, cudaCGSynchronize)
    and numba launches such a kernel cooperatively; ptxvm.numba does the same, and the engine's
    device-runtime calls make the barrier: every CTA's writes before it are seen after it."""
    @cuda.jit
    def k(a, out):
        g = cuda.cg.this_grid()
        i = cuda.grid(1)
        a[i] = i * 3
        g.sync()
        out[i] = a[(i + 37) % a.size]

    a, out = np.zeros(256, np.int32), np.zeros(256, np.int32)
    pn.run(k, 4, 64, a, out)
    assert np.array_equal(out, (np.arange(256) + 37) % 256 * 3)


def test_grid_sync_without_a_cooperative_launch_is_a_clear_fault():
    """The same PTX launched plainly: the device runtime's grid handle is 0, and the sync says why."""
    @cuda.jit
    def k(a):
        g = cuda.cg.this_grid()
        a[cuda.grid(1)] = 1
        g.sync()

    from ptxvm.frontdoor.numba_cuda import _marshal

    a = np.zeros(64, np.int32)
    compiled = pn.jit(k)
    sig = compiled.signature([a])
    mod, entry, _ = compiled.compile(sig)
    params, staged = _marshal([a], sig)
    with pytest.raises(ptxvm.KernelFault, match="needs a cooperative launch"):
        mod.kernel(entry).launch(2, 32, params)
    for _, dev in staged:
        dev.free()
    assert not a.any()


def test_debug_kernel_exceptions_reach_the_host():
    """debug=True: a thread's ZeroDivisionError or `raise ValueError` comes back as that exception
    after the launch, as numba-cuda raises it on a GPU, naming the raising thread."""
    from numba import cuda

    @cuda.jit(debug=True, opt=False)
    def divide(r, x, y):
        r[0] = x / y

    @cuda.jit(debug=True, opt=False)
    def raiser(x):
        if x[cuda.threadIdx.x] == 1:
            raise ValueError("bad value")

    with pytest.raises(ZeroDivisionError, match="division by zero"):
        pn.run(divide, 1, 1, np.zeros(1, np.float32), np.float32(10), np.float32(0))
    r = np.zeros(1, np.float32)
    pn.run(divide, 1, 1, r, np.float32(10), np.float32(4))
    assert r[0] == 2.5
    flags = np.array([0, 0, 1, 0], np.int32)
    with pytest.raises(ValueError, match=r"tid=\[0, 0, 2\].*bad value"):
        pn.run(raiser, 1, 4, flags)
    pn.run(raiser, 1, 4, np.zeros(4, np.int32))  # the error code is cleared before each launch


def test_a_declared_signature_fixes_the_argument_types():
    """As cuda.jit("void(int32[:], int32)") does: scalars are converted to the declared types
    (a Python int is int64 otherwise), and arguments no signature takes are refused."""
    def clz(out, c):
        out[0] = cuda.clz(c)

    out = np.zeros(1, np.int32)
    pn.jit(clz, "void(int32[:], int32)")[1, 1](out, 0x00100000)
    assert out[0] == 11  # 43 when typed as int64
    pn.jit("void(int32[:], int64)")(clz)[1, 1](out, 0x00100000)
    assert out[0] == 43

    def scale(out, x, f):
        out[0] = x[0] * f

    k = pn.jit(scale, ["void(float32[:], float32[:], float32)", "void(float64[:], float64[:], float64)"])
    o32 = np.zeros(1, np.float32)
    k[1, 1](o32, np.full(1, 3, np.float32), 0.1)  # 0.1 converted to float32, as declared
    assert o32[0] == np.float32(3) * np.float32(0.1)
    o64 = np.zeros(1)
    k[1, 1](o64, np.full(1, 3.0), 0.1)
    assert o64[0] == 3.0 * 0.1
    with pytest.raises(TypeError, match="no matching definition"):
        k[1, 1](o64, np.zeros(1, np.int32), 1)
    with pytest.raises(TypeError, match="returns nothing"):
        pn.jit(scale, "int32(float32[:], float32[:], float32)")
    with pytest.raises(TypeError, match="not valid"):
        pn.jit(scale, "void(float99[:])")


def test_tuples_records_and_enums_are_passed_as_numba_passes_them():
    """Tuples flatten into their elements (arrays in them too), a record (one element of a
    structured array) is passed by reference and written back, an IntEnum as its value."""
    import enum

    @cuda.jit
    def from_tuple(out, t, arrays):
        out[0] = t[0] + t[1] + arrays[0][1] + arrays[1][0]

    out = np.zeros(1, np.int64)
    a = np.arange(4, dtype=np.int64)[::2]  # a strided view, in a tuple
    pn.run(from_tuple, 1, 1, out, (3, 4), (a, np.full(2, 100, np.int64)))
    assert out[0] == 3 + 4 + 2 + 100

    rt = np.dtype([("a", np.float64), ("b", np.int32)], align=True)

    @cuda.jit
    def record_io(out, r):
        out[0] = r.b
        r.a = 2.5

    rec = np.zeros(2, dtype=rt)
    rec[1]["b"] = 7
    pn.run(record_io, 1, 1, out, rec[1])
    assert out[0] == 7 and rec[1]["a"] == 2.5 and rec[0]["a"] == 0

    class Color(enum.IntEnum):
        RED = 5

    @cuda.jit
    def from_enum(out, c):
        out[0] = c

    pn.run(from_enum, 1, 1, out, Color.RED)
    assert out[0] == 5
