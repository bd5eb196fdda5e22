"""ptxvm.triton: Triton kernels compiled by pip's triton for sm_90a and run on the CPU engine,
compared bit for bit with the same kernels launched by Triton on an H200
(tools/device/record_triton.py; Triton there is another version, so a kernel whose PTX differs
between the two versions is also replayed from the PTX Triton made on the H200)."""
from __future__ import annotations

import json
import os
import pathlib

import numpy as np
import pytest

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, stated to silence its warning
triton = pytest.importorskip("triton", reason="triton is not installed (pip install 'ptxvm[triton]')")

import ptxvm
import ptxvm.triton as pt

from . import triton_cases as C

GOLDEN = pathlib.Path(__file__).parent.parent / "goldens" / "frontdoor" / "triton.npz"


@pytest.fixture(autouse=True)
def _allocator():
    """Kernels that make tensor descriptors on the device need Triton's global scratch allocator,
    on a GPU as here (ptxvm allocates the scratch itself; the allocator only has to be set)."""
    triton.set_allocator(lambda size, alignment, stream: None)
    yield


@pytest.fixture(scope="module")
def golden():
    if not GOLDEN.exists():
        pytest.skip(f"no H200 golden at {GOLDEN} (record it with tools/device/record_triton.py)")
    z = np.load(GOLDEN)
    return z, json.loads(bytes(z["meta"]).decode())


def _differing(got, want) -> int:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype.itemsize == want.dtype.itemsize
    return int((got.view(np.uint8).reshape(got.shape + (-1,)) != want.view(np.uint8).reshape(want.shape + (-1,)))
               .any(-1).sum())


def _run(case, ptx=None, monkeypatch=None):
    """Run a case through ptxvm.triton; with `ptx`, the launcher runs that PTX instead of the one
    this Triton made (same arguments, launch shape and scratch)."""
    if ptx is not None:
        from ptxvm.frontdoor import triton_kernels as T

        replay = ptxvm.loads(ptx, f"<{case.name} as compiled on the H200>")
        monkeypatch.setattr(T._Launcher, "module", property(lambda self: replay))
    args = C.inputs(case)
    blocks = C.DESCRIPTOR_BLOCKS.get(case.name, [])
    launch_args = [pt.tensor_descriptor(a, b) if b else a for a, b in zip(args, blocks + [None] * len(args))]
    compiled = pt.jit(case.kernel)[case.grid](*launch_args, **C.launch_meta(case))
    return args, compiled.asm["ptx"]


def _mismatches(name, args, z):
    return {i: _differing(v, z[f"{name}.arg{i}"]) for i, v in enumerate(args) if isinstance(v, np.ndarray)}


@pytest.mark.parametrize("name", [c.name for c in C.CASES])
def test_triton_kernel_matches_h200(name, golden, monkeypatch):
    """Bit for bit with the H200. Where this Triton compiles the kernel to other PTX than the
    H200's Triton did (another version), the H200's own PTX must replay bit for bit instead, and
    the difference is the compilers', not ptxvm's."""
    z, meta = golden
    if meta["status"].get(name) != "ok":
        pytest.skip(f"not recorded on the GPU: {meta['status'].get(name)}")
    case = C.BY_NAME[name]
    args, ptx = _run(case)
    bad = {i: n for i, n in _mismatches(name, args, z).items() if n}
    if not bad:
        return
    recorded = bytes(z[f"{name}.ptx"]).decode()
    assert _body(ptx) != _body(recorded), \
        f"{name}: same PTX as the H200's Triton, yet elements differ: {bad} (argument: count)"
    args, _ = _run(case, ptx=recorded, monkeypatch=monkeypatch)
    bad = {i: n for i, n in _mismatches(name, args, z).items() if n}
    assert not bad, f"{name}: the H200's own PTX (Triton {meta['triton']}) replayed on ptxvm differs: {bad}"


def _body(ptx: str) -> str:
    """PTX without comments, .loc lines and the version line (what the compilers' versions change
    without changing the code)."""
    keep = []
    for line in ptx.splitlines():
        t = line.strip()
        if not t or t.startswith(("//", ".loc", ".version", ".file")):
            continue
        keep.append(t.split("//")[0].strip())
    return "\n".join(keep)


def test_grid_lambda_meta_and_last_stats():
    case = C.BY_NAME["vector_add"]
    x, y, out, n = C.inputs(case)
    k = pt.jit(case.kernel)
    k[lambda m: (triton.cdiv(n, m["BLOCK"]),)](x, y, out, n, BLOCK=256, num_warps=2)
    assert np.array_equal(out, x + y)
    assert k.last_stats.thread_instructions > 0
    out[:] = 0
    pt.run(case.kernel, (triton.cdiv(n, 512),), x, y, out, n, BLOCK=512)
    assert np.array_equal(out, x + y)


def test_int_arguments_specialize_as_triton_does():
    """n == 1 becomes a constexpr, so Triton compiles a second kernel with one parameter fewer."""
    case = C.BY_NAME["vector_add"]
    x, y, out, _ = C.inputs(case)
    pt.run(case.kernel, (1,), x, y, out, 1, BLOCK=128)
    assert out[0] == x[0] + y[0] and not out[1:].any()


def test_autotune_runs_every_config_and_picks_one():
    configs = [triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((128, 1), (512, 4))]

    @triton.autotune(configs=configs, key=["n"])
    @triton.jit
    def scale(x_ptr, out_ptr, n, BLOCK: C.tl.constexpr):
        offs = C.tl.program_id(0) * BLOCK + C.tl.arange(0, BLOCK)
        m = offs < n
        C.tl.store(out_ptr + offs, C.tl.load(x_ptr + offs, mask=m) * 3.0, mask=m)

    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    pt.run(scale, lambda m: (triton.cdiv(1000, m["BLOCK"]),), x, out, 1000)
    assert np.array_equal(out, x * 3)
    assert scale.best_config in configs and len(scale.configs_timings) == 2


