"""nvcc-generated kernels from the corpus, run on the CPU engine and checked against NumPy.

(The same kernels are also replayed against goldens recorded on the GPU: tests/kernels.)
"""
import math

import numpy as np


def test_spin_lock_between_lanes_of_a_warp_terminates(corpus):
    mod = corpus("spinlock")
    locks = np.zeros(4, np.int32)
    counters = np.zeros(4, np.int32)
    order = np.full(4 * 64 * 3, -1, np.int32)
    mod["spinlock_counter"].launch(4, 64, [locks, counters, order, np.int32(3)])
    assert counters.tolist() == [192] * 4
    for b in range(4):  # each thread took the lock exactly `iters` times
        assert sorted(order[b * 192 : (b + 1) * 192].tolist()) == sorted(list(range(64)) * 3)


def test_warp_shuffle_reduction_with_atomic_max(corpus):
    rng = np.random.default_rng(1)
    x = rng.integers(-(10**6), 10**6, 50_000).astype(np.int32)
    out = np.array([np.iinfo(np.int32).min], np.int32)
    corpus("reduce_shuffle")["reduce_shfl_max_i32"].launch(32, 256, [x, out, np.int32(x.size)])
    assert out[0] == x.max()


def test_shared_memory_histogram_with_atomics(corpus):
    rng = np.random.default_rng(2)
    data = rng.integers(0, 256, 100_000).astype(np.uint8)
    hist = np.zeros(256, np.uint32)
    corpus("histogram")["histogram256"].launch(64, 256, [data, np.int32(data.size), hist])
    assert np.array_equal(hist, np.bincount(data, minlength=256))


def _collatz(v):
    c = 0
    while v > 1 and c < 100000:
        v = 3 * v + 1 if v & 1 else v >> 1
        c += 1
    return c


def test_divergent_loop_collatz(corpus):
    rng = np.random.default_rng(3)
    start = rng.integers(1, 100_000, 3000).astype(np.uint64)
    steps = np.zeros(start.size, np.int32)
    corpus("collatz")["collatz_steps"].launch((start.size + 255) // 256, 256, [start, steps, np.int32(start.size)])
    assert steps.tolist() == [_collatz(int(v)) for v in start]


def test_recursion_through_the_abi(corpus):
    rng = np.random.default_rng(4)
    n = 64
    nin = rng.integers(0, 11, n).astype(np.int32)  # fibonacci's call tree grows as 1.6^n
    fact = np.zeros(n, np.uint64)
    fib = np.zeros(n, np.int32)
    g = np.zeros(n, np.uint32)
    s = np.zeros(n, np.int32)
    corpus("recursion")["recursion_kernel"].launch(1, 64, [nin, fact, fib, g, s, np.int32(n)])
    fibs = [0, 1]
    for _ in range(20):
        fibs.append(fibs[-1] + fibs[-2])
    assert [int(v) for v in fact] == [math.factorial(min(int(k), 20)) for k in nin]
    assert fib.tolist() == [fibs[min(int(k), 16)] for k in nin]
    assert g.tolist() == [math.gcd(int(k) * 36 + 12, i * 24 + 18) for i, k in enumerate(nin)]
