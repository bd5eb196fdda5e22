#!/usr/bin/env python3
"""GPU experiments for the warp-level matrix instructions (mma, wmma, ldmatrix, stmatrix):
fragment layouts with index-coded inputs and the tensor cores' arithmetic on crafted data.

    python3 tools/device/mma_probe.py --out DIR [--only SUBSTR] [--dry-run]

Run on the device machine (CuPy, repo root as cwd). Every experiment launches a small PTX kernel
(the JIT, as a PTX user gets it) and records its raw inputs and outputs:

    DIR/matrix_probe.npz      <exp>|<array> for every experiment (inputs and what the GPU wrote),
                              ptx|<key> the PTX modules (uint8)
    DIR/matrix_probe.json     device and toolchain, and per experiment: kind, instruction, PTX key,
                              kernel, launch shape, generator, status
    DIR/matrix_sass.txt       ptxas/cuobjdump SASS of a few kernels (how sm_90 runs each form)

--dry-run runs the same kernels on ptxvm (CPU) instead: a check of the harness, never a golden.
NumPy (+ CuPy) only, plus ptxvm/semantics/families/matrix.py (the layout tables, loaded by path)
to place crafted matrices into fragments. Inputs are seeded: the same script gives the same data.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _load_layouts():
    p = os.path.join(ROOT, "ptxvm", "semantics", "families", "matrix.py")
    spec = importlib.util.spec_from_file_location("_matrix_layouts", p)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_matrix_layouts"] = mod
    spec.loader.exec_module(mod)
    return mod


L = _load_layouts()

# ============================================================================ element formats

FMT = {  # name: (exponent bits, fraction bits, storage dtype, pad bits, has inf)
    "f16": (5, 10, np.uint16, 0, True), "bf16": (8, 7, np.uint16, 0, True), "tf32": (8, 10, np.uint32, 13, True),
    "f32": (8, 23, np.uint32, 0, True), "f64": (11, 52, np.uint64, 0, True), "e4m3": (4, 3, np.uint8, 0, False),
    "e5m2": (5, 2, np.uint8, 0, True),
}
INTS = {"s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1, "s32": 32}


def value(bits, t):
    """Exact float64 value of raw element bits (NaN for NaN encodings)."""
    e, m, dt, pad, has_inf = FMT[t]
    b = np.asarray(bits).astype(np.uint64) >> np.uint64(pad)
    s = (b >> np.uint64(e + m)) & np.uint64(1)
    ex = ((b >> np.uint64(m)) & np.uint64((1 << e) - 1)).astype(np.int64)
    fr = (b & np.uint64((1 << m) - 1)).astype(np.float64)
    bias = (1 << (e - 1)) - 1
    if t == "f64":
        v = np.asarray(bits).astype(np.uint64).view(np.float64).copy()
        return v
    mant = np.where(ex == 0, fr, fr + 2.0 ** m)
    v = np.ldexp(mant, (np.where(ex == 0, 1, ex) - bias - m).astype(np.int32))
    top = (1 << e) - 1
    if has_inf:
        v = np.where((ex == top) & (fr == 0), np.inf, v)
        v = np.where((ex == top) & (fr != 0), np.nan, v)
    else:
        v = np.where((ex == top) & (fr == (1 << m) - 1), np.nan, v)
    return np.where(s == 1, -v, v)


def encode_rn(x, t):
    """Nearest encoding of float64 values (ties to even) in format t; for exactly representable
    values this is exact. Uses NumPy casts for f16/f32/f64 and a table search for the others."""
    x = np.asarray(x, np.float64)
    if t == "f64":
        return x.view(np.uint64).copy()
    if t == "f32":
        return x.astype(np.float32).view(np.uint32)
    if t == "f16":
        return x.astype(np.float16).view(np.uint16)
    if t == "tf32":
        b = x.astype(np.float32).view(np.uint32)
        return b & np.uint32(0xFFFFE000)
    if t == "bf16":
        b = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        r = (b + np.uint64(0x7FFF) + ((b >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
        return r.astype(np.uint16)
    table = value(np.arange(256, dtype=np.uint8), t)
    fin = np.isfinite(table)
    cand = np.flatnonzero(fin)
    tv = table[cand]
    order = np.argsort(tv, kind="stable")
    tv, cand = tv[order], cand[order]
    i = np.clip(np.searchsorted(tv, x), 1, len(tv) - 1)
    lo, hi = tv[i - 1], tv[i]
    pick = np.where(np.abs(x - lo) <= np.abs(hi - x), i - 1, i)
    return cand[pick].astype(np.uint8)


def rand_bits(rng, t, shape, elo=None, ehi=None, p_zero=0.0, p_sub=0.0, lowbits=False):
    """Random encodings of t: biased exponent field uniform in [elo, ehi], random fraction and
    sign; a fraction p_zero of zeros and p_sub of subnormals."""
    e, m, dt, pad, has_inf = FMT[t]
    top = (1 << e) - 1
    elo = 1 if elo is None else elo
    ehi = (top - 1) if ehi is None else ehi
    if not has_inf:
        ehi = min(ehi, top)
    sign = rng.integers(0, 2, shape).astype(np.uint64)
    ex = rng.integers(elo, ehi + 1, shape).astype(np.uint64)
    fr = rng.integers(0, 1 << m, shape, dtype=np.uint64) if m < 63 else rng.integers(0, 2**52, shape, dtype=np.uint64)
    u = rng.random(shape)
    ex = np.where(u < p_sub, np.uint64(0), ex)
    fr = np.where((u < p_sub) & (fr == 0), np.uint64(1), fr)
    b = (sign << np.uint64(e + m)) | (ex << np.uint64(m)) | fr
    b = np.where(u >= 1 - p_zero, sign << np.uint64(e + m), b)
    if not has_inf:  # e4m3: S.1111.111 is NaN; keep these generators finite
        nanpat = np.uint64((top << m) | ((1 << m) - 1))
        b = np.where((b & nanpat) == nanpat, b & ~np.uint64(1), b)
    b = b << np.uint64(pad)
    if lowbits and pad:
        b = b | rng.integers(0, 1 << pad, shape, dtype=np.uint64)
    return b.astype(dt)


def bias(t):
    return (1 << (FMT[t][0] - 1)) - 1


# ============================================================================ backends

class CupyBackend:
    name = "cupy"

    def __init__(self):
        import cupy as cp
        self.cp = cp
        self.modules = {}

    def run(self, ptx, kernel, grid, block, args, shared=0):
        cp = self.cp
        mod = self.modules.get(ptx)
        if mod is None:
            mod = cp.cuda.function.Module()
            mod.load(ptx.encode())
            self.modules[ptx] = mod
        fn = mod.get_function(kernel)
        dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
        fn((grid, 1, 1), (block, 1, 1), tuple(dev), shared_mem=shared)
        cp.cuda.runtime.deviceSynchronize()
        for a, d in zip(args, dev):
            if isinstance(a, np.ndarray):
                np.copyto(a, cp.asnumpy(d))


class PtxvmBackend:
    name = "ptxvm"

    def __init__(self):
        sys.path.insert(0, ROOT)
        import ptxvm
        self.ptxvm = ptxvm
        self.modules = {}

    def run(self, ptx, kernel, grid, block, args, shared=0):
        mod = self.modules.get(ptx)
        if mod is None:
            if shutil.which("ptxas"):  # the dry run also checks that ptxas accepts the PTX
                with tempfile.TemporaryDirectory() as d:
                    p = os.path.join(d, "k.ptx")
                    with open(p, "w") as f:
                        f.write(ptx)
                    r = subprocess.run(["ptxas", "-arch=sm_90", p, "-o", os.path.join(d, "k.cubin")],
                                       capture_output=True, text=True)
                    if r.returncode:
                        raise RuntimeError("ptxas: " + r.stderr.strip()[:500])
            mod = self.modules[ptx] = self.ptxvm.loads(ptx)
        mod.kernel(kernel).launch((grid, 1, 1), (block, 1, 1), list(args), shared_mem=shared)


# ============================================================================ PTX building

HEAD = ".version {ver}\n.target sm_90\n.address_size 64\n\n"


def _tid(lines):
    lines += ["  mov.u32 %t0, %ctaid.x;", "  mov.u32 %t1, %ntid.x;", "  mov.u32 %t2, %tid.x;",
              "  mad.lo.u32 %gt, %t0, %t1, %t2;", "  shr.u32 %warp, %gt, 5;"]


def _regs(prefix, n, bits):
    return f"  .reg .b{bits} %{prefix}<{n}>;"


def _brace(prefix, n, single=False):
    if single and n == 1:
        return f"%{prefix}0"
    return "{" + ", ".join(f"%{prefix}{i}" for i in range(n)) + "}"


def _load_regs(lines, param, prefix, n, bits):
    B = bits // 8
    lines += [f"  ld.param.u64 %base, [{param}];", "  cvta.to.global.u64 %base, %base;",
              f"  mul.wide.u32 %off, %gt, {n * B};", "  add.s64 %addr, %base, %off;"]
    lines += [f"  ld.global.b{bits} %{prefix}{i}, [%addr+{i * B}];" for i in range(n)]


def _store_regs(lines, param, prefix, n, bits):
    B = bits // 8
    lines += [f"  ld.param.u64 %base, [{param}];", "  cvta.to.global.u64 %base, %base;",
              f"  mul.wide.u32 %off, %gt, {n * B};", "  add.s64 %addr, %base, %off;"]
    lines += [f"  st.global.b{bits} [%addr+{i * B}], %{prefix}{i};" for i in range(n)]


COMMON_REGS = ["  .reg .b32 %t<3>, %gt, %warp, %i, %n;", "  .reg .b64 %base, %off, %addr, %addr2, %tmp;",
               "  .reg .pred %p;"]


def frag_kernel(name, instr, ops, ver="8.7"):
    """A kernel running `instr` once per warp: operand registers of each lane come from / go to
    per-lane arrays. ops: [(prefix, count, bits, 'in'|'out')] in parameter order; instr has
    {prefix} placeholders for the brace lists."""
    lines = [f".visible .entry {name}(" + ", ".join(f".param .u64 p_{p}" for p, *_ in ops) + ")", "{"]
    lines += COMMON_REGS
    for p, n, bits, role in ops:
        lines.append(_regs(p, n, bits))
    _tid(lines)
    for p, n, bits, role in ops:
        if role == "in":
            _load_regs(lines, f"p_{p}", p, n, bits)
    lines.append("  " + instr.format(**{p: _brace(p, n, single=(role == "single")) for p, n, bits, role in ops}) + ";")
    for p, n, bits, role in ops:
        if role == "out":
            _store_regs(lines, f"p_{p}", p, n, bits)
    lines += ["  ret;", "}"]
    return "\n".join(lines) + "\n"


# ============================================================================ experiments

class Probe:
    def __init__(self, backend, only=None):
        self.backend = backend
        self.only = only
        self.arrays = {}
        self.meta = {}
        self.ptx = {}
        self.sass_ptx = {}

    def want(self, name):
        return self.only is None or any(o in name for o in self.only)

    def record(self, name, meta, arrays, status="recorded", message=None):
        meta = dict(meta, status=status)
        if message:
            meta["message"] = message
        self.meta[name] = meta
        if status == "recorded":
            for k, v in arrays.items():
                self.arrays[f"{name}|{k}"] = v

    def ptx_key(self, ptx):
        k = hashlib.sha256(ptx.encode()).hexdigest()[:12]
        self.ptx[k] = ptx
        return k

    def launch(self, name, meta, ptx, kernel, grid, block, args, keys, shared=0, keep=None):
        """Run and record: args are arrays (inputs and outputs, in kernel order); keys names them."""
        if not self.want(name):
            return
        t0 = time.perf_counter()
        meta = dict(meta, ptx=self.ptx_key(ptx), kernel=kernel, grid=grid, block=block, shared=shared,
                    args=list(keys))
        args = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            inputs = {k: a.copy() for k, a in zip(keys, args) if isinstance(a, np.ndarray)}
            self.backend.run(ptx, kernel, grid, block, args, shared)
            arrays = {}
            for k, a in zip(keys, args):
                if isinstance(a, np.ndarray):
                    arrays[k + ".in"] = inputs[k]
                    if keep is None or k in keep:
                        arrays[k + ".out"] = a
            meta["seconds"] = round(time.perf_counter() - t0, 4)
            self.record(name, meta, arrays)
            print(f"ok    {name} ({meta['seconds']} s)", flush=True)
        except Exception as e:  # noqa: BLE001  (record the failure, go on)
            self.record(name, meta, {}, "failed", f"{e.__class__.__name__}: {e}")
            print(f"FAIL  {name}: {e.__class__.__name__}: {str(e)[:300]}", flush=True)
            if self.backend.name == "cupy" and "illegal" in str(e).lower():
                raise


# ---------------------------------------------------------------------------- mma fragments

def regs_from_matrix(mat, frag):
    """[W, G, rows, cols] element bits -> [W, 32, nregs] registers (the layout tables)."""
    W = mat.shape[0]
    el = mat.reshape(W, -1).astype(np.uint64)[:, frag.flat().ravel()].reshape(W, 32, frag.elems)
    per, bits = frag.per_reg, frag.bits
    if per == 1:
        return np.ascontiguousarray(el.astype(np.uint64 if frag.reg_bits == 64 else np.uint32))
    el = el.reshape(W, 32, frag.nregs, per) & np.uint64((1 << bits) - 1)
    sh = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    return np.ascontiguousarray(np.bitwise_or.reduce(el << sh, axis=-1).astype(np.uint32))


def mma_spec(instr):
    """(shape, alayout, blayout, dtype, atype, btype, ctype, satfinite, bitop) of an mma string."""
    mods = instr.split(".")[1:]
    shape = next(m for m in mods if m.startswith("m") and "n" in m and "k" in m)
    lay = [m for m in mods if m in ("row", "col")]
    types = [m for m in mods if m in L.BITS]
    dt, at, bt, ct = types[:4]
    bitop = next((m for m in mods if m in ("xor", "and")), None)
    return shape, lay[0], lay[1], dt, at, bt, ct, "satfinite" in mods, bitop


def run_mma(P, name, instr, gen, W, rng, ver="8.7"):
    """One mma experiment: gen(rng, W, shape-info) -> (A, B, C) matrices of element bits."""
    shape, al, bl, dt, at, bt, ct, sat, bitop = mma_spec(instr)
    A, B, C, D = L.mma_fragments(shape, at, bt, ct, dt, al, bl)
    G = A.groups
    a, b, c = gen(rng, W * G, (A.rows, B.cols, A.cols), (at, bt, ct, dt))
    shp = lambda x, f: x.reshape(W, G, f.rows, f.cols)
    ra, rb, rc = (regs_from_matrix(shp(x, f), f) for x, f in ((a, A), (b, B), (c, C)))
    rd = np.full((W, 32, D.nregs), 0xA5A5A5A5A5A5A5A5 if D.reg_bits == 64 else 0xA5A5A5A5,
                 np.uint64 if D.reg_bits == 64 else np.uint32)
    ops = [("a", A.nregs, A.reg_bits, "in"), ("b", B.nregs, B.reg_bits, "in"), ("c", C.nregs, C.reg_bits, "in"),
           ("d", D.nregs, D.reg_bits, "out")]
    kname = "k_" + hashlib.sha1(instr.encode()).hexdigest()[:10]
    ptx = HEAD.format(ver=ver) + frag_kernel(kname, instr + " {d}, {a}, {b}, {c}", ops, ver)
    P.launch(name, {"kind": "mma", "instruction": instr, "generator": gen.__name__, "warps": W}, ptx, kname,
             W * 32 // 128 if W % 4 == 0 else W, 128 if W % 4 == 0 else 32, [ra, rb, rc, rd], ["a", "b", "c", "d"],
             keep={"d"})
    P.sass_ptx.setdefault(instr, ptx)


# ---------------------------------------------------------------------------- generators
# Each returns (A [n, M, K], B [n, K, N], C [n, M, N]) element bits; info = (M, N, K).

def _moderate(rng, t, shape, spread=4, p_zero=0.0):
    e = bias(t)
    return rand_bits(rng, t, shape, e - spread, e + spread, p_zero=p_zero)


def g_small_ints(rng, n, mnk, types):
    """Small integers: every product and sum exact (layouts)."""
    M, N, K = mnk
    at, bt, ct, dt = types
    a = encode_rn(rng.integers(-3, 4, (n, M, K)).astype(np.float64), at)
    b = encode_rn(rng.integers(-3, 4, (n, K, N)).astype(np.float64), bt)
    c = encode_rn(rng.integers(-8, 9, (n, M, N)).astype(np.float64), ct)
    return a, b, c


def g_wide(rng, n, mnk, types):
    """Random signs, fractions and exponents over a wide range (subnormal inputs included)."""
    M, N, K = mnk
    at, bt, ct, dt = types
    span = {"f16": 14, "bf16": 40, "tf32": 40, "e4m3": 7, "e5m2": 14, "f64": 60}[at]
    lo = lambda t: max(1, bias(t) - span)
    hi = lambda t: min((1 << FMT[t][0]) - 2, bias(t) + span)
    a = rand_bits(rng, at, (n, M, K), lo(at), hi(at), p_zero=0.05, p_sub=0.05 if at == "f16" else 0.0, lowbits=True)
    b = rand_bits(rng, bt, (n, K, N), lo(bt), hi(bt), p_zero=0.05, p_sub=0.05 if bt == "f16" else 0.0, lowbits=True)
    cspan = {"f32": 30, "f16": 10, "f64": 60}[ct]
    c = rand_bits(rng, ct, (n, M, N), bias(ct) - cspan, bias(ct) + cspan, p_zero=0.1)
    return a, b, c


def g_near(rng, n, mnk, types):
    """Exponents within a few binades: long overlapping significands, frequent carries."""
    M, N, K = mnk
    at, bt, ct, dt = types
    return (_moderate(rng, at, (n, M, K), 3), _moderate(rng, bt, (n, K, N), 3), _moderate(rng, ct, (n, M, N), 5))


def g_cancel(rng, n, mnk, types):
    """C = -(A.B) rounded to C's format, sometimes nudged by one unit: catastrophic cancellation
    exposes every bit the alignment keeps or drops."""
    M, N, K = mnk
    at, bt, ct, dt = types
    sp = {"f16": 5, "bf16": 8, "tf32": 8, "e4m3": 4, "e5m2": 5, "f64": 10}[at]
    a = _moderate(rng, at, (n, M, K), sp, p_zero=0.1)
    b = _moderate(rng, bt, (n, K, N), sp, p_zero=0.1)
    dot = np.einsum("wmk,wkn->wmn", value(a, at), value(b, bt))
    c = encode_rn(-dot, ct).astype(np.int64)
    nudge = rng.integers(-1, 2, c.shape) * (rng.random(c.shape) < 0.5)
    c = (c + nudge).astype(FMT[ct][2])
    return a, b, c


def g_gap(rng, n, mnk, types):
    """One dominant product or C per output and small terms 8..60 binades below it, random signs:
    how many bits below the largest term survive, and whether truncation is toward zero."""
    M, N, K = mnk
    at, bt, ct, dt = types
    e_a, m_a = FMT[at][0], FMT[at][1]
    maxgap = {"f16": 26, "bf16": 60, "tf32": 60, "e4m3": 14, "e5m2": 26, "f64": 120}[at]
    big = bias(at) + (2 if at in ("f16", "e4m3", "e5m2") else 10)
    a = np.empty((n, M, K), np.int64)
    ea = np.full((n, M, K), big)
    gap = rng.integers(4, maxgap // 2 + 1, (n, M, 1))
    ea = ea - gap - rng.integers(0, 3, (n, M, K))
    kbig = rng.integers(0, K, (n, M, 1))
    ea = np.where(np.arange(K)[None, None, :] == kbig, big, ea)
    top = (1 << e_a) - 2
    ea = np.clip(ea, 1, top)
    a = rand_bits(rng, at, (n, M, K), 1, 1)  # fractions/signs; exponents replaced below
    ab = a.astype(np.uint64)
    ab = (ab & ~np.uint64(((1 << e_a) - 1) << m_a << FMT[at][3])) | (ea.astype(np.uint64) << np.uint64(m_a + FMT[at][3]))
    a = ab.astype(FMT[at][2])
    eb = bias(bt) - rng.integers(0, maxgap // 2 + 1, (n, K, N))
    eb = np.clip(eb, 1, (1 << FMT[bt][0]) - 2)
    b = rand_bits(rng, bt, (n, K, N), 1, 1).astype(np.uint64)
    mb = FMT[bt][1] + FMT[bt][3]
    b = ((b & ~np.uint64(((1 << FMT[bt][0]) - 1) << mb)) | (eb.astype(np.uint64) << np.uint64(mb))).astype(FMT[bt][2])
    # C: sometimes the dominant term, sometimes tiny, sometimes zero
    vb = np.abs(value(a, at)).max(axis=2, keepdims=True) * np.abs(value(b, bt)).max(axis=1, keepdims=True)
    cmag = vb * np.exp2(rng.choice([-40.0, -20.0, -10.0, -3.0, 0.0, 2.0, 5.0], (n, M, N)))
    cv = cmag * rng.choice([-1.0, 1.0], (n, M, N)) * (1 + rng.random((n, M, N)))
    cv = np.where(rng.random((n, M, N)) < 0.15, 0.0, cv)
    c = encode_rn(cv, ct)
    return a, b, c


def g_groups(rng, n, mnk, types):
    """B = 1; row m of A holds X at k=i, -X at k=j, a small s at k=l, zeros elsewhere; C is 0, s2,
    X or -X by column: which k's (and C) share one alignment."""
    M, N, K = mnk
    at, bt, ct, dt = types
    av = np.zeros((n, M, K))
    X = 2.0 ** (2 if at in ("f16", "e4m3", "e5m2") else 8)
    s = 2.0 ** -(14 if at in ("f16", "e5m2") else (6 if at == "e4m3" else 30))
    idx = np.array([rng.permutation(K)[:3] for _ in range(n * M)]).reshape(n, M, 3)
    w, m = np.meshgrid(np.arange(n), np.arange(M), indexing="ij")
    av[w, m, idx[..., 0]] = X
    av[w, m, idx[..., 1]] = -X
    av[w, m, idx[..., 2]] = s * (1 + 0.5 * rng.integers(0, 2, (n, M)))
    a = encode_rn(av, at)
    b = encode_rn(np.ones((n, K, N)), bt)
    cv = np.zeros((n, M, N))
    cols = np.arange(N)
    cv[:, :, cols % 4 == 1] = s * 0.75
    cv[:, :, cols % 4 == 2] = X
    cv[:, :, cols % 4 == 3] = -X
    c = encode_rn(cv, ct)
    return a, b, c


