"""A launch on the pool runs as more pieces than workers where each piece still holds a wave: a
worker that finishes takes the next piece. The bytes are the single process's; the workers'
undo logs go on from piece to piece, so a fault in a late piece still puts memory back as the
launch began; kernels with atomics (private memory per piece) merge exactly."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import ptxvm
from parallel_launches import needs_pool, use_the_pool
from ptxvm.engine import launch as launch_mod
from ptxvm.errors import KernelFault
from ptxvm.parallel import pool

pytestmark = needs_pool

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


@pytest.fixture(autouse=True)
def small_waves(monkeypatch):
    """Waves of one CTA as far as the pieces go (the parent cuts them), so small launches split finely."""
    use_the_pool(monkeypatch)
    monkeypatch.setattr(launch_mod, "CACHE_WAVE_THREADS", 32)
    monkeypatch.setenv("PTXVM_PIECES", "4")
    yield
    pool.shutdown()


class _Shape:
    def __init__(self, threads, cluster=(1, 1, 1)):
        self.threads_per_cta, self.cluster = threads, cluster


def test_pieces_are_whole_clusters_in_launch_order_and_at_least_a_wave():
    shards = [(0, 40), (40, 80)]
    pieces = pool.split_finer(_Shape(32), shards)
    assert len(pieces) == 2 * 4
    assert pieces[0][0] == 0 and pieces[-1][1] == 80
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:])) and all(lo < hi for lo, hi in pieces)
    pairs = pool.split_finer(_Shape(32, (2, 1, 1)), [(0, 40), (40, 80)])
    assert all(lo % 2 == 0 and hi % 2 == 0 for lo, hi in pairs)
    assert len(pool.split_finer(_Shape(32), [(0, 3), (3, 6)])) == 6  # no piece smaller than a wave
    assert pool.split_finer(_Shape(32), [(0, 1), (1, 2)]) == [(0, 1), (1, 2)]


def test_pieces_give_the_single_process_bytes_and_count_workers_not_pieces():
    mod = ptxvm.load(KERNELS)
    n = 64 * 32
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.25, np.float32)
    one, two = np.full(n, 7, np.float32), np.full(n, 7, np.float32)
    mod["vadd"].launch(64, 32, [a, b, one, n], workers=1)
    st = mod["vadd"].launch(64, 32, [a, b, two, n], workers=2)
    assert st.stored_in_place and st.workers == 2 and len(st.worker_cpu) == 2
    assert two.tobytes() == one.tobytes()


@pytest.mark.parametrize("bad", [7, 3])
def test_a_fault_in_a_later_piece_puts_back_what_every_piece_stored(bad):
    """a[i] += 1 over eight one-CTA pieces on two workers; CTA `bad` faults after its increment
    (7: the last piece, run by a worker whose log already holds earlier pieces; 3: pieces after it
    are not sent). Memory is put back, and the run in one process increments each element once."""
    k = ptxvm.load(KERNELS)["inc_fault"]
    arr = ptxvm.to_device(np.full(8 * 32, 5, np.uint32))
    with pytest.raises(KernelFault) as one:
        k.launch(8, 32, [arr, bad], workers=1)
    single = arr.copy_to_host()
    arr.copy_from_host(np.full(8 * 32, 5, np.uint32))
    with pytest.raises(KernelFault) as two:
        k.launch(8, 32, [arr, bad], workers=2)
    assert str(two.value) == str(one.value)
    assert arr.copy_to_host().tobytes() == single.tobytes() and single.max() == 6
    st = k.launch(8, 32, [arr, 1000], workers=2)  # no fault: every element once more, in pieces
    assert st.workers == 2 and st.stored_in_place and (arr.copy_to_host() == single + 1).all()


def test_atomics_in_pieces_merge_exactly():
    mod = ptxvm.load(KERNELS)
    n = 64 * 32
    data = np.random.default_rng(5).integers(0, 1 << 31, n).astype(np.uint32)

    def args():
        stats = np.zeros(10, np.uint32)  # as tests/parallel/test_parallel.py starts them
        stats[2:4] = [np.iinfo(np.uint32).max] * 2
        stats[5] = 0xFFFFFFFF
        stats[8], stats[9] = 5, 3
        return [data, np.zeros(64, np.uint32), stats, n]

    one, two = args(), args()
    mod["atomics"].launch(64, 32, one, workers=1)
    st = mod["atomics"].launch(64, 32, two, workers=2)
    assert st.workers == 2 and not st.stored_in_place
    assert all(x.tobytes() == y.tobytes() for x, y in zip(one[1:3], two[1:3]))
    assert np.array_equal(two[1], np.bincount(data & 63, minlength=64))
