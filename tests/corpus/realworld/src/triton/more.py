"""More Triton: fp8 and int8 tl.dot (wgmma .e4m3 / .s8), an 8-warp matmul tile, inline PTX via
tl.inline_asm_elementwise, tl.associative_scan / tl.reduce with custom combiners, tl.histogram,
tl.umulhi, and tl.device_print."""
import triton
import triton.language as tl


@triton.jit
def dot_tile(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    acc = tl.dot(a, b, out_dtype=c_ptr.dtype.element_ty)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@triton.jit
def _pair_max(a_v, a_i, b_v, b_i):
    take_b = b_v > a_v
    return tl.where(take_b, b_v, a_v), tl.where(take_b, b_i, a_i)


@triton.jit
def _mul_combine(a, b):
    return a * b


@triton.jit
def misc_ops(x_ptr, out_ptr, hist_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * BLOCK + c)
    # inline PTX: a funnel shift and a byte permute
    y = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $1, 7;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    z = tl.inline_asm_elementwise("prmt.b32 $0, $1, 0, 0x0123;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    running = tl.associative_scan((x & 7) + 1, 0, _mul_combine)
    vmax, imax = tl.reduce((x ^ 0x5A5A, c), 0, _pair_max)
    hi = tl.umulhi(x.to(tl.uint32), 0x9E3779B9)
    base = out_ptr + (row * BLOCK + c) * 4
    tl.store(base + 0, y)
    tl.store(base + 1, z)
    tl.store(base + 2, running)
    tl.store(base + 3, hi.to(tl.int32) + tl.where(c == 0, vmax + imax, 0))
    h = tl.histogram(x & 15, 16)
    tl.atomic_add(hist_ptr + tl.arange(0, 16), h)


@triton.jit
def printing(x_ptr, n):
    pid = tl.program_id(0)
    offs = pid * 32 + tl.arange(0, 32)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_print("tile max ", tl.max(x, 0))


def _dot(name, dtype, out, bm, bn, bk, warps):
    return dict(name=name, fn=dot_tile, num_warps=warps,
                signature={"a_ptr": f"*{dtype}", "b_ptr": f"*{dtype}", "c_ptr": f"*{out}",
                           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
                constexprs={"BM": bm, "BN": bn, "BK": bk})


KERNELS = [
    _dot("t_dot_fp8", "fp8e4nv", "fp32", 64, 64, 64, 4),
    _dot("t_dot_int8", "i8", "i32", 64, 64, 64, 4),
    _dot("t_dot_f16_8warps", "fp16", "fp32", 128, 64, 32, 8),
    dict(name="t_misc", fn=misc_ops, num_warps=4,
         signature={"x_ptr": "*i32", "out_ptr": "*i32", "hist_ptr": "*i32", "BLOCK": "constexpr"},
         constexprs={"BLOCK": 128}),
    dict(name="t_device_print", fn=printing, num_warps=1, signature={"x_ptr": "*i32", "n": "i32"}),
]
