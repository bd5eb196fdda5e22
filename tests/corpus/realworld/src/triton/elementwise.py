"""Triton elementwise kernels: a masked vector add, a 2D masked transpose with `other=`,
random numbers (tl.rand / tl.randint) and math (tl.math, libdevice)."""
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def masked_transpose(src, dst, rows, cols, stride_src, stride_dst, BM: tl.constexpr, BN: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    r = pm * BM + tl.arange(0, BM)[:, None]
    c = pn * BN + tl.arange(0, BN)[None, :]
    inside = (r < rows) & (c < cols)
    v = tl.load(src + r * stride_src + c, mask=inside, other=-1.0)
    v = tl.where(v > 0.5, v * 2.0, v)
    tl.store(dst + c * stride_dst + r, v, mask=inside)


@triton.jit
def random_fill(out_f, out_i, seed, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_f + offs, tl.rand(seed, offs), mask=mask)
    tl.store(out_i + offs, tl.randint(seed + 1, offs), mask=mask)


@triton.jit
def math_zoo(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    base = out_ptr + offs * 8
    tl.store(base + 0, tl.exp(x), mask=mask)
    tl.store(base + 1, tl.log(tl.abs(x) + 1e-3), mask=mask)
    tl.store(base + 2, tl.sqrt(tl.abs(x)), mask=mask)
    tl.store(base + 3, tl.sin(x) + tl.cos(x), mask=mask)
    tl.store(base + 4, libdevice.erf(x), mask=mask)
    tl.store(base + 5, libdevice.tanh(x), mask=mask)
    tl.store(base + 6, libdevice.log1p(tl.abs(x)), mask=mask)
    tl.store(base + 7, libdevice.pow(tl.abs(x), 1.37), mask=mask)


KERNELS = [
    dict(name="t_vector_add", fn=vector_add, num_warps=4,
         signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}),
    dict(name="t_masked_transpose", fn=masked_transpose, num_warps=4,
         signature={"src": "*fp32", "dst": "*fp32", "rows": "i32", "cols": "i32", "stride_src": "i32",
                    "stride_dst": "i32", "BM": "constexpr", "BN": "constexpr"},
         constexprs={"BM": 32, "BN": 32}),
    dict(name="t_random", fn=random_fill, num_warps=4,
         signature={"out_f": "*fp32", "out_i": "*i32", "seed": "i32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}),
    dict(name="t_math", fn=math_zoo, num_warps=4,
         signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 128}),
]