def test_torch_cpu_tensors_are_written_in_place():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    case = C.BY_NAME["vector_add"]
    x, y = torch.arange(100, dtype=torch.float32), torch.ones(100, dtype=torch.float32)
    out = torch.zeros(100, dtype=torch.float32)
    pt.run(case.kernel, (1,), x, y, out, 100, BLOCK=128)
    assert torch.equal(out, x + y)


def test_compile_errors_are_tritons_own():
    @triton.jit
    def broken(x_ptr, BLOCK: C.tl.constexpr):
        C.tl.store(x_ptr + C.tl.arange(0, BLOCK), undefined_name)  # noqa: F821

    with pytest.raises(triton.compiler.errors.CompilationError):
        pt.run(broken, (1,), np.zeros(16, np.float32), BLOCK=16)


def test_bf16_torch_tensors_give_the_numpy_bits():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    case = C.BY_NAME["matmul_bf16"]
    args = C.inputs(case)
    ta, tb = (torch.from_numpy(a.view(np.uint16).copy()).view(torch.bfloat16) for a in args[:2])
    tc = torch.zeros(args[2].shape, dtype=torch.bfloat16)
    pt.jit(case.kernel)[case.grid](ta, tb, tc, *args[3:], **C.launch_meta(case))
    pt.jit(case.kernel)[case.grid](*args, **C.launch_meta(case))
    assert np.array_equal(tc.view(torch.uint16).numpy(), args[2].view(np.uint16))


@C.triton.jit
def _copy2d(src, dst, s0, s1, d0, d1, M: C.tl.constexpr, N: C.tl.constexpr):
    i = C.tl.arange(0, M)[:, None]
    j = C.tl.arange(0, N)[None, :]
    C.tl.store(dst + i * d0 + j * d1, C.tl.load(src + i * s0 + j * s1))


@pytest.mark.parametrize("view", ["transpose", "column_slice", "reversed"])
def test_strided_views_are_addressed_as_on_a_gpu(view):
    """A view (b.T, a slice) passed with its own strides: the kernel addresses the view's
    storage, as on a GPU (the array was copied contiguously while the kernel was given the
    view's strides, so b.T came back untransposed: Triton's matmul tutorial, fp8 path)."""
    base = np.arange(64, dtype=np.float32).reshape(8, 8)
    src = {"transpose": base.T, "column_slice": base[:, ::2][:4], "reversed": base[::-1, :4][:4]}[view]
    src = src[:4, :4]
    dst = np.zeros((4, 4), np.float32)
    s = [x // 4 for x in src.strides]
    pt.run(_copy2d, (1,), src, dst, s[0], s[1], 4, 1, M=4, N=4)
    assert np.array_equal(dst, src)
    out_base = np.zeros((8, 8), np.float32)
    out = out_base.T[:4, :4]  # written through a transposed view: lands in the base array
    pt.run(_copy2d, (1,), dst, out, 4, 1, *[x // 4 for x in out.strides], M=4, N=4)
    assert np.array_equal(out, src) and np.array_equal(out_base[:4, :4].T, src)


def test_warmup_gives_the_compiled_kernel_with_its_registers():
    """Triton's fused-softmax tutorial sizes its grid from warmup(...).n_regs and metadata.shared."""
    case = C.BY_NAME["vector_add"]
    x, y, out, n = C.inputs(case)
    compiled = pt.jit(case.kernel).warmup(x, y, out, n, BLOCK=256, grid=(1,))
    assert compiled.metadata.shared >= 0 and compiled.n_regs >= 0
    from ptxvm import toolchain

    if toolchain.find("cuobjdump"):
        assert compiled.n_regs > 0  # cuobjdump -res-usage of its cubin


def test_collected_kernels_print_nothing(capfd):
    """A CompiledKernel collected after its launch unloads nothing (it asked Triton's default
    driver, a CUDA one, and printed 'Exception ignored in CompiledKernel.__del__')."""
    import gc

    for _ in range(2):
        @C.triton.jit
        def fresh(x, N: C.tl.constexpr):
            C.tl.store(x + C.tl.arange(0, N), C.tl.arange(0, N).to(C.tl.float32))

        x = np.zeros(16, np.float32)
        pt.run(fresh, (1,), x, N=16)
        del fresh
        gc.collect()
    assert "Exception ignored" not in capfd.readouterr().err


def test_a_host_tensor_descriptor_over_fp8():
    """Triton's CUDA driver encodes an fp8 (or int8) tensor map as UINT8, from the kernel's element
    type; ptxvm looked for a data type of the array's dtype and refused float8_e4m3fn."""
    ml_dtypes = pytest.importorskip("ml_dtypes")

    @C.triton.jit
    def widen(a_desc, out, B: C.tl.constexpr):
        x = a_desc.load([0, 0])
        r = C.tl.arange(0, B)[:, None]
        c = C.tl.arange(0, B)[None, :]
        C.tl.store(out + r * B + c, x.to(C.tl.float32))

    a = np.random.default_rng(0).standard_normal((64, 64)).astype(ml_dtypes.float8_e4m3fn)
    out = np.zeros((64, 64), np.float32)
    pt.run(widen, (1,), pt.tensor_descriptor(a, [64, 64]), out, B=64)
    assert np.array_equal(out, a.astype(np.float32))
