#!/usr/bin/env python3
"""Global-atomic microbenchmarks (issue 20) on the GPU: benchmarks/timing/micro2/atomics.cu.

    python3 tools/device/timing_atomics.py --out RESULTS.json [--cubins DIR] [--only GROUP[,GROUP]]

Needs CuPy and atomics.cubin (built here by benchmarks/timing/micro2/build.sh, sm_90a). Every point
runs the `gatom` kernel at two iteration counts N and 2N (N chosen so that the 2N launch takes
about a millisecond) and reports the difference, so that the launch and the loop's start drop out:
  - `cycles_per_iter`: %clock64 cycles of the slowest warp per loop iteration ((c(2N) - c(N)) / N);
  - `us_per_iter`: CUDA-event time per iteration, the minimum of 3 launches at each count;
  - `lane_ops_per_clk` / `requests_per_clk`: lane-operations and warp requests per 1.98 GHz cycle,
    GPU-wide, from the event times.
Groups: `latency` (one warp, atom whose value feeds the next address), `warp` (one warp,
throughput), `sm` (one CTA of 32 warps), `gpu` (2 CTAs of 1024 threads per SM on all 132 SMs).
The JSON is rewritten after every point, as the other recorders do.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MICRO2 = os.path.join(ROOT, "benchmarks", "timing", "micro2")
CLK = 1.98e9
OPS = {"red.u32": 0, "atom.u32": 1, "atom.u32.dep": 2, "red.f32": 3, "atom.f32.dep": 4, "red.u32.uniform": 5}


def points():
    """(group, op, grid, block, k, nd, stride, wmod, wstride); addresses as in atomics.cu."""
    pts = []
    shapes = [(1, 1, 4), (2, 1, 4), (4, 1, 4), (8, 1, 4), (16, 1, 4), (32, 1, 4), (32, 2, 4), (32, 8, 4),
              (32, 4, 32), (32, 4, 128), (32, 32, 4), (32, 32, 8), (32, 32, 32), (32, 32, 128)]
    for k, nd, s in shapes:
        pts.append(("latency", "atom.u32.dep", 1, 32, k, nd, s, 1, 0))
    for k, nd, s in ((1, 1, 4), (32, 1, 4), (32, 32, 4), (32, 32, 128)):
        pts.append(("latency", "atom.f32.dep", 1, 32, k, nd, s, 1, 0))
    for k, nd, s in shapes:
        pts.append(("warp", "red.u32", 1, 32, k, nd, s, 1, 0))
    for k, nd, s in ((1, 1, 4), (32, 1, 4), (32, 32, 4), (32, 32, 128)):
        pts.append(("warp", "red.f32", 1, 32, k, nd, s, 1, 0))
        pts.append(("warp", "atom.u32", 1, 32, k, nd, s, 1, 0))
    pts.append(("warp", "red.u32.uniform", 1, 32, 32, 1, 4, 1, 0))
    sm = [(1, 1, 4, 32, 128), (32, 1, 4, 32, 128), (32, 32, 4, 32, 128), (32, 32, 128, 32, 4096),
          (1, 1, 4, 1, 0), (32, 1, 4, 1, 0), (32, 32, 4, 1, 0), (1, 1, 4, 32, 4)]
    for k, nd, s, wm, ws in sm:
        pts.append(("sm", "red.u32", 1, 1024, k, nd, s, wm, ws))
    for k, nd, s, wm, ws in ((1, 1, 4, 32, 128), (32, 32, 4, 32, 128), (1, 1, 4, 1, 0)):
        pts.append(("sm", "red.f32", 1, 1024, k, nd, s, wm, ws))
        pts.append(("sm", "atom.u32", 1, 1024, k, nd, s, wm, ws))
    pts.append(("sm", "red.u32.uniform", 1, 1024, 32, 1, 4, 1, 0))
    G, B = 264, 1024
    for op in ("red.u32", "red.f32", "atom.u32"):
        pts.append(("gpu", op, G, B, 1, 1, 4, 1, 0))
        pts.append(("gpu", op, G, B, 32, 1, 4, 1, 0))
    pts.append(("gpu", "red.u32.uniform", G, B, 32, 1, 4, 1, 0))
    for wm in (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096, 8448):
        pts.append(("gpu", "red.u32", G, B, 1, 1, 4, wm, 128))
    for wm in (1, 4, 16, 64, 256, 1024, 8448):
        pts.append(("gpu", "red.u32", G, B, 32, 32, 4, wm, 128))
    for wm in (16, 64, 256, 1024, 8448):
        pts.append(("gpu", "red.u32", G, B, 32, 32, 128, wm, 4096))
    pts.append(("gpu", "red.u32", G, B, 1, 1, 4, 32, 4))  # 32 addresses of one line, a warp each
    pts.append(("gpu", "red.u32", G, B, 1, 1, 4, 4, 32))  # the 4 sectors of one line
    pts.append(("gpu", "red.f32", G, B, 1, 1, 4, 1024, 128))
    pts.append(("gpu", "atom.u32", G, B, 1, 1, 4, 1024, 128))
    pts.append(("gpu", "red.f32", G, B, 32, 32, 4, 1024, 128))
    return pts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cubins", default=MICRO2)
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    p = cp.cuda.runtime.getDeviceProperties(0)
    res = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "python": platform.python_version(), "cupy": cp.__version__,
           "device": {"name": p["name"].decode() if isinstance(p["name"], bytes) else p["name"],
                      "sms": p["multiProcessorCount"], "l2": p["l2CacheSize"], "clock_khz": p["clockRate"]},
           "clock_hz_assumed": CLK, "points": []}

    def save():
        with open(args.out + ".tmp", "w") as f:
            json.dump(res, f, indent=1, default=float)
        os.replace(args.out + ".tmp", args.out)

    mod = cp.RawModule(path=os.path.join(args.cubins, "atomics.cubin"))
    f = mod.get_function("gatom")
    buf = cp.zeros(64 << 20, dtype=cp.uint8)
    cyc = cp.zeros(1 << 16, dtype=cp.int64)
    only = [s for s in args.only.split(",") if s]

    def launch(op, grid, block, k, nd, s, wm, ws, iters):
        f((grid,), (block,), (buf, np.int32(OPS[op]), np.int32(k), np.int32(nd), np.int32(s), np.int32(wm),
                              np.int64(ws), np.int32(iters), np.uint32(0), cyc))

    def timed(pt, iters):
        _, op, grid, block, k, nd, s, wm, ws = pt
        ms = []
        for _ in range(3):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            launch(op, grid, block, k, nd, s, wm, ws, iters)
            b.record()
            b.synchronize()
            ms.append(cp.cuda.get_elapsed_time(a, b))
        warps = grid * block // 32
        c = int(cyc[:warps].max().get())
        return min(ms), c

    for pt in points():
        if only and pt[0] not in only:
            continue
        group, op, grid, block, k, nd, s, wm, ws = pt
        rec = {"group": group, "op": op, "grid": grid, "block": block, "k": k, "nd": nd, "stride": s,
               "wmod": wm, "wstride": ws}
        try:
            n = 16
            launch(op, grid, block, k, nd, s, wm, ws, n)
            cp.cuda.runtime.deviceSynchronize()
            while True:
                t, _ = timed(pt, 2 * n)
                if t > 0.6 or n >= 1 << 16:
                    break
                n = min(1 << 16, max(2 * n, int(n * 0.8 / max(t, 1e-3))))
            t1, c1 = timed(pt, n)
            t2, c2 = timed(pt, 2 * n)
            per = (t2 - t1) / n  # ms per iteration
            warps = grid * block // 32
            lanes = warps * k
            rec.update({"iters": n, "ms_n": t1, "ms_2n": t2, "cyc_n": c1, "cyc_2n": c2,
                        "cycles_per_iter": (c2 - c1) / n, "us_per_iter": per * 1e3,
                        "lane_ops_per_clk": lanes / (per * 1e-3 * CLK) if per > 0 else None,
                        "requests_per_clk": warps / (per * 1e-3 * CLK) if per > 0 else None})
        except Exception:
            rec["error"] = traceback.format_exc()[-600:]
        print(json.dumps(rec), flush=True)
        res["points"].append(rec)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
