"""A Triton matmul, compiled by pip's triton for an H100/H200 (wgmma, sm_90a) and run on ptxvm's
CPU engine with NumPy arrays; no GPU needed. Needs `pip install 'ptxvm[triton]'`.

    python examples/triton_matmul.py
"""
import numpy as np
import triton
import triton.language as tl

import ptxvm.triton


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


def main() -> None:
    M = N = K = 128
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    kernel = ptxvm.triton.jit(matmul)
    kernel[lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))](a, b, c, M, N, K,
                                                                                  BM=64, BN=64, BK=32)
    stats = kernel.last_stats
    ref = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    print(f"{M}x{N}x{K} f16 matmul: {stats.thread_instructions:,} thread-instructions in {stats.seconds:.2f} s")
    print("largest difference from NumPy (f16 ulps of rounding):", float(np.abs(c.astype(np.float32) - ref).max()))


if __name__ == "__main__":
    main()
