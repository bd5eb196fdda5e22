"""Tests marked `gpu` need an NVIDIA GPU, its driver and cuda-core/cuda-bindings; elsewhere they
are skipped with the reason ptxvm gives (`pytest -m gpu tests/backends` runs only them)."""
import functools

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs an NVIDIA GPU, its driver and ptxvm[cuda] (skipped elsewhere)")


@functools.lru_cache(maxsize=1)
def gpu_missing():
    from ptxvm.backends.cuda import gpu_available

    return gpu_available()


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("gpu") is not None:
            reason = gpu_missing()
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=f"no usable GPU: {reason}"))