def g_special(rng, n, mnk, types):
    """Zeros of both signs, infinities, NaNs with payloads, extremes, subnormals among moderate
    values."""
    M, N, K = mnk
    at, bt, ct, dt = types

    def mix(t, shape, p):
        x = _moderate(rng, t, shape, 3).astype(np.uint64)
        e, m, dt_, pad, has_inf = FMT[t]
        sgn = np.uint64(1 << (e + m + pad)) if t != "f64" else np.uint64(1 << 63)
        top = (1 << e) - 1
        sp = [0, 1 << pad, ((top << m) << pad) if has_inf else 0, (((top << m) | 1) << pad) if has_inf else ((top << m) | ((1 << m) - 1)) << pad,
              (((top << m) | (1 << (m - 1))) << pad) if m > 1 else 0, ((((top - 1) << m) | ((1 << m) - 1)) << pad),
              (1 << m) << pad, ((1 << m) - 1) << pad]
        if not has_inf:
            sp = [s for s in sp if s != 0] + [0]
        choice = np.array(sp, np.uint64)[rng.integers(0, len(sp), shape)]
        choice = choice | (rng.integers(0, 2, shape).astype(np.uint64) * sgn)
        u = rng.random(shape) < p
        return np.where(u, choice, x).astype(FMT[t][2])

    return mix(at, (n, M, K), 0.08), mix(bt, (n, K, N), 0.08), mix(ct, (n, M, N), 0.25)


