#!/usr/bin/env python3
"""Generate the Triton kernels of the timing suite: PTX for sm_90a with pip's Triton, no GPU.

    python benchmarks/timing/kernels/triton_gen.py     # writes kernels/triton/<name>.ptx + triton.json

Each entry of VARIANTS is one compiled kernel (a @triton.jit function at fixed constexprs and
num_warps / num_stages); triton.json records, per variant, the entry name, num_warps, dynamic
shared bytes and the global scratch bytes per CTA that Triton's launcher would allocate.
families.py launches them (on the GPU through the cubin; on ptxvm through the PTX), with the two
trailing scratch pointers Triton adds to every kernel.
"""
from __future__ import annotations

import json
import os
import sys

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "triton")


@triton.jit
def tt_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def tt_softmax(out_ptr, in_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


@triton.jit
def tt_layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(y_ptr + row * n + cols, xc * rstd * w + b, mask=mask)


@triton.jit
def tt_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
              GROUP: tl.constexpr):
    """C = A @ B, row-major, M, N, K multiples of the blocks; grouped tile order (Triton tutorial)."""
    pid = tl.program_id(0)
    npm, npn = tl.cdiv(M, BM), tl.cdiv(N, BN)
    per_group = GROUP * npn
    g = pid // per_group
    first = g * GROUP
    gm = min(npm - first, GROUP)
    pm = first + (pid % per_group) % gm
    pn = (pid % per_group) // gm
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * K + rk[None, :]
    b = b_ptr + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a), tl.load(b), acc)
        a += BK
        b += BK * N
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def tt_matmul_tma(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The same product through device-side tensor descriptors (TMA loads and stores)."""
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm, pn = pid // npn, pid % npn
    ad = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    bd = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    cd = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(ad.load([pm * BM, k]), bd.load([k, pn * BN]), acc)
    cd.store([pm * BM, pn * BN], acc.to(c_ptr.dtype.element_ty))


@triton.jit
def tt_attention(q_ptr, k_ptr, v_ptr, o_ptr, n_ctx, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    """Flash-attention forward (no mask): one program per (query block, batch-head)."""
    start = tl.program_id(0) * BM
    off = tl.program_id(1).to(tl.int64) * n_ctx * D
    rm = start + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + off + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for s in range(0, n_ctx, BN):
        rn = s + tl.arange(0, BN)
        k = tl.load(k_ptr + off + rn[None, :] * D + rd[:, None])
        qk = tl.dot(q, k) * scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + off + rn[:, None] * D + rd[None, :])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    tl.store(o_ptr + off + rm[:, None] * D + rd[None, :], (acc / l_i[:, None]).to(tl.float16))


# name -> (fn, signature, constexprs, options)
VARIANTS = {
    "tt_add_b1024": (tt_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"},
                     {"BLOCK": 1024}, {"num_warps": 4}),
    "tt_softmax_b256": (tt_softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32"}, {"BLOCK": 256},
                        {"num_warps": 2}),
    "tt_softmax_b1024": (tt_softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32"}, {"BLOCK": 1024},
                         {"num_warps": 4}),
    "tt_softmax_b4096": (tt_softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32", "n_cols": "i32"}, {"BLOCK": 4096},
                         {"num_warps": 8}),
    "tt_layernorm_b1024": (tt_layernorm, {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                          "n": "i32", "eps": "fp32"}, {"BLOCK": 1024}, {"num_warps": 4}),
    "tt_layernorm_b4096": (tt_layernorm, {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32", "b_ptr": "*fp32",
                                          "n": "i32", "eps": "fp32"}, {"BLOCK": 4096}, {"num_warps": 8}),
    "tt_matmul_f16": (tt_matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32",
                                  "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64, "GROUP": 8},
                      {"num_warps": 8, "num_stages": 3}),
    "tt_matmul_tf32": (tt_matmul, {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32", "M": "i32", "N": "i32",
                                   "K": "i32"}, {"BM": 128, "BN": 128, "BK": 32, "GROUP": 8},
                       {"num_warps": 8, "num_stages": 3}),
    "tt_matmul_tma_f16": (tt_matmul_tma, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32",
                                          "N": "i32", "K": "i32"}, {"BM": 128, "BN": 128, "BK": 64},
                          {"num_warps": 8, "num_stages": 3}),
    "tt_attention_d64": (tt_attention, {"q_ptr": "*fp16", "k_ptr": "*fp16", "v_ptr": "*fp16", "o_ptr": "*fp16",
                                        "n_ctx": "i32", "scale": "fp32"}, {"D": 64, "BM": 128, "BN": 64},
                         {"num_warps": 8, "num_stages": 2}),
}


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    meta = {"triton": triton.__version__, "target": "cuda sm_90 (GPUTarget('cuda', 90, 32))", "kernels": {}}
    for name, (fn, sig, consts, opts) in VARIANTS.items():
        full = dict(sig)
        full.update({k: "constexpr" for k in consts})
        src = ASTSource(fn=fn, signature=full, constexprs={(list(full).index(k),): v for k, v in consts.items()})
        k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=opts)
        md = k.metadata
        with open(os.path.join(OUT, f"{name}.ptx"), "w") as f:
            f.write(k.asm["ptx"])
        meta["kernels"][name] = {"entry": md.name, "num_warps": md.num_warps, "num_ctas": md.num_ctas,
                                 "shared": md.shared, "global_scratch": md.global_scratch_size,
                                 "global_scratch_align": getattr(md, "global_scratch_align", 1),
                                 "profile_scratch": getattr(md, "profile_scratch_size", 0),
                                 "constexprs": consts, "options": opts}
        print(f"{name}: {md.name} warps={md.num_warps} shared={md.shared} scratch={md.global_scratch_size}")
    with open(os.path.join(OUT, "triton.json"), "w") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
