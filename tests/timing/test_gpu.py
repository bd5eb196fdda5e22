"""GPU descriptions (ptxvm/timing/gpus/*.json) load into complete, consistent GpuSpecs."""
import dataclasses

import pytest

from ptxvm.timing.gpu import LATENCY_KEYS, PIPE_CLASSES, GpuSpec, Pipe, UnknownGpuError, load_gpu


@pytest.mark.parametrize("name", ["h100", "h200", "H200", "h100-sxm"])
def test_descriptions_load_with_every_key(name):
    g = load_gpu(name)
    assert isinstance(g, GpuSpec)
    assert set(LATENCY_KEYS) <= set(g.latency)
    assert set(PIPE_CLASSES) <= set(g.pipes)
    assert all(isinstance(p, Pipe) and p.latency > 0 and p.issue_interval > 0 for p in g.pipes.values())
    assert g.max_threads_per_sm == g.max_warps_per_sm * g.warp_size
    assert g.shared_per_cta_max <= g.shared_per_sm_max < g.l1_shared_bytes
    assert g.shared_carveouts[-1] * 1024 == g.shared_per_sm_max
    assert g.latency["shared"] < g.latency["l2_hit"] < g.latency["dram"]


def test_every_number_says_where_it_came_from():
    g = load_gpu("h200")
    assert "unspecified" not in g.sources.values()
    assert g.sources["sm_count"] == "spec"


def test_h200_differs_from_h100_in_memory_only():
    h100, h200 = load_gpu("h100"), load_gpu("h200")
    assert h200.dram_bytes_per_s > h100.dram_bytes_per_s
    assert h200.sm_count == h100.sm_count == 132


def test_spec_is_frozen():
    g = load_gpu("h200")
    with pytest.raises(dataclasses.FrozenInstanceError):
        g.sm_count = 1
    with pytest.raises(TypeError):
        g.latency["dram"] = 1


def test_unknown_name_is_a_clear_error():
    with pytest.raises(UnknownGpuError, match="unknown GPU 'a100'.*h100, h200"):
        load_gpu("a100")
