"""Triton tensor descriptors (host-side TensorDescriptor -> a __grid_constant__ CUtensorMap per
descriptor, followed by its shape and strides): TMA loads and stores through shared memory."""
import triton
import triton.language as tl


@triton.jit
def tma_scale(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    x = in_desc.load([pm * BM, pn * BN])
    out_desc.store([pm * BM, pn * BN], x * 2.0 + 1.0)


KERNELS = [
    dict(name="t_tma_scale", fn=tma_scale, num_warps=4,
         signature={"in_desc": "tensordesc<fp32[32, 32]>", "out_desc": "tensordesc<fp32[32, 32]>",
                    "BM": "constexpr", "BN": "constexpr"},
         constexprs={"BM": 32, "BN": 32}),
]
