"""The pytest plugin: ptxvm_device parametrizes over cpu and cuda; assert_same compares devices."""
import numpy as np
import pytest

import ptxvm
import ptxvm.testing

pytest_plugins = ["pytester"]


def _plugin_args():
    """-p ptxvm.pytest_plugin unless the installed entry point already loads it."""
    from importlib.metadata import entry_points

    installed = any(e.value == "ptxvm.pytest_plugin" for e in entry_points(group="pytest11"))
    return [] if installed else ["-p", "ptxvm.pytest_plugin"]

SAXPY = "examples/saxpy.ptx"


def test_ptxvm_device_parametrizes_and_skips_cuda_without_a_gpu(pytester):
    pytester.makepyfile("""
        def test_k(ptxvm_device):
            assert ptxvm_device in ("cpu", "cuda")
    """)
    result = pytester.runpytest(*_plugin_args(), "-rs")
    from ptxvm.backends.cuda import gpu_available
    if gpu_available() is None:
        result.assert_outcomes(passed=2)
    else:
        result.assert_outcomes(passed=1, skipped=1)
        result.stdout.fnmatch_lines(["*no GPU for ptxvm_device='cuda'*"])


def test_devices_option_restricts(pytester):
    pytester.makepyfile("""
        def test_k(ptxvm_device):
            assert ptxvm_device == "cpu"
    """)
    pytester.runpytest(*_plugin_args(), "--ptxvm-devices=cpu").assert_outcomes(passed=1)


def test_assert_same_on_two_cpu_runs_passes_and_reports():
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    report = ptxvm.testing.assert_same(SAXPY, 4, 256, [np.int32(1000), np.float32(2), x, y], kernel="saxpy",
                                       devices=("cpu", "cpu"))
    assert report.ok
