"""The DRAM mechanisms of issue 20 (memory/dram.py) through a whole profile, on the micro3 chase
kernel that pinned them (benchmarks/timing/micro3/dram.cu). Expectations are relative to the
model's parameters, so recalibrating keeps them."""
import os

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.params import DEFAULT

PTX = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "timing", "micro3", "dram.ptx")
HOPS = 48


@pytest.fixture(scope="module")
def chase():
    return ptxvm.load(PTX)["chase"]


def table(lines_per_hop: int, seed=0):
    """32 lanes; lane l follows chain l % lines_per_hop through random 128-B lines of 8 MiB."""
    rng = np.random.default_rng(seed)
    words = np.zeros((8 << 20) // 4, np.uint32)
    seqs = [1 + rng.choice((8 << 20) // 128 - 1, size=HOPS + 1, replace=False) for _ in range(lines_per_hop)]
    for lane in range(32):
        w = seqs[lane % lines_per_hop] * 32 + lane
        w[0] = lane
        words[w[:-1]] = w[1:]
    return words


def per_hop(chase, lines, **params):
    out = np.zeros(33, np.int64)
    p = chase.profile(1, 32, [table(lines), out, np.int32(HOPS)], warm_l2=False, params=DEFAULT.with_(**params))
    return p.sm_cycles / HOPS


def test_a_warp_waits_for_the_slowest_of_its_dram_lines(chase):
    one, many = per_hop(chase, 1), per_hop(chase, 32)
    flat = per_hop(chase, 32, dram_tail_cycles=0.0)
    assert many - flat == pytest.approx(5 * DEFAULT.dram_tail_cycles, rel=0.1)
    assert per_hop(chase, 1, dram_tail_cycles=0.0) == pytest.approx(one, rel=0.01)  # one line: no tail
    assert per_hop(chase, 4) - per_hop(chase, 4, dram_tail_cycles=0.0) == pytest.approx(
        2 * DEFAULT.dram_tail_cycles, rel=0.1)


def _gather_us(order: str, open_bytes=None):
    import dataclasses

    from ptxvm.timing import load_gpu

    gpu = load_gpu("h200")
    if open_bytes is not None:
        gpu = dataclasses.replace(gpu, measured={**gpu.measured, "dram_row_open_bytes": open_bytes})
    n, granules = 1 << 16, (64 << 20) // 32
    rng = np.random.default_rng(1)
    idx = (rng.integers(0, granules, n) if order == "random" else np.arange(n)).astype(np.uint32)
    tab = np.zeros(granules * 8, np.uint32)
    out = np.zeros(132 * 256, np.uint32)
    k = ptxvm.load(PTX)["gather32"]
    return k.profile(132, 256, [tab, idx, out, np.int32(n)], gpu=gpu, warm_l2=False).sm_cycles


def test_random_granules_pay_a_row_open_each_a_stream_hardly_any():
    random_cost = _gather_us("random") - _gather_us("random", open_bytes=0.0)
    stream_cost = _gather_us("sequential") - _gather_us("sequential", open_bytes=0.0)
    assert random_cost > 0
    assert stream_cost < 0.25 * random_cost


def _write_stream(**params):
    n4 = (16 << 20) // 16
    buf = np.zeros(n4 * 4, np.uint32)
    k = ptxvm.load(PTX)["stream_write"]
    return k.profile(132 * 8, 256, [buf, np.int64(n4)], warm_l2=True, params=DEFAULT.with_(**params)).sm_cycles


def test_a_store_stream_is_bound_by_the_l2_write_rate():
    full = _write_stream()
    half = _write_stream(l2_store_line_cost=DEFAULT.l2_store_line_cost / 2,
                         l2_store_sector_cost=DEFAULT.l2_store_sector_cost / 2)
    assert full > 1.6 * half  # store-bound: halving the L2 cost of a store nearly halves the time
