"""Per-thread walks and the L1 (benchmarks/timing/walk; docs/timing-model.md section 3, "L1 reuse
across a loop's trips" and "the driver's carveout"). Structural: no GPU timings asserted."""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.gpu import load_gpu
from ptxvm.timing.memory import coalesce
from ptxvm.timing.memory.params import driver_carveout
from ptxvm.timing.trace import RecentSectors

WALK = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "timing", "walk", "walk.ptx")


def test_the_driver_carveout_reserves_for_the_sm_cta_limit_and_the_resident_ctas():
    gpu = load_gpu("h200")
    assert driver_carveout(gpu, 0, 8) == 32  # 32 CTAs x 1 KiB reserved, although 8 need 8 KiB (ncu, walk)
    assert driver_carveout(gpu, 100 << 10, 2) == 228  # 2 x 101 KiB (ncu, walk carveout)
    assert driver_carveout(gpu, 100 << 10, 1) == 132  # one CTA resident: 101 KiB
    assert driver_carveout(gpu, 32 << 10, 2) == 100  # 2 x 33 KiB (memory_counters l1cap)
    assert driver_carveout(gpu, 227 << 10, 1) == 228


def _sectors(lines):
    return coalesce((np.asarray(lines, np.uint64) * np.uint64(128))[None, :], None, 4)


def test_a_sector_merges_with_the_same_warps_loads_of_its_run_only():
    r = RecentSectors()
    c = _sectors(np.arange(32))
    assert not r.merged(np.array([0]), c).any()  # the first load: nothing in flight
    assert r.merged(np.array([0]), c).all()  # the same warp, the same run: its fills in flight
    assert not r.merged(np.array([1]), c).any()  # another warp never merges
    r.new_run(np.array([0]))  # warp 0 branched: a loop's next trip
    assert not r.merged(np.array([0]), c).any()  # now the L1 must still hold the line
    assert r.merged(np.array([0]), c).all()


@functools.lru_cache(maxsize=None)
def _walk_hits(kernel: str, shared: int) -> float:
    mod = ptxvm.load(WALK)
    k, threads = 32, 512  # 128 B a thread: a line each
    args = [np.ones(threads * k, np.float32), np.zeros(threads, np.float32), np.zeros(1, np.int64), np.int32(k)]
    p = mod[kernel].profile(1, threads, args, warm_l2=False, shared_mem=shared)
    c = p.counters
    return c["l1_hits"] / (c["l1_hits"] + c["l1_misses"])


@pytest.mark.skipif(not os.path.exists(WALK), reason="benchmarks/timing/walk/walk.ptx not in this checkout")
def test_a_one_load_per_trip_walk_hits_the_l1_only_while_its_lines_fit():
    # 512 threads, each its own line: 7 of 8 loads of a sector hit a 224-KiB L1, none a 28-KiB one
    # (100 KiB of shared memory a CTA, 2 CTAs resident: the 228-KiB carveout, 224 lines for 512;
    # the H200: 87 % and 0 %, walk_ld_u1 K=32 with 2 CTAs of 256 per SM)
    assert _walk_hits("walk_ld_u1", 0) == pytest.approx(7 / 8)
    assert _walk_hits("walk_ld_u1", 100 << 10) < 0.1


@pytest.mark.skipif(not os.path.exists(WALK), reason="benchmarks/timing/walk/walk.ptx not in this checkout")
def test_an_unrolled_walk_keeps_the_merges_of_each_run_when_its_lines_do_not_fit():
    # 4 loads of one sector back to back: 3 merge with the first's fill (the H200: 73-79 %)
    assert _walk_hits("walk_ld_u4", 100 << 10) == pytest.approx(3 / 4, abs=0.05)
    assert _walk_hits("walk_ld_u4", 0) == pytest.approx(7 / 8)


class _Hier:
    def __init__(self, dram_bytes):
        from collections import Counter

        self._n = Counter(dram_bytes_read=dram_bytes)


def test_an_sms_refetches_of_its_own_data_are_not_shared_away():
    from ptxvm.timing.profile import _share_l2

    # the SM read 3000 sectors from DRAM; its own distinct data is 1000 sectors, its share of the
    # grid's 1000 too: the 2000 beyond are its own lines fetched again (the L2 lost them)
    private = _Hier(3000 * 32)
    _share_l2({}, private, 1000 * 32, 32, reuse=0.5, own_bytes=1000 * 32, sharing=1.0)
    assert private._n["dram_bytes_read"] == 3000 * 32
    # every SM reads the same data (sharing = SMs): the grid's share is far smaller, and a refetch
    # finds the line in L2 (another SM's fill) with the L2's reuse chance
    shared = _Hier(3000 * 32)
    _share_l2({}, shared, 10 * 32, 32, reuse=1.0, own_bytes=1000 * 32, sharing=100.0)
    assert shared._n["dram_bytes_read"] < 100 * 32
    # without the SM's own data (as before): everything beyond the share counts as shared
    old = _Hier(3000 * 32)
    _share_l2({}, old, 1000 * 32, 32, reuse=1.0)
    assert old._n["dram_bytes_read"] == 1000 * 32
