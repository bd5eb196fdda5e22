"""Reads that share DRAM with write-backs wait longer (issue 20, helper pipe20; `dram_writeback_latency`,
docs/timing-model.md section 3, pinned by benchmarks/timing/cpasync5 on the H200).

A load's L2 fills that evict dirty lines and a store's write-backs are the SM's write traffic;
SmSim.dram adds `dram_writeback_latency` x (that traffic's recent share of the SM's DRAM time, at
most 1) to a DRAM access's latency. Structural checks only: which accesses carry write-backs,
the formula, that the extra grows with the parameter; no GPU timings."""
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.params import DEFAULT
from ptxvm.timing.sm import SmSim

ROOT = Path(__file__).resolve().parents[2]
STREAMS = ROOT / "benchmarks" / "timing" / "micro4" / "streams.ptx"
CPASYNC5 = ROOT / "benchmarks" / "timing" / "cpasync5"
GRID, BLOCK = 132 * 8, 256


@pytest.fixture(scope="module")
def streams():
    return ptxvm.load(str(STREAMS))


def _cycles(mod, kind, mib, cold, **params):
    n = mib * (1 << 20) // 4
    buf = lambda: np.zeros(n, np.uint32)  # noqa: E731
    args = [buf(), np.zeros(GRID * BLOCK, np.uint32), np.int64(n)] if kind == "rd4" else [buf(), buf(), np.int64(n)]
    return mod[kind].profile(GRID, BLOCK, args, warm_l2=not cold, functional="sampled",
                             params=DEFAULT.with_(**params)).sm_cycles


def _bare_sim(**params):
    """An SmSim with only its DRAM server set up (SmSim.dram's state)."""
    sim = SmSim.__new__(SmSim)
    sim.params = DEFAULT.with_(**params)
    sim.dram_cyc = 2.0
    sim.dram_free = sim.dram_busy = sim.dram_util = sim.dram_wb_util = sim.dram_last = 0.0
    return sim


def test_the_extra_latency_follows_the_write_back_share():
    loaded = DEFAULT.dram_loaded_latency
    reads = _bare_sim(dram_writeback_latency=400.0)
    _, extra_reads = reads.dram(0.0, 1000.0)  # 2000 cycles of reads: utilization 1, no write-backs
    assert extra_reads == pytest.approx(loaded)
    mixed = _bare_sim(dram_writeback_latency=400.0)
    _, extra_mixed = mixed.dram(0.0, 1000.0, 500.0)  # half of it write-backs
    assert extra_mixed == pytest.approx(loaded + 400.0 * 0.5)
    full = _bare_sim(dram_writeback_latency=400.0)
    _, extra_full = full.dram(0.0, 4000.0, 4000.0)  # more than the window: capped at the parameter
    assert extra_full == pytest.approx(loaded + 400.0)
    off = _bare_sim(dram_writeback_latency=0.0)
    assert off.dram(0.0, 1000.0, 500.0)[1] == pytest.approx(loaded)


def test_the_write_back_share_decays_with_the_utilization():
    sim = _bare_sim(dram_writeback_latency=400.0)
    sim.dram(0.0, 1000.0, 1000.0)
    later = sim.dram(1.0e6, 1.0)[1]  # long after: both shares have decayed away
    assert later < 1.0


def test_a_cold_copy_waits_longer_with_more_write_back_latency(streams):
    """A 4-B copy is latency-bound (one 128-B load per warp in flight) and writes back what it
    evicts: its time grows with the parameter."""
    off = _cycles(streams, "cp4", 16, cold=True, dram_writeback_latency=0.0)
    on = _cycles(streams, "cp4", 16, cold=True)
    more = _cycles(streams, "cp4", 16, cold=True, dram_writeback_latency=2 * DEFAULT.dram_writeback_latency)
    assert off < on < more


def test_loads_carry_the_dirty_sectors_their_fills_evict(streams):
    """The trace hands the SM model each load's evicted dirty sectors (SmWork.dram_evicted)
    under the cold convention's dirty L2, and none when the L2 holds nothing dirty."""
    import importlib

    from ptxvm.timing.gpu import load_gpu
    from ptxvm.timing.trace import build_work

    prof = importlib.import_module("ptxvm.timing.profile")
    n = 4 * (1 << 20) // 4
    args = [np.zeros(n, np.uint32), np.zeros(GRID * BLOCK, np.uint32), np.int64(n)]
    for warm, expect in ((False, True), (True, False)):
        col = prof.collect(streams["rd4"], (GRID, 1, 1), (BLOCK, 1, 1), args, 0, "h200", functional="sampled",
                           warm_l2=warm)
        trace, mem, _, _ = col.sms[0]
        work, _ = build_work(trace, mem, load_gpu("h200"), DEFAULT, col.per_sm[0], col.occ.regs_per_thread)
        assert bool(work.dram_evicted and any(work.dram_evicted)) is expect


def test_cpasync5_sources_and_ptx_are_kept():
    for name, kernel in (("mixed", "mixed_cp16_k1_w16"), ("barrier", "bstream_cp16_k1_s1")):
        assert (CPASYNC5 / f"{name}.cu").exists()
        assert kernel in ptxvm.load(str(CPASYNC5 / f"{name}.ptx")).kernels
