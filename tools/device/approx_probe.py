#!/usr/bin/env python3
"""Exhaustive measurement of the PTX approximate functions on the GPU (device machine).

    PYTHONPATH=$PWD python3 tools/device/approx_probe.py --out DIR [--only NAME ...]

For every unary f32 approximation all 2**32 inputs run on the GPU (each op is one inline-PTX
instruction loaded through NVRTC/the driver) and are compared there with the function computed
in float64 and rounded to nearest f32. Written to DIR (small files only):

  stats_<op>.npz     per input binade (sign, exponent): histogram of the ulp distance from the
                     rounded float64 reference (clipped at +-64, NaN classes apart), max absolute
                     error; the inputs with a distance over 64 (capped); distinct NaN outputs.
  win_<op>_<lo>.npz  dense windows: for every input in [lo, hi) the distance as int8 (escapes
                     with the raw output); these characterise the MUFU tables.
  sample_<op>.npz    edge cases and random inputs with the raw hardware outputs (goldens source).
  half_<op>.npz      16-bit forms: all 65536 inputs (x2 forms: both lanes).
  f64hi_*            rcp/rsqrt.approx.ftz.f64 over all 2**32 upper words.
  div_*              div.approx / div.full on random pairs, with hypothesis checks.
  sass.txt           the SASS ptxas makes of every probe kernel.
  summary.json       everything small, human readable.

Needs CuPy. Only NumPy and CuPy are imported (not ptxvm).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import traceback

import numpy as np

F32_UNARY = {
    # name: (ptx instruction, reference, flush-in-reference)
    "rcp.approx.f32": ("rcp.approx.f32", "rcp", False),
    "rcp.approx.ftz.f32": ("rcp.approx.ftz.f32", "rcp", True),
    "sqrt.approx.f32": ("sqrt.approx.f32", "sqrt", False),
    "sqrt.approx.ftz.f32": ("sqrt.approx.ftz.f32", "sqrt", True),
    "rsqrt.approx.f32": ("rsqrt.approx.f32", "rsqrt", False),
    "rsqrt.approx.ftz.f32": ("rsqrt.approx.ftz.f32", "rsqrt", True),
    "ex2.approx.f32": ("ex2.approx.f32", "ex2", False),
    "ex2.approx.ftz.f32": ("ex2.approx.ftz.f32", "ex2", True),
    "lg2.approx.f32": ("lg2.approx.f32", "lg2", False),
    "lg2.approx.ftz.f32": ("lg2.approx.ftz.f32", "lg2", True),
    "sin.approx.f32": ("sin.approx.f32", "sin", False),
    "sin.approx.ftz.f32": ("sin.approx.ftz.f32", "sin", True),
    "cos.approx.f32": ("cos.approx.f32", "cos", False),
    "cos.approx.ftz.f32": ("cos.approx.ftz.f32", "cos", True),
    "tanh.approx.f32": ("tanh.approx.f32", "tanh", False),
}

# Dense windows, in priority order (each 2**23 or 2**24 inputs): (op, lo, hi) as f32 bit patterns.
ONE, TWO, FOUR, HALF, QUARTER = 0x3F800000, 0x40000000, 0x40800000, 0x3F000000, 0x3E800000
WINDOWS = [
    ("rcp.approx.ftz.f32", ONE, TWO),
    ("rsqrt.approx.ftz.f32", ONE, FOUR),
    ("sqrt.approx.ftz.f32", ONE, FOUR),
    ("ex2.approx.ftz.f32", ONE, TWO),
    ("lg2.approx.ftz.f32", ONE, TWO),
    ("ex2.approx.ftz.f32", HALF, ONE),
    ("sin.approx.ftz.f32", ONE, TWO),
    ("cos.approx.ftz.f32", ONE, TWO),
    ("tanh.approx.f32", HALF, ONE),
    ("ex2.approx.ftz.f32", 0xBF800000, 0xC0000000),
    ("lg2.approx.ftz.f32", TWO, FOUR),
    ("tanh.approx.f32", ONE, TWO),
    ("ex2.approx.ftz.f32", 0xBF000000, 0xBF800000),
    ("ex2.approx.ftz.f32", TWO, FOUR),
    ("lg2.approx.ftz.f32", HALF, ONE),
    ("sin.approx.ftz.f32", QUARTER, HALF),
    ("cos.approx.ftz.f32", QUARTER, HALF),
    ("tanh.approx.f32", QUARTER, HALF),
    ("sin.approx.ftz.f32", 0x40800000, 0x41000000),
    ("tanh.approx.f32", TWO, FOUR),
    # the non-.ftz forms where subnormals are involved: inputs, or results (ex2 below -126,
    # rcp above 2**126)
    ("rcp.approx.f32", 0x00000001, 0x00800000),
    ("rsqrt.approx.f32", 0x00000001, 0x00800000),
    ("sqrt.approx.f32", 0x00000001, 0x00800000),
    ("lg2.approx.f32", 0x00000001, 0x00800000),
    ("ex2.approx.f32", 0xC2800000, 0xC3000000),
    ("ex2.approx.f32", 0xC3000000, 0xC3800000),
    ("rcp.approx.f32", 0x7E800000, 0x7F800000),
]

HALF_OPS = {
    "ex2.approx.f16": ("ex2.approx.f16", 16),
    "ex2.approx.ftz.bf16": ("ex2.approx.ftz.bf16", 16),
    "tanh.approx.f16": ("tanh.approx.f16", 16),
    "tanh.approx.bf16": ("tanh.approx.bf16", 16),
    "ex2.approx.f16x2": ("ex2.approx.f16x2", 32),
    "ex2.approx.ftz.bf16x2": ("ex2.approx.ftz.bf16x2", 32),
    "tanh.approx.f16x2": ("tanh.approx.f16x2", 32),
    "tanh.approx.bf16x2": ("tanh.approx.bf16x2", 32),
}

F64HI = {"rcp.approx.ftz.f64": "rcp", "rsqrt.approx.ftz.f64": "rsqrt"}

# Binary f32 ops and the hypotheses checked against them on random pairs.
DIV_OPS = ["div.approx.f32", "div.approx.ftz.f32", "div.full.f32", "div.full.ftz.f32"]
DIV_HYP = {
    "h_rcpftz_mulrn": "rcp.approx.ftz.f32 t, b; mul.rn.f32 d, a, t;",
    "h_rcpftz_mulftz": "rcp.approx.ftz.f32 t, b; mul.rn.ftz.f32 d, a, t;",
    "h_rcp_mulrn": "rcp.approx.f32 t, b; mul.rn.f32 d, a, t;",
    "h_divrn": "div.rn.f32 d, a, b;",
    "h_divrn_ftz": "div.rn.ftz.f32 d, a, b;",
}

WINDOW_BYTES_BUDGET = 20 << 20
CHUNK_LOG = int(os.environ.get("APPROX_PROBE_CHUNK_LOG", 28))   # 2**28 inputs a launch: 32 binades
NCHUNKS = int(os.environ.get("APPROX_PROBE_CHUNKS", 1 << (32 - CHUNK_LOG)))   # fewer: a dry run


def ident(s: str) -> str:
    return "k_" + "".join(c if c.isalnum() else "_" for c in s)


def kernel_sources() -> str:
    parts = ['#include <cuda_fp16.h>\n']
    for name, (ins, _, _) in F32_UNARY.items():
        k = ident(name)
        body = f"{{ .reg .f32 a, d; mov.b32 a, %1; {ins} d, a; mov.b32 %0, d; }}"
        parts.append(f'''
extern "C" __global__ void {k}_range(unsigned base, unsigned n, unsigned* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned x = base + i, y; asm volatile("{body}" : "=r"(y) : "r"(x)); out[i] = y; }}
}}
extern "C" __global__ void {k}_arr(const unsigned* in, unsigned n, unsigned* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned x = in[i], y; asm volatile("{body}" : "=r"(y) : "r"(x)); out[i] = y; }}
}}''')
    for name, (ins, w) in HALF_OPS.items():
        k = ident(name)
        if w == 16:
            body = f"{{ .reg .b16 a, d; mov.b16 a, %1; {ins} d, a; mov.b16 %0, d; }}"
            parts.append(f'''
extern "C" __global__ void {k}(const unsigned short* in, unsigned n, unsigned short* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned short x = in[i], y; asm volatile("{body}" : "=h"(y) : "h"(x)); out[i] = y; }}
}}''')
        else:
            body = f"{{ .reg .b32 a, d; mov.b32 a, %1; {ins} d, a; mov.b32 %0, d; }}"
            parts.append(f'''
extern "C" __global__ void {k}(const unsigned* in, unsigned n, unsigned* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned x = in[i], y; asm volatile("{body}" : "=r"(y) : "r"(x)); out[i] = y; }}
}}''')
    for name in F64HI:
        k = ident(name)
        body = f"{{ .reg .f64 a, d; mov.b64 a, %1; {name} d, a; mov.b64 %0, d; }}"
        parts.append(f'''
extern "C" __global__ void {k}_range(unsigned base, unsigned n, unsigned* hi, unsigned* lo) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned long long x = ((unsigned long long)(base + i)) << 32, y;
    asm volatile("{body}" : "=l"(y) : "l"(x)); hi[i] = (unsigned)(y >> 32); lo[i] = (unsigned)y; }}
}}''')
    for name in list(F64HI) + ["rsqrt.approx.f64"]:
        k = ident(name)
        body = f"{{ .reg .f64 a, d; mov.b64 a, %1; {name} d, a; mov.b64 %0, d; }}"
        parts.append(f'''
extern "C" __global__ void {k}_arr64(const unsigned long long* in, unsigned n, unsigned long long* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned long long x = in[i], y; asm volatile("{body}" : "=l"(y) : "l"(x)); out[i] = y; }}
}}''')
    for name, body in [(n, f"{n} d, a, b;") for n in DIV_OPS] + list(DIV_HYP.items()):
        k = ident(name)
        full = f"{{ .reg .f32 a, b, d, t; mov.b32 a, %1; mov.b32 b, %2; {body} mov.b32 %0, d; }}"
        parts.append(f'''
extern "C" __global__ void {k}(const unsigned* A, const unsigned* B, unsigned n, unsigned* out) {{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {{ unsigned y; asm volatile("{full}" : "=r"(y) : "r"(A[i]), "r"(B[i])); out[i] = y; }}
}}''')
    return "\n".join(parts)


class Gpu:
    def __init__(self):
        import cupy as cp
        self.cp = cp
        self.mod = cp.RawModule(code=kernel_sources(), options=("-std=c++17",))
        self.mod.compile()

    def fn(self, name):
        return self.mod.get_function(name)

    def launch(self, name, n, *args):
        block = 256
        grid = (int(n) + block - 1) // block
        self.fn(name)((grid,), (block,), args)

    def f32_range(self, op, base, n):
        out = self.cp.empty(n, dtype=self.cp.uint32)
        self.launch(ident(op) + "_range", n, np.uint32(base), np.uint32(n), out)
        return out

    def f32_arr(self, op, bits):
        bits = self.cp.asarray(bits, dtype=self.cp.uint32)
        out = self.cp.empty_like(bits)
        self.launch(ident(op) + "_arr", bits.size, bits, np.uint32(bits.size), out)
        return out


# ----------------------------------------------------------------------------------------------
# reference and distances (xp = cupy)

def reference(xp, name, x64):
    if name == "rcp":
        return 1.0 / x64
    if name == "sqrt":
        return xp.sqrt(x64)
    if name == "rsqrt":
        return 1.0 / xp.sqrt(x64)
    return {"ex2": xp.exp2, "lg2": xp.log2, "sin": xp.sin, "cos": xp.cos, "tanh": xp.tanh}[name](x64)


def flush32_bits(xp, b):
    sub = (b & 0x7F800000) == 0
    return xp.where(sub, b & 0x80000000, b)


def ordered32(xp, b):
    mag = (b & 0x7FFFFFFF).astype(xp.int64)
    return xp.where((b >> 31) != 0, -mag, mag)


def isnan32(xp, b):
    return (b & 0x7FFFFFFF) > 0x7F800000


NB = 132  # 129 clipped distances (-64..64), then hw-NaN-only, ref-NaN-only, both NaN


def distance(xp, hw, ref):
    """(bins, d): clipped histogram bin per lane and the raw ordered distance (0 where NaN)."""
    hn, rn = isnan32(xp, hw), isnan32(xp, ref)
    d = ordered32(xp, hw) - ordered32(xp, ref)
    d = xp.where(hn | rn, 0, d)
    bins = xp.clip(d, -64, 64) + 64
    bins = xp.where(hn & ~rn, 129, bins)
    bins = xp.where(rn & ~hn, 130, bins)
    bins = xp.where(hn & rn, 131, bins)
    return bins, d, hn, rn


def ref_bits(xp, refname, flush, bits):
    b = flush32_bits(xp, bits) if flush else bits
    x64 = b.view(xp.float32).astype(xp.float64)
    with np.errstate(all="ignore"):
        r = reference(xp, refname, x64).astype(xp.float32).view(xp.uint32)
    return flush32_bits(xp, r) if flush else r


# ----------------------------------------------------------------------------------------------

def exhaustive_f32(g, op, out_dir, summary):
    cp = g.cp
    _, refname, flush = F32_UNARY[op]
    hist = np.zeros((256 * 2, NB), dtype=np.int64)       # row = sign*256 + exponent
    maxabs = np.zeros(512, dtype=np.float64)
    big_in, big_hw, big_total = [], [], 0
    nan_out = set()
    chunk = 1 << CHUNK_LOG
    nb = chunk >> 23
    for c in range(NCHUNKS):
        base = c * chunk
        hw = g.f32_range(op, base, chunk)
        bits = cp.arange(base, base + chunk, dtype=cp.uint64).astype(cp.uint32)
        ref = ref_bits(cp, refname, flush, bits)
        bins, d, hn, rn = distance(cp, hw, ref)
        rows = (cp.arange(chunk, dtype=cp.int64) >> 23)
        h = cp.bincount(rows * NB + bins, minlength=nb * NB).reshape(nb, NB)
        hist[c * nb:(c + 1) * nb] = cp.asnumpy(h)
        with np.errstate(all="ignore"):
            e = cp.abs(hw.view(cp.float32).astype(cp.float64) -
                       ref.view(cp.float32).astype(cp.float64))
        e = cp.where(cp.isfinite(e), e, 0.0)
        maxabs[c * nb:(c + 1) * nb] = cp.asnumpy(e.reshape(nb, -1).max(axis=1))
        big = cp.nonzero((cp.abs(d) > 64) | (hn != rn))[0]
        big_total += int(big.size)
        room = (1 << 16) - sum(len(b) for b in big_in)
        if room > 0 and big.size:
            step = max(1, int(big.size) // room + (1 if int(big.size) % room else 0))
            sel = big[::step][:room]
            big_in.append(cp.asnumpy(bits[sel]))
            big_hw.append(cp.asnumpy(hw[sel]))
        if int(hn.sum()):
            nan_out.update(int(v) for v in cp.asnumpy(cp.unique(hw[hn]))[:64])
        del hw, bits, ref, bins, d, hn, rn, rows, h, e
    big_in = np.concatenate(big_in) if big_in else np.zeros(0, np.uint32)
    big_hw = np.concatenate(big_hw) if big_hw else np.zeros(0, np.uint32)
    np.savez_compressed(os.path.join(out_dir, f"stats_{op}.npz"), hist=hist, maxabs=maxabs,
                        big_in=big_in, big_hw=big_hw, big_total=np.int64(big_total),
                        nan_out=np.array(sorted(nan_out), dtype=np.uint64))
    tot = hist.sum(axis=0)
    summary[op] = {
        "inputs": int(tot.sum()), "exact": int(tot[64]),
        "exact_fraction": float(tot[64] / tot.sum()),
        "ulp_hist_-8..8": [int(v) for v in tot[56:73]],
        "beyond_64": int(tot[0] + tot[128]), "hw_nan_only": int(tot[129]),
        "ref_nan_only": int(tot[130]), "both_nan": int(tot[131]), "big_total": big_total,
        "nan_outputs": [hex(v) for v in sorted(nan_out)][:8],
    }


def scaling_check(g, op, lo, period_exp, out_dir, summary):
    """Does op(x) depend only on the mantissa (and exponent parity when period_exp == 2)?
    Over all normal inputs with normal results: compare with the window's result rescaled."""
    cp = g.cp
    win = g.f32_range(op, lo, (1 << 23) * period_exp)
    we = ((win >> 23) & 0xFF).astype(cp.int64)
    bad, checked, samples = 0, 0, []
    sign_rule = {"rcp.approx.ftz.f32": -1, "rsqrt.approx.ftz.f32": -1, "sqrt.approx.ftz.f32": 1}[op]
    neg_ok = op.startswith("rcp")
    chunk = 1 << CHUNK_LOG
    for c in range(NCHUNKS):
        base = c * chunk
        bits = cp.arange(base, base + chunk, dtype=cp.uint64).astype(cp.uint32)
        hw = g.f32_range(op, base, chunk)
        e = ((bits >> 23) & 0xFF).astype(cp.int64)
        s = bits >> 31
        if period_exp == 1:
            k = bits & 0x7FFFFF
            shift = e - 127
        else:
            par = (e - 127) & 1
            k = (bits & 0x7FFFFF) + (par.astype(cp.uint32) << 23)
            shift = ((e - 127) - par) // 2
        ok_in = (e > 0) & (e < 255) & ((s == 0) | neg_ok)
        pe = we[k] + sign_rule * shift
        pred = (win[k] & 0x807FFFFF) | (cp.clip(pe, 0, 255).astype(cp.uint32) << 23)
        if neg_ok:
            pred = pred | (s << 31)
        ok = ok_in & (pe > 0) & (pe < 255) & (((hw >> 23) & 0xFF) > 0)
        mism = ok & (pred != hw)
        bad += int(mism.sum())
        checked += int(ok.sum())
        if len(samples) < 64:
            idx = cp.nonzero(mism)[0][:64]
            samples += [(int(a), int(b), int(p)) for a, b, p in
                        zip(cp.asnumpy(bits[idx]), cp.asnumpy(hw[idx]), cp.asnumpy(pred[idx]))]
    summary[f"scaling:{op}"] = {"checked": checked, "mismatch": bad,
                                "samples": [[hex(a), hex(b), hex(p)] for a, b, p in samples[:16]]}


