"""The GPU backend on a real NVIDIA GPU (marked `gpu`; skipped with the reason where there is none)."""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.backends.cuda import CudaKernelFault, GpuModule

from . import ptx_kernels as kernels

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]
SAXPY = ROOT / "examples" / "saxpy.ptx"
APIS = ["core", "driver"]  # cuda.core, or cuda.bindings.driver alone


def on_gpu(text, name="<test>", api="core"):
    return GpuModule(ptxvm.loads(text, name), api=api)


@pytest.mark.parametrize("api", APIS)
def test_saxpy_matches_the_cpu_engine(api):
    x = np.random.default_rng(1).standard_normal(1000).astype(np.float32)
    y = np.random.default_rng(2).standard_normal(1000).astype(np.float32)
    cpu_y = y.copy()
    ptxvm.load(SAXPY)["saxpy"].launch(4, 256, [np.int32(1000), np.float32(2.5), x, cpu_y])
    gpu = GpuModule(ptxvm.load(SAXPY), api=api)
    stats = gpu["saxpy"].launch(4, 256, [np.int32(1000), np.float32(2.5), x, y])
    assert stats.ctas == 4 and stats.threads == 1024
    assert y.tobytes() == cpu_y.tobytes()


def test_load_with_device_and_per_launch_choice():
    mod = ptxvm.load(SAXPY, device="cuda")
    assert isinstance(mod, GpuModule) and "saxpy" in mod.kernels
    x = np.ones(64, np.float32)
    y = np.zeros(64, np.float32)
    mod["saxpy"][1, 64](np.int32(64), np.float32(3), x, y)
    assert (y == 3).all()
    y[:] = 1
    ptxvm.load(SAXPY)["saxpy"].on("cuda").launch(1, 64, [np.int32(64), np.float32(3), x, y])
    assert (y == 4).all()
    assert isinstance(ptxvm.load(SAXPY.read_text(), device="cuda"), GpuModule)  # PTX text as well


@pytest.mark.parametrize("api", APIS)
def test_same_array_twice_is_one_allocation(api):
    a = np.arange(32, dtype=np.uint32)
    on_gpu(kernels.TWICE, api=api)["twice"].launch(1, 32, [a, a, np.uint32(32)])
    assert (a == 3 * np.arange(32)).all()


@pytest.mark.parametrize("api", APIS)
def test_symbols_and_struct_parameter(api):
    mod = on_gpu(kernels.SYMBOLS, api=api)
    assert mod.read_symbol("gcount", np.uint32).tolist() == [5]
    assert mod.read_symbol("cscale", np.float32).tolist() == [3.0]
    mod.write_symbol("gcount", np.array([41], np.uint32))
    mod.write_symbol("cscale", np.array([0.5], np.float32))
    st = np.zeros(1, dtype=[("tag", "<u4"), ("pad", "<u4"), ("x", "<f4"), ("pad2", "<u4")])
    st["tag"], st["x"] = 7, 10.0
    out = np.zeros(3, np.uint32)
    mod["k"].launch(1, 1, [out, st[0]])
    assert out[0] == 7 and out[1:2].view(np.float32)[0] == 5.0 and out[2] == 42
    assert mod.read_symbol("gcount", np.uint32)[0] == 42
    with pytest.raises(ptxvm.LaunchError, match="do not fit"):
        mod.write_symbol("gcount", np.zeros(2, np.uint32))
    with pytest.raises(KeyError):
        mod.read_symbol("nope", np.uint32)


def test_printf_reaches_sys_stdout(capsys):
    on_gpu(kernels.PRINTF)["p"].launch(1, 4, [])
    lines = sorted(capsys.readouterr().out.splitlines())
    assert lines == [f"hi from {i}" for i in range(4)]