def g_extreme(rng, n, mnk, types):
    """Products near the top and bottom of the range (overflow of the sum, results that are
    subnormal in f32 or f16), C near its extremes."""
    M, N, K = mnk
    at, bt, ct, dt = types
    e = FMT[at][0]
    top = (1 << e) - 2
    hi = rng.random((n, 1, 1)) < 0.5
    ea_hi = rand_bits(rng, at, (n, M, K), top - 3, top, p_zero=0.2)
    eb_hi = rand_bits(rng, bt, (n, K, N), (1 << FMT[bt][0]) - 5, (1 << FMT[bt][0]) - 2, p_zero=0.2)
    ea_lo = rand_bits(rng, at, (n, M, K), 1, 6, p_zero=0.2, p_sub=0.3)
    eb_lo = rand_bits(rng, bt, (n, K, N), 1, 6, p_zero=0.2, p_sub=0.3)
    a = np.where(hi, ea_hi, ea_lo)
    b = np.where(hi, eb_hi, eb_lo)
    ce = FMT[ct][0]
    c_hi = rand_bits(rng, ct, (n, M, N), (1 << ce) - 4, (1 << ce) - 2, p_zero=0.3)
    c_lo = rand_bits(rng, ct, (n, M, N), 1, 3, p_zero=0.3, p_sub=0.5)
    c = np.where(hi, c_hi, c_lo)
    return a, b, c


def g_zero(rng, n, mnk, types):
    """Signed zeros and exact cancellations: the sign of a zero result."""
    M, N, K = mnk
    at, bt, ct, dt = types
    sbit = lambda t: np.uint64(1) << np.uint64(FMT[t][0] + FMT[t][1] + FMT[t][3])
    a = (rng.integers(0, 2, (n, M, K)).astype(np.uint64) * sbit(at)).astype(FMT[at][2])
    bv = rng.choice([-1.0, 1.0, 2.0, -0.5], (n, K, N))
    bv[:, :2, :] = 1.0
    c = (rng.integers(0, 2, (n, M, N)).astype(np.uint64) * sbit(ct)).astype(FMT[ct][2])
    X = encode_rn(rng.choice([1.0, 0.75, 3.0], (n, M)), at)
    Xn = encode_rn(-value(X, at), at)
    sel = rng.random((n, 1)) < 0.5
    a[:, :, 0] = np.where(sel, X, a[:, :, 0])
    a[:, :, 1] = np.where(sel, Xn, a[:, :, 1])
    return a, encode_rn(bv, bt), c


def g_ties(rng, n, mnk, types):
    """C = +-X; two products: +-half a unit of X in the result format, and a tiny term 1..30
    binades further down of either sign (or none): round-to-nearest ties and sticky bits. The
    products are a*b with b a power of two per warp, so that both factors are representable."""
    M, N, K = mnk
    at, bt, ct, dt = types
    res_m = FMT[dt][1]
    lo = {"e4m3": -6, "e5m2": -12}.get(at, -12)
    e = rng.integers(0, 4, (n, 1)) + max(0, lo + res_m + 1 + (8 if at in ("e4m3", "e5m2") else 0))
    if at in ("e4m3", "e5m2"):
        e = np.minimum(e, 7 if at == "e4m3" else 14)
    X = (1 + rng.integers(0, 1 << 9, (n, M)) / 512.0) * np.exp2(e)
    half = np.exp2(e - res_m - 1) * rng.choice([-1.0, 1.0], (n, M))
    gap = rng.integers(1, 31, (n, M))
    tiny = np.abs(half) * np.exp2(-gap) * rng.choice([-1.0, 0.0, 1.0], (n, M))
    emin_b = 1 - bias(bt) - FMT[bt][1]  # smallest subnormal exponent of B's format
    j0 = np.maximum(np.floor(np.log2(np.abs(half[:, :1])) / 2), emin_b)
    j1 = np.maximum(np.floor(np.log2(np.abs(half[:, :1]) * 2.0 ** -15) / 2), emin_b)
    bv = np.ones((n, K, N))
    bv[:, 0, :] = np.exp2(j0)
    bv[:, K - 1, :] = np.exp2(j1)
    b = encode_rn(bv, bt)
    bq = value(b, bt)
    av = np.zeros((n, M, K))
    with np.errstate(divide="ignore", invalid="ignore"):
        av[:, :, 0] = np.nan_to_num(half / bq[:, 0:1, 0])
        av[:, :, K - 1] = np.nan_to_num(tiny / bq[:, K - 1:K, 0])
    a = encode_rn(av, at)
    cv = np.repeat(X[:, :, None], N, axis=2) * np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    return a, b, encode_rn(cv, ct)