def windows(g, out_dir, summary):
    cp = g.cp
    used = 0
    done = []
    for op, lo, hi in WINDOWS:
        if used > WINDOW_BYTES_BUDGET:
            summary.setdefault("windows_skipped", []).append([op, hex(lo)])
            continue
        n = hi - lo if hi > lo else lo - hi
        start = min(lo, hi)
        _, refname, flush = F32_UNARY[op]
        hw = g.f32_range(op, start, n)
        bits = cp.arange(start, start + n, dtype=cp.uint64).astype(cp.uint32)
        ref = ref_bits(cp, refname, flush, bits)
        bins, d, hn, rn = distance(cp, hw, ref)
        esc = (cp.abs(d) > 127) | hn | rn
        d8 = cp.where(esc, -128, d).astype(cp.int8)
        ei = cp.nonzero(esc)[0]
        path = os.path.join(out_dir, f"win_{op}_{start:08x}.npz")
        np.savez_compressed(path, start=np.uint32(start), d8=cp.asnumpy(d8),
                            esc_idx=cp.asnumpy(ei).astype(np.uint32),
                            esc_hw=cp.asnumpy(hw[ei]))
        size = os.path.getsize(path)
        used += size
        done.append([op, hex(start), n, size, int(ei.size)])
    summary["windows"] = done


