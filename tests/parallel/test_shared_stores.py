"""Pool workers that store straight into the shared arena (parallel/shared_stores.py): the single
process's bytes; kernels with global atomics keep private memory; two shards storing one byte run
again with private memory (same value: still split; different values: a data race); a fault, a
worker killed after it stored, and an interrupt all leave device memory as the launch began; the
undo log restores blocks that several shards saved, whatever the order."""
from __future__ import annotations

import os
import pathlib
import signal

import numpy as np
import pytest

import ptxvm
from parallel_launches import kill_worker_after_shard, needs_pool, use_the_pool, vadd
from ptxvm.errors import DataRaceWarning, KernelFault
from ptxvm.parallel import merge, pool, shared_stores
from ptxvm.parallel.shard import BLOCK, ShardResult

pytestmark = needs_pool

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


@pytest.fixture(autouse=True)
def pooled(monkeypatch):
    use_the_pool(monkeypatch)
    monkeypatch.delenv("PTXVM_START_METHOD", raising=False)
    yield
    pool.shutdown()


def _host(d):
    return d.copy_to_host()


def test_stores_go_straight_into_the_arena_with_the_single_process_bytes(monkeypatch):
    ref, st1 = vadd(1)
    assert not st1.stored_in_place
    for workers in (2, 3, 2):
        c, st = vadd(workers)
        assert st.workers == workers and st.stored_in_place and c.tobytes() == ref.tobytes()
    monkeypatch.setenv("PTXVM_IN_PLACE", "0")  # private (copy-on-write) memory per worker, as before
    c, st = vadd(2)
    assert st.workers == 2 and not st.stored_in_place and c.tobytes() == ref.tobytes()


def test_in_place_update_of_a_device_array_launch_after_launch():
    n = 1 << 14
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    b = np.full(n, 0.5, np.float32)
    k = ptxvm.load(KERNELS)["vadd"]
    for _ in range(3):
        st = k.launch(n // 128, 128, [a, b, a, n], workers=2)
        assert st.workers == 2 and st.stored_in_place
    assert _host(a).tobytes() == (np.arange(n, dtype=np.float32) + 1.5).tobytes()


def test_kernels_with_global_atomics_keep_private_memory():
    mod = ptxvm.load(KERNELS)
    assert not shared_stores.eligible(mod["atomics"].module, "atomics")
    assert shared_stores.eligible(mod["vadd"].module, "vadd")
    n = 1 << 12
    data = np.random.default_rng(3).integers(0, 1 << 31, n).astype(np.uint32)

    def args():
        stats = np.zeros(10, np.uint32)
        stats[2:4] = 0xFFFFFFFF
        stats[5] = 0xFFFFFFFF
        stats[8], stats[9] = 5, 3
        return [data, np.zeros(64, np.uint32), stats, n]

    ref, got = args(), args()
    mod["atomics"].launch(n // 64, 64, ref, workers=1)
    st = mod["atomics"].launch(n // 64, 64, got, workers=2)
    assert st.workers == 2 and not st.stored_in_place
    assert got[1].tobytes() == ref[1].tobytes() and got[2].tobytes() == ref[2].tobytes()


def test_the_same_value_stored_by_two_shards_runs_again_with_private_memory():
    """Two shards store 7 to out[0]: in place, the arena keeps one value and they cannot be compared;
    the launch runs again split with private memory, where the same value is no race."""
    mod = ptxvm.load(KERNELS)
    ref = np.full(1 + 8 * 32, 3, np.uint32)
    mod["same_value"].launch(8, 32, [ref], workers=1)
    out = ptxvm.to_device(np.full(1 + 8 * 32, 3, np.uint32))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DataRaceWarning)
        st = mod["same_value"].launch(8, 32, [out], workers=2)
    assert st.workers == 2 and not st.stored_in_place  # the second, private run's
    assert _host(out).tobytes() == ref.tobytes()


def test_different_values_stored_in_place_are_still_a_race():
    mod = ptxvm.load(KERNELS)
    ref = np.zeros(1 + 8 * 32, np.uint32)
    mod["racy"].launch(8, 32, [ref], workers=1)
    out = ptxvm.to_device(np.zeros(1 + 8 * 32, np.uint32))
    with pytest.warns(DataRaceWarning, match="data race in kernel 'racy'"):
        st = mod["racy"].launch(8, 32, [out], workers=2)
    assert st.workers == 1 and _host(out).tobytes() == ref.tobytes()


def test_a_fault_after_shards_stored_in_place_gives_the_single_process_memory():
    """a[i] += 1, and CTA 6 (the second shard's) faults after its increment: memory is put back
    before the run in one process, so no element is incremented twice."""
    k = ptxvm.load(KERNELS)["inc_fault"]
    arr = ptxvm.to_device(np.full(8 * 32, 5, np.uint32))
    with pytest.raises(KernelFault) as one:
        k.launch(8, 32, [arr, 6], workers=1)
    single = _host(arr)
    arr.copy_from_host(np.full(8 * 32, 5, np.uint32))
    with pytest.raises(KernelFault) as two:
        k.launch(8, 32, [arr, 6], workers=2)
    assert str(two.value) == str(one.value)
    assert _host(arr).tobytes() == single.tobytes() and single.max() == 6
    host = np.full(8 * 32, 5, np.uint32)
    with pytest.raises(KernelFault):
        k.launch(8, 32, [host, 6], workers=2)
    assert (host == 5).all()  # a host array is untouched, as in one process
    c, st = vadd(2)  # the pool stays, and stores in place again
    assert st.workers == 2 and st.stored_in_place


def test_a_worker_killed_after_storing_in_place(monkeypatch):
    """a += b on a device array; worker 1 is killed after its shard stored (before it answers):
    memory is put back, and the run in one process adds b once, not twice."""
    kill_worker_after_shard(monkeypatch, 1)
    n = 1 << 14
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    b = np.full(n, 0.5, np.float32)
    st = ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, b, a, n], workers=3)
    assert st.workers == 1 and "ended before sending" in st.serial_reason
    assert _host(a).tobytes() == (np.arange(n, dtype=np.float32) + 0.5).tobytes()
    assert pool.current() is None


