"""A small GPU description for the memory-model tests (the real ones live in ptxvm/timing/gpus)."""
from types import MappingProxyType, SimpleNamespace

import numpy as np
import pytest

LATENCY = MappingProxyType({
    "shared": 30, "l1_hit": 35, "l2_hit": 250, "dram": 500, "const_hit": 8, "const_miss": 250,
    "tex_hit": 40, "atomic_global": 400, "atomic_shared": 40, "barrier": 20, "branch": 10,
})


def fake_gpu(**over):
    spec = dict(
        name="fake", sm_count=4, clock_hz=1.0e9, l1_shared_bytes=64 * 1024,
        shared_carveouts=(0, 8, 16, 32, 48), l1_line=128, sector=32, l2_bytes=1 << 20,
        l2_assoc=16, dram_bytes_per_s=64.0e9, l2_bytes_per_clk=128.0, latency=LATENCY,
        measured=MappingProxyType({}),
    )
    spec.update(over)
    return SimpleNamespace(**spec)


@pytest.fixture
def gpu():
    return fake_gpu()


LANES = np.arange(32, dtype=np.uint64)


def warp(addresses):
    """(1, 32) uint64 addresses of one warp."""
    return np.asarray(addresses, dtype=np.uint64).reshape(1, 32)


ALL = np.ones((1, 32), bool)