@pytest.mark.parametrize("api", APIS)
def test_clusters(api):
    out = np.zeros(16, np.uint32)
    on_gpu(kernels.CLUSTER, api=api)["c"].launch(8, 32, [out], cluster=2)
    assert out.reshape(-1, 2).tolist() == [[i % 2, 2] for i in range(8)]
    report = ptxvm.compare(ptxvm.loads(kernels.CLUSTER)["c"], 8, 32, [np.zeros(16, np.uint32)], cluster=4)
    assert report.ok, str(report)


def test_dynamic_shared_memory_above_48k():
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    on_gpu(kernels.BIG_SHARED)["big"].launch(1, 64, [a, out], shared_mem=65536)
    assert (out == a).all()


def test_compare_saxpy_cpu_vs_gpu():
    x = np.random.default_rng(3).standard_normal(5000).astype(np.float32)
    y = np.random.default_rng(4).standard_normal(5000).astype(np.float32)
    y0 = y.copy()
    report = ptxvm.compare(ptxvm.load(SAXPY)["saxpy"], 20, 256, [np.int32(5000), np.float32(0.1), x, y])
    assert report.ok, str(report)
    assert report.devices == ("cpu", "cuda") and [a.name for a in report.arrays] == ["saxpy_param_2", "saxpy_param_3"]
    assert y.tobytes() == y0.tobytes()  # the caller's arrays are left alone


def _cases():
    sys.path.insert(0, str(ROOT / "tests" / "kernels"))
    import cases

    names = ["vector_add_f32", "fma_horner", "reduce_partial_f32", "histogram256", "transpose_tiled",
             "sgemm_tiled16", "scan_warp_shfl", "bitonic_sort_block", "struct_by_value", "dynamic_smem",
             "recursion", "function_pointers", "warp_vote", "bf16_ops", "fp8_roundtrip", "inline_asm",
             "atomics_zoo", "cluster_info", "reduce_atomic_f32", "printf", "mma_ldmatrix_gemm_f32",
             "wgmma_gemm_f16_f32", "cp_async_16B", "cuda_pipeline_copy", "cluster_pair_sum", "dsmem_histogram",
             "mbarrier_split_phase", "mbarrier_bulk_copy", "remote_mbarrier"]
    by_name = {c.name: c for c in cases.ALL_CASES}
    return [pytest.param(by_name[n], id=n) for n in names if n in by_name], cases


CASES, _CASES_MODULE = _cases()


@pytest.mark.parametrize("case", CASES)
def test_compare_realistic_kernels(case):
    args = _CASES_MODULE.materialize(case, seed=0)
    mod = ptxvm.load(case.ptx_path)
    report = ptxvm.compare(mod[case.kernel], case.grid, case.block, args, shared_mem=case.shared_bytes,
                           cluster=case.cluster)
    exact = {i for i, a in case.outputs if getattr(getattr(a, "check", None), "kind", "exact") == "exact"}
    bad = [a for a in report.differing if a.position in exact]
    assert not report.faults and not bad, str(report)


TEXTURE_CASES = [c for c in _CASES_MODULE.ADVANCED_CASES if c.feature in ("texture", "surface")]


@pytest.mark.parametrize("case", TEXTURE_CASES, ids=[c.name for c in TEXTURE_CASES])
def test_compare_texture_kernels(case):
    """nvcc kernels over texture objects (a linear-memory tex1Dfetch one included) and surfaces."""
    args, _ = _CASES_MODULE.resource_args(case, _CASES_MODULE.materialize(case, seed=0))
    report = ptxvm.compare(ptxvm.load(case.ptx_path)[case.kernel], case.grid, case.block, args)
    exact = {i for i, a in case.outputs if getattr(getattr(a, "check", None), "kind", "exact") == "exact"}
    bad = [a for a in report.differing if a.position in exact]
    assert len(TEXTURE_CASES) >= 4 and not report.faults and not bad, str(report)