def g_int(rng, n, mnk, types):
    """Full-range integers; C full range (wrapping sums)."""
    M, N, K = mnk
    at, bt, ct, dt = types
    w = INTS[at]
    a = rng.integers(0, 1 << w, (n, M, K), dtype=np.uint64).astype(np.uint8 if w <= 8 else np.uint32)
    b = rng.integers(0, 1 << INTS[bt], (n, K, N), dtype=np.uint64).astype(np.uint8 if INTS[bt] <= 8 else np.uint32)
    c = rng.integers(0, 1 << 32, (n, M, N), dtype=np.uint64).astype(np.uint32)
    return a, b, c


def g_int_sat(rng, n, mnk, types):
    """C within a few products of INT32_MIN/MAX, products of both signs: does .satfinite clamp
    the exact sum, or a partial one (a product sum split into steps)?"""
    M, N, K = mnk
    at, bt, ct, dt = types
    a, b, _ = g_int(rng, n, mnk, types)
    lim = rng.choice([2**31 - 1, -2**31], (n, M, N))
    off = rng.integers(-3000, 3000, (n, M, N))
    c = ((lim - np.sign(lim) * np.abs(off)) & 0xFFFFFFFF).astype(np.uint32)
    return a, b, c


# ---------------------------------------------------------------------------- mma experiment list

F_HMMA = ["mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"]
F_F16ACC = ["mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"]
F_884 = [f"mma.sync.aligned.m8n8k4.{al}.{bl}.{dt}.f16.f16.{ct}" for al in ("row", "col") for bl in ("row", "col")
         for dt, ct in (("f32", "f32"), ("f16", "f16"), ("f32", "f16"))]
F_FP8 = ["mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32",
         "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16",
         "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32", "mma.sync.aligned.m16n8k16.row.col.f16.e5m2.e4m3.f16"]
