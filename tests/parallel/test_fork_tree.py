"""Local workers forked as a tree (parallel/local.fork_tree): every shard runs exactly once, every
process is reaped, a worker that dies mid-launch makes the launch run again in one process with
the single process's bytes, and a parent that leaves early takes its workers with it."""
from __future__ import annotations

import multiprocessing as mp
import os
import pathlib
import signal

import numpy as np
import pytest

import ptxvm
from ptxvm.parallel import local, pool

pytestmark = pytest.mark.skipif("fork" not in mp.get_all_start_methods() or not hasattr(os, "killpg"),
                                reason="the fork tree is POSIX-only (spawned workers elsewhere)")

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


@pytest.fixture(autouse=True)
def split_small_launches(monkeypatch):
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    monkeypatch.delenv("PTXVM_START_METHOD", raising=False)
    monkeypatch.setenv("PTXVM_POOL", "0")  # these test the workers forked per launch (test_pool.py: the pool)
    pool.shutdown()  # one an earlier test left: its workers are children too


def no_children_left():
    try:
        pid, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return pid == 0 and not _running_children()


def _running_children():
    path = pathlib.Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return path.exists() and path.read_text().split()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 16])
def test_every_index_runs_once_in_its_own_process(n):
    pipes = [mp.Pipe(duplex=False) for _ in range(n)]

    def work(i, others):
        for c in others:
            if c is not pipes[i][1]:
                c.close()
        pipes[i][1].send((i, os.getpid()))

    tree = local.fork_tree(n, work, [c for pair in pipes for c in pair])
    for _, send in pipes:
        send.close()
    got = [recv.recv() for recv, _ in pipes]
    for recv, _ in pipes:
        with pytest.raises(EOFError):  # each writer closed its end: no worker holds another's pipe
            recv.recv()
        recv.close()
    assert tree.join() == 0
    assert [i for i, _ in got] == list(range(n))
    assert len({pid for _, pid in got} | {os.getpid()}) == n + 1
    assert no_children_left()


def _vadd(workers, n=1 << 14):
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.25, np.float32)
    c = np.full(n, 7, np.float32)
    st = ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, b, c, n], workers=workers)
    return c, st


def test_repeated_launches_give_identical_bytes():
    ref, _ = _vadd(1)
    for workers in (2, 5, 16, 5):
        c, st = _vadd(workers)
        assert st.workers == workers and st.serial_reason == ""
        assert c.tobytes() == ref.tobytes()
        assert len(st.worker_cpu) == workers
    assert no_children_left()


def _fail_shard(monkeypatch, index: int, fail) -> None:
    """Make shard `index` call `fail()` in its worker before running its CTAs."""
    real = local.run_shard

    def failing(launch, i, *a, **k):
        if i == index:
            fail()
        return real(launch, i, *a, **k)

    monkeypatch.setattr(local, "run_shard", failing)


def _reruns_in_one_process(workers: int, reason: str) -> None:
    ref, _ = _vadd(1)
    c, st = _vadd(workers)
    assert st.workers == 1 and reason in st.serial_reason
    assert c.tobytes() == ref.tobytes()
    assert no_children_left()


def test_a_worker_killed_mid_launch_falls_back_to_one_process(monkeypatch):
    _fail_shard(monkeypatch, 2, lambda: os.kill(os.getpid(), signal.SIGKILL))  # as the OOM killer would
    _reruns_in_one_process(4, "worker process ended before sending its results")


def test_a_worker_that_forks_others_and_dies_loses_only_a_rerun(monkeypatch):
    """The root worker (shard 1: the parent runs shard 0 itself; the root forks half the other
    workers) raising: its own shard's pipe ends empty, its children still finish, the launch
    reruns in one process."""
    def raise_memory_error():
        raise MemoryError("host memory")

    _fail_shard(monkeypatch, 1, raise_memory_error)
    _reruns_in_one_process(6, "ended before sending")


def test_a_parent_that_leaves_early_stops_every_worker(monkeypatch):
    real = local.run_shard

    def slow(launch, index, *a, **k):
        if index:
            signal.pause()  # never finishes on its own
        return real(launch, index, *a, **k)

    monkeypatch.setattr(local, "run_shard", slow)
    n = 1 << 14
    a = np.arange(n, dtype=np.float32)
    c = np.full(n, 7, np.float32)

    def progress(done):
        raise KeyboardInterrupt  # the user pressed ^C while the workers ran

    with pytest.raises(KeyboardInterrupt):
        ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, a, c, n], workers=4, progress=progress)
    assert (c == 7).all()
    assert no_children_left()


@pytest.mark.skipif(not __import__("ptxvm.jit").jit.numba_available(), reason="numba is not installed: no compiled code")
def test_what_workers_compile_the_parent_keeps(monkeypatch):
    """A worker's compiled blocks and tiering counts come back to the parent (parallel/warmth.py):
    after one split launch the parent holds them, so the next launch's workers compile nothing."""
    monkeypatch.setenv("PTXVM_JIT_THRESHOLD", "0")  # every block compiles on its first run
    module = ptxvm.loads(KERNELS.read_text(), "kernels.ptx")  # a fresh program: nothing compiled yet
    n = 1 << 14
    a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
    blocks = lambda: [op.fused for op in module.program.code if op.fused is not None]  # noqa: E731
    outs, stats = [], []
    for _ in range(2):
        c = np.zeros(n, np.float32)
        stats.append(module["vadd"].launch(n // 128, 128, [a, b, c, n], workers=2))
        outs.append(c)
        if len(stats) == 1:
            assert blocks() and any(x.function is not None for x in blocks())  # compiled in a worker, kept here
    assert all(s.workers == 2 for s in stats)
    assert stats[1].jit_seconds == 0.0  # the second launch's workers inherited everything
    assert outs[0].tobytes() == outs[1].tobytes() == (a + b).tobytes()


def test_warm_up_that_cannot_be_read_is_ignored():
    """What a worker reports about its compiled code is an optimization: unreadable, or naming
    blocks and functions the parent lacks, it changes nothing and raises nothing."""
    import pickle

    from ptxvm.parallel import warmth
    from ptxvm.parallel.shard import ShardResult

    module = ptxvm.loads(KERNELS.read_text(), "kernels.ptx")
    module.program.prepare_fused()
    bogus = warmth.Learned(signatures=[("ptxvm.parallel.warmth", "no_such_function", ("int64",))],
                           blocks=[(10**9, 5, 1.0, True)])
    results = [ShardResult(0, learned=b"not a pickle"), ShardResult(1, learned=pickle.dumps(bogus)), ShardResult(2)]
    assert warmth.adopt(module.program, results) >= 0.0
    assert all(op.fused is None or op.fused.executed == 0 for op in module.program.code)