def test_cuda_cpp_with_inline_asm_matches():
    from ptxvm.frontdoor.cuda import available_compilers

    if not available_compilers():
        pytest.skip("no NVRTC and no nvcc")
    src = r'''
    extern "C" __global__ void k(const int *a, const long long *w, int *out, float *f) {
        int i = threadIdx.x, r, c = a[i];
        asm("add.s32 %0, %1, %1;\n\tadd.s32 %0, %0, %2;" : "=r"(r) : "r"(a[i]), "r"(c + 1));
        asm("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, 0;\n\t@p neg.s32 %0, %0;\n\t}" : "+r"(c) : "r"(a[i]));
        float g; asm("cvt.rn.f32.s64 %0, %1;" : "=f"(g) : "l"(w[i]));
        asm volatile("st.global.s32 [%0], %1;" :: "l"(out + 2 * i), "r"(r) : "memory");
        out[2 * i + 1] = c; f[i] = g;
    }'''
    mod = ptxvm.compile_cuda(src, name="inline.cu")
    a = np.random.default_rng(5).integers(-1000, 1000, 64).astype(np.int32)
    w = np.random.default_rng(6).integers(-2**62, 2**62, 64).astype(np.int64)
    report = ptxvm.compare(mod["k"], 1, 64, [a, w, np.zeros(128, np.int32), np.zeros(64, np.float32)])
    assert report.ok, str(report)