def edge_inputs32():
    v = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF,
         0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
         0xFF7FFFFF, 0x3F800000, 0xBF800000, 0x3F800001, 0x3F7FFFFF, 0x40000000, 0x3F000000]
    for e in range(256):
        for m in (0, 1, 0x400000, 0x7FFFFF, 0x155555, 0x2AAAAA):
            v.append((e << 23) | m)
            v.append(0x80000000 | (e << 23) | m)
    # multiples of pi/4 neighbourhoods, integers, halves
    for k in range(-64, 65):
        x = np.float32(k * np.pi / 4)
        b = int(np.array(x).view(np.uint32))
        v += [(b - 1) & 0xFFFFFFFF, b, b + 1]
        v.append(int(np.array(np.float32(k / 2)).view(np.uint32)))
    return np.unique(np.array(v, dtype=np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)


def sample_inputs32(n_random, seed):
    rng = np.random.default_rng(seed)
    uni = rng.integers(0, 1 << 32, n_random // 2, dtype=np.uint64).astype(np.uint32)
    # log-uniform magnitudes in [2**-24, 2**8], random sign
    e = rng.integers(127 - 24, 127 + 8, n_random - n_random // 2)
    m = rng.integers(0, 1 << 23, e.size)
    s = rng.integers(0, 2, e.size)
    mid = ((s << 31) | (e << 23) | m).astype(np.uint32)
    return np.concatenate([edge_inputs32(), uni, mid])


def samples_f32(g, out_dir, summary):
    cp = g.cp
    ins = sample_inputs32(1 << 16, 20261122)
    res = {}
    for op in F32_UNARY:
        res[op.replace(".", "_")] = cp.asnumpy(g.f32_arr(op, ins))
    np.savez_compressed(os.path.join(out_dir, "sample_f32.npz"), inputs=ins, **res)
    summary["sample_f32"] = int(ins.size)


def half_ops(g, out_dir, summary):
    cp = g.cp
    res = {}
    a16 = np.arange(1 << 16, dtype=np.uint16)
    # x2 forms: low lane i, high lane a fixed permutation of i, so both lanes see every input
    perm = ((np.arange(1 << 16, dtype=np.uint32) * 40503) & 0xFFFF).astype(np.uint32)
    a32 = (perm << 16) | np.arange(1 << 16, dtype=np.uint32)
    for name, (_, w) in HALF_OPS.items():
        src = cp.asarray(a16 if w == 16 else a32)
        out = cp.empty_like(src)
        g.launch(ident(name), src.size, src, np.uint32(src.size), out)
        res[name.replace(".", "_")] = cp.asnumpy(out)
    np.savez_compressed(os.path.join(out_dir, "half.npz"), a16=a16, a32=a32, **res)
    # lane consistency of the x2 forms with the scalar form
    for name, (_, w) in HALF_OPS.items():
        if w != 32:
            continue
        scal = res[name[:-2].replace(".", "_")]
        out = res[name.replace(".", "_")]
        lo = (out & 0xFFFF).astype(np.uint16)
        hi = (out >> 16).astype(np.uint16)
        summary[f"x2lanes:{name}"] = {"lo_mismatch": int((lo != scal).sum()),
                                      "hi_mismatch": int((hi != scal[perm]).sum())}


def f64hi(g, out_dir, summary):
    cp = g.cp
    for op, refname in F64HI.items():
        k = ident(op) + "_range"
        chunk = 1 << CHUNK_LOG
        nb = chunk >> 20
        hist = np.zeros((4096, NB), dtype=np.int64)     # row = upper 12 bits (sign, exponent)
        lo_nonzero = 0
        nan_out = set()
        for c in range(NCHUNKS):
            base = c * chunk
            hi = cp.empty(chunk, dtype=cp.uint32)
            lo = cp.empty(chunk, dtype=cp.uint32)
            g.launch(k, chunk, np.uint32(base), np.uint32(chunk), hi, lo)
            lo_nonzero += int((lo != 0).sum())
            words = cp.arange(base, base + chunk, dtype=cp.uint64)
            x = (words << 32).view(cp.float64)
            exp = (words >> 20) & 0x7FF
            x = cp.where(exp == 0, cp.where((words >> 31) != 0, -0.0, 0.0), x)
            with np.errstate(all="ignore"):
                r = reference(cp, refname, x)
            rb = (r.view(cp.uint64) >> 32).astype(cp.uint32)      # truncated to 1.11.20
            # distances on the 32-bit upper word read as a sign-magnitude integer
            hn = (hi & 0x7FFFFFFF) > 0x7FF00000
            rn = cp.isnan(r)
            d = ordered32(cp, hi) - ordered32(cp, rb)
            d = cp.where(hn | rn, 0, d)
            bins = cp.clip(d, -64, 64) + 64
            bins = cp.where(hn & ~rn, 129, bins)
            bins = cp.where(rn & ~hn, 130, bins)
            bins = cp.where(hn & rn, 131, bins)
            rows = (words >> 20).astype(cp.int64) - c * nb
            h = cp.bincount(rows * NB + bins, minlength=nb * NB).reshape(nb, NB)
            hist[c * nb:(c + 1) * nb] = cp.asnumpy(h)
            if int(hn.sum()):
                nan_out.update(int(v) for v in cp.asnumpy(cp.unique(hi[hn]))[:16])
            del hi, lo, words, x, r, rb, d, bins, rows, h
        # dense window: upper words of [1, 4)
        start, n = 0x3FF00000, 1 << 21
        hi = cp.empty(n, dtype=cp.uint32)
        lo = cp.empty(n, dtype=cp.uint32)
        g.launch(k, n, np.uint32(start), np.uint32(n), hi, lo)
        np.savez_compressed(os.path.join(out_dir, f"f64hi_{op}.npz"), hist=hist,
                            win_start=np.uint32(start), win_hi=cp.asnumpy(hi),
                            nan_out=np.array(sorted(nan_out), dtype=np.uint64))
        tot = hist.sum(axis=0)
        summary[op] = {"inputs": int(tot.sum()), "exact_vs_trunc": int(tot[64]),
                       "hist_-8..8": [int(v) for v in tot[56:73]],
                       "beyond": int(tot[0] + tot[128]), "nan": [int(v) for v in tot[129:]],
                       "lo_nonzero": lo_nonzero, "nan_out": [hex(v) for v in sorted(nan_out)]}
    # low word ignored? random f64 inputs vs their upper word alone; plus rsqrt.approx.f64
    rng = np.random.default_rng(7)
    x = rng.integers(0, 1 << 64, 1 << 20, dtype=np.uint64)
    mid = ((rng.integers(0, 2, 1 << 19).astype(np.uint64) << 63) |
           (rng.integers(1023 - 40, 1023 + 40, 1 << 19).astype(np.uint64) << 52) |
           rng.integers(0, 1 << 52, 1 << 19, dtype=np.uint64))
    x = np.concatenate([x, mid])
    edges = np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                      0x7FF0000000000001, 0xFFF4000000000000, 1, 0x000FFFFFFFFFFFFF,
                      0x0010000000000000, 0x3FF0000000000000, 0xBFF0000000000000,
                      0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF], dtype=np.uint64)
    x = np.concatenate([edges, x])
    xd = cp.asarray(x)
    res = {}
    for op in list(F64HI) + ["rsqrt.approx.f64"]:
        out = cp.empty_like(xd)
        g.launch(ident(op) + "_arr64", xd.size, xd, np.uint32(xd.size), out)
        res[op] = out
    for op in F64HI:
        hi_only = cp.empty_like(xd)
        g.launch(ident(op) + "_arr64", xd.size, xd & cp.uint64(0xFFFFFFFF00000000),
                 np.uint32(xd.size), hi_only)
        summary[f"lowword_ignored:{op}"] = int((hi_only != res[op]).sum())
    with np.errstate(all="ignore"):
        r = 1.0 / cp.sqrt(xd.view(cp.float64))
    d = res["rsqrt.approx.f64"].view(cp.int64) - r.view(cp.int64)
    fin = cp.isfinite(r) & (r > 0)
    dd = cp.asnumpy(d[fin])
    summary["rsqrt.approx.f64"] = {"inputs": int(fin.sum()), "exact": int((dd == 0).sum()),
                                   "hist_-4..4": [int(((dd == k)).sum()) for k in range(-4, 5)],
                                   "maxabs_ulp": int(np.abs(dd).max()) if dd.size else 0}
    keep = 1 << 16
    np.savez_compressed(os.path.join(out_dir, "sample_f64.npz"), inputs=x[:keep],
                        **{op.replace(".", "_"): cp.asnumpy(v[:keep]) for op, v in res.items()})


def div_ops(g, out_dir, summary):
    cp = g.cp
    rng = np.random.default_rng(11)
    n = 1 << 24
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    # half the pairs with moderate exponents (quotients in range), some b in the 2**126.. range
    q = n // 2
    ea = rng.integers(127 - 30, 127 + 30, q)
    eb = rng.integers(127 - 30, 127 + 30, q)
    a[:q] = ((rng.integers(0, 2, q) << 31) | (ea << 23) | rng.integers(0, 1 << 23, q)).astype(np.uint32)
    b[:q] = ((rng.integers(0, 2, q) << 31) | (eb << 23) | rng.integers(0, 1 << 23, q)).astype(np.uint32)
    r = 1 << 16
    b[q:q + r] = ((rng.integers(0, 2, r) << 31) | (rng.integers(250, 255, r) << 23) |
                  rng.integers(0, 1 << 23, r)).astype(np.uint32)
    b[q + r:q + 2 * r] = rng.integers(0, 1 << 23, r).astype(np.uint32)   # subnormal divisors
    edges = edge_inputs32()
    ea_, eb_ = np.meshgrid(edges[:200], edges[:200])
    a[-ea_.size:] = ea_.ravel()
    b[-eb_.size:] = eb_.ravel()
    A, B = cp.asarray(a), cp.asarray(b)
    res = {}
    for name in DIV_OPS + list(DIV_HYP):
        out = cp.empty_like(A)
        g.launch(ident(name), n, A, B, np.uint32(n), out)
        res[name] = out
    for op in DIV_OPS:
        ent = {}
        for h in DIV_HYP:
            m = res[op] != res[h]
            both_nan = isnan32(cp, res[op]) & isnan32(cp, res[h])
            m = m & ~both_nan
            idx = cp.nonzero(m)[0][:8]
            ent[h] = {"mismatch": int(m.sum()),
                      "first": [[hex(int(x)) for x in t] for t in
                                zip(cp.asnumpy(A[idx]), cp.asnumpy(B[idx]), cp.asnumpy(res[op][idx]),
                                    cp.asnumpy(res[h][idx]))]}
        summary[f"div:{op}"] = ent
    keep = np.r_[0:1 << 15, q:q + 4096, q + r:q + r + 4096, n - ea_.size:n]
    np.savez_compressed(os.path.join(out_dir, "div.npz"), a=a[keep], b=b[keep],
                        **{k.replace(".", "_"): cp.asnumpy(v)[keep] for k, v in res.items()})
    # full stats vs RN quotient, in ulps (delta histogram)
    for op in DIV_OPS:
        bins, d, hn, rn = distance(cp, res[op], res["h_divrn" if "ftz" not in op else "h_divrn_ftz"])
        h = cp.asnumpy(cp.bincount(bins, minlength=NB))
        summary[f"divstats:{op}"] = {"n": n, "hist_-8..8": [int(v) for v in h[56:73]],
                                     "beyond": int(h[0] + h[128]), "nan": [int(v) for v in h[129:]]}


def sass(out_dir, summary):
    src = os.path.join(out_dir, "probe.cu")
    with open(src, "w") as f:
        f.write(kernel_sources())
    cub = os.path.join(out_dir, "probe.cubin")
    try:
        r = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", cub, src], capture_output=True,
                           text=True, timeout=120)
        summary["nvcc"] = r.stderr[-2000:]
        for tool in (["cuobjdump", "-sass", cub], ["nvdisasm", "-c", cub]):
            try:
                r = subprocess.run(tool, capture_output=True, text=True, timeout=120)
                if r.returncode == 0 and r.stdout:
                    with open(os.path.join(out_dir, "sass.txt"), "w") as f:
                        f.write(r.stdout)
                    break
            except FileNotFoundError:
                continue
    finally:
        if os.path.exists(cub):
            os.remove(cub)


