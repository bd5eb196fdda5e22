#!/usr/bin/env python3
"""Probe the order in which colliding atomic adds are applied on a GPU, and how they round.

    python3 tools/device/probe_atomic_order.py --out atomic_order.npz

Every experiment launches one kernel in which many lanes add their own value to a few words
(`nslot` words; lane gid uses word gid % nslot) and records each lane's returned old value and the
final words. tools/analysis of the result (tests/engine/test_atomic_order.py and
docs/hardware-notes.md) rebuilds the chain of updates from the old values: each lane's old value
must be the word's value after the previous update, which shows both the order of the lanes and
whether every single update was rounded on its own (round to nearest even) or pre-combined.

The PTX comes from `kernel_ptx` (NumPy only, so the engine tests run the same kernels). Needs
CuPy on the GPU machine.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

# type -> (value bytes, register type, atom spelling suffix)
TYPES = {
    "u32": (4, "b32", "add.u32"),
    "f32": (4, "b32", "add.f32"),
    "f64": (8, "b64", "add.f64"),
    "f16": (2, "b16", "add.noftz.f16"),
    "bf16": (2, "b16", "add.noftz.bf16"),
    "f16x2": (4, "b32", "add.noftz.f16x2"),
    "bf16x2": (4, "b32", "add.noftz.bf16x2"),
}


def kernel_ptx(name: str, t: str, space: str, returns: bool = True) -> str:
    """atom (or red) .space add of type t: lane gid adds vals[gid] to word gid % nslot.

    Global: the words are mem[0..nslot). Shared: each CTA copies mem[cta*nslot ..] into shared
    memory, adds there and copies the words back."""
    size, reg, spelling = TYPES[t]
    ld = f"ld.global.b{size * 8}"
    op = (f"atom.{space}.{spelling} %v1, [%a], %v0;" if returns else f"red.{space}.{spelling} [%a], %v0;")
    L = [".version 8.4", ".target sm_90", ".address_size 64", "",
         f".visible .entry {name}(.param .u64 pv, .param .u64 pold, .param .u64 pmem, .param .u32 nslot)", "{",
         "  .reg .pred %p<4>;", "  .reg .b32 %r<16>;", "  .reg .b64 %rd<16>, %a;",
         f"  .reg .{reg} %v<4>;", "  .shared .align 8 .b8 sh[256];",
         "  ld.param.u64 %rd1, [pv];", "  ld.param.u64 %rd2, [pold];", "  ld.param.u64 %rd3, [pmem];",
         "  ld.param.u32 %r9, [nslot];",
         "  cvta.to.global.u64 %rd1, %rd1;", "  cvta.to.global.u64 %rd2, %rd2;", "  cvta.to.global.u64 %rd3, %rd3;",
         "  mov.u32 %r1, %tid.x;", "  mov.u32 %r2, %ctaid.x;", "  mov.u32 %r3, %ntid.x;",
         "  mad.lo.u32 %r4, %r2, %r3, %r1;",
         f"  mul.wide.u32 %rd4, %r4, {size};", "  add.u64 %rd5, %rd1, %rd4;", f"  {ld} %v0, [%rd5];",
         "  rem.u32 %r5, %r4, %r9;"]
    if space == "global":
        L += [f"  mul.wide.u32 %rd6, %r5, {size};", "  add.u64 %a, %rd3, %rd6;", "  " + op]
    else:
        L += ["  rem.u32 %r5, %r1, %r9;", "  setp.lt.u32 %p1, %r1, %r9;",
              "  mad.lo.u32 %r6, %r2, %r9, %r1;", f"  mul.wide.u32 %rd7, %r6, {size};",
              "  add.u64 %rd8, %rd3, %rd7;", "  mov.u32 %r7, sh;", f"  mad.lo.u32 %r8, %r1, {size}, %r7;",
              f"  @%p1 {ld} %v2, [%rd8];", f"  @%p1 st.shared.b{size * 8} [%r8], %v2;", "  bar.sync 0;",
              f"  mad.lo.u32 %r10, %r5, {size}, %r7;", "  cvt.u64.u32 %a, %r10;", "  " + op, "  bar.sync 0;",
              f"  @%p1 ld.shared.b{size * 8} %v2, [%r8];", f"  @%p1 st.global.b{size * 8} [%rd8], %v2;"]
    if returns:
        L += ["  add.u64 %rd9, %rd2, %rd4;", f"  st.global.b{size * 8} [%rd9], %v1;"]
    L += ["  ret;", "}", ""]
    return "\n".join(L)


def _values(t: str, n: int, kind: str, rng) -> np.ndarray:
    """Lane values: 'ones' (1.0 or 1: the old values count the updates before a lane), 'mixed'
    (magnitudes over many binades: the order changes the rounded sums)."""
    if t == "u32":
        return np.ones(n, np.uint32) if kind == "ones" else rng.integers(0, 1000, n).astype(np.uint32)
    f = np.ones(n) if kind == "ones" else rng.standard_normal(n) * np.exp2(rng.integers(-8, 9, n))
    if t == "f32":
        return f.astype(np.float32).view(np.uint32)
    if t == "f64":
        return f.astype(np.float64).view(np.uint64)
    if t in ("f16", "f16x2"):
        h = (f if kind == "ones" else f / 8).astype(np.float16).view(np.uint16)
        if t == "f16":
            return h
        h2 = (np.roll(f, 7) if kind != "ones" else f).astype(np.float16).view(np.uint16)
        return h.astype(np.uint32) | (h2.astype(np.uint32) << np.uint32(16))
    # bf16: the top half of the f32 (truncated; any bits are values)
    b = (f.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if t == "bf16":
        return b
    b2 = (np.roll(f, 7).astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint32)
    return b.astype(np.uint32) | (b2 << np.uint32(16))


def experiments():
    """(name, type, space, returns, grid, block, nslot, values kind, repeats)."""
    E = []
    for t in ("u32", "f32"):
        E.append((f"{t}_global_ones_1warp", t, "global", True, 1, 32, 1, "ones", 3))
        E.append((f"{t}_global_ones_cta", t, "global", True, 1, 256, 1, "ones", 3))
        E.append((f"{t}_global_ones_grid", t, "global", True, 8, 256, 1, "ones", 1))
        E.append((f"{t}_shared_ones_cta", t, "shared", True, 1, 256, 1, "ones", 3))
    for t in ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2"):
        for space in ("global", "shared"):
            E.append((f"{t}_{space}_mixed_1warp", t, space, True, 1, 32, 1, "mixed", 3))
            E.append((f"{t}_{space}_mixed_cta4", t, space, True, 2, 256, 4, "mixed", 2))
            E.append((f"{t}_{space}_red_cta", t, space, False, 1, 256, 1, "mixed", 2))
        E.append((f"{t}_global_mixed_grid", t, "global", True, 8, 256, 2, "mixed", 1))
    return E


def initial(t: str, nwords: int) -> np.ndarray:
    size = TYPES[t][0]
    return np.zeros(nwords, {2: np.uint16, 4: np.uint32, 8: np.uint64}[size])


def run(out: str) -> int:
    import cupy as cp
    rng = np.random.default_rng(2026)
    saved, report = {}, []
    mods = {}
    for name, t, space, returns, grid, block, nslot, kind, repeats in experiments():
        key = (t, space, returns)
        if key not in mods:
            m = cp.cuda.function.Module()
            m.load(kernel_ptx("probe", t, space, returns).encode())
            mods[key] = (m, m.get_function("probe"))
        fn = mods[key][1]
        n = grid * block
        vals = _values(t, n, kind, rng)
        nwords = nslot * (grid if space == "shared" else 1)
        saved[f"{name}.vals"] = vals
        saved[f"{name}.meta"] = np.array([grid, block, nslot, int(returns)], np.int64)
        for r in range(repeats):
            dv = cp.asarray(vals)
            dold = cp.zeros_like(dv)
            dmem = cp.asarray(initial(t, nwords))
            fn((grid, 1, 1), (block, 1, 1), (dv, dold, dmem, np.uint32(nslot)))
            cp.cuda.runtime.deviceSynchronize()
            if returns:
                saved[f"{name}.old{r}"] = cp.asnumpy(dold)
            saved[f"{name}.mem{r}"] = cp.asnumpy(dmem)
        report.append({"experiment": name, "lanes": n, "repeats": repeats})
        print(json.dumps(report[-1]), flush=True)
    np.savez_compressed(out, **saved)
    print(json.dumps({"experiments": len(report), "out": out}))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="atomic_order.npz")
    ap.add_argument("--ptx", help="write the kernels' PTX into this directory and stop")
    a = ap.parse_args(argv)
    if a.ptx:
        os.makedirs(a.ptx, exist_ok=True)
        for t in TYPES:
            for space in ("global", "shared"):
                for ret in (True, False):
                    p = os.path.join(a.ptx, f"{t}_{space}_{'atom' if ret else 'red'}.ptx")
                    with open(p, "w") as f:
                        f.write(kernel_ptx("probe", t, space, ret))
        return 0
    return run(a.out)


if __name__ == "__main__":
    sys.exit(main())