F_F64 = [f"mma.sync.aligned.{s}.row.col.f64.f64.f64.f64" for s in ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16")]
F_INT = []
for s, ts in (("m8n8k16", ("s8", "u8")), ("m16n8k16", ("s8", "u8")), ("m16n8k32", ("s8", "u8")),
              ("m8n8k32", ("s4", "u4")), ("m16n8k32", ("s4", "u4")), ("m16n8k64", ("s4", "u4"))):
    for x, y in ((ts[0], ts[0]), (ts[1], ts[1]), (ts[1], ts[0]), (ts[0], ts[1])):
        for sat in ("", ".satfinite"):
            F_INT.append(f"mma.sync.aligned.{s}.row.col{sat}.s32.{x}.{y}.s32")
F_B1 = [f"mma.sync.aligned.{s}.row.col.s32.b1.b1.s32.{op}.popc" for s in ("m8n8k128", "m16n8k128", "m16n8k256")
        for op in ("and", "xor")]


def mma_experiments(P, rng):
    def go(instr, gens):
        for gen, W in gens:
            run_mma(P, f"mma/{instr}/{gen.__name__}", instr, gen, W, rng)

    main = {F_HMMA[0], F_HMMA[2], F_HMMA[4]}
    for instr in F_HMMA:
        big = instr in main
        gens = [(g_small_ints, 4), (g_wide, 32 if big else 8), (g_near, 8), (g_cancel, 32 if big else 8),
                (g_gap, 48 if big else 16), (g_special, 16 if big else 4), (g_extreme, 16 if big else 4),
                (g_zero, 4), (g_ties, 4)]
        if big:
            gens.append((g_groups, 16))
        go(instr, gens)
    for instr in F_F16ACC:
        big = instr == F_F16ACC[0]
        go(instr, [(g_small_ints, 4), (g_wide, 16), (g_near, 8), (g_cancel, 16), (g_gap, 32 if big else 16),
                   (g_ties, 32 if big else 16), (g_special, 8), (g_extreme, 8), (g_zero, 4)])
    for instr in F_884:
        main884 = instr.endswith("row.col.f32.f16.f16.f32") or instr.endswith("row.col.f16.f16.f16.f16")
        gens = [(g_small_ints, 4), (g_wide, 8), (g_cancel, 8)]
        if main884:
            gens += [(g_gap, 16), (g_ties, 16), (g_special, 8), (g_extreme, 4), (g_zero, 4)]
        go(instr, gens)
    for instr in F_FP8:
        go(instr, [(g_small_ints, 4), (g_wide, 16), (g_cancel, 16), (g_gap, 16), (g_ties, 8), (g_special, 8),
                   (g_zero, 4)])
    for instr in F_F64:
        go(instr, [(g_small_ints, 4), (g_wide, 16), (g_cancel, 16), (g_gap, 16), (g_special, 8), (g_zero, 4),
                   (g_extreme, 4)])
    for instr in F_INT:
        go(instr, [(g_int, 4), (g_int_sat, 8)])
    for instr in F_B1:
        go(instr, [(g_int, 16)])


# ---------------------------------------------------------------------------- wmma

WMMA_CONFIGS = []  # (shape, atype, btype, ctype, dtype, alayouts, blayouts, ops)
for _s in ("m16n16k16", "m32n8k16", "m8n32k16"):
    for _ct, _dt in (("f32", "f32"), ("f16", "f16"), ("f16", "f32"), ("f32", "f16")):
        WMMA_CONFIGS.append((_s, "f16", "f16", _ct, _dt, ("row", "col"), ("row", "col"), (None,)))
    WMMA_CONFIGS.append((_s, "bf16", "bf16", "f32", "f32", ("row", "col"), ("row", "col"), (None,)))
    WMMA_CONFIGS.append((_s, "s8", "s8", "s32", "s32", ("row", "col"), ("row", "col"), (None,)))
    WMMA_CONFIGS.append((_s, "u8", "u8", "s32", "s32", ("row",), ("col",), (None, "satfinite")))
WMMA_CONFIGS += [("m16n16k8", "tf32", "tf32", "f32", "f32", ("row", "col"), ("row", "col"), (None,)),
                 ("m8n8k4", "f64", "f64", "f64", "f64", ("row", "col"), ("row", "col"), (None, "rn", "rz", "rm", "rp")),
                 ("m8n8k32", "s4", "s4", "s32", "s32", ("row",), ("col",), (None, "satfinite")),
                 ("m8n8k32", "u4", "u4", "s32", "s32", ("row",), ("col",), (None,)),
                 ("m8n8k128", "b1", "b1", "s32", "s32", ("row",), ("col",), ("xor", "and"))]


def wmma_mma_instr(shape, at, bt, ct, dt, al, bl, op):
    if at == "f16":
        return f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{dt}.{ct}"
    if at == "b1":
        return f"wmma.mma.{op}.popc.sync.aligned.{al}.{bl}.{shape}.s32.b1.b1.s32"
    if at == "f64" and op:
        return f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{op}.f64.f64.f64.f64"
    sat = ".satfinite" if op == "satfinite" else ""
    return f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{dt}.{at}.{bt}.{ct}{sat}"


def _wnregs(shape, which, t):
    return L._wmma_regs(shape, which, t)


def _ebytes(t):
    return max(1, L.BITS[t] // 8)


def wmma_strides(shape, at, ct, al, bl):
    """Strides (elements) with padding, and matrix byte sizes, for A, B, C/D."""
    M, N, K = L.parse_shape(shape)
    bits = L.BITS[at]
    pad = {16: 8, 32: 4, 64: 4, 8: 16, 4: 32, 1: 128}[bits]
    sa = (K if al == "row" else M) + pad
    sb = (N if bl == "row" else K) + pad
    cb = L.BITS[ct]
    sc = N + {16: 8, 32: 4, 64: 4}[cb]
    rows_a = M if al == "row" else K
    rows_b = K if bl == "row" else N
    nbytes = lambda rows, stride, b: -(-(rows * stride * b) // 8)
    return (sa, sb, sc), (nbytes(rows_a, sa, bits), nbytes(rows_b, sb, bits), nbytes(M, sc, cb), nbytes(M, sc, 64))


def wmma_kernel(kname, shape, at, bt, ct, dt, al, bl, op, sizes, strides, override=(), space="global",
                stride_operand=True, ver="8.7"):
    """Per warp: wmma.load A, B, C (dumping the loaded registers), optionally replace a fragment by
    registers from a per-lane array, mma, dump D's registers, wmma.store D (row-major)."""
    M, N, K = L.parse_shape(shape)
    na, nb, nc, nd = (_wnregs(shape, "a", at), _wnregs(shape, "b", bt), _wnregs(shape, "c", ct), _wnregs(shape, "d", dt))
    rb = {x: (64 if t == "f64" else 32) for x, t in (("a", at), ("b", bt), ("c", ct), ("d", dt))}
    params = ["pa", "pb", "pc", "pd", "ra", "rb", "rc", "rd", "ia", "ib", "ic"]
    lines = [f".visible .entry {kname}(" + ", ".join(f".param .u64 {p}" for p in params) + ")", "{"]
    lines += COMMON_REGS
    for x, n in (("a", na), ("b", nb), ("c", nc), ("d", nd)):
        lines.append(_regs(x, n, rb[x]))
    sbytes = sum(sizes)
    if space == "shared":
        lines.append(f"  .shared .align 256 .b8 smem[{-(-sbytes // 256) * 256 * 4}];")
    _tid(lines)
    offs = [0, sizes[0], sizes[0] + sizes[1], sizes[0] + sizes[1] + sizes[2]]
    # per-warp base addresses of A, B, C, D
    for i, (x, p) in enumerate((("a", "pa"), ("b", "pb"), ("c", "pc"), ("d", "pd"))):
        lines += [f"  .reg .b64 %m{x};", f"  ld.param.u64 %m{x}, [{p}];"]
        if space == "global":
            lines.append(f"  cvta.to.global.u64 %m{x}, %m{x};")
        lines += [f"  mul.wide.u32 %off, %warp, {sizes[i]};", f"  add.s64 %m{x}, %m{x}, %off;"]
    if space == "shared":
        # copy this warp's A, B, C images into shared memory (warp w at w * sbytes), then use them
        lines += ["  .reg .b64 %s<4>, %gsrc, %sdst;", "  .reg .b32 %v, %lane, %wl;",
                  "  and.b32 %lane, %gt, 31;", "  and.b32 %wl, %warp, 3;",
                  "  mov.u64 %s0, smem;", f"  mul.wide.u32 %off, %wl, {-(-sbytes // 256) * 256};",
                  "  add.s64 %s0, %s0, %off;"]
        lines += [f"  add.s64 %s1, %s0, {offs[1]};", f"  add.s64 %s2, %s0, {offs[2]};",
                  f"  add.s64 %s3, %s0, {offs[3]};"]
        for j, x in enumerate("abc"):
            n = sizes[j]
            sreg = "%s0" if j == 0 else f"%s{j}"
            lab = f"CP{x}"
            lines += ["  mov.u32 %i, %lane;", f"{lab}:", f"  setp.ge.u32 %p, %i, {n // 4};", f"  @%p bra {lab}_done;",
                      "  mul.wide.u32 %off, %i, 4;", f"  add.s64 %gsrc, %m{x}, %off;", "  cvta.to.global.u64 %gsrc, %gsrc;",
                      "  ld.global.b32 %v, [%gsrc];", f"  add.s64 %sdst, {sreg}, %off;", "  st.shared.b32 [%sdst], %v;",
                      "  add.u32 %i, %i, 32;", f"  bra {lab};", f"{lab}_done:"]
        lines += ["  bar.warp.sync -1;", "  mov.u64 %ma, %s0;", "  mov.u64 %mb, %s1;", "  mov.u64 %mc, %s2;",
                  "  mov.u64 %md, %s3;"]
    ss = {"global": ".global", "shared": ".shared", "generic": ""}[space]
    st = lambda s: f", {s}" if stride_operand else ""
    strides = list(strides)
    lines.append(f"  wmma.load.a.sync.aligned.{al}.{shape}{ss}.{at} {_brace('a', na)}, [%ma]{st(strides[0])};")
    lines.append(f"  wmma.load.b.sync.aligned.{bl}.{shape}{ss}.{bt} {_brace('b', nb)}, [%mb]{st(strides[1])};")
    lines.append(f"  wmma.load.c.sync.aligned.row.{shape}{ss}.{ct} {_brace('c', nc)}, [%mc]{st(strides[2])};")
    for x, n in (("a", na), ("b", nb), ("c", nc)):
        _store_regs(lines, "r" + x, x, n, rb[x])
    for x, n in (("a", na), ("b", nb), ("c", nc)):
        if x in override:
            _load_regs(lines, "i" + x, x, n, rb[x])
    instr = wmma_mma_instr(shape, at, bt, ct, dt, al, bl, op)
    lines.append(f"  {instr} {_brace('d', nd)}, {_brace('a', na)}, {_brace('b', nb)}, {_brace('c', nc)};")
    _store_regs(lines, "rd", "d", nd, rb["d"])
    lines.append(f"  wmma.store.d.sync.aligned.row.{shape}{ss}.{dt} [%md], {_brace('d', nd)}{st(strides[2])};")
    if space == "shared":
        # copy D back out to global memory
        n = sizes[3]
        lines += ["  bar.warp.sync -1;", "  ld.param.u64 %md, [pd];", f"  mul.wide.u32 %off, %warp, {sizes[3]};",
                  "  add.s64 %md, %md, %off;", "  mov.u32 %i, %lane;", "CPd:", f"  setp.ge.u32 %p, %i, {n // 4};",
                  "  @%p bra CPd_done;", "  mul.wide.u32 %off, %i, 4;", "  add.s64 %sdst, %s3, %off;",
                  "  ld.shared.b32 %v, [%sdst];", "  add.s64 %gsrc, %md, %off;", "  cvta.to.global.u64 %gsrc, %gsrc;",
                  "  st.global.b32 [%gsrc], %v;", "  add.u32 %i, %i, 32;", "  bra CPd;", "CPd_done:"]
    lines += ["  ret;", "}"]
    return instr, "\n".join(lines) + "\n", (na, nb, nc, nd), rb


def _mem_image(mat, layout, stride, t, nbytes):
    """Matrix [rows, cols] of element bits -> byte image with `stride` (elements) in `layout`."""
    rows, cols = mat.shape
    bits = L.BITS[t]
    total_bits = nbytes * 8
    img = np.zeros(total_bits // bits if bits >= 8 else total_bits // bits, np.uint64)
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    idx = r * stride + c if layout == "row" else c * stride + r
    img[idx.ravel()] = mat.ravel()
    if bits >= 8:
        return img.astype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]).view(np.uint8)
    per = 8 // bits
    img = img.reshape(-1, per) & np.uint64((1 << bits) - 1)
    sh = np.arange(per, dtype=np.uint64) * np.uint64(bits)
    return np.bitwise_or.reduce(img << sh, axis=-1).astype(np.uint8)


def run_wmma(P, name, cfg, al, bl, op, mats, rng, override=None, space="global", stride_operand=True, extra=None,
             keep=("pd", "ra", "rb", "rc", "rd")):
    """mats: per warp (A, B, C) element matrices [W, rows, cols]; override: {x: regs [W,32,n]}."""
    shape, at, bt, ct, dt = cfg
    W = mats[0].shape[0]
    strides, sizes = wmma_strides(shape, at, ct, al, bl)
    if not stride_operand:
        M, N, K = L.parse_shape(shape)
        strides = ((K if al == "row" else M), (N if bl == "row" else K), N)
        nb = lambda rows, s, b: -(-(rows * s * b) // 8)
        sizes = (nb(M if al == "row" else K, strides[0], L.BITS[at]), nb(K if bl == "row" else N, strides[1], L.BITS[bt]),
                 nb(M, strides[2], L.BITS[ct]), nb(M, strides[2], 64))
    sizes = tuple(-(-s // 256) * 256 for s in sizes)
    kname = "w_" + hashlib.sha1(repr((cfg, al, bl, op, space, stride_operand, sorted(override or {}))).encode()).hexdigest()[:10]
    instr, body, (na, nb_, nc, nd), rb = wmma_kernel(kname, shape, at, bt, ct, dt, al, bl, op, sizes, strides,
                                                     tuple(override or {}), space, stride_operand)
    ptx = HEAD.format(ver="8.7") + body
    ia = [_mem_image(mats[0][w], al, strides[0], at, sizes[0]) for w in range(W)]
    ib = [_mem_image(mats[1][w], bl, strides[1], bt, sizes[1]) for w in range(W)]
    ic = [_mem_image(mats[2][w], "row", strides[2], ct, sizes[2]) for w in range(W)]
    pa, pb, pc = np.concatenate(ia), np.concatenate(ib), np.concatenate(ic)
    pd = np.full(W * sizes[3], 0xA5, np.uint8)
    dt_r = lambda x: np.uint64 if rb[x] == 64 else np.uint32
    regs = {x: np.zeros((W, 32, n), dt_r(x)) for x, n in (("a", na), ("b", nb_), ("c", nc), ("d", nd))}
    ins = {x: (override or {}).get(x, np.zeros((W, 32, n), dt_r(x))).astype(dt_r(x))
           for x, n in (("a", na), ("b", nb_), ("c", nc))}
    meta = {"kind": "wmma", "instruction": instr, "shape": shape, "types": [at, bt, ct, dt], "alayout": al,
            "blayout": bl, "op": op, "space": space, "strides": list(strides), "sizes": list(sizes),
            "override": sorted(override or {}), "warps": W, "stride_operand": stride_operand}
    meta.update(extra or {})
    shared = 0
    P.launch(name, meta, ptx, kname, 1, 32 * W, [pa, pb, pc, pd, regs["a"], regs["b"], regs["c"], regs["d"],
                                                    ins["a"], ins["b"], ins["c"]],
             ["pa", "pb", "pc", "pd", "ra", "rb", "rc", "rd", "ia", "ib", "ic"], shared, keep=set(keep))
    if shape == "m16n16k16" and at in ("f16", "s8") and al == "row" and bl == "col" and op is None:
        P.sass_ptx.setdefault(instr, ptx)


def _code_slices(rows, cols, bits, n_slices=None):
    """Index codes r*cols+c+1 split in `bits`-wide slices: one matrix per slice."""
    code = (np.arange(rows)[:, None] * cols + np.arange(cols)[None, :] + 1).astype(np.uint64)
    need = int(code.max()).bit_length()
    if bits >= 16:
        if bits == 32:
            r = np.arange(rows)[:, None].astype(np.uint64)
            c = np.arange(cols)[None, :].astype(np.uint64)
            return [((r << np.uint64(24)) | (c << np.uint64(16)) | (r << np.uint64(8)) | c)]
        if bits == 64:
            return [(code << np.uint64(32)) | code]
        return [code]
    k = -(-need // bits)
    return [(code >> np.uint64(i * bits)) & np.uint64((1 << bits) - 1) for i in range(k)]


def wmma_experiments(P, rng):
    for cfg7 in WMMA_CONFIGS:
        shape, at, bt, ct, dt, als, bls, ops = cfg7
        cfg = (shape, at, bt, ct, dt)
        M, N, K = L.parse_shape(shape)
        # (1) layouts: index codes in memory, slices of the code in separate warps
        for al in als:
            for bl in bls:
                if ct != dt and not (al == "row" and bl == "col"):
                    continue
                sa = _code_slices(M, K, L.BITS[at])
                sb = _code_slices(K, N, L.BITS[bt])
                sc = _code_slices(M, N, L.BITS[ct])
                W = max(len(sa), len(sb), len(sc))
                pick = lambda s, w: s[min(w, len(s) - 1)]
                mats = (np.stack([pick(sa, w) for w in range(W)] + [0 * sa[0]]),
                        np.stack([pick(sb, w) for w in range(W)] + [0 * sb[0]]),
                        np.stack([pick(sc, w) for w in range(W)] + [sc[0]]))  # last warp: D = C
                op = ops[0]
                run_wmma(P, f"wmma/layout/{shape}.{at}.{ct}.{dt}.{al}.{bl}", cfg, al, bl, op, mats, rng,
                         extra={"generator": "index codes"})
        # (2) arithmetic on random data through memory, every layout pair and op
        for al in als:
            for bl in bls:
                for op in ops:
                    if ct != dt and not (al == "row" and bl == "col"):
                        continue
                    W = 4
                    a, b, c = _wmma_random(rng, cfg, W)
                    run_wmma(P, f"wmma/random/{shape}.{at}.{ct}.{dt}.{al}.{bl}.{op}", cfg, al, bl, op, (a, b, c), rng,
                             extra={"generator": "random"}, keep=("pd", "rd"))
        # (3) which fragment registers the mma reads: codes in registers, identity through memory
        if at in ("f16", "bf16", "tf32"):
            _wmma_reads(P, rng, cfg, ops[0])
    # (4) state spaces and the default stride
    cfg = ("m16n16k16", "f16", "f16", "f32", "f32")
    for space in ("shared", "generic"):
        a, b, c = _wmma_random(rng, cfg, 4)
        run_wmma(P, f"wmma/space/{space}.m16n16k16.f16.f32.row.col", cfg, "row", "col", None, (a, b, c), rng,
                 space=space, extra={"generator": "random"})
    for al, bl in (("row", "col"), ("col", "row")):
        a, b, c = _wmma_random(rng, cfg, 4)
        run_wmma(P, f"wmma/nostride/m16n16k16.f16.f32.{al}.{bl}", cfg, al, bl, None, (a, b, c), rng,
                 stride_operand=False, extra={"generator": "random"})


def _wmma_random(rng, cfg, W):
    shape, at, bt, ct, dt = cfg
    M, N, K = L.parse_shape(shape)
    types = (at, bt, ct, dt)
    if at in INTS:
        a, b, c = g_int(rng, W, (M, N, K), types)
        if at == "b1":
            a, b = a & 1, b & 1
        return a, b, c
    gen = g_near if at != "f64" else g_wide
    return gen(rng, W, (M, N, K), types)


def _wmma_reads(P, rng, cfg, op):
    """A (then B) fragment registers hold codes lane+1 (one run) and element+1 (another); the other
    operand is a 0/1 selector through memory, C = 0: D = the operand as the mma read it."""
    shape, at, bt, ct, dt = cfg
    M, N, K = L.parse_shape(shape)
    enc = lambda x, t: encode_rn(np.asarray(x, np.float64), t)
    na, nb = _wnregs(shape, "a", at), _wnregs(shape, "b", bt)
    bits = L.BITS[at]
    per = 1 if bits == 64 else 32 // bits

    def coded(n, what):
        lane = np.arange(32)[:, None, None]
        e = np.arange(n)[None, :, None] * per + np.arange(per)[None, None, :]
        code = (lane + 1) + 0 * e if what == "lane" else (e + 1) + 0 * lane
        el = enc(code.astype(np.float64), at).astype(np.uint64) & np.uint64((1 << bits) - 1)
        sh = np.arange(per, dtype=np.uint64) * np.uint64(bits)
        return np.bitwise_or.reduce(el << sh, axis=-1).astype(np.uint32)[None]

    zero_c = np.zeros((1, M, N), np.uint64)
    for which in ("a", "b"):
        # selectors: D = X (or a shifted window of it)
        sels = []
        if which == "a":
            for off in range(0, K, N) if N < K else (0,):
                sel = np.zeros((K, N))
                for n_ in range(N):
                    if n_ + off < K:
                        sel[n_ + off, n_] = 1
                sels.append(("b", sel, off))
        else:
            for off in range(0, K, M) if M < K else (0,):
                sel = np.zeros((M, K))
                for m_ in range(M):
                    if m_ + off < K:
                        sel[m_, m_ + off] = 1
                sels.append(("a", sel, off))
        for what in ("lane", "elem"):
            for other, sel, off in sels:
                regs = coded(na if which == "a" else nb, what)
                if which == "a":
                    mats = (np.zeros((1, M, K), np.uint64), enc(sel, bt)[None], zero_c)
                else:
                    mats = (enc(sel, at)[None], np.zeros((1, K, N), np.uint64), zero_c)
                run_wmma(P, f"wmma/reads/{shape}.{at}.{ct}.{dt}.{which}.{what}.{off}", cfg, "row", "col", op, mats, rng,
                         override={which: regs}, extra={"generator": f"codes:{which}:{what}:{off}"})


# ---------------------------------------------------------------------------- ldmatrix / stmatrix

def ldst_kernel(kname, num, trans, space, addr64=True):
    """ldmatrix then stmatrix with the same lane addresses into a 64x64 .b16 shared image."""
    t = ".trans" if trans else ""
    ss = {"shared": ".shared", "shared::cta": ".shared::cta", "generic": ""}[space]
    lines = [f".visible .entry {kname}(.param .u64 pimg, .param .u64 poff, .param .u64 pin, .param .u64 pout, "
             ".param .u64 pimg_out)", "{"]
    lines += COMMON_REGS
    lines += ["  .reg .b32 %v, %o, %sa32;", "  .reg .b64 %sa, %g;", _regs("r", num, 32), _regs("s", num, 32),
              "  .shared .align 128 .b8 img[8192];"]
    _tid(lines)
    lines += ["  ld.param.u64 %base, [pimg];", "  cvta.to.global.u64 %base, %base;", "  mov.u32 %i, %gt;", "CP:",
              "  setp.ge.u32 %p, %i, 2048;", "  @%p bra CP_done;", "  mul.wide.u32 %off, %i, 4;",
              "  add.s64 %addr, %base, %off;", "  ld.global.b32 %v, [%addr];", "  mov.u64 %sa, img;",
              "  add.s64 %sa, %sa, %off;", "  st.shared.b32 [%sa], %v;", "  add.u32 %i, %i, 32;", "  bra CP;", "CP_done:",
              "  bar.sync 0;", "  ld.param.u64 %base, [poff];", "  cvta.to.global.u64 %base, %base;",
              "  mul.wide.u32 %off, %gt, 4;", "  add.s64 %addr, %base, %off;", "  ld.global.u32 %o, [%addr];"]
    if space == "generic":
        lines += ["  mov.u64 %sa, img;", "  cvta.shared.u64 %sa, %sa;", "  cvt.u64.u32 %off, %o;",
                  "  add.s64 %sa, %sa, %off;"]
        a = "%sa"
    elif addr64:
        lines += ["  mov.u64 %sa, img;", "  cvt.u64.u32 %off, %o;", "  add.s64 %sa, %sa, %off;"]
        a = "%sa"
    else:
        lines += ["  mov.u32 %sa32, img;", "  add.u32 %sa32, %sa32, %o;"]
        a = "%sa32"
    lines.append(f"  ldmatrix.sync.aligned.m8n8.x{num}{t}{ss}.b16 {_brace('r', num)}, [{a}];")
    _store_regs(lines, "pout", "r", num, 32)
    _load_regs(lines, "pin", "s", num, 32)
    lines += ["  bar.sync 0;", f"  stmatrix.sync.aligned.m8n8.x{num}{t}{ss}.b16 [{a}], {_brace('s', num)};",
              "  bar.sync 0;", "  ld.param.u64 %base, [pimg_out];", "  cvta.to.global.u64 %base, %base;",
              "  mov.u32 %i, %gt;", "CQ:", "  setp.ge.u32 %p, %i, 2048;", "  @%p bra CQ_done;",
              "  mul.wide.u32 %off, %i, 4;", "  mov.u64 %sa, img;", "  add.s64 %sa, %sa, %off;",
              "  ld.shared.b32 %v, [%sa];", "  add.s64 %addr, %base, %off;", "  st.global.b32 [%addr], %v;",
              "  add.u32 %i, %i, 32;", "  bra CQ;", "CQ_done:", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def ldst_experiments(P, rng):
    img0 = (np.arange(64)[:, None] * 64 + np.arange(64)[None, :]).astype(np.uint16).ravel()
    for num in (1, 2, 4):
        for trans in (False, True):
            for space, a64 in (("shared", True), ("shared", False), ("shared::cta", True), ("generic", True)):
                if space != "shared" and num != 4:
                    continue
                rows = rng.permutation(64)[:32]
                cols = rng.integers(0, 8, 32) * 8
                offs = ((rows * 64 + cols) * 2).astype(np.uint32)
                regs_in = np.zeros((32, num), np.uint32)
                lane = np.arange(32)[:, None]
                reg = np.arange(num)[None, :]
                code = (lane * num + reg) * 2
                regs_in[:] = (code | ((code + 1) << 16)).astype(np.uint32) | np.uint32(0x80008000)
                out = np.zeros((32, num), np.uint32)
                img_out = np.zeros(4096, np.uint16)
                kname = f"ldst_x{num}{'_t' if trans else ''}_{space.replace('::', '_')}{'' if a64 else '_32'}"
                ptx = HEAD.format(ver="8.7") + ldst_kernel(kname, num, trans, space, a64)
                P.launch(f"ldst/{kname}", {"kind": "ldst", "num": num, "trans": trans, "space": space, "addr64": a64},
                         ptx, kname, 1, 32, [img0.copy(), offs, regs_in, out, img_out],
                         ["img", "off", "regs_in", "regs_out", "img_out"], keep={"regs_out", "img_out"})


# ---------------------------------------------------------------------------- one-hot layout probes

def onehot_experiments(P, rng):
    """mma.m8n8k4 .f16 with .col A / .row B: A one-hot at each (lane, element) against B codes,
    and the converse: the D positions and values name the entries each element feeds."""
    for instr in ("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32", "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16"):
        shape, al, bl, dt, at, bt, ct, sat, bitop = mma_spec(instr)
        A, B, C, D = L.mma_fragments(shape, at, bt, ct, dt, al, bl)
        for which, F, other in (("a", A, B), ("b", B, A)):
            W = 32 * F.elems
            hot = np.zeros((W, 32, F.elems), np.uint16)
            hot[np.arange(W), np.arange(W) // F.elems, np.arange(W) % F.elems] = 0x3C00  # 1.0
            codes = (np.arange(32)[:, None] * other.elems + np.arange(other.elems)[None, :] + 1).astype(np.float64)
            oth = np.broadcast_to(codes.astype(np.float16).view(np.uint16), (W, 32, other.elems))

            def pack16(x):
                x = x.astype(np.uint32)
                return (x[..., 0::2] | (x[..., 1::2] << 16)).astype(np.uint32)

            ra, rb = (pack16(hot), pack16(oth)) if which == "a" else (pack16(oth), pack16(hot))
            rc = np.zeros((W, 32, C.nregs), np.uint32)
            rd = np.zeros((W, 32, D.nregs), np.uint32)
            ops = [("a", A.nregs, 32, "in"), ("b", B.nregs, 32, "in"), ("c", C.nregs, 32, "in"), ("d", D.nregs, 32, "out")]
            kname = "oh_" + hashlib.sha1(instr.encode()).hexdigest()[:10]
            ptx = HEAD.format(ver="8.7") + frag_kernel(kname, instr + " {d}, {a}, {b}, {c}", ops)
            P.launch(f"onehot/{instr}/{which}", {"kind": "mma", "instruction": instr, "generator": f"onehot:{which}",
                                                 "warps": W}, ptx, kname, W // 4, 128, [ra, rb, rc, rd],
                     ["a", "b", "c", "d"], keep={"d"})


# ---------------------------------------------------------------------------- SASS

def dump_sass(P, path):
    """ptxas + cuobjdump -sass of the kernels of a few forms: how sm_90 executes them."""
    want = [i for i in P.sass_ptx if any(s in i for s in (
        "m16n8k16.row.col.f32.f16", "m16n8k16.row.col.f16.f16", "m16n8k32.row.col.f32.e4m3", "m16n8k16.row.col.f32.e4m3",
        "m8n8k4.row.col.f32.f16", "m8n8k4.row.col.f16.f16.f16.f16", "m16n8k8.row.col.f64", "m8n8k4.row.col.f64",
        "m16n8k64.row.col.s32.s4.s4", "m8n8k32.row.col.s32.s4.s4", "m16n8k32.row.col.satfinite.s32.s8.s8",
        "m8n8k128.row.col.s32.b1.b1.s32.xor", "m16n8k8.row.col.f32.tf32", "wmma.mma"))]
    if not shutil.which("ptxas") or not shutil.which("cuobjdump"):
        with open(path, "w") as f:
            f.write("ptxas/cuobjdump not found\n")
        return
    with tempfile.TemporaryDirectory() as d, open(path, "w") as out:
        for instr in want:
            ptx = P.sass_ptx[instr]
            p = os.path.join(d, "k.ptx")
            with open(p, "w") as f:
                f.write(ptx)
            r = subprocess.run(["ptxas", "-arch=sm_90", p, "-o", os.path.join(d, "k.cubin")], capture_output=True, text=True)
            s = subprocess.run(["cuobjdump", "-sass", os.path.join(d, "k.cubin")], capture_output=True, text=True)
            keep = [ln.strip() for ln in s.stdout.splitlines() if "/*" in ln and ";" in ln]
            keep = [ln.split("*/", 1)[1].strip() if ln.startswith("/*") else ln for ln in keep]
            out.write(f"==== {instr}\n{r.stderr.strip()}\n" + "\n".join(keep) + "\n\n")


# ============================================================================ main

def device_info(backend):
    info = {"backend": backend.name, "python": platform.python_version(), "numpy": np.__version__,
            "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    if backend.name == "cupy":
        cp = backend.cp
        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"]
        info.update(gpu=name.decode() if isinstance(name, bytes) else name,
                    compute_capability=f"{props['major']}.{props['minor']}",
                    cuda_driver_api=cp.cuda.runtime.driverGetVersion(), cuda_runtime=cp.cuda.runtime.runtimeGetVersion(),
                    cupy=cp.__version__)
        for k, cmd in (("nvidia_smi", ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
                       ("ptxas", ["ptxas", "--version"])):
            try:
                info[k] = subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[-1]
            except Exception as e:  # noqa: BLE001
                info[k] = f"unavailable ({e.__class__.__name__})"
    return info


# ---------------------------------------------------------------------------- crafted cases
# One output element per warp (row 0 of A, column 0 of B, C[0][0]; everything else zero): the
# hand-made cases that docs/notes/matrix-numerics.md and tests/engine/test_matrix.py state.

P2 = lambda e: 2.0 ** e
INF = float("inf")
CRAFTED = {
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32": [
        ("grid_kept", {0: (P2(6), P2(6)), 1: (-P2(6), P2(6)), 2: (P2(-7), P2(-6))}, 0.0),
        ("grid_dropped", {0: (P2(6), P2(6)), 1: (-P2(6), P2(6)), 2: (P2(-7), P2(-7))}, 0.0),
        ("grid_dropped_k13_15", {13: (P2(6), P2(6)), 14: (-P2(6), P2(6)), 15: (P2(-7), P2(-7))}, 0.0),
        ("grid_kept_k0_15", {0: (P2(6), P2(6)), 15: (-P2(6), P2(6)), 7: (P2(-7), P2(-6))}, 0.0),
        ("c_in_alignment", {0: (2047.0, -2.0), 1: (P2(-7), P2(-7))}, 4096.0),
        ("toward_zero_term", {0: (P2(-15), -P2(-15))}, 1.0),
        ("toward_zero_sum", {0: (1.5 * P2(-12), P2(-11))}, 1.0),
        ("toward_zero_sum_neg", {0: (-1.5 * P2(-12), P2(-11))}, -1.0),
        ("nan_inf_times_zero", {0: (INF, 0.0)}, 1.0),
        ("nan_inf_minus_inf", {0: (INF, 1.0), 1: (1.0, -INF)}, 0.0),
        ("inf", {0: (INF, 2.0)}, 1.0),
        ("inf_plus_c_minus_inf", {0: (INF, 2.0)}, -INF),
        ("neg_zero", {0: (-0.0, 1.0)}, -0.0),
        ("exact_cancel", {0: (3.0, 1.0), 1: (-3.0, 1.0)}, -0.0),
        ("subnormal_inputs", {0: (P2(-24), P2(-24)), 1: (P2(-20), 3 * P2(-24))}, 0.0),
        ("subnormal_c", {}, float(np.float32(P2(-140)))),
    ],
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16": [
        ("tie_even", {0: (P2(-11), 1.0)}, 1.0),
        ("tie_odd", {0: (P2(-11), 1.0)}, 1.0 + P2(-10)),
        ("tie_plus_2m24", {0: (P2(-11), 1.0), 1: (P2(-12), P2(-12))}, 1.0),
        ("tie_plus_2m26", {0: (P2(-11), 1.0), 1: (P2(-13), P2(-13))}, 1.0),
        ("tie_minus_2m24", {0: (P2(-11), 1.0), 1: (-P2(-12), P2(-12))}, 1.0 + P2(-10)),
        ("overflow", {0: (256.0, 256.0)}, 0.0),
        ("f16_subnormal_result", {0: (P2(-12), P2(-12))}, 0.0),
    ],
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32": [
        ("overflow_2p128", {0: (P2(100), P2(28))}, 0.0),
        ("max_2p127", {0: (P2(100), P2(27))}, 0.0),
        ("underflow_neg", {0: (-P2(-100), P2(-60))}, 0.0),
        ("huge_cancel", {0: (P2(100), P2(100)), 1: (-P2(100), P2(100)), 2: (1.0, 1.0)}, 0.0),
    ],
    "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32": [
        ("low_bits_ignored", {0: (1.0 + P2(-11) + P2(-12), 1.0)}, 0.0),
    ],
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32": [
        ("order_p1_lost", {0: (P2(12), P2(12)), 1: (1.0, 1.0), 2: (-P2(12), P2(12))}, 0.0),
        ("order_p3_kept", {0: (P2(12), P2(12)), 2: (-P2(12), P2(12)), 3: (1.0, 1.0)}, 0.0),
        ("c_last", {0: (1.0, 1.0)}, P2(24)),
        ("neg_zero_sum", {0: (-0.0, 1.0)}, -0.0),
    ],
    "mma.sync.aligned.m8n8k4.row.col.f16.f16.f16.f16": [
        ("pairs", {0: (P2(12), P2(12)), 1: (1.0, 1.0), 2: (-P2(12), P2(12)), 3: (1.0, 1.0)}, 0.0),
    ],
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32": [
        ("halves_apart", {0: (256.0, 256.0), 2: (-256.0, 256.0), 1: (P2(-6), P2(-6))}, 0.0),
        ("halves_together", {0: (256.0, 256.0), 1: (-256.0, 256.0), 2: (P2(-6), P2(-6))}, 0.0),
        ("c_added_rn", {0: (1.0, 1.0), 1: (P2(-9), P2(-9) * 1.5)}, P2(24)),
    ],
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64": [
        ("fma_order", {0: (P2(53), 1.0), 1: (1.0, 1.0), 2: (-P2(53), 1.0), 3: (1.0, 1.0)}, 0.0),
    ],
    "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32": [
        ("sat_exact_sum", {0: (127, 127), 16: (-127, 127)}, 2 ** 31 - 2),
        ("sat_clamp", {0: (127, 127)}, 2 ** 31 - 2),
    ],
}


def g_crafted(cases):
    def gen(rng, n, mnk, types):
        M, N, K = mnk
        at, bt, ct, dt = types
        av, bv, cv = np.zeros((n, M, K)), np.zeros((n, K, N)), np.zeros((n, M, N))
        step = n // len(cases)
        for i, (_, terms, c) in enumerate(cases):
            w = i * step
            for k, (x, y) in terms.items():
                av[w, 0, k], bv[w, k, 0] = x, y
            cv[w, 0, 0] = c
        if at in INTS:
            enc = lambda v, t: (v.astype(np.int64) & ((1 << INTS[t]) - 1)).astype(np.uint8 if INTS[t] <= 8 else np.uint32)
            return enc(av, at), enc(bv, bt), (cv.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
        return encode_rn(av, at), encode_rn(bv, bt), encode_rn(cv, ct)
    gen.__name__ = "g_crafted"
    return gen


def crafted_experiments(P, rng):
    for instr, cases in CRAFTED.items():
        name = f"crafted/{instr}"
        run_mma(P, name, instr, g_crafted(cases), len(cases), rng)
        if name in P.meta:
            P.meta[name]["cases"] = [c[0] for c in cases]


def holdout_experiments(P, rng):
    """Fresh data for every mma form and wmma configuration (a check that the rules fitted to the
    first recording predict data they were not fitted to)."""
    def go(instr, gens):
        for gen, W in gens:
            run_mma(P, f"holdout/{instr}/{gen.__name__}", instr, gen, W, rng)

    for instr in F_HMMA + F_F16ACC:
        go(instr, [(g_wide, 4), (g_cancel, 4), (g_gap, 4), (g_special, 4), (g_extreme, 4), (g_ties, 4)])
    for instr in F_884 + F_FP8 + F_F64:
        go(instr, [(g_wide, 4), (g_cancel, 4), (g_gap, 4), (g_special, 4)])
    for instr in F_INT[::3]:
        go(instr, [(g_int_sat, 4)])
    for cfg7 in WMMA_CONFIGS:
        shape, at, bt, ct, dt, als, bls, ops = cfg7
        cfg = (shape, at, bt, ct, dt)
        for op in ops:
            a, b, c = _wmma_random(rng, cfg, 2)
            run_wmma(P, f"holdout/wmma/{shape}.{at}.{ct}.{dt}.{als[-1]}.{bls[0]}.{op}", cfg, als[-1], bls[0], op,
                     (a, b, c), rng, extra={"generator": "random"}, keep=("pd", "rd"))


SECTIONS = {"mma": 1, "onehot": 2, "ldst": 3, "wmma": 4, "crafted": 5, "holdout": 99}


def run_section(sec, out, only, dry):
    """One section in this process: experiments, then DIR/part_<sec>.npz/.json."""
    backend = PtxvmBackend() if dry else CupyBackend()
    P = Probe(backend, only)
    t0 = time.time()
    fn = {"mma": mma_experiments, "onehot": onehot_experiments, "ldst": ldst_experiments,
          "wmma": wmma_experiments, "crafted": crafted_experiments, "holdout": holdout_experiments}[sec]
    try:
        fn(P, np.random.default_rng(SECTIONS[sec]))
    except Exception:  # noqa: BLE001  (a sticky CUDA error: keep what was recorded)
        traceback.print_exc()
    arrays = dict(P.arrays)
    for k, ptx in P.ptx.items():
        arrays[f"ptx|{k}"] = np.frombuffer(ptx.encode(), np.uint8)
    np.savez(os.path.join(out, f"part_{sec}.npz"), **arrays)
    with open(os.path.join(out, f"part_{sec}.json"), "w") as f:
        json.dump({"experiments": P.meta, "seconds": round(time.time() - t0, 1),
                   "device": device_info(backend)}, f)
    if sec == "mma" and not dry:
        try:
            dump_sass(P, os.path.join(out, "matrix_sass.txt"))
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    print(f"-- {sec}: {sum(m['status'] == 'recorded' for m in P.meta.values())}/{len(P.meta)} in "
          f"{time.time() - t0:.1f} s", flush=True)


def record_kernel_cases(out, names=("wmma_gemm_f16_f32", "wmma_tile_f16_f16")):
    """The wmma cases of tests/kernels/cases.py (ADVANCED_CASES), through record_kernels.py."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import record_kernels as RK
    import record as R
    mod, _ = RK.load_manifest()
    info = R.device_info()
    for c in getattr(mod, "ADVANCED_CASES", ()):
        if c.name in names:
            print(RK.record_case(c, mod.materialize, 0, os.path.join(out, "kernels"), info), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--section")
    ap.add_argument("--section-timeout", type=float, default=150)
    ap.add_argument("--kernels", action="store_true", help="also record the wmma kernel cases")
    ap.add_argument("--name", default="matrix_probe", help="stem of the output files")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    if a.section:
        run_section(a.section, a.out, a.only, a.dry_run)
        return 0
    t0 = time.time()
    for sec in SECTIONS:
        if sec in a.skip:
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "--out", a.out, "--section", sec]
        cmd += sum((["--only", o] for o in a.only or ()), [])
        cmd += ["--dry-run"] if a.dry_run else []
        try:
            subprocess.run(cmd, timeout=a.section_timeout)
        except subprocess.TimeoutExpired:
            print(f"-- {sec}: timed out", flush=True)
    if a.kernels and not a.dry_run:
        try:
            record_kernel_cases(a.out)
        except Exception:  # noqa: BLE001
            traceback.print_exc()
    arrays, exps, device = {}, {}, {}
    for sec in SECTIONS:
        p = os.path.join(a.out, f"part_{sec}.npz")
        if not os.path.exists(p):
            continue
        with np.load(p) as z:
            arrays.update({k: z[k] for k in z.files})
        with open(os.path.join(a.out, f"part_{sec}.json")) as f:
            part = json.load(f)
        exps.update(part["experiments"])
        device = part["device"]
        os.remove(p)
        os.remove(os.path.join(a.out, f"part_{sec}.json"))
    np.savez_compressed(os.path.join(a.out, f"{a.name}.npz"), **arrays)
    meta = {"format": 1, "script": "tools/device/mma_probe.py", "device": device,
            "seconds": round(time.time() - t0, 1), "experiments": exps}
    with open(os.path.join(a.out, f"{a.name}.json"), "w") as f:
        json.dump(meta, f, indent=1)
    n_ok = sum(1 for m in exps.values() if m["status"] == "recorded")
    print(f"{n_ok}/{len(exps)} experiments recorded in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