def test_a_worker_killed_after_storing_into_an_argument_copy(monkeypatch):
    """c[i] += 1 on a host array (its device copy is not logged: an undo copies it from the host
    array again): worker 1 killed after storing; the run in one process adds 1 once."""
    kill_worker_after_shard(monkeypatch, 1)
    k = ptxvm.load(KERNELS)["inc_fault"]
    host = np.arange(8 * 32, dtype=np.uint32)
    st = k.launch(8, 32, [host, 1000], workers=3)  # no CTA 1000: no fault
    assert st.workers == 1 and "ended before sending" in st.serial_reason
    assert (host == np.arange(8 * 32) + 1).all()


def test_an_interrupt_after_stores_leaves_device_memory_as_it_began(monkeypatch):
    real = pool.run_shard

    def slow(launch, index, *a, **k):
        out = real(launch, index, *a, **k)
        if index:
            signal.pause()  # stored, then never answers
        return out

    monkeypatch.setattr(pool, "run_shard", slow)
    n = 1 << 14
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    b = np.full(n, 0.5, np.float32)

    def progress(done):
        raise KeyboardInterrupt  # ^C once the first worker answered

    with pytest.raises(KeyboardInterrupt):
        ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, b, a, n], workers=3, progress=progress)
    assert _host(a).tobytes() == np.arange(n, dtype=np.float32).tobytes()
    assert pool.current() is None


def test_the_undo_log_restores_blocks_several_shards_saved_in_any_order():
    """Two journals (as two workers) save and write the same blocks in turn, ranges and scattered
    blocks; replaying both logs gives the bytes before any write."""
    rng = np.random.default_rng(0)
    arena = rng.integers(0, 256, 64 * BLOCK, dtype=np.uint8)
    before = arena.copy()
    counter = shared_stores.new_counter()
    files = [shared_stores.UndoFiles(), shared_stores.UndoFiles()]
    try:
        journals = []
        for f in files:
            f.reset()
            journals.append(shared_stores.SharedUndoJournal(arena, counter, shared_stores._Mapped(f.log, os.fstat(f.log).st_size),
                                                            shared_stores._Mapped(f.data, 0)))
        a, b = journals

        def store(j, offsets, value, itemsize=4):
            offsets = np.asarray(offsets, np.uint64)  # as the engine gives them
            j.stored(offsets, itemsize, 1)
            for o in offsets.astype(np.int64):
                arena[o : o + itemsize] = value

        store(a, np.arange(0, 8 * BLOCK, 4), 1)  # a coalesced range: blocks 0-7
        store(b, np.arange(4 * BLOCK, 12 * BLOCK, 4), 2)  # overlaps a's blocks 4-7, after a wrote them
        store(b, [20 * BLOCK, 30 * BLOCK + 8], 3)  # scattered
        store(a, [20 * BLOCK + 4, 30 * BLOCK + 12, 40 * BLOCK], 4)  # the same blocks, after b wrote them
        store(a, np.arange(0, 2 * BLOCK, 4), 5)  # blocks a saved already: no new entry
        assert not np.array_equal(arena, before)
        for order in (files, files[::-1]):  # the logs' order does not matter, the sequence numbers decide
            work = arena.copy()
            shared_stores.undo(work, order)
            assert np.array_equal(work, before)
    finally:
        os.close(counter)
        for j in journals:
            j.log.close()
            j.data.close()