def _seed_source():
    import importlib.util

    path = ROOT / "tests" / "frontdoor" / "test_compile_cuda.py"
    spec = importlib.util.spec_from_file_location("seed_compile_cuda_examples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.GOOD


def _seed_launches():
    rng = np.random.default_rng(8)
    ints = lambda n, lo=-1000, hi=1000: rng.integers(lo, hi, n).astype(np.int32)  # noqa: E731
    zeros = lambda n, dt=np.int32: np.zeros(n, dt)  # noqa: E731
    x34 = ints(32, 30, 38)
    return [
        ("add", 2, 32, [ints(64), ints(64)] + [zeros(64) for _ in range(5)]),
        ("accumulate", 1, 32, [ints(32), ints(32)]),
        ("cubes", 1, 32, [ints(32, -1200, 1200), zeros(32)]),
        ("conds", 1, 32, [x34, zeros(32)]),
        ("to_float", 1, 32, [rng.integers(-2**62, 2**62, 32).astype(np.int64), zeros(32, np.float32)]),
        ("store", 1, 32, [zeros(32, np.uint32), np.uint32(1000)]),
    ]


@pytest.mark.parametrize("kernel,grid,block,args", [pytest.param(*c, id=c[0]) for c in _seed_launches()])
def test_seed_asm_examples_cpu_engine_matches_gpu(kernel, grid, block, args):
    """The seed's asm() examples (tests/frontdoor/test_compile_cuda.py GOOD), compiled from CUDA C++:
    the CPU engine and the GPU agree bit for bit."""
    from ptxvm.frontdoor.cuda import available_compilers

    if not available_compilers():
        pytest.skip("no NVRTC and no nvcc")
    mod = ptxvm.compile_cuda(_seed_source(), name="good.cu")
    report = ptxvm.compare(mod.kernel(kernel), grid, block, args)
    assert report.ok, str(report)


def test_cli_compare_and_device(tmp_path):
    from click.testing import CliRunner

    from ptxvm.cli import main

    x, y = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(x, np.arange(300, dtype=np.float32))
    np.save(y, np.ones(300, np.float32))
    base = ["run", str(SAXPY), "-k", "saxpy", "-g", "2", "-b", "256", "-a", "s32:300", "-a", "f32:2",
            "-a", f"in:{x}", "-a", f"inout:{y}"]
    r = CliRunner().invoke(main, base + ["--compare"])
    assert r.exit_code == 0, r.output
    assert "bitwise identical" in r.output
    r = CliRunner().invoke(main, base + ["--device", "cuda"])
    assert r.exit_code == 0, r.output
    assert (np.load(y) == 2 * np.arange(300) + 1).all()
    sym = tmp_path / "sym.ptx"
    sym.write_text(kernels.SYMBOLS)
    out = tmp_path / "out.npy"
    np.save(out, np.zeros(3, np.uint32))
    r = CliRunner().invoke(main, ["run", str(sym), "-k", "k", "-a", f"inout:{out}", "-a", "bytes:" + "00" * 16,
                                  "--compare", "--symbol", "gcount"])
    assert r.exit_code == 0 and "symbol gcount" in r.output, r.output


@pytest.mark.parametrize("api", APIS)
def test_ptx_the_driver_rejects_is_a_cuda_error(api):
    from ptxvm.backends.cuda_driver import CudaError

    text = kernels.HEADER + ".visible .entry z() { .reg .u32 %r1; add.u32 %r1, %r1, %r9; ret; }\n"
    mod = GpuModule(ptxvm.loads(text, "bad.ptx", verify=False), api=api)  # %r9 is undeclared
    with pytest.raises(CudaError, match="CUDA_ERROR_INVALID_PTX"):
        mod["z"].launch(1, 1, [])


FAULT_SCRIPT = """
import sys
import numpy as np
import ptxvm
from ptxvm.backends.cuda import CudaContextLost, CudaKernelFault
sys.path.insert(0, "tests/backends")
from ptx_kernels import FAULTS, TWICE

mod = ptxvm.loads(FAULTS, device="cuda")
args = [] if sys.argv[1] == "t" else [np.uint64(0)]
try:
    mod[sys.argv[1]].launch(1, 32, args)
except CudaKernelFault as e:
    assert isinstance(e, ptxvm.KernelFault)
    print("FAULT", e.kernel, e.cuda_error, e.context_lost)
    print("MESSAGE", e)
try:
    ptxvm.loads(TWICE, device="cuda")["twice"].launch(1, 1, [np.zeros(1, np.uint32)] * 2 + [np.uint32(1)])
except CudaContextLost as e:
    print("LOST", e)
"""


@pytest.mark.parametrize("kernel", ["t", "bad"])
def test_fault_names_kernel_and_cuda_error(kernel):
    """In a child process: after a trap or an illegal address CUDA accepts no more work in the process."""
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", FAULT_SCRIPT, kernel], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    out = r.stdout
    assert r.returncode == 0, out + r.stderr
    fault = re.search(r"^FAULT (\w+) (CUDA_ERROR_\w+) True$", out, re.M)
    assert fault and fault.group(1) == kernel, out
    assert re.search(rf"^MESSAGE CUDA_ERROR_\w+: .*: kernel {kernel} on the GPU \(grid \(1, 1, 1\), block \(32, 1, 1\)\); "
                     r"the GPU is now unusable in this process", out, re.M), out
    assert re.search(rf"^LOST the GPU is unusable in this process: kernel {kernel} failed with CUDA_ERROR_\w+", out, re.M), out


def _replayable(family):
    """Recorded texture/surface goldens the GPU backend can run: object handles only (no .texref
    bindings, which this driver no longer offers) and no expected fault (it would end the context)."""
    from ptxvm.conformance import golden as G

    directory = G.default_dir()
    if family not in G.families_present(directory):
        pytest.skip(f"no {family} goldens")
    cases = G.GoldenFamily(family, directory).meta["cases"]
    return directory, {cid for cid, m in cases.items() if m.get("status") == "recorded" and not m.get("expect_fault")
                       and not any(r.get("ref") for r in m.get("resources", ()))}


def _families():
    from ptxvm.conformance import golden as G

    return G.families_present(G.default_dir()) or ["texture"]


@pytest.mark.parametrize("family", _families())
def test_conformance_goldens_replay_through_the_backend(family):
    """Every recorded case (but expected faults and .texref bindings) run with device='cuda' gives
    the recorder's bits: scalars, arrays, by-value parameters, ptxvm.texture_object /
    surface_object (CUDA arrays and objects with the same data and settings) and ptxvm.tensor_map
    (re-aimed at the GPU copy of its DeviceArray)."""
    from ptxvm.conformance import check as C

    if family == "isa9x":
        pytest.skip("PTX ISA 9.1+ cases: the H200's driver (580, CUDA 13.0) JIT-compiles PTX up to 9.0 only "
                    "(CUDA_ERROR_UNSUPPORTED_PTX_VERSION); their goldens come from ptxas 13.5 cubins")
    directory, ok = _replayable(family)
    results = C.check(directory, "full", [family], case_filter=ok.__contains__, device="cuda")
    assert len(results) == len(ok)
    bad = [r for r in results if r.status not in ("verified", "undefined")]
    assert not bad, "\n".join(f"{r.id}: {r.status}: {r.reason}"[:300] for r in bad[:10])


def test_compare_a_surface_kernel_cpu_vs_gpu():
    s = np.arange(8 * 16, dtype=np.uint32).reshape(8, 16)
    surf = ptxvm.surface_object(s)
    before = s.copy()
    report = ptxvm.compare(ptxvm.loads(kernels.SURFACE_SQUARE)["square"], 1, (16, 8), [surf], devices=("cpu", "cuda"))
    assert report.ok and report.arrays[0].identical, str(report)
    assert np.array_equal(s, before)  # compare never writes the caller's surface
    ptxvm.loads(kernels.SURFACE_SQUARE, device="cuda")["square"].launch(1, (16, 8), [surf])
    assert np.array_equal(s, before * before)  # a device launch writes it back in place


def test_compare_a_tensor_map_store_cpu_vs_gpu():
    from .test_compare import tensor_store_launch

    kernel, grid, block, args = tensor_store_launch()
    report = ptxvm.compare(kernel, grid, block, args, devices=("cpu", "cuda"))
    assert report.ok and any(isinstance(args[a.position], ptxvm.DeviceArray) for a in report.arrays), str(report)


def test_compare_module_variables_cpu_vs_gpu():
    from .test_compare import symbol_launch

    k, args = symbol_launch()
    k.module.write_symbol("gcount", np.array([41], np.uint32))
    report = ptxvm.compare(k, 1, 1, args, symbols=["gcount", "cscale"])
    assert report.ok and [a.name for a in report.arrays[1:]] == ["gcount", "cscale"], str(report)
    assert k.module.on("cuda").read_symbol("gcount", np.uint32)[0] == 42


LINK_HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
LINK_MAIN = LINK_HEAD + """
.extern .func (.param .b32 r) twice(.param .b32 x);
.extern .global .align 4 .u32 bias;
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    { .param .b32 a; .param .b32 r; st.param.b32 [a], %r1;
      call (r), twice, (a); ld.param.b32 %r2, [r]; }
    ld.global.u32 %r3, [bias];
    add.u32 %r2, %r2, %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""
LINK_LIB = LINK_HEAD + """
.visible .global .align 4 .u32 bias = 1000;
.visible .func (.param .b32 r) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    shl.b32 %r2, %r1, 1;
    st.param.b32 [r], %r2;
    ret;
}
"""


def test_linked_program_runs_the_same_on_the_gpu():
    """A kernel calling an .extern function and reading an .extern variable of another module: the
    linker's one module JIT-compiled by the driver (H200: bitwise identical to the CPU engine)."""
    import ptxvm

    report = ptxvm.compare(ptxvm.loads([LINK_MAIN, LINK_LIB]), 1, 64, [np.zeros(64, np.uint32)], kernel="k")
    assert report.ok, str(report)


def test_unresolved_functions_are_named_before_the_driver_refuses():
    import ptxvm

    corpus = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
    with pytest.raises(ptxvm.LaunchError, match="_Z10missing_fni"):
        ptxvm.load([str(corpus / "link_main.sm_90-rdc.ptx"), str(corpus / "link_lib.sm_90-rdc.ptx")], device="cuda")
