"""Triton tensor descriptors (host-side TensorDescriptor -> a __grid_constant__ CUtensorMap per
descriptor, followed by its shape and strides): TMA loads and stores through shared memory."""
import triton
import triton.language as tl


@triton.jit
def tma_scale(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    x = in_desc.load([pm * BM, pn * BN])
    out_desc.store([pm * BM, pn * BN], x * 2.0 + 1.0)


@triton.jit
def tma_matmul_ws(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """A warp-specialized f16 matmul: a producer warpgroup issues the TMA loads, consumer
    warpgroups run wgmma; setmaxnreg moves registers between them (the default warpgroup raises
    its count before the others have lowered theirs, so its .inc waits), named barriers order them."""
    pm, pn = tl.program_id(0), tl.program_id(1)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in tl.range(0, K, BK, num_stages=3, warp_specialize=True):
        acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([k, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc.to(tl.float16))


KERNELS = [
    dict(name="t_tma_scale", fn=tma_scale, num_warps=4,
         signature={"in_desc": "tensordesc<fp32[32, 32]>", "out_desc": "tensordesc<fp32[32, 32]>",
                    "BM": "constexpr", "BN": "constexpr"},
         constexprs={"BM": 32, "BN": 32}),
    dict(name="t_tma_matmul_ws", fn=tma_matmul_ws, num_warps=4,
         signature={"a_desc": "tensordesc<fp16[64, 32]>", "b_desc": "tensordesc<fp16[32, 64]>",
                    "c_desc": "tensordesc<fp16[64, 64]>", "K": "i32", "BM": "constexpr", "BN": "constexpr",
                    "BK": "constexpr"},
         constexprs={"BM": 64, "BN": 64, "BK": 32}),
]
