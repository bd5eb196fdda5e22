"""What several tests of tests/parallel share (imported by name: pytest puts this folder on the
path): the vector-add launch, the pool's environment, and a pool worker killed after its shard."""
import os
import pathlib
import signal
import socket

import numpy as np
import pytest

import ptxvm
from ptxvm.parallel import pool

# the worker pool (ptxvm/parallel/pool.py) needs Linux: memfd_create, fork, descriptor passing
needs_pool = pytest.mark.skipif(not (hasattr(os, "memfd_create") and hasattr(os, "fork")
                                     and hasattr(socket, "send_fds")),
                                reason="the worker pool needs Linux (memfd_create, fork, descriptor passing)")


def use_the_pool(monkeypatch):
    """Split even small launches, on the pool, storing in place where it may; a fresh pool."""
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    monkeypatch.setenv("PTXVM_POOL", "1")
    monkeypatch.delenv("PTXVM_IN_PLACE", raising=False)
    pool.shutdown()


def kill_worker_after_shard(monkeypatch, index=1):
    """Pool workers forked from now on die (SIGKILL) after running shard `index`, before they
    answer: what it stored stays, as after the OOM killer."""
    real = pool.run_shard

    def dying(launch, i, *a, **k):
        out = real(launch, i, *a, **k)
        if i == index:
            os.kill(os.getpid(), signal.SIGKILL)
        return out

    monkeypatch.setattr(pool, "run_shard", dying)  # before the pool starts: its workers inherit it

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


def vadd(workers, n=1 << 14, mod=None):
    """c = a + b over n elements (c starts at 7), on `workers`; returns (c, LaunchStats)."""
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.25, np.float32)
    c = np.full(n, 7, np.float32)
    st = (mod or ptxvm.load(KERNELS))["vadd"].launch(n // 128, 128, [a, b, c, n], workers=workers)
    return c, st
