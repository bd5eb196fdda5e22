"""What keeps a split launch's serial part small, checked against plain references: the journal's
block-and-region bookkeeping (its write set equals one computed byte by byte), the raw-bytes pipe
protocol, arguments no worker wrote left uncopied (and overlapping ones copied as one process does)."""
from __future__ import annotations

import multiprocessing as mp
import os
import pathlib

import numpy as np
import pytest

import ptxvm
from ptxvm.parallel import local
from ptxvm.parallel.shard import BLOCK, CODE, REGION_SHIFT, Journal, ShardResult, _write_set

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


def reference_write_set(size, arena, ranges, scattered, atomics):
    """blocks, masks, data of a write set from a byte mask built naively."""
    mask = np.zeros(size, bool)
    for lo, hi in ranges:
        mask[lo:hi] = True
    for offs, span in scattered:
        for o in offs:
            mask[o : o + span] = True
    for o, w in atomics:
        mask[o : o + w] = False
    blocks = np.flatnonzero(mask.reshape(-1, BLOCK).any(axis=1))
    masks = np.packbits(mask.reshape(-1, BLOCK)[blocks], axis=1)
    return blocks, masks, arena.reshape(-1, BLOCK)[blocks]


@pytest.mark.parametrize("seed", range(6))
def test_journal_write_set_equals_a_byte_by_byte_one(seed):
    rng = np.random.default_rng(seed)
    size = 3 << REGION_SHIFT  # three regions: stores land in some, straddle boundaries
    arena = rng.integers(0, 256, size, dtype=np.uint8)
    j = Journal(size)
    ranges, scattered, atomics = [], [], []
    for _ in range(8):
        itemsize = int(rng.choice([1, 2, 4, 8]))
        n = int(rng.integers(65, 3000))
        lo = int(rng.integers(0, size - n * itemsize)) // itemsize * itemsize
        offs = (lo + itemsize * np.arange(n)).astype(np.uint64)  # coalesced: one range
        j.stored(offs, itemsize, 1)
        ranges.append((lo, lo + n * itemsize))
        offs = np.sort(rng.choice(size // 8 - 1, int(rng.integers(1, 200)), replace=False)).astype(np.uint64) * 8
        j.stored(offs, 4, 2)  # scattered vector stores
        scattered.append((offs.astype(np.int64), 8))
    # atomics, some inside blocks stored whole: their bytes merge as atomics, not as stores
    for lo, hi in ranges[:3]:
        o = (lo + hi) // 2 // 8 * 8
        j.atomic("add", "u64", np.array([o], np.uint64), 8, [np.array([1], np.uint64)])
        atomics.append((o, 8))
    out = ShardResult(0, size)
    _write_set(out, arena, j)
    blocks, masks, data = reference_write_set(size, arena, ranges, scattered, atomics)
    assert np.array_equal(out.blocks, blocks)
    assert np.array_equal(out.masks, masks)
    assert np.array_equal(out.data, data)
    assert sorted(out.atom_offsets.tolist()) == sorted(o for o, _ in atomics)
    assert set(out.atom_codes.tolist()) == {CODE[("add", "u64")]}
    # the same write set with its bytes left in the arena (what a forked worker sends)
    views = ShardResult(0, size)
    _write_set(views, arena, j, views=True)
    assert views.parts and np.array_equal(np.concatenate(views.parts), data)


def test_journal_marks_only_the_regions_written():
    j = Journal(8 << REGION_SHIFT)
    j.stored((np.arange(100, dtype=np.uint64) * 4) + (5 << REGION_SHIFT) - 200, 4, 1)  # straddles 4 | 5
    assert np.flatnonzero(j.dirty_full | j.dirty_bytes).tolist() == [4, 5]
    j.atomic("max", "s32", np.array([(7 << REGION_SHIFT) + 4], np.uint64), 4, [np.array([1])])
    assert np.flatnonzero(j.dirty_atomics).tolist() == [7]


def _child(conn, result):
    local.send(conn, result)
    conn.close()
    os._exit(0)


@pytest.mark.skipif(not local.RAW_PIPES or "fork" not in mp.get_all_start_methods(),
                    reason="raw pipes and fork are POSIX-only")
def test_results_cross_the_pipe_intact():
    rng = np.random.default_rng(5)
    arena = rng.integers(0, 256, 1 << 22, dtype=np.uint8).reshape(-1, BLOCK)
    r = ShardResult(3, arena.size, error=None)
    r.blocks = np.array([1, 2, 3, 900, 901], np.int64)
    r.masks = rng.integers(0, 256, (5, BLOCK // 8), dtype=np.uint8)
    r.parts = [arena[1:4], arena[900:902]]  # 3 + 2 blocks sent straight from the arena
    r.atom_offsets = np.array([64, 4096], np.int64)
    r.atom_finals = np.array([2**64 - 1, 7], np.uint64)
    ctx = mp.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    local._widen(recv)
    p = ctx.Process(target=_child, args=(send, r))
    p.start()
    send.close()
    got = local.receive(recv)
    p.join()
    assert got.index == 3 and got.parts is None
    assert np.array_equal(got.data, np.concatenate(r.parts)) and got.data.shape == (5, BLOCK)
    for name in ("blocks", "masks", "atom_offsets", "atom_finals", "atom_codes", "atom_bounds"):
        a, b = getattr(got, name), getattr(r, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


@pytest.mark.skipif(not local.RAW_PIPES, reason="raw pipes are POSIX-only")
def test_a_worker_that_dies_mid_result_is_an_eof():
    recv, send = mp.Pipe(duplex=False)
    send.send((ShardResult(0, 64, data=None), [("data", "|u1", (4, BLOCK))]))
    send.send_bytes(b"")  # a few bytes of nothing, then the worker is gone
    send.close()
    with pytest.raises(EOFError):
        local.receive(recv)


@pytest.fixture
def split(monkeypatch):
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")


def test_arguments_no_worker_wrote_are_not_copied_back(split, monkeypatch):
    from ptxvm.engine.core import device

    copied = []
    real = device.DeviceArray.copy_to_host

    def spy(self, out=None):
        copied.append(out)
        return real(self, out)

    monkeypatch.setattr(device.DeviceArray, "copy_to_host", spy)
    k = ptxvm.load(KERNELS)["vadd"]
    n = 4096
    a, b = np.arange(n, dtype=np.float32), np.ones(n, np.float32)
    c = np.zeros(n, np.float32)
    st = k.launch(n // 128, 128, [a, b, c, n], workers=2)
    assert st.workers == 2
    assert len(copied) == 1 and copied[0] is c and np.array_equal(c, a + b)


INC = r"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry inc(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<5>; .reg .b64 %rd<6>; .reg .f32 %f<3>;
  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [in];
  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x; mad.lo.s32 %r4, %r1, %r2, %r3;
  mul.wide.u32 %rd3, %r4, 4; add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd5]; add.rn.f32 %f2, %f1, 0f3F800000; st.global.f32 [%rd4], %f2;
  ret;
}
"""


def test_overlapping_arguments_are_copied_back_as_one_process_does(split):
    k = ptxvm.loads(INC, "inc.ptx")["inc"]
    n = 4096

    def run(workers):
        x = np.arange(2 * n, dtype=np.float32)
        # `in` overlaps `out` and is copied back after it: one process writes in's unchanged
        # bytes over half of out's new ones; a split launch must do the same
        st = k.launch(n // 128, 128, [x[:n], x[n // 2 : n // 2 + n]], workers=workers)
        return x, st

    (one, _), (many, st) = run(1), run(2)
    assert st.workers == 2
    assert np.array_equal(one[n // 2 : n], np.arange(n // 2, n, dtype=np.float32))  # in's old bytes won
    assert np.array_equal(one, many)


def test_pickled_results_where_pipes_are_not_descriptors(split, monkeypatch):
    """Where raw pipe reads are unavailable (RAW_PIPES False: Windows), results are pickled
    whole, the arena slices joined first; the launch's bytes are the same."""
    monkeypatch.setattr(local, "RAW_PIPES", False)
    k = ptxvm.load(KERNELS)["vadd"]
    n = 4096
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    c = np.zeros(n, np.float32)
    assert k.launch(n // 128, 128, [a, b, c, n], workers=2).workers == 2
    assert np.array_equal(c, a + b)
