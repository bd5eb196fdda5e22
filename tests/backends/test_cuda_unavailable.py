"""device='cuda' where it cannot work: a clear error (not a PtxError) saying what is missing."""
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ptxvm
from ptxvm.backends import check_device, compare as compare_module, cuda_driver
from ptxvm.backends.cuda import gpu_available
from ptxvm.backends.cuda_driver import CudaUnavailableError
from ptxvm.cli import main

SAXPY = Path(__file__).resolve().parents[2] / "examples" / "saxpy.ptx"
NEEDS = "ptxvm: device='cuda' needs an NVIDIA driver and the optional extra ptxvm[cuda] (cuda-core)"


@pytest.fixture
def fresh_runtimes(monkeypatch):
    monkeypatch.setattr(cuda_driver, "_RUNTIMES", {})


def test_without_the_packages(monkeypatch, fresh_runtimes):
    for name in ("cuda", "cuda.bindings", "cuda.bindings.driver", "cuda.core", "cuda.core.experimental"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails
    with pytest.raises(CudaUnavailableError) as info:
        ptxvm.load(SAXPY, device="cuda")
    assert not isinstance(info.value, ptxvm.PtxError)
    assert str(info.value).startswith(NEEDS) and "cuda.bindings (cuda-python) is not installed" in str(info.value)
    assert "pip install 'ptxvm[cuda]'" in str(info.value)
    assert gpu_available() == "cuda.bindings (cuda-python) is not installed"


class FakeDriver:
    """cuda.bindings.driver as it answers on a machine with a driver but no GPU."""

    def cuInit(self, flags):
        return (100,)

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_NO_DEVICE")

    def cuGetErrorString(self, err):
        return (0, b"no CUDA-capable device is detected")


def test_with_a_driver_but_no_device(monkeypatch, fresh_runtimes):
    monkeypatch.setattr(cuda_driver, "_import_driver", lambda: FakeDriver())
    monkeypatch.setattr(cuda_driver, "_import_core", lambda: None)
    with pytest.raises(CudaUnavailableError, match="the driver reports CUDA_ERROR_NO_DEVICE") as info:
        ptxvm.load(SAXPY)["saxpy"].on("cuda")
    assert str(info.value).startswith(NEEDS)


def test_this_machine_says_why(fresh_runtimes):
    reason = gpu_available()
    if reason is None:
        pytest.skip("this machine has a usable GPU")
    with pytest.raises(CudaUnavailableError, match=r"^ptxvm: device='cuda' needs"):
        ptxvm.loads(SAXPY.read_text(), device="cuda")


def test_device_names():
    assert check_device("cpu") == "cpu" and check_device("cuda:1") == "cuda:1"
    for bad in ("gpu", "cuda:x", "cpu:0"):
        with pytest.raises(ValueError, match="unknown device"):
            check_device(bad)
    mod = ptxvm.load(SAXPY)
    assert mod.on("cpu") is mod and mod["saxpy"].on("cpu").name == "saxpy"


def test_load_takes_ptx_text():
    mod = ptxvm.load(SAXPY.read_text())
    assert "saxpy" in mod.kernels and mod.file == "<string>"


# ------------------------------------------------------------------------------------ CLI
def cli_args(tmp_path, n=300):
    x, y = tmp_path / "x.npy", tmp_path / "y.npy"
    np.save(x, np.arange(n, dtype=np.float32))
    np.save(y, np.ones(n, np.float32))
    return ["run", str(SAXPY), "-k", "saxpy", "-g", "2", "-b", "256", "-a", f"s32:{n}", "-a", "f32:2",
            "-a", f"in:{x}", "-a", f"inout:{y}"], y


def test_cli_device_cuda_without_a_gpu(monkeypatch, tmp_path, fresh_runtimes):
    monkeypatch.setattr(cuda_driver, "_import_driver", lambda: None)
    args, _ = cli_args(tmp_path)
    r = CliRunner().invoke(main, args + ["--device", "cuda"])
    assert r.exit_code == 2 and NEEDS in r.output
    r = CliRunner().invoke(main, args + ["--compare"])
    assert r.exit_code == 2 and NEEDS in r.output


def fake_gpu(nudge: bool):
    def run(module, name, grid, block, args, shared_mem, cluster):
        module.kernel(name).launch(grid, block, args, shared_mem=shared_mem, cluster=cluster)
        if nudge:
            args[3][5] = np.nextafter(args[3][5], np.float32(np.inf))
    run.label = "cuda"
    return run


@pytest.mark.parametrize("nudge,code", [(False, 0), (True, 1)])
def test_cli_compare(monkeypatch, tmp_path, nudge, code):
    real = compare_module._runner
    monkeypatch.setattr(compare_module, "_runner", lambda d: real(fake_gpu(nudge)) if d == "cuda" else real(d))
    args, y = cli_args(tmp_path)
    r = CliRunner().invoke(main, args + ["--compare"])
    assert r.exit_code == code, r.output
    assert "compare saxpy: cpu vs cuda" in r.output
    assert ("1 ulp" in r.output) == nudge
    assert (np.load(y) == 1).all()  # --compare writes nothing back
    r = CliRunner().invoke(main, args + ["--compare", "--json"])
    import json

    assert r.exit_code == code and json.loads(r.output)["ok"] is (not nudge)


def test_cli_cluster_option(tmp_path):
    args, y = cli_args(tmp_path)
    r = CliRunner().invoke(main, args + ["--cluster", "2"])
    assert r.exit_code == 0, r.output
    assert (np.load(y) == 2 * np.arange(300) + 1).all()


# ------------------------------------------------------------------------------------ sticky faults
class FaultingDriver:
    """cuda.bindings.driver after a kernel hit a trap: every call answers CUDA_ERROR_LAUNCH_FAILED."""

    def cuCtxSynchronize(self):
        return (719,)

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_LAUNCH_FAILED")

    def cuGetErrorString(self, err):
        return (0, b"unspecified launch failure")

    def cuMemFree(self, ptr):
        return (719,)

    def cuCtxSetCurrent(self, ctx):
        return (0,)


def faulting_runtime():
    """A Runtime whose launches fail as a trapping kernel's do (no GPU needed)."""
    from ptxvm.backends.cuda_driver import Loaded, Runtime, _DeviceState

    rt = Runtime.__new__(Runtime)
    rt.driver, rt.core, rt.ordinal, rt.shared, rt.name = FaultingDriver(), None, 0, _DeviceState(), "fake GPU"
    rt.load = lambda ptx, name: Loaded(object())
    rt.resolve = lambda loaded, name: None
    rt.alloc = lambda n: 0x1000
    rt.to_device = lambda ptr, data: None

    def launch(*args, **kw):
        raise rt.error(719, "cuCtxSynchronize")
    rt.launch = launch
    rt.make_current = Runtime.make_current.__get__(rt)
    return rt


def test_a_sticky_fault_names_the_kernel_and_the_gpu_stays_unusable(monkeypatch):
    from ptxvm.backends import cuda as cuda_backend
    from ptxvm.backends.cuda import CudaContextLost, CudaKernelFault

    rt = faulting_runtime()
    rt.shared.context = object()  # the primary context, retained
    monkeypatch.setattr(cuda_backend, "runtime", lambda ordinal=0, api=None: rt)
    mod = ptxvm.load(SAXPY).on("cuda")
    y = np.zeros(4, np.float32)
    with pytest.raises(CudaKernelFault) as info:
        mod["saxpy"].launch(1, 4, [np.int32(4), np.float32(1), np.ones(4, np.float32), y])
    e = info.value
    assert isinstance(e, ptxvm.KernelFault) and e.kernel == "saxpy" and e.cuda_error == "CUDA_ERROR_LAUNCH_FAILED"
    assert e.context_lost and e.cta is None and (y == 0).all()
    assert str(e) == ("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure: kernel saxpy on the GPU (grid (1, 1, 1), "
                      "block (4, 1, 1)); the GPU is now unusable in this process (CUDA needs a new process)")
    with pytest.raises(CudaContextLost, match="kernel saxpy failed with CUDA_ERROR_LAUNCH_FAILED; CUDA accepts no more"):
        mod["saxpy"].launch(1, 4, [np.int32(4), np.float32(1), np.ones(4, np.float32), y])


def test_system_calls_are_not_unresolved_but_other_externs_are(monkeypatch, fresh_runtimes):
    """vprintf (and __assertfail, malloc, free) come from the driver's JIT: loading a printf kernel
    gets as far as the runtime (here: no GPU); an .extern function nobody defines is named first."""
    from .ptx_kernels import PRINTF

    for name in ("cuda", "cuda.bindings", "cuda.bindings.driver", "cuda.core", "cuda.core.experimental"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(CudaUnavailableError):
        ptxvm.loads(PRINTF, device="cuda")
    missing = PRINTF.replace("vprintf", "my_log")
    with pytest.raises(ptxvm.LaunchError, match="calls .extern functions no module defines \\(my_log\\)"):
        ptxvm.loads(missing, device="cuda")
