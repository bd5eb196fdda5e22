import numpy as np
import pytest

from ptxvm.timing.memory import (CacheOp, EvictPriority, MemoryHierarchy, Space, coalesce,
                                 parse_qualifiers)

from .conftest import ALL, LANES, fake_gpu, warp


def rows(base, n_warps, stride=4, warp_bytes=128):
    """n_warps unit-stride word loads starting at base, consecutive warps consecutive."""
    w = np.arange(n_warps, dtype=np.uint64)[:, None] * np.uint64(warp_bytes)
    return coalesce(np.uint64(base) + w + LANES * np.uint64(stride), None, 4)


def test_l1_size_follows_the_shared_memory_carveout(gpu):
    assert MemoryHierarchy(gpu, 1).l1.size_bytes == 64 * 1024
    m = MemoryHierarchy(gpu, 1, shared_bytes_per_sm=20 * 1024)     # -> 32 KiB carveout
    assert (m.params.carveout_kib, m.l1.size_bytes) == (32, 32 * 1024)
    with pytest.raises(ValueError, match="exceed the largest carveout"):
        MemoryHierarchy(gpu, 1, shared_bytes_per_sm=49 * 1024)


def test_cold_streaming_read_moves_sectors_times_32_bytes_from_dram(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(1 << 30, 64)
    m.load(c)
    k = m.counters()
    assert k["sectors"] == 256 and k["l1_misses"] == 256 and k["l2_misses"] == 256
    assert k["dram_bytes_read"] == 256 * 32
    assert k["sectors_per_request"] == 4.0


def test_strided_load_fetches_32_sectors(gpu):
    m = MemoryHierarchy(gpu, 1)
    lat_strided = m.load(coalesce(warp(LANES * 128), ALL, 4))[0]
    k = m.counters()
    # each lone sector brings its 64-B neighbour along (the L2's DRAM fetch granularity)
    assert k["sectors"] == 32 and k["dram_bytes_read"] == 32 * 64
    m2 = MemoryHierarchy(gpu, 1)
    lat_unit = m2.load(coalesce(warp((1 << 20) + LANES * 4), ALL, 4))[0]
    assert lat_strided > lat_unit          # 32 lines through the L1 data stage, 8x the bytes


def test_latency_by_level(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = coalesce(warp(LANES * 4), ALL, 4)
    cold, l1 = m.load(c)[0], m.load(c)[0]
    assert l1 == gpu.latency["l1_hit"] and cold >= gpu.latency["dram"]
    l2 = m.load(c, op=CacheOp.CG)[0]
    assert gpu.latency["l2_hit"] <= l2 < gpu.latency["dram"]
    assert m.load(c, kind=Space.TEX)[0] == gpu.latency["tex_hit"]


def test_cg_skips_l1(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(0, 8)
    m.load(c, op=CacheOp.CG)
    m.load(c, op=CacheOp.CG)
    k = m.counters()
    assert k["l1_hits"] == 0 and k["l1_bypass_sectors"] == 64
    assert (k["l2_misses"], k["l2_hits"]) == (32, 32)
    assert not m.l1.contains(c.sectors).any()


def test_cs_streaming_keeps_the_hot_working_set_that_ca_loses(gpu):
    def reload_hits(stream_op):
        m = MemoryHierarchy(gpu, 1)
        hot = rows(0, 128)                          # 16 KiB hot set, L1 is 64 KiB
        m.load(hot)
        for chunk in range(8):                      # 256 KiB streamed through
            m.load(rows((1 << 30) + chunk * 32768, 256), op=stream_op)
        before = m.counters()["l1_hits"]
        m.load(hot)
        return m.counters()["l1_hits"] - before

    assert reload_hits(CacheOp.CS) == 512
    assert reload_hits(CacheOp.CA) == 0


def test_l2_evict_last_keeps_data_across_a_streaming_pass():
    gpu = fake_gpu(l2_bytes=64 * 1024)
    def l2_reload_hits(l2_evict):
        m = MemoryHierarchy(gpu, 1)
        hot = rows(0, 64)                           # 8 KiB
        m.load(hot, op=CacheOp.CG, l2_evict=l2_evict)
        m.load(rows(1 << 30, 2048), op=CacheOp.CG)  # 256 KiB, 4x the L2
        before = m.counters()["l2_hits"]
        m.load(hot, op=CacheOp.CG)
        return m.counters()["l2_hits"] - before

    assert l2_reload_hits(EvictPriority.LAST) == 256
    assert l2_reload_hits(EvictPriority.NORMAL) == 0


def test_prefetch_size_fetches_whole_chunks(gpu):
    m = MemoryHierarchy(gpu, 1)
    one = coalesce(warp(np.full(32, 4096)), ALL, 4)
    m.load(one, prefetch=256)
    assert m.counters()["dram_bytes_read"] == 256
    m.load(coalesce(warp(np.full(32, 4096 + 224)), ALL, 4), op=CacheOp.CG)
    assert m.counters()["l2_hits"] == 1                # prefetched neighbour


def test_stores_write_through_l1_into_write_back_l2(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(0, 4)
    m.store(c)
    assert m.l1.contains(c.sectors).all() and m.l1.dirty_sectors() == 0  # allocated, written through
    k = m.counters()
    assert k["dram_bytes_written"] == 0 and m.l2.dirty_sectors() == 16
    assert m.flush() == 16 * 32
    m.store(rows(4096, 4), op=CacheOp.WT)
    assert m.counters()["dram_bytes_written"] == 2 * 16 * 32


def test_uniform_constant_load_is_one_broadcast_pass(gpu):
    m = MemoryHierarchy(gpu, 1)
    uniform = warp(np.full(32, 256))
    m.const_load(uniform, ALL, 4)                      # warm the constant cache
    hit = m.const_load(uniform, ALL, 4)[0]
    assert hit == gpu.latency["const_hit"]
    m.const_load(warp(LANES * 4), ALL, 4)
    spread = m.const_load(warp(LANES * 4), ALL, 4)[0]
    assert spread - hit == 31 * m.params.const_replay_cycles
    assert m.counters()["const_passes"] == 1 + 1 + 32 + 32


def test_atomics_serialize_on_one_address(gpu):
    m = MemoryHierarchy(gpu, 1)
    m.load(coalesce(warp(LANES * 4), ALL, 4), op=CacheOp.CG)      # both in L2
    same = m.atomic(warp(np.zeros(32)), ALL, 4)[0]
    spread = m.atomic(warp(LANES * 4), ALL, 4)[0]
    # 31 more passes on one address; the spread one moves 4 sectors instead of 1
    moved = (128 - 32) / m.params.l2_bytes_per_clk
    assert same - spread == pytest.approx(31 * m.params.atomic_serial_cycles - moved)
    assert m.counters()["atomic_serialized"] == 31
    sh_same = m.atomic(warp(np.zeros(32)), ALL, 4, space=Space.SHARED)[0]
    sh_spread = m.atomic(warp(LANES * 4), ALL, 4, space=Space.SHARED)[0]
    assert sh_same > sh_spread == gpu.latency["atomic_shared"]


def test_dram_bandwidth_bounds_a_streaming_kernel(gpu):
    m = MemoryHierarchy(gpu, 1)
    n = 4096
    c = rows(0, n)
    lat = m.load(c, now=np.zeros(n))
    bytes_per_clk = gpu.dram_bytes_per_s / gpu.clock_hz
    assert lat[-1] == pytest.approx(gpu.latency["dram"] + n * 128 / bytes_per_clk, rel=0.01)
    # the same requests spread out in time do not queue
    m2 = MemoryHierarchy(gpu, 1)
    lat2 = m2.load(c, now=np.arange(n) * 1000.0)
    assert lat2.max() < gpu.latency["dram"] + 10


def test_fewer_simulated_sms_see_their_share():
    gpu = fake_gpu()
    m = MemoryHierarchy(gpu, 4, simulated_sms=1)
    assert m.params.dram_bytes_per_clk == pytest.approx(gpu.dram_bytes_per_s / gpu.clock_hz / 4)
    assert m.l2.size_bytes == gpu.l2_bytes // 4
    # one SM cannot pull more than its own link to L2 carries
    one = MemoryHierarchy(fake_gpu(l2_bytes_per_clk=4096.0), 1)
    assert one.params.l2_bytes_per_clk == one.params.sm_l2_bytes_per_clk
    with pytest.raises(ValueError, match="sm index"):
        m.load(rows(0, 1), sm=1)


def test_per_sm_l1s_are_separate(gpu):
    m = MemoryHierarchy(gpu, 2)
    c = rows(0, 1)
    m.load(c, sm=0)
    m.load(c, sm=1)
    k = m.counters()
    assert k["l1_hits"] == 0 and k["l2_hits"] == 4


def test_parse_qualifiers():
    p = parse_qualifiers([".global", ".nc", ".L1::evict_last", ".L2::evict_first", ".L2::128B", ".v4"])
    assert (p.op, p.l1, p.l2, p.prefetch, p.nc) == (CacheOp.CA, EvictPriority.LAST,
                                                   EvictPriority.FIRST, 128, True)
    assert parse_qualifiers(["cs"], store=True).op is CacheOp.CS
    assert parse_qualifiers([], store=True).op is CacheOp.WB
    assert parse_qualifiers([".L1::no_allocate"]).l1 is EvictPriority.NO_ALLOCATE
def test_shared_latency_grows_by_wavefront(gpu):
    mem = MemoryHierarchy(gpu, 1)
    one = mem.shared(warp(LANES * 4), ALL, 4)[0]
    worst = mem.shared(warp(LANES * 128), ALL, 4)[0]
    assert worst - one == 31 * mem.params.shared_wavefront_cycles
    c = mem.counters()
    assert (c["shared_wavefronts"], c["shared_bank_conflicts"]) == (33, 31)




def test_nc_and_texture_paths_share_the_unified_l1(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(0, 2)
    m.load(c, kind=Space.NC)
    assert m.load(c, kind=Space.TEX)[0] == gpu.latency["tex_hit"]
    k = m.counters()
    assert (k["nc_load_requests"], k["tex_load_requests"], k["l1_hits"]) == (2, 2, 8)
    own = MemoryHierarchy(fake_gpu(measured={"tex_cache_bytes": 8192}), 1)
    own.load(c, kind=Space.NC)
    assert own.load(c, kind=Space.TEX)[0] > gpu.latency["tex_hit"]   # its own (cold) cache


def test_local_stores_allocate_in_l1_for_spill_reloads(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(1 << 56, 2)
    m.store(c, kind=Space.LOCAL)
    assert m.load(c, kind=Space.LOCAL)[0] == gpu.latency["l1_hit"]


def test_store_no_allocate_and_streaming_store(gpu):
    m = MemoryHierarchy(gpu, 1)
    m.store(rows(0, 2), l2_evict=EvictPriority.NO_ALLOCATE)
    assert m.l2.dirty_sectors() == 0 and m.counters()["dram_bytes_written"] == 8 * 32
    m.store(rows(8192, 1), op=CacheOp.CS)
    assert (m.l2.prio[m.l2.tags >= 0] == 0).all()                  # evict_first lines


def test_policy_from_ptx_qualifiers(gpu):
    m = MemoryHierarchy(gpu, 1)
    c = rows(0, 1)
    m.load(c, policy=parse_qualifiers([".global", ".cg", ".L2::256B"]))
    k = m.counters()
    assert k["l1_bypass_sectors"] == 4 and k["dram_bytes_read"] == 256
    with pytest.raises(ValueError, match="store cache operator"):
        m.load(c, op=CacheOp.WT)
    with pytest.raises(ValueError, match="shared"):
        m.load(c, kind=Space.SHARED)


def test_traffic_counters_are_consistent_on_a_random_mix(gpu):
    rng = np.random.default_rng(3)
    m = MemoryHierarchy(gpu, 2)
    ops = [CacheOp.CA, CacheOp.CG, CacheOp.CS, CacheOp.LU, CacheOp.CV]
    for i in range(40):
        addr = (rng.integers(0, 1 << 16, (8, 1)) * 64 + rng.integers(0, 256, (8, 32)) * 4).astype(np.uint64)
        act = rng.random((8, 32)) < 0.9
        c = coalesce(addr, act, 4)
        if i % 3 == 2:
            m.store(c, sm=rng.integers(0, 2, 8))
        else:
            m.load(c, op=ops[i % 5], sm=rng.integers(0, 2, 8), now=i * 100.0)
    k = m.counters()
    assert k["l1_hits"] + k["l1_misses"] + k["l1_bypass_sectors"] == k["load_sectors"]
    assert k["l2_hits"] + k["l2_misses"] == k["l1_misses"] + k["l1_bypass_sectors"]
    assert k["dram_bytes_read"] == 32 * (k["l2_misses"] + k["l2_prefetch_sectors"])
    assert k["sectors"] == k["load_sectors"] + k["store_sectors"]
    m.flush()
    assert m.counters()["dram_bytes_written"] == 32 * m.l2.stats["writeback_sectors"]


def test_calibrated_numbers_override_the_estimates():
    gpu = fake_gpu(measured={"l1_assoc": 8, "l1_sets": 0, "derived": {"shared_wavefront_cycles": 2.0}})
    m = MemoryHierarchy(gpu, 1)
    assert (m.params.l1_assoc, m.l1.assoc, m.params.shared_wavefront_cycles) == (8, 8, 2.0)
    assert not m.l1.hashed  # no l1_sets: line % sets


def test_the_l1_is_32_xor_indexed_sets_whose_ways_the_carveout_leaves():
    from ptxvm.timing.gpu import load_gpu

    gpu = load_gpu("h200")
    for carveout, ways in ((32, 56), (228, 7), (0, 64)):
        m = MemoryHierarchy(gpu, 1, carveout_kib=carveout)
        assert (m.l1.n_sets, m.l1.assoc, m.l1.hashed) == (32, ways, "xor")
    m = MemoryHierarchy(gpu, 1, carveout_kib=32)  # 224 KiB
    lines = np.arange(1792, dtype=np.uint64) * np.uint64(128)
    for stride in (1, 2, 4):  # as many lines as the L1 holds, contiguous; half / a quarter of it, strided
        m.l1.invalidate_all()
        few = lines[: 1792 // stride] * np.uint64(stride)
        m.l1.access(few)
        assert m.l1.access(few).all()


def test_raw_sector_lists_and_missing_masks(gpu):
    m = MemoryHierarchy(gpu, 1)
    assert m.load(np.array([0, 32, 64], np.uint64))[0] >= gpu.latency["dram"]
    assert m.counters()["requests"] == 1
    m.atomic(warp(LANES * 4), None, 4)
    assert m.counters()["atomic_lanes"] == 32


def test_l2_fraction_keeps_the_whole_l2_for_shared_data():
    gpu = fake_gpu()
    assert MemoryHierarchy(gpu, 4, simulated_sms=1, l2_fraction=1.0).l2.size_bytes == gpu.l2_bytes
    with pytest.raises(ValueError, match="l2_fraction"):
        MemoryHierarchy(gpu, 4, simulated_sms=1, l2_fraction=0)
