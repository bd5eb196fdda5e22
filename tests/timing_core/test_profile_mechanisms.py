"""The timing model's mechanisms, end to end through Kernel.profile on crafted PTX.

Expectations are stated relative to the GPU description (latencies, issue intervals), so that
calibrating the numbers does not break them.
"""
import numpy as np
import pytest

from ptxvm.timing import load_gpu

from .ptx_cases import STRIDED, bank_kernel, fma_kernel, hot_stream_kernel, load, load_compute_kernel

GPU = load_gpu("h200")


def _bank(stride, loads=64):
    out = np.zeros(256, np.float32)
    return load(bank_kernel(loads))["bank"].profile(1, 256, [out, np.uint32(stride)])


def _per_load(stride):
    """Cycles one more shared load of every warp costs (fixed costs cancel out)."""
    return (_bank(stride, 64).sm_cycles - _bank(stride, 32).sm_cycles) / 32


def test_32_way_bank_conflict_costs_32_times_and_padding_removes_it():
    flat, conflict, padded = _bank(1), _bank(32), _bank(33)
    assert flat.bank_conflicts["wavefronts_per_request"] == 1
    assert conflict.bank_conflicts["wavefronts_per_request"] == 32
    assert padded.bank_conflicts["wavefronts_per_request"] == 1
    assert conflict.bank_conflicts["conflicts"] == 31 * conflict.bank_conflicts["requests"]
    assert padded.bank_conflicts["conflicts"] == 0
    # the loads are bound by the SM's shared-memory data stage (one wavefront per cycle)
    ratio = _per_load(32) / _per_load(1)
    assert 28 <= ratio <= 34, ratio
    assert _per_load(33) == pytest.approx(_per_load(1), rel=0.05)


def _strided(stride):
    n = 4096
    src = np.arange(n * stride, dtype=np.float32)
    out = np.zeros(n, np.float32)
    prof = load(STRIDED)["strided"].profile(n // 256, 256, [src, out, np.uint32(stride)], warm_l2=False)
    assert np.array_equal(out, src[::stride])
    return prof


def test_stride_32_warp_load_needs_32_sectors_unit_stride_4():
    unit, wide = _strided(1), _strided(32)
    assert unit.sectors_per_request == 4
    assert wide.sectors_per_request == 32
    assert unit.store_sectors_per_request == wide.store_sectors_per_request == 4
    assert wide.dram_bytes > 4 * unit.dram_bytes
    assert wide.cycles > unit.cycles


def _hot_stream(op):
    hot = np.ones(4096, np.float32)  # a 16 KiB hot set, each line reused every 16 iterations
    iters = 96
    stream = np.ones(1024 * iters, np.float32)  # 384 KiB streamed once, 64 KiB between reuses
    out = np.zeros(256, np.float32)
    # 200 KiB of dynamic shared memory leave a 28 KiB L1
    prof = load(hot_stream_kernel(op))["hot_stream"].profile(1, 256, [hot, stream, out, np.uint32(iters), np.uint32(4095)],
                                                             shared_mem=200 * 1024)
    assert np.all(out == 2 * iters)
    return prof


def test_streaming_cs_loads_keep_the_hot_set_that_ca_streams_evict():
    ca, cs = _hot_stream("ca"), _hot_stream("cs")
    # per iteration a warp reads 4 hot sectors and 16 streamed ones; the hot ones hit after their
    # first touch (5 of 6 reads) unless the stream evicted them
    assert cs.cache_hit_rates["l1"] == pytest.approx(4 / 20 * 5 / 6, abs=0.02)
    assert ca.cache_hit_rates["l1"] < 0.5 * cs.cache_hit_rates["l1"]
    assert ca.cache_hit_rates["l2"] > 0.1  # with .ca the hot set comes back from L2
    assert cs.cycles <= 1.01 * ca.cycles  # (here both wait on the stream's DRAM reads)


def _fmas(n, chains):
    out = np.zeros(32, np.float32)
    return load(fma_kernel(n, chains))["fmas"].profile(1, 32, [out])


def test_dependent_chain_pays_latency_independent_fmas_pay_issue_interval():
    fp32 = GPU.pipes["fp32"]
    dep = (_fmas(128, 1).sm_cycles - _fmas(64, 1).sm_cycles) / 64
    indep = (_fmas(128, 8).sm_cycles - _fmas(64, 8).sm_cycles) / 64
    assert dep == pytest.approx(fp32.latency, abs=0.5)
    assert indep == pytest.approx(max(fp32.issue_interval, 8 / 8), abs=0.5)
    chain = _fmas(128, 1)
    assert chain.stalls["wait"] > chain.stalls["selected"]  # a fixed-latency result: ncu "wait"


def _load_compute(policy):
    src = np.ones(1024 + 4 * 4096, np.float32)
    out = np.zeros(1024, np.float32)
    return load(load_compute_kernel())["load_compute"].profile(1, 1024, [src, out], policy=policy)


def test_gto_staggers_warps_and_hides_load_latency_better_than_lrr():
    gto, lrr = _load_compute("gto"), _load_compute("lrr")
    assert gto.sm_cycles < 0.92 * lrr.sm_cycles
    assert gto.instruction_mix == lrr.instruction_mix


def test_gto_and_lrr_agree_on_pure_arithmetic():
    out = np.zeros(256, np.float32)
    k = load(fma_kernel(64, 8))["fmas"]
    gto, lrr = k.profile(1, 256, [out], policy="gto"), k.profile(1, 256, [out], policy="lrr")
    assert abs(gto.sm_cycles - lrr.sm_cycles) <= 0.05 * lrr.sm_cycles


def test_unknown_policy_is_refused():
    out = np.zeros(32, np.float32)
    with pytest.raises(ValueError, match="policy"):
        load(fma_kernel(4, 1))["fmas"].profile(1, 32, [out], policy="fifo")


def _hist(private):
    from .ptx_cases import HIST

    ctas = 1056
    data = np.random.default_rng(0).integers(0, 1 << 30, ctas * 256).astype(np.uint32)
    bins = np.zeros(256 * (ctas if private else 1), np.uint32)
    prof = load(HIST)["hist"].profile(ctas, 256, [data, bins, np.uint32(private)])
    expect = np.bincount((data & 255) + (np.repeat(np.arange(ctas), 256) * 256 if private else 0),
                         minlength=bins.size)
    assert np.array_equal(bins, expect)
    return prof


def test_global_atomics_on_lines_every_sm_updates_serialize():
    shared, private = _hist(False), _hist(True)
    # 256 bins shared by all 1056 CTAs: every SM queues on the same 8 lines of L2
    assert shared.sm_cycles > 5 * private.sm_cycles
