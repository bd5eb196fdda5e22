"""DRAM row opens and the slowest of a request's DRAM lines (ptxvm/timing/memory/dram.py)."""
import numpy as np
import pytest

from ptxvm.engine.trace.events import Footprint
from ptxvm.timing.memory import MemoryHierarchy, coalesce
from ptxvm.timing.memory.dram import RowTracker, slowest_of

from .conftest import ALL, LANES, warp


def test_a_stream_opens_each_row_once():
    t = RowTracker(row_bytes=2048, window=4)
    opens = [t.request(np.arange(k, k + 128, 32, dtype=np.uint64)) for k in range(0, 8192, 128)]
    assert sum(opens) == 4  # 64 requests of 128 B through four 2-KiB rows
    assert opens[0] == 1 and opens[1] == 0


def test_random_sectors_open_a_row_each_and_the_window_forgets():
    t = RowTracker(row_bytes=2048, window=2)
    rows = np.array([0, 5, 9, 5, 0], dtype=np.uint64) * np.uint64(2048)
    got = [t.request(rows[i:i + 1]) for i in range(len(rows))]
    assert got == [1, 1, 1, 0, 1]  # row 0 left the 2-row window before it came back
    with pytest.raises(ValueError, match="power of two"):
        RowTracker(row_bytes=3000)


def test_slowest_of_grows_with_log2_of_the_lines():
    assert slowest_of(1, 74.0) == 0.0
    assert slowest_of(2, 74.0) == pytest.approx(74.0)
    assert slowest_of(32, 74.0) == pytest.approx(5 * 74.0)


def test_hierarchy_counts_row_opens_of_dram_fetches_only(gpu):
    m = MemoryHierarchy(gpu, 1)
    streaming = coalesce(np.uint64(1 << 30) + LANES * np.uint64(4), None, 4)
    m.load(streaming)
    assert m.last["row_opens"].tolist() == [1]
    m.load(streaming)  # an L1 hit now: nothing from DRAM, nothing opened
    assert m.last["row_opens"].tolist() == [0]
    scattered = coalesce(warp(np.uint64(1 << 31) + LANES * np.uint64(1 << 16)), ALL, 4)
    m.load(scattered)
    assert m.last["row_opens"].tolist() == [32]
    assert m.counters()["dram_row_opens"] == 33


def test_footprint_counts_fetch_chunks():
    f = Footprint()
    f.seen = np.zeros(16, bool)
    f.seen[[0, 1, 4, 9]] = True  # sectors 0,1 share a 64-B chunk; 4 and 9 are alone
    assert f.sectors == 4 and f.chunks(2) == 3 and f.chunks(1) == 4 and f.chunks(4) == 3
