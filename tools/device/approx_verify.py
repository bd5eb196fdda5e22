#!/usr/bin/env python3
"""Check ptxvm's models of the approximate functions against the GPU, exhaustively where the
input space allows (device machine, repo root as cwd):

    PYTHONPATH=$PWD python3 tools/device/approx_verify.py --out DIR [--only NAME ...]

- unary f32 (rcp sqrt rsqrt ex2 lg2 sin cos .approx{.ftz}, tanh.approx): all 2**32 inputs. The
  hardware runs on the GPU; ptxvm's model (ptxvm.numerics.mufu, written against the NumPy API)
  runs there too through CuPy on the same inputs. In addition ptxvm's instruction semantics (the
  NumPy path the engine uses) are run on the CPU over 2**22 random inputs plus 2**20 subnormals.
- rcp.approx.ftz.f64, rsqrt.approx.ftz.f64: all 2**32 upper words (GPU model).
- 16-bit ex2/tanh (.f16 .bf16 and x2): all 65536 inputs per lane, ptxvm semantics on the CPU.
- div.approx / div.full / rsqrt.approx.f64: 2**22 random pairs (inputs) on the CPU.

Writes summary.json (per function: inputs compared, mismatches, max ulp distance, exact
fraction) and mismatches_<op>.npz (up to 4096 mismatching inputs with both results).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import approx_probe as P  # noqa: E402  (kernels and input generators)

CHUNK_LOG = int(os.environ.get("APPROX_PROBE_CHUNK_LOG", 28))
NCHUNKS = int(os.environ.get("APPROX_PROBE_CHUNKS", 1 << (32 - CHUNK_LOG)))
KEEP = 4096


def ordered(xp, b):
    mag = (b & 0x7FFFFFFF).astype(xp.int64)
    return xp.where((b >> 31) != 0, -mag, mag)


def isnan(xp, b):
    return (b & 0x7FFFFFFF) > 0x7F800000


def compare(xp, inputs, hw, model, acc):
    """Accumulate mismatch statistics (NaNs equal only bit for bit)."""
    mism = hw != model
    if hw.dtype == xp.uint32:
        with np.errstate(all="ignore"):
            e = xp.abs(hw.view(xp.float32).astype(xp.float64) - model.view(xp.float32).astype(xp.float64))
        e = xp.where(xp.isfinite(e), e, 0.0)
        acc["max_abs"] = max(acc.get("max_abs", 0.0), float(e.max()))
    d = xp.abs(ordered(xp, hw) - ordered(xp, model))
    d = xp.where(isnan(xp, hw) | isnan(xp, model), xp.where(mism, 1 << 40, 0), d)
    acc["inputs"] += int(inputs.size)
    n = int(mism.sum())
    acc["mismatch"] += n
    if n:
        acc["max_ulp"] = max(acc["max_ulp"], int(d.max()))
        for k in (1, 2):
            acc[f"ulp{k}"] += int((d == k).sum())
        if len(acc["_in"]) < KEEP:
            idx = xp.nonzero(mism)[0][:KEEP]
            acc["_in"] += [int(v) for v in _host(inputs[idx])]
            acc["_hw"] += [int(v) for v in _host(hw[idx])]
            acc["_model"] += [int(v) for v in _host(model[idx])]


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def new_acc():
    return {"inputs": 0, "mismatch": 0, "max_ulp": 0, "ulp1": 0, "ulp2": 0,
            "_in": [], "_hw": [], "_model": []}


def finish(op, acc, out_dir, summary):
    if acc["_in"]:
        np.savez_compressed(os.path.join(out_dir, f"mismatches_{op}.npz"),
                            inputs=np.array(acc["_in"], np.uint64),
                            hw=np.array(acc["_hw"], np.uint64),
                            model=np.array(acc["_model"], np.uint64))
    res = {k: v for k, v in acc.items() if not k.startswith("_")}
    res["exact_fraction"] = 1.0 - res["mismatch"] / max(1, res["inputs"])
    summary[op] = res


def f32_exhaustive(g, op, out_dir, summary):
    from ptxvm.numerics import mufu
    cp = g.cp
    model = mufu.F32_UNARY[op]
    acc = new_acc()
    chunk = 1 << CHUNK_LOG
    for c in range(NCHUNKS):
        base = c * chunk
        hw = g.f32_range(op, base, chunk)
        bits = cp.arange(base, base + chunk, dtype=cp.uint64).astype(cp.uint32)
        compare(cp, bits, hw, model(bits, xp=cp), acc)
        del hw, bits
    finish(op, acc, out_dir, summary)


def f64hi_exhaustive(g, op, out_dir, summary):
    from ptxvm.numerics import mufu
    cp = g.cp
    model = mufu.F64HI_UNARY[op]
    acc = new_acc()
    chunk = 1 << CHUNK_LOG
    for c in range(NCHUNKS):
        base = c * chunk
        hi = cp.empty(chunk, dtype=cp.uint32)
        lo = cp.empty(chunk, dtype=cp.uint32)
        g.launch(P.ident(op) + "_range", chunk, np.uint32(base), np.uint32(chunk), hi, lo)
        words = cp.arange(base, base + chunk, dtype=cp.uint64).astype(cp.uint32)
        compare(cp, words, hi, model(words, xp=cp), acc)
        acc["mismatch"] += int((lo != 0).sum())
        del hi, lo, words
    finish(op, acc, out_dir, summary)


def semantics_sample(g, out_dir, summary):
    """The engine's own NumPy path (semantics/families/approx.py) on 2**24 stratified inputs."""
    from ptxvm.semantics.families import approx as A
    rng = np.random.default_rng(5)
    n = 1 << 22
    sub = rng.integers(0, 1 << 23, n // 4, dtype=np.uint64).astype(np.uint32) | \
        (rng.integers(0, 2, n // 4, dtype=np.uint64).astype(np.uint32) << 31)
    ins = np.concatenate([P.edge_inputs32(), sub,
                          rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)])
    for op in P.F32_UNARY:
        name = op.split(".")[0]
        ftz = ".ftz" in op
        fn = A.f32_unary(name, ftz)
        hw = g.cp.asnumpy(g.f32_arr(op, ins))
        got = np.asarray(fn(ins.view(np.float32))).view(np.uint32)
        acc = new_acc()
        compare(np, ins, hw, got, acc)
        finish("sem:" + op, acc, out_dir, summary)


# Every input where ptxas' wrapper of a form without .ftz acts (elsewhere the form is its MUFU
# operation, checked above on the GPU). CuPy flushes f32 subnormals, so these run through the
# engine's NumPy path on the CPU: (op, first input bits, count).
WRAPPED = [
    ("rcp.approx.f32", 0x00000000, 1 << 23), ("rcp.approx.f32", 0x80000000, 1 << 23),
    ("rcp.approx.f32", 0x7E800000, 1 << 24), ("rcp.approx.f32", 0xFE800000, 1 << 24),
    ("sqrt.approx.f32", 0x00000000, 1 << 23), ("sqrt.approx.f32", 0x80000000, 1 << 23),
    ("rsqrt.approx.f32", 0x00000000, 1 << 23), ("rsqrt.approx.f32", 0x80000000, 1 << 23),
    ("lg2.approx.f32", 0x00000000, 1 << 23), ("lg2.approx.f32", 0x80000000, 1 << 23),
    ("ex2.approx.f32", 0xC2FC0000, 0xC3800000 - 0xC2FC0000),     # -126 .. -256: subnormal results
]


def wrapped_regions(g, out_dir, summary):
    from ptxvm.semantics.families import approx as A
    accs = {}
    for op, start, n in WRAPPED:
        ins = (np.arange(n, dtype=np.uint64) + start).astype(np.uint32)
        hw = g.cp.asnumpy(g.f32_arr(op, ins))
        got = np.asarray(A.f32_unary(op.split(".")[0], False)(ins.view(np.float32))).view(np.uint32)
        acc = accs.setdefault(op, new_acc())
        compare(np, ins, hw, got, acc)
    for op, acc in accs.items():
        finish("wrapped:" + op, acc, out_dir, summary)


def half_all(g, out_dir, summary):
    from ptxvm.semantics.families import approx as A
    from ptxvm.numerics.formats import BF16, F16
    cp = g.cp
    a16 = np.arange(1 << 16, dtype=np.uint16)
    for name, (_, w) in P.HALF_OPS.items():
        if w != 16:
            continue
        src = cp.asarray(a16)
        out = cp.empty_like(src)
        g.launch(P.ident(name), src.size, src, np.uint32(src.size), out)
        hw = cp.asnumpy(out)
        fmt = BF16 if "bf16" in name else F16
        fn = A.half_unary(name.split(".")[0], fmt, ftz=".ftz" in name)
        got = np.asarray(fn(a16)).astype(np.uint16)
        acc = new_acc()
        mism = hw != got
        acc["inputs"] = int(a16.size)
        acc["mismatch"] = int(mism.sum())
        acc["_in"] = [int(v) for v in a16[mism][:KEEP]]
        acc["_hw"] = [int(v) for v in hw[mism][:KEEP]]
        acc["_model"] = [int(v) for v in got[mism][:KEEP]]
        finish(name, acc, out_dir, summary)


def div_sample(g, out_dir, summary):
    from ptxvm.semantics.families import approx as A
    cp = g.cp
    rng = np.random.default_rng(13)
    n = 1 << 22
    a = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    q = n // 2
    for arr in (a, b):
        e = rng.integers(127 - 40, 127 + 40, q)
        arr[:q] = ((rng.integers(0, 2, q) << 31) | (e << 23) |
                   rng.integers(0, 1 << 23, q)).astype(np.uint32)
    A_, B_ = cp.asarray(a), cp.asarray(b)
    for op in P.DIV_OPS:
        out = cp.empty_like(A_)
        g.launch(P.ident(op), n, A_, B_, np.uint32(n), out)
        hw = cp.asnumpy(out)
        ftz = ".ftz" in op
        fn = A.div_approx_f32(ftz) if ".approx" in op else A.div_full_f32(ftz)
        got = np.asarray(fn(a.view(np.float32), b.view(np.float32))).view(np.uint32)
        acc = new_acc()
        compare(np, a.astype(np.uint64) << np.uint64(32) | b, hw, got, acc)
        finish(op, acc, out_dir, summary)
    # rsqrt.approx.f64 on random f64
    x = rng.integers(0, 1 << 64, n, dtype=np.uint64)
    X = cp.asarray(x)
    out = cp.empty_like(X)
    g.launch(P.ident("rsqrt.approx.f64") + "_arr64", n, X, np.uint32(n), out)
    hw = cp.asnumpy(out)
    got = np.asarray(A.rsqrt_approx_f64()(x.view(np.float64))).view(np.uint64)
    acc = new_acc()
    mism = hw != got
    acc["inputs"], acc["mismatch"] = n, int(mism.sum())
    acc["_in"] = [int(v) for v in x[mism][:KEEP]]
    acc["_hw"] = [int(v) for v in hw[mism][:KEEP]]
    acc["_model"] = [int(v) for v in got[mism][:KEEP]]
    finish("rsqrt.approx.f64", acc, out_dir, summary)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    summary = {}
    steps = [(f"exh:{op}", (lambda op: lambda g, o, s: f32_exhaustive(g, op, o, s))(op))
             for op in P.F32_UNARY]
    steps += [(f"f64hi:{op}", (lambda op: lambda g, o, s: f64hi_exhaustive(g, op, o, s))(op))
              for op in P.F64HI]
    steps += [("half", half_all), ("div", div_sample), ("sem", semantics_sample),
              ("wrapped", wrapped_regions)]
    g = P.Gpu()
    for name, step in steps:
        if args.only and not any(name.startswith(o) for o in args.only):
            continue
        t = time.time()
        try:
            step(g, args.out, summary)
            summary.setdefault("_times", {})[name] = round(time.time() - t, 2)
        except Exception:  # noqa: BLE001
            summary.setdefault("_errors", {})[name] = traceback.format_exc()[-3000:]
        g.cp.get_default_memory_pool().free_all_blocks()
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        print(name, summary.get("_times", {}).get(name, "ERROR"), flush=True)


if __name__ == "__main__":
    sys.exit(main())
