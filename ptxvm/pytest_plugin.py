"""ptxvm's pytest plugin (entry point `pytest11`, active wherever ptxvm is installed).

    def test_saxpy(ptxvm_device):                       # runs once on "cpu", once on "cuda" where a GPU is
        mod = ptxvm.load("saxpy.ptx", device=ptxvm_device)
        ...

    def test_saxpy_same_everywhere():
        ptxvm.testing.assert_same("saxpy.ptx", grid=4, block=256, args=[...], kernel="saxpy")

`ptxvm_device` parametrizes a test over the CPU engine and, where a GPU and cuda.core/cuda-bindings
are present, the real GPU; on a machine without one the "cuda" case is skipped with the reason.
`--ptxvm-devices=cpu` (or `cuda`) restricts the parametrization. A project's kernel tests thus run
unchanged in CPU-only CI and on GPU runners.
"""
from __future__ import annotations

import pytest

DEVICES = ("cpu", "cuda")


def pytest_addoption(parser):
    group = parser.getgroup("ptxvm")
    group.addoption("--ptxvm-devices", default=",".join(DEVICES),
                    help="comma-separated devices for the ptxvm_device fixture (cpu, cuda)")


def pytest_generate_tests(metafunc):
    if "ptxvm_device" in metafunc.fixturenames:
        wanted = [d.strip() for d in metafunc.config.getoption("--ptxvm-devices").split(",") if d.strip()]
        unknown = sorted(set(wanted) - set(DEVICES))
        if unknown:
            raise pytest.UsageError(f"--ptxvm-devices: unknown device(s) {unknown}; use {', '.join(DEVICES)}")
        metafunc.parametrize("ptxvm_device", wanted, indirect=True)


@pytest.fixture
def ptxvm_device(request):
    """"cpu" (ptxvm's engine) or "cuda" (the real GPU, skipped where there is none)."""
    device = request.param
    if device == "cuda":
        from .backends.cuda import gpu_available

        reason = gpu_available()
        if reason is not None:
            pytest.skip(f"no GPU for ptxvm_device='cuda': {reason}")
    return device
