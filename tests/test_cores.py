"""ptxvm.cores: how many threads a process may use, and ranges of work run on them."""
import threading

import pytest

from ptxvm import cores


def test_ptxvm_threads_and_limits_cap_usable(monkeypatch):
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    monkeypatch.delenv("PTXVM_THREADS", raising=False)
    assert cores.usable() == 8
    monkeypatch.setenv("PTXVM_THREADS", "3")
    assert cores.usable() == 3
    with cores.limited(1):  # a shard of a parallel launch
        assert cores.usable() == 1
        with cores.limited(2):  # a cap never rises inside another
            assert cores.usable() == 1
    assert cores.usable() == 3


def test_run_ranges_covers_every_index_once_on_several_threads():
    seen, names = [], set()
    lock = threading.Lock()

    def work(lo, hi):
        with lock:
            seen.extend(range(lo, hi))
            names.add(threading.current_thread().name)

    cores.run_ranges(work, 101, 4)
    assert sorted(seen) == list(range(101))
    assert len(names) >= 1 and all(n.startswith("ptxvm") for n in names)


def test_run_ranges_waits_for_all_then_raises_the_failure():
    done = []

    def work(lo, hi):
        if lo == 0:
            raise ValueError("first range")
        done.append(lo)

    with pytest.raises(ValueError, match="first range"):
        cores.run_ranges(work, 40, 4)
    assert sorted(done) == [10, 20, 30]


def test_nested_ranges_run_in_the_calling_pool_thread():
    inner = []

    def outer(lo, hi):
        cores.run_ranges(lambda a, b: inner.append((a, b, threading.current_thread().name)), 10, 4)

    cores.run_ranges(outer, 2, 2)
    assert [(a, b) for a, b, _ in inner] == [(0, 10), (0, 10)]
