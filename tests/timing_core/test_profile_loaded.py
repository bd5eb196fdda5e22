"""Loads in flight under the timing model, on the `loaded` microbenchmark kernel that pinned the rules
(benchmarks/timing/loaded/loaded.cu, strided_k<K>: K independent loads of a warp in flight, then
their values feed the next round's addresses). Expectations are relative to the model's
parameters, so recalibrating keeps them; no GPU timing is asserted."""
import functools
import math
import os

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.params import DEFAULT

PTX = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "timing", "loaded", "loaded.ptx")
ROUNDS = 8
WINDOW = 8 << 20  # bytes of the buffer the addresses wrap in


@pytest.fixture(scope="module")
def module():
    return ptxvm.load(PTX)


def per_round(module, k: int, stride: int = 4, warps: int = 1, **params) -> float:
    return _per_round(module, k, stride, warps, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=None)
def _per_round(module, k, stride, warps, params) -> float:
    """SM cycles per round of one CTA of `warps` warps, K loads each, from a flushed L2 (DRAM)."""
    params = dict(params)
    buf = np.zeros(WINDOW // 4, np.int32)
    lstride = stride.bit_length() - 1
    args = [buf, np.zeros(1, np.int64), np.zeros(1, np.int32), np.int32(lstride), np.int32(max(0, lstride - 5)),
            np.uint64(WINDOW - 1), np.int32(ROUNDS)]
    p = module[f"strided_k{k}"].profile(1, 32 * warps, args, warm_l2=False, params=DEFAULT.with_(**params))
    return p.sm_cycles / ROUNDS


def test_a_warp_waits_for_the_slowest_line_of_all_its_loads_in_flight(module):
    """K one-line DRAM loads of a warp in flight: the round ends with the slowest of K lines,
    tail x log2(K) later than each alone (`loaded`: 74 x log2 K beyond K = 1, K = 2..16)."""
    for k in (2, 8):
        group = per_round(module, k)
        alone = per_round(module, k, dram_tail_per_warp=False)
        assert group - alone == pytest.approx(DEFAULT.dram_tail_cycles * math.log2(k), rel=0.15), k


def test_one_load_in_flight_has_no_tail_and_finished_fills_are_forgotten(module):
    """K = 1: each round's load is alone (the previous one is back before it issues), so the
    per-warp rule changes nothing however many rounds the warp has done."""
    assert per_round(module, 1) == pytest.approx(per_round(module, 1, dram_tail_per_warp=False), rel=0.005)


def test_the_tail_is_off_when_its_cycles_are_zero(module):
    flat = per_round(module, 4, dram_tail_cycles=0.0)
    assert flat == pytest.approx(per_round(module, 4, dram_tail_cycles=0.0, dram_tail_per_warp=False), rel=0.005)
    assert per_round(module, 4) > flat


def test_one_request_of_many_lines_keeps_its_own_tail(module):
    """A single 32-line request (stride 4 KiB, K = 1): the per-warp rule adds nothing to it."""
    assert per_round(module, 1, stride=4096) == pytest.approx(
        per_round(module, 1, stride=4096, dram_tail_per_warp=False), rel=0.005)


# ---- the slowest SM (timing/slowest.py)

def test_the_slowest_of_one_sm_is_the_typical_sm_and_of_all_sms_the_full_extra():
    from ptxvm.timing import load_gpu
    from ptxvm.timing.slowest import slowest_fraction, slowest_sm_gpu

    gpu = load_gpu("h200")
    assert slowest_fraction(1, gpu.sm_count) == 0.0
    assert slowest_fraction(gpu.sm_count, gpu.sm_count) == 1.0
    fr = [slowest_fraction(n, gpu.sm_count) for n in (1, 2, 8, 33, 132)]
    assert fr == sorted(fr) and 0 < fr[1] < fr[-1]
    assert slowest_sm_gpu(gpu, DEFAULT, 1) is gpu  # one busy SM: the latencies the one-SM chases pinned
    full = slowest_sm_gpu(gpu, DEFAULT, gpu.sm_count)
    assert full.latency["l2_hit"] == pytest.approx(gpu.latency["l2_hit"] + DEFAULT.slowest_sm_l2_cycles)
    assert full.latency["dram"] == pytest.approx(gpu.latency["dram"] + DEFAULT.slowest_sm_dram_cycles)
    assert full.latency["l1_hit"] == gpu.latency["l1_hit"]
    off = DEFAULT.with_(slowest_sm_l2_cycles=0.0, slowest_sm_dram_cycles=0.0)
    assert slowest_sm_gpu(gpu, off, gpu.sm_count) is gpu


def _grid_round(module, ctas: int, **params) -> float:
    buf = np.zeros(WINDOW // 4, np.int32)
    args = [buf, np.zeros(ctas, np.int64), np.zeros(ctas, np.int32), np.int32(2), np.int32(0),
            np.uint64(WINDOW - 1), np.int32(ROUNDS)]
    p = module["strided_k1"].profile(ctas, 32, args, warm_l2=False, functional="sampled",
                                     params=DEFAULT.with_(**params))
    return p.sm_cycles / ROUNDS


def test_a_dram_latency_bound_grid_over_every_sm_waits_for_the_slowest_sm(module):
    off = dict(slowest_sm_l2_cycles=0.0, slowest_sm_dram_cycles=0.0)
    every = _grid_round(module, 132) - _grid_round(module, 132, **off)
    # each round is one dependent DRAM load: it comes back the slowest SM's extra later
    assert every == pytest.approx(DEFAULT.slowest_sm_dram_cycles, rel=0.2)
    assert _grid_round(module, 1) == pytest.approx(_grid_round(module, 1, **off), rel=0.002)


def test_the_row_window_holds_the_rows_of_one_warp_request():
    """A warp request whose 32 lines lie 4 KiB apart touches 32 DRAM rows; the SM's next warp
    reading other sectors of the same lines finds them open (`loaded`, lanes 4 KiB apart)."""
    from ptxvm.timing.memory.dram import RowTracker
    from ptxvm.timing.memory.params import OPTIONAL

    t = RowTracker(OPTIONAL["dram_row_bytes"], OPTIONAL["dram_row_window"])
    lanes = np.arange(32, dtype=np.uint64) * np.uint64(4096)
    assert t.request(lanes) == 32
    assert t.request(lanes + np.uint64(32)) == 0  # the next warp, the next sector of each line
    assert t.request(lanes + np.uint64(64 << 20)) == 32  # 32 other rows push them all out
    assert t.request(lanes) == 32


def per_round_shared(module, shared: int, **params) -> float:
    """As per_round for one CTA of 8 warps, 16 loads of 32 lines each (lanes 4 KiB apart), with
    `shared` bytes of dynamic shared memory per CTA (the carveout, so the L1 beside it)."""
    return _per_round_shared(module, shared, tuple(sorted(params.items())))


@functools.lru_cache(maxsize=None)
def _per_round_shared(module, shared, params) -> float:
    buf = np.zeros(WINDOW // 4, np.int32)
    args = [buf, np.zeros(1, np.int64), np.zeros(1, np.int32), np.int32(12), np.int32(7), np.uint64(WINDOW - 1),
            np.int32(2)]
    p = module["strided_k16"].profile(1, 256, args, warm_l2=False, shared_mem=shared,
                                      params=DEFAULT.with_(**dict(params)))
    return p.sm_cycles / 2


def test_misses_in_flight_are_bounded_by_the_l1_lines_beside_the_carveout(module):
    """`loaded --carveout`: 8 warps x 16 loads of 32 DRAM lines; with 200 KiB of shared memory
    (the 228 KiB carveout: a 28 KiB L1, 224 lines) a round is far slower than with none (1.67x on
    the H200); without the rule the carveout changes nothing."""
    none, small_l1 = per_round_shared(module, 0), per_round_shared(module, 200 << 10)
    assert small_l1 > 1.3 * none
    assert per_round_shared(module, 200 << 10, l1_miss_lines=False) == pytest.approx(
        per_round_shared(module, 0, l1_miss_lines=False), rel=0.01)


def test_l1_room_waits_for_the_earliest_fills_only_when_the_lines_are_taken():
    from ptxvm.timing.sm import SmSim

    sim = SmSim.__new__(SmSim)  # only the L1 line pool: l1_room reads l1_lines and in_flight
    sim.l1_lines, sim.in_flight = 4, [100.0, 200.0, 300.0, 400.0]
    assert sim.l1_room(50.0, 2) == 200.0  # two lines free once the two earliest fills are back
    assert sim.in_flight == [300.0, 400.0]
    assert sim.l1_room(350.0, 1) == 350.0  # the 300 fill is back: room at once
    sim.in_flight = [500.0]
    assert sim.l1_room(0.0, 9) == 500.0  # more lines than the L1 holds: wait for all of it, no more
