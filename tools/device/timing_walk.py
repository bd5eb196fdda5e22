#!/usr/bin/env python3
"""Run the per-thread walk microbenchmarks (benchmarks/timing/walk/walk.cu) on the GPU.

    python3 tools/device/timing_walk.py --cubin walk.cubin --out RESULTS.json [--reps 5]
    python3 tools/device/timing_walk.py --cubin walk.cubin --ncu-mode   (one cold launch per point, for ncu)

Needs CuPy. Points: kernel (walk_ld / walk_ld2 / walk_ldst / walk_st, unrolled 1 or 4), words per
thread K (8, 32, 64), CTAs of 256 threads per SM C (1, 2, 4, 8: a grid of 132 * C CTAs, one wave).
Each point is timed under two conventions: `cold` (a 256 MiB memset before each launch, the timing
suite's convention) and `warm` (the same launch repeated: its data in L2 when it fits). Per
launch: CUDA-event microseconds (events around the launch, queued behind a spin kernel), the
slowest and the median CTA's clock64 cycles (from the barrier before the walk to the one after);
the medians over `reps` launches are stored with every launch's values. Item `carveout`: a few
points launched with dynamic shared memory, so the L1 left beside the carveout shrinks.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_file import ResultsFile, device_info, sm_clock  # tools/device/, beside this file

MIB = 1 << 20
SMS = 132
THREADS = 256
KS = (8, 32, 64)
CTAS = (1, 2, 4, 8)
KERNELS = ("walk_ld_u1", "walk_ld_u4", "walk_ld2_u1", "walk_ld2_u4", "walk_ldst_u1", "walk_ldst_u4", "walk_st_u4")
CARVEOUT = [("walk_ld_u4", 32, 1, 100), ("walk_ld_u4", 32, 2, 100), ("walk_ld_u4", 64, 2, 100),
            ("walk_ld_u1", 32, 2, 100), ("walk_ld2_u4", 32, 2, 100)]


def points():
    return [(k, K, c) for k in KERNELS for K in KS for c in CTAS]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ncu-mode", action="store_true", help="one cold launch per point (under ncu)")
    a = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=a.cubin)
    n_words = SMS * max(CTAS) * THREADS * max(KS)
    a_buf = cp.ones(n_words, dtype=cp.float32)
    b_buf = cp.ones(n_words, dtype=cp.float32)
    o_buf = cp.zeros(n_words, dtype=cp.float32)
    flush_buf = cp.zeros(256 * MIB, dtype=cp.uint8)
    cyc = cp.zeros(SMS * max(CTAS), dtype=cp.int64)
    stream = cp.cuda.get_current_stream()
    spin = mod.get_function("spin")
    fns = {k: mod.get_function(k) for k in KERNELS}

    def flush():
        cp.cuda.runtime.memsetAsync(flush_buf.data.ptr, 0, flush_buf.nbytes, stream.ptr)

    def launch(name, K, c, shared=0):
        grid = SMS * c
        f = fns[name]
        if shared > 48 * 1024:
            try:
                f.max_dynamic_shared_size_bytes = shared
            except Exception:  # older CuPy: the driver call itself (8 = MAX_DYNAMIC_SHARED_SIZE_BYTES)
                cp.cuda.driver.funcSetAttribute(f.ptr, 8, shared)
        if name.startswith("walk_ld2"):
            args = (a_buf, b_buf, o_buf, cyc, np.int32(K))
        elif name.startswith("walk_st"):
            args = (o_buf, cyc, np.int32(K))
        else:
            args = (a_buf, o_buf, cyc, np.int32(K))
        f((grid,), (THREADS,), args, shared_mem=shared)
        return grid

    if a.ncu_mode:
        for p in points():
            flush()
            launch(*p)
        for name, K, c, kib in CARVEOUT:
            flush()
            launch(name, K, c, kib * 1024)
        cp.cuda.runtime.deviceSynchronize()
        print("ncu-mode launches done", flush=True)
        return 0

    props = cp.cuda.runtime.getDeviceProperties(0)
    res = ResultsFile(a.out, device_info(props), sms=SMS, threads=THREADS, reps=a.reps,
                      layout="thread t owns float words [t*K, t*K+K); grid 132*C CTAs of 256")

    def point(name, K, c, shared=0):
        out = {"kernel": name, "K": K, "ctas_per_sm": c, **({"shared": shared} if shared else {})}
        launch(name, K, c, shared)  # the code, the TLBs
        for conv in ("cold", "warm"):
            rows = []
            for _ in range(a.reps):
                if conv == "cold":
                    flush()
                spin((1,), (1,), (np.int64(20000),))
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                grid = launch(name, K, c, shared)
                e1.record()
                e1.synchronize()
                cc = cyc[:grid].get()
                rows.append((cp.cuda.get_elapsed_time(e0, e1) * 1e3, int(cc.max()), float(np.median(cc))))
            us = sorted(r[0] for r in rows)
            out[conv] = {"us": us[len(us) // 2], "cycles_max": float(np.median([r[1] for r in rows])),
                         "cycles_median": float(np.median([r[2] for r in rows])),
                         "us_all": [round(r[0], 3) for r in rows], "cycles_max_all": [r[1] for r in rows]}
        return out

    def clock():
        return sm_clock(cp, np, spin)

    def grid_item():
        pts = []
        for p in points():
            try:
                pts.append(point(*p))
            except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
                pts.append({"point": list(p), "error": repr(e)[-400:]})
        return pts

    def carveout():
        pts = []
        for name, K, c, kib in CARVEOUT:
            try:
                pts.append(point(name, K, c, kib * 1024))
            except Exception as e:  # noqa: BLE001
                pts.append({"point": [name, K, c, kib], "error": repr(e)[-400:]})
        return pts

    t0 = time.time()
    res.item("clock", clock)
    res.item("grid", grid_item)
    res.item("carveout", carveout)
    res.item("clock_after", clock)
    res.save()
    print("done in", round(time.time() - t0, 1), "s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