def test_overlapping_masks_of_in_place_shards_are_an_overlap_conflict():
    def result(i, blocks, mask_bytes):
        r = ShardResult(i, stored_in_arena=True)
        r.blocks = np.array(blocks, np.int64)
        r.masks = np.array([np.packbits(np.isin(np.arange(BLOCK), m)) for m in mask_bytes], np.uint8)
        return r

    disjoint = [result(0, [3, 4], [range(64), range(0, 10)]), result(1, [4, 5], [range(10, 64), range(64)])]
    assert merge._plain_conflict(disjoint) is None  # a boundary block split between two shards
    clash = [result(0, [3, 4], [range(64), range(0, 11)]), result(1, [4, 5], [range(10, 64), range(64)])]
    c = merge._plain_conflict(clash)
    assert c is not None and c.kind == "overlap" and c.offsets == [4 * BLOCK + 10]


def test_whole_block_runs_describe_the_same_write_set_as_blocks_and_masks():
    """A shard that stored in place sends runs of whole blocks (no 4 MB of block numbers and masks
    for a 16 MB output): expanded, they equal the write set of the plain form."""
    from ptxvm.parallel.shard import REGION_SHIFT, Journal, _write_set

    size = 4 << REGION_SHIFT
    arena = np.zeros(size, np.uint8)

    def journal():
        j = Journal(size)
        j.stored_range(1000, (1 << REGION_SHIFT) + 5000)  # ragged ends, across a region's edge
        j.stored_range(3 << REGION_SHIFT, (3 << REGION_SHIFT) + 640)  # a run that starts a region
        j.stored(np.array([5, 2 * BLOCK + 7, (2 << REGION_SHIFT) + 3], np.uint64), 1, 1)  # scattered bytes
        j.stored(np.array([1100], np.uint64), 4, 1)  # a byte store inside a whole block: still whole
        return j

    plain, compact = ShardResult(0), ShardResult(1)
    _write_set(plain, arena, journal())
    _write_set(compact, arena, journal(), runs=True)
    assert compact.runs.tolist() == [[16, ((1 << REGION_SHIFT) + 5000) // BLOCK],
                                     [(3 << REGION_SHIFT) // BLOCK, ((3 << REGION_SHIFT) + 640) // BLOCK]]
    got = compact.expanded()
    assert got.blocks.tolist() == plain.blocks.tolist()
    assert got.masks.tobytes() == plain.masks.tobytes()
    assert compact.span() == (int(plain.blocks[0]), int(plain.blocks[-1]))


def test_runs_in_the_race_check_and_the_copies_not_copied_back():
    from ptxvm.parallel.launcher import _touches

    def result(i, runs, blocks=(), masks=()):
        r = ShardResult(i, stored_in_arena=True)
        r.runs = np.array(runs, np.int64).reshape(-1, 2)
        r.blocks = np.array(blocks, np.int64)
        r.masks = np.array([np.packbits(np.isin(np.arange(BLOCK), m)) for m in masks], np.uint8).reshape(-1, BLOCK // 8)
        return r

    a, b = result(0, [[0, 10]], [10], [range(0, 8)]), result(1, [[11, 20]], [10], [range(8, 64)])
    assert merge._plain_conflict([a, b]) is None  # block 10 split between them
    c = result(1, [[9, 20]])
    conflict = merge._plain_conflict([a, c])
    assert conflict is not None and conflict.kind == "overlap" and conflict.offsets == [9 * BLOCK]
    assert _touches(a, 5 * BLOCK, 6 * BLOCK) and _touches(a, 10 * BLOCK, 10 * BLOCK + 1)
    assert not _touches(b, 0, 10 * BLOCK) and _touches(b, 19 * BLOCK + 63, 40 * BLOCK)
    assert not _touches(b, 20 * BLOCK, 30 * BLOCK)
