"""Triton row-wise kernels: softmax, layernorm, sum/max/argmax, cumsum, sort, atomics."""
import triton
import triton.language as tl


@triton.jit
def softmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + c, mask=c < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(out_ptr + row * stride + c, e / tl.sum(e, axis=0), mask=c < n_cols)


@triton.jit
def layernorm(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    m = c < n_cols
    x = tl.load(x_ptr + row * n_cols + c, mask=m, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + c, mask=m)
    b = tl.load(b_ptr + c, mask=m)
    tl.store(y_ptr + row * n_cols + c, d * rstd * w + b, mask=m)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def row_stats(x_ptr, sum_ptr, max_ptr, argmax_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + c, mask=c < n_cols, other=-1e30)
    tl.store(sum_ptr + row, tl.sum(tl.where(c < n_cols, x, 0.0), axis=0))
    tl.store(max_ptr + row, tl.max(x, axis=0))
    tl.store(argmax_ptr + row, tl.argmax(x, axis=0))


@triton.jit
def row_cumsum(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + c)
    tl.store(out_ptr + row * BLOCK + c, tl.cumsum(x, axis=0))


@triton.jit
def row_sort(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + c)
    tl.store(out_ptr + row * BLOCK + c, tl.sort(x, dim=0, descending=False))


@triton.jit
def bucket_count(x_ptr, counts_ptr, maxes_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0)
    bucket = x & 15
    tl.atomic_add(counts_ptr + bucket, 1, mask=m)
    tl.atomic_max(maxes_ptr + bucket, x, mask=m)


KERNELS = [
    dict(name="t_softmax", fn=softmax, num_warps=4,
         signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "n_cols": "i32", "stride": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 128}),
    dict(name="t_layernorm", fn=layernorm, num_warps=4,
         signature={"x_ptr": "*fp16", "w_ptr": "*fp32", "b_ptr": "*fp32", "y_ptr": "*fp32", "mean_ptr": "*fp32",
                    "rstd_ptr": "*fp32", "n_cols": "i32", "eps": "fp32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}),
    dict(name="t_row_stats", fn=row_stats, num_warps=2,
         signature={"x_ptr": "*fp32", "sum_ptr": "*fp32", "max_ptr": "*fp32", "argmax_ptr": "*i32", "n_cols": "i32",
                    "BLOCK": "constexpr"},
         constexprs={"BLOCK": 128}),
    dict(name="t_cumsum", fn=row_cumsum, num_warps=4,
         signature={"x_ptr": "*i32", "out_ptr": "*i32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 256}),
    dict(name="t_sort", fn=row_sort, num_warps=4,
         signature={"x_ptr": "*fp32", "out_ptr": "*fp32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 128}),
    dict(name="t_atomics", fn=bucket_count, num_warps=4,
         signature={"x_ptr": "*i32", "counts_ptr": "*i32", "maxes_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 256}),
]