def golden_inputs32(n_random: int = 1024, seed: int = 90):
    """A stratified golden set: every exponent with six significands and both signs, specials,
    multiples of pi/4, then random inputs (half uniform over all bits, half in [2**-24, 2**8])."""
    rng = np.random.default_rng(seed)
    e = edge_inputs32()
    uni = rng.integers(0, 1 << 32, n_random // 2, dtype=np.uint64).astype(np.uint32)
    ex = rng.integers(127 - 24, 127 + 8, n_random - n_random // 2)
    mid = ((rng.integers(0, 2, ex.size) << 31) | (ex << 23) |
           rng.integers(0, 1 << 23, ex.size)).astype(np.uint32)
    return np.concatenate([e, uni, mid])


def write_goldens(g, out_dir):
    """Compact goldens for the test suite (tests/goldens/approx/approx.npz): every f32 .approx
    form on golden_inputs32(), the f64 forms and div on smaller stratified sets."""
    cp = g.cp
    res = {"f32_inputs": golden_inputs32()}
    for op in F32_UNARY:
        res[op] = cp.asnumpy(g.f32_arr(op, res["f32_inputs"]))
    rng = np.random.default_rng(91)
    e64 = np.array([0, 1 << 63, 0x7FF0000000000000, 0xFFF0000000000000, 0x7FF8000000000000,
                    0x7FF0000000000001, 0xFFF4000000000000, 1, 0x000FFFFFFFFFFFFF,
                    0x8000000000000001, 0x0010000000000000, 0x3FF0000000000000,
                    0xBFF0000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000001,
                    0x3FEFFFFFFFFFFFFF, 0x4000000000000000, 0x0008000000000000], dtype=np.uint64)
    ex = rng.integers(0, 2047, 1024).astype(np.uint64)
    x64 = np.concatenate([e64, (ex << np.uint64(52)) | rng.integers(0, 1 << 52, 1024, dtype=np.uint64),
                          rng.integers(0, 1 << 64, 1024, dtype=np.uint64)])
    res["f64_inputs"] = x64
    xd = cp.asarray(x64)
    for op in list(F64HI) + ["rsqrt.approx.f64"]:
        out = cp.empty_like(xd)
        g.launch(ident(op) + "_arr64", xd.size, xd, np.uint32(xd.size), out)
        res[op] = cp.asnumpy(out)
    ed = edge_inputs32()
    a = np.concatenate([np.repeat(ed[::7], 9), rng.integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)])
    b = np.concatenate([np.tile(ed[::97], ed[::7].size)[: ed[::7].size * 9],
                        rng.integers(0, 1 << 32, 2048, dtype=np.uint64).astype(np.uint32)])
    b[-512:] = rng.integers(0, 1 << 23, 512).astype(np.uint32)                   # subnormal
    b[-1024:-512] = ((rng.integers(252, 255, 512) << 23) | rng.integers(0, 1 << 23, 512)).astype(np.uint32)
    res["div_a"], res["div_b"] = a, b
    A, B = cp.asarray(a), cp.asarray(b)
    for op in DIV_OPS:
        out = cp.empty_like(A)
        g.launch(ident(op), a.size, A, B, np.uint32(a.size), out)
        res[op] = cp.asnumpy(out)
    np.savez_compressed(os.path.join(out_dir, "approx.npz"), **res)
    meta = {"recorder": "tools/device/approx_probe.py --goldens", "device": device_info(),
            "f32_lanes": int(res["f32_inputs"].size), "f64_lanes": int(x64.size),
            "div_lanes": int(a.size)}
    with open(os.path.join(out_dir, "approx.meta.json"), "w") as f:
        json.dump(meta, f, indent=1)


def device_info() -> dict:
    info = {}
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        info["nvidia_smi"] = r.stdout.strip()
        r = subprocess.run(["ptxas", "--version"], capture_output=True, text=True, timeout=30)
        info["ptxas"] = r.stdout.strip().splitlines()[-1] if r.stdout else ""
    except Exception as e:  # noqa: BLE001
        info["error"] = repr(e)
    try:
        import cupy as cp
        info["cupy"] = cp.__version__
        info["compute_capability"] = cp.cuda.Device().compute_capability
    except Exception:  # noqa: BLE001
        pass
    return info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--goldens", action="store_true", help="write only the compact goldens")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.goldens:
        write_goldens(Gpu(), args.out)
        return 0
    summary = {}
    exh = lambda op: lambda g: exhaustive_f32(g, op, args.out, summary)   # noqa: E731
    scal = lambda op, p: lambda g: scaling_check(g, op, ONE, p, args.out, summary)   # noqa: E731
    ftz_first = sorted(F32_UNARY, key=lambda op: (".ftz" not in op and op != "tanh.approx.f32"))
    steps = [("sass", lambda g: sass(args.out, summary)),
             ("half", lambda g: half_ops(g, args.out, summary)),
             ("samples", lambda g: samples_f32(g, args.out, summary)),
             ("windows", lambda g: windows(g, args.out, summary))]
    steps += [(f"exh:{op}", exh(op)) for op in ftz_first[:8]]
    steps += [("scaling:rcp", scal("rcp.approx.ftz.f32", 1)),
              ("scaling:rsqrt", scal("rsqrt.approx.ftz.f32", 2)),
              ("scaling:sqrt", scal("sqrt.approx.ftz.f32", 2)),
              ("f64hi", lambda g: f64hi(g, args.out, summary)),
              ("div", lambda g: div_ops(g, args.out, summary))]
    steps += [(f"exh:{op}", exh(op)) for op in ftz_first[8:]]
    g = Gpu()
    for name, step in steps:
        if args.only and not any(name.startswith(o) for o in args.only):
            continue
        t = time.time()
        try:
            step(g)
            summary.setdefault("_times", {})[name] = round(time.time() - t, 2)
        except Exception:  # noqa: BLE001 - keep measuring the rest
            summary.setdefault("_errors", {})[name] = traceback.format_exc()[-3000:]
        g.cp.get_default_memory_pool().free_all_blocks()
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        print(name, summary.get("_times", {}).get(name, "ERROR"), flush=True)


if __name__ == "__main__":
    sys.exit(main())
