"""A Numba CUDA reduction (shared memory, syncthreads, atomics) compiled by numba-cuda for sm_90 and
run on ptxvm's CPU engine with NumPy arrays; no GPU needed. Needs `pip install 'ptxvm[numba]'`.

    python examples/numba_reduce.py
"""
import numpy as np
from numba import cuda

import ptxvm.numba

THREADS = 256


@cuda.jit
def block_sum(x, total):
    partial = cuda.shared.array(THREADS, dtype=np.int64)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    partial[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, partial[0])


def main() -> None:
    x = np.random.default_rng(0).integers(-1000, 1000, 100_000)
    total = np.zeros(1, np.int64)
    blocks = (x.size + THREADS - 1) // THREADS
    ptxvm.numba.jit(block_sum)[blocks, THREADS](x, total)
    print(f"sum of {x.size} integers on ptxvm: {total[0]} (NumPy: {x.sum()})")


if __name__ == "__main__":
    main()
