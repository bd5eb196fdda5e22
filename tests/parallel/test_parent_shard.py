"""The shard a forked launch runs in the parent itself (parallel/in_place.py), side by side with
its workers: it writes the parent's own global memory in place and keeps what each block held
before (UndoJournal), so a run in one process after a failure, a conflict or an interrupt, and
the merge of atomics, start from memory as the launch began."""
from __future__ import annotations

import multiprocessing as mp
import os
import pathlib

import numpy as np
import pytest

import ptxvm
from ptxvm.parallel import in_place, pool, shard
from ptxvm.parallel.in_place import Scratch, UndoJournal
from ptxvm.parallel.shard import REGION_SHIFT, Journal, ShardResult, _write_set

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")
forking = pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="the parent runs a shard only with forked workers")


@pytest.fixture(autouse=True)
def split_small_launches(monkeypatch):
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    monkeypatch.delenv("PTXVM_START_METHOD", raising=False)
    monkeypatch.setenv("PTXVM_POOL", "0")  # these test the workers forked per launch (test_pool.py: the pool)
    pool.shutdown()  # one an earlier test left: its workers are children too


def _write(arena, offsets, span, rng):
    """What a store or atomic does to the bytes after the journal heard of it."""
    for o in np.asarray(offsets, np.int64):
        arena[o : o + span] = rng.integers(0, 256, span, dtype=np.uint8)


@pytest.mark.parametrize("seed", range(6))
def test_undo_puts_every_written_byte_back_and_keeps_the_write_set(seed):
    rng = np.random.default_rng(seed)
    size = 3 << REGION_SHIFT
    arena = rng.integers(0, 256, size, dtype=np.uint8)
    before = arena.copy()
    undo, plain = UndoJournal(arena), Journal(size)
    for _ in range(10):
        itemsize = int(rng.choice([1, 2, 4, 8, 16]))
        n = int(rng.integers(1, 3000))
        lo = int(rng.integers(0, size - n * itemsize)) // itemsize * itemsize
        offs = (lo + itemsize * np.arange(n)).astype(np.uint64)  # coalesced (n > 64) or a short run
        for j in (undo, plain):
            j.stored(offs, itemsize, 1)
        _write(arena, offs, itemsize, rng)
        offs = np.sort(rng.choice(size // 128 - 1, int(rng.integers(1, 200)), replace=False)).astype(np.uint64) * 128
        span = int(rng.choice([4, 8, 96, 200]))  # scattered, some spanning several blocks
        for j in (undo, plain):
            j.stored(offs, span, 1)
        _write(arena, offs, span, rng)
        offs = np.unique(rng.integers(0, size // 8, 20)).astype(np.uint64) * 8  # atomics, maybe on stored bytes
        for j in (undo, plain):
            j.atomic("add", "u64", offs, 8, [np.ones(offs.size, np.uint64)])
        _write(arena, offs, 8, rng)
    got, want = ShardResult(0, size), ShardResult(0, size)
    _write_set(got, arena, undo)
    _write_set(want, arena, plain)
    for name in ("blocks", "masks", "data", "atom_offsets", "atom_codes", "atom_finals"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert not np.array_equal(arena, before)
    undo.undo()
    assert np.array_equal(arena, before)


def _in_place(workers, n=1 << 14):
    """a += b on a device array (it stays on the device: no host copy to fall back on), twice."""
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    b = np.full(n, 0.25, np.float32)
    k = ptxvm.load(KERNELS)["vadd"]
    st = [k.launch(n // 128, 128, [a, b, a, n], workers=workers) for _ in range(2)]
    return a.copy_to_host(), st


@forking
def test_a_failing_parent_shard_reruns_from_the_memory_as_the_launch_began(monkeypatch):
    ref, _ = _in_place(1)
    parent, real = os.getpid(), shard._write_set

    def fail_here(out, *a, **k):  # after the parent's CTAs stored their bytes
        if os.getpid() == parent:
            raise MemoryError("host memory")
        return real(out, *a, **k)

    monkeypatch.setattr(shard, "_write_set", fail_here)
    got, st = _in_place(2)
    assert all(s.workers == 1 and "a worker failed" in s.serial_reason for s in st)
    assert got.tobytes() == ref.tobytes()  # its half was not added twice


@forking
def test_an_interrupt_in_the_parent_shard_leaves_memory_and_arrays_as_they_were(monkeypatch):
    n = 1 << 14
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    before = a.copy_to_host().copy()
    c = np.full(n, 7, np.float32)
    parent, real = os.getpid(), shard._write_set

    def interrupt(out, *args, **k):
        if os.getpid() == parent:
            raise KeyboardInterrupt
        return real(out, *args, **k)

    monkeypatch.setattr(shard, "_write_set", interrupt)
    with pytest.raises(KeyboardInterrupt):
        ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, a, a, n], workers=3)
    with pytest.raises(KeyboardInterrupt):
        ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, a, c, n], workers=3)
    assert (c == 7).all()
    after = a.copy_to_host()
    assert after.tobytes() == before.tobytes()
    assert not _workers_left()


def _workers_left():
    """Children of this process other than multiprocessing's resource tracker (spawned workers of
    earlier tests start one, and it stays), or an unreaped one."""
    try:
        if os.waitpid(-1, os.WNOHANG)[0]:
            return True
    except ChildProcessError:
        return False
    path = pathlib.Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    kids = path.read_text().split() if path.exists() else []
    return [k for k in kids if _not_the_tracker(k)]


def _not_the_tracker(pid: str) -> bool:
    try:
        return b"resource_tracker" not in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # ended meanwhile
        return False


@forking
def test_the_parent_runs_shard_zero_and_counts_its_cpu():
    n = 1 << 14
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    for workers in (2, 3, 8):
        c = np.zeros(n, np.float32)
        st = ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, b, c, n], workers=workers)
        assert st.workers == workers and len(st.worker_cpu) == workers
        assert 0.0 < st.in_process_cpu <= st.worker_cpu[0] + 1e-9
        assert c.tobytes() == (a + b).tobytes()


def test_scratch_is_reused_grows_and_lets_large_requests_go(monkeypatch):
    Scratch.reset()
    a = Scratch.take(1000)
    a[:] = 1
    b = Scratch.take(5000)
    assert not np.shares_memory(a, b)  # one launch's arrays do not overlap
    Scratch.reset()
    c = Scratch.take(1000)
    assert np.shares_memory(a, c)  # the next launch reuses the same pages
    big = Scratch.take(3 << 20)  # more than the mapping holds: a larger one; earlier arrays stay valid
    big[:] = 2
    assert (a == 1).all() and big.size == 3 << 20
    monkeypatch.setattr(in_place, "SCRATCH_KEPT", 1 << 20)
    huge = Scratch.take(64 << 20)  # beyond what is kept: ordinary memory
    assert huge.size == 64 << 20 and not np.shares_memory(huge, big)


@forking
def test_a_forked_process_makes_its_own_scratch():
    """The scratch mapping is shared memory: a process the application forks must not write the
    pages its parent keeps bytes in."""
    Scratch.reset()
    mine = Scratch.take(4096)
    mine[:] = 7
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            Scratch.reset()
            theirs = Scratch.take(4096)
            theirs[:] = 9
            code = 0 if not np.shares_memory(mine, theirs) else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert (mine == 7).all()
