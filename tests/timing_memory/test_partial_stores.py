"""Partly written sectors are read from DRAM before the L2 writes them back (read-modify-write),
checked against the H200 (h200_counters_partial.json, tools/device/memory_counters.py `partial`)."""
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.timing.trace import sector_byte_masks
from ptxvm.timing.memory import coalesce

HERE = Path(__file__).parent
KERNELS = {"pst_one": "_Z7pst_onePfx", "pst_by8": "_Z7pst_by8Pfx"}
MEASURED = {(c["name"], c["size"]): c["counters"]
            for c in json.loads((HERE / "h200_counters_partial.json").read_text())["cases"]}


def _profile(name: str, mib: int):
    module = ptxvm.load(str(HERE / "partial_stores.ptx"))
    buf = np.zeros((mib << 20) // 4, np.float32)
    return module[KERNELS[name]].profile(264, 256, [buf, np.int64((mib << 20) // 32)], warm_l2=False)


@pytest.mark.parametrize("name", ["pst_one", "pst_by8"])
def test_dram_reads_of_partly_written_sectors_follow_the_h200(name):
    """pst_one writes 4 B of every sector of 128 MiB: the H200 reads 0.95 of it back from DRAM;
    pst_by8's 8 warps complete each sector: it reads nothing."""
    prof = _profile(name, 128)
    footprint = 128 << 20
    model = prof.counters["dram_bytes_read"] * 132 / footprint  # SM 0's share of the 132 SMs
    measured = MEASURED[(name, 128)]["dram__bytes_read.sum"] / footprint
    assert model == pytest.approx(measured, abs=0.1)


def test_scattered_words_are_dram_bound():
    """One word per sector moves two sectors of DRAM traffic per stored word: the 128-MiB
    pst_one takes the H200 64 us; the model must not stop at the L2's store rate (33 us)."""
    prof = _profile("pst_one", 128)
    measured_us = MEASURED[("pst_one", 128)]["gpu__time_duration.sum"] / 1e3
    assert prof.sm_cycles / 1.98e3 == pytest.approx(measured_us, rel=0.3)


def test_sector_byte_masks():
    addr = np.zeros((2, 32), np.uint64)
    addr[0] = np.arange(32, dtype=np.uint64) * 4  # a whole line: 4 full sectors
    addr[1] = np.arange(32, dtype=np.uint64) * 32 + 4  # bytes 4-7 of 32 sectors
    act = np.ones((2, 32), bool)
    act[1, 16:] = False
    c = coalesce(addr, act, 4)
    masks = sector_byte_masks(addr, act, 4, c)
    assert masks[c.warp == 0].tolist() == [0xFFFFFFFF] * 4
    assert masks[c.warp == 1].tolist() == [0xF0] * 16
    assert sector_byte_masks(addr, act, 32, c).tolist() == [0xFFFFFFFF] * len(c.sectors)
    none = np.zeros((2, 32), bool)  # a store whose guard holds in no lane
    assert len(sector_byte_masks(addr, none, 4, coalesce(addr, none, 4))) == 0


@pytest.mark.parametrize("base", [0, 0x7F0000000000, 0x0100000000000000])
def test_sector_byte_masks_keep_warps_apart_at_real_addresses(base):
    """Global memory lives at 0x7f0000000000 (address bits 40-46) and local memory at 2^56: the
    (warp, sector) key must not let those bits reach the warp's. Packed whole, warps 0-3 of one
    store shared a key and their byte masks were OR-ed together."""
    addr = np.zeros((4, 32), np.uint64)
    for w in range(4):  # warp w writes bytes 4w..4w+3 of the same 32 sectors
        addr[w] = np.uint64(base) + np.arange(32, dtype=np.uint64) * 32 + np.uint64(4 * w)
    act = np.ones((4, 32), bool)
    c = coalesce(addr, act, 4)
    masks = sector_byte_masks(addr, act, 4, c)
    for w in range(4):
        assert masks[c.warp == w].tolist() == [0xF << (4 * w)] * 32


def test_local_loads_of_several_warps_that_miss_profile():
    """Local-memory loads of two warps missing the L1 (a line no store brought in): the L2-lines
    count per warp of the memory pass packed local addresses, 2^56 and up, into the warp's bits
    and failed with a NumPy shape error (found profiling LLVM output with a .local depot)."""
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .local .align 8 .b8 depot[64];
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    st.local.u32 [depot], %r1;
    ld.local.u32 %r2, [depot+32];
    add.u32 %r2, %r2, %r1;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""
    out = np.zeros(64, np.int32)
    prof = ptxvm.loads(src, "local.ptx").kernel("k").profile(1, 64, [out], warm_l2=False)
    assert prof.cycles > 0 and out.tolist() == list(range(64))


def test_sector_byte_masks_of_accesses_straddling_a_sector_boundary():
    """A lane's 8 bytes at sector offset 28 are 4 bytes of that sector and 4 of the next: the
    next sector's bytes were dropped and its mask looked up past the end (IndexError)."""
    addr = np.arange(32, dtype=np.uint64).reshape(1, 32) * np.uint64(4)  # lanes 4 B apart, 8 B each
    act = np.ones((1, 32), bool)
    c = coalesce(addr, act, 8)
    masks = sector_byte_masks(addr, act, 8, c)
    assert [hex(int(s)) for s in c.sectors] == ["0x0", "0x20", "0x40", "0x60", "0x80"]
    assert masks.tolist() == [0xFFFFFFFF] * 4 + [0xF]
    one = np.zeros((1, 32), bool)
    one[0, 7] = True  # lane 7 alone: bytes 28-35
    c1 = coalesce(addr, one, 8)
    assert sector_byte_masks(addr, one, 8, c1).tolist() == [0xF0000000, 0xF]


def test_local_doubles_of_several_warps_profile():
    """st.local.f64 of two warps (found profiling HeCBench's romberg, whose doubles spill: a
    lane's double, then given from its first word of a word-per-lane layout, straddled a sector
    boundary and failed the byte masks)."""
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
    .local .align 8 .b8 depot[64];
    .reg .b64 %rd<4>;
    .reg .b32 %r<4>;
    .reg .f64 %fd<4>;
    mov.u32 %r1, %tid.x;
    cvt.rn.f64.u32 %fd1, %r1;
    st.local.f64 [depot+8], %fd1;
    ld.local.f64 %fd2, [depot+8];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.f64 [%rd3], %fd2;
    ret;
}
"""
    out = np.zeros(64, np.float64)
    prof = ptxvm.loads(src, "local_f64.ptx").kernel("k").profile(1, 64, [out], warm_l2=False)
    assert prof.cycles > 0 and out.tolist() == list(range(64))


def test_a_load_whose_line_holds_stored_and_missing_sectors_profiles():
    """Lanes 0-7 store their word, then the warp loads the whole line: sector 0 hits (the store
    put it in the L1) while 1-3 miss. The L1-line bookkeeping looked up a fill time for every
    sector of a missing line, and the stored one had none (KeyError; found profiling
    HeCBench's sptrsv)."""
    src = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 buf)
{
    .reg .b64 %rd<6>;
    .reg .b32 %r<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [buf];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    setp.lt.u32 %p1, %r1, 8;
    @%p1 st.global.u32 [%rd3], %r1;
    ld.global.u32 %r2, [%rd3];
    add.u32 %r2, %r2, 1;
    st.global.u32 [%rd3+128], %r2;
    ret;
}
"""
    buf = np.zeros(64, np.uint32)
    prof = ptxvm.loads(src, "stored_then_loaded.ptx").kernel("k").profile(1, 32, [buf], warm_l2=False)
    assert prof.cycles > 0
    assert buf[:8].tolist() == list(range(8)) and buf[32:40].tolist() == list(range(1, 9))


LOCAL_WIDTH = json.loads((HERE / "h200_local_width.json").read_text())


@pytest.mark.parametrize("name,width", [("local_w4", 4), ("local_w8", 8), ("local_w16", 16)])
def test_local_sectors_of_wide_accesses_follow_the_h200(name, width):
    """A warp's local access of `width` bytes a lane at one offset covers 32 x width bytes
    (tools/device/probe_local_width.py under ncu: 4, 8 and 16 sectors per STL, STL.64, STL.128).
    The trace's word-per-lane layout once gave a lane's 8 or 16 bytes from its first word on:
    5 sectors a warp. ptxas splits local_w16's ld.v4 into two LDL of the two words used, so
    only its stores are compared."""
    measured = LOCAL_WIDTH["kernels"][name]
    root = Path(__file__).resolve().parents[2]
    module = ptxvm.load(str(root / "tools" / "device" / "local_width.ptx"))
    assert hashlib.sha256((root / "tools" / "device" / "local_width.ptx").read_bytes()).hexdigest() \
        == LOCAL_WIDTH["ptx_sha256"]
    out = np.zeros(2 * LOCAL_WIDTH["threads"], np.float64)
    prof = module[name].profile(1, LOCAL_WIDTH["threads"], [out, np.uint32(LOCAL_WIDTH["iterations"])],
                                warm_l2=False)
    global_store = 2 * 32 * (8 if width == 8 else 4) // 32  # the results, one store a warp
    stored = prof.counters["store_sectors"] - global_store
    assert stored == measured["l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"]
    if width < 16:
        assert prof.counters["load_sectors"] == measured["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"]
