#!/usr/bin/env python3
"""Run the DRAM stream microbenchmarks (benchmarks/timing/micro4/streams.cu) on the GPU.

    python3 tools/device/timing_streams.py --cubin streams.cubin --out RESULTS.json [--budget 150]

Needs CuPy. Item `streams`: read-only (rd), write-only (wr), copy (cp) and read-2-write-1 (r2w)
streams with 4, 8 and 16 bytes per lane, 1056 CTAs x 256 threads grid-stride over buffers of
8 to 512 MiB each, and one-element-per-thread copies (cp*_once); each point timed with CUDA
events around one launch queued behind a spin kernel (the suite's method), median of `reps`,
under three L2 states:
  cold   a 256 MiB memset just before (the suite's cold convention: the L2 full of dirty lines),
  clean  a 256 MiB read of another buffer just before (the L2 full of clean lines),
  warm   back to back (the L2 holds the previous launch's data, dirty where it wrote).
Every point is its own try block; the JSON is rewritten after every buffer size and the run
stops adding points once `--budget` seconds have passed.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_file import ResultsFile, device_info  # noqa: E402  tools/device/, beside this file

MIB = 1 << 20
SIZES_MIB = (8, 16, 32, 48, 64, 128, 256, 512)
WIDTHS = (4, 8, 16)
KINDS = ("rd", "wr", "cp", "r2w")
GRID, BLOCK = 132 * 8, 256


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--budget", type=float, default=150.0)
    ap.add_argument("--kinds", default=",".join(KINDS + ("cp_once",)), help="which kernels (comma-separated)")
    ap.add_argument("--once", action="store_true",
                    help="launch each point once after a memset, untimed (for ncu: --cache-control none)")
    a = ap.parse_args(argv)
    import cupy as cp
    import numpy as np
    t_start = time.time()
    mod = cp.RawModule(path=a.cubin)
    results = ResultsFile(a.out, device_info(cp.cuda.runtime.getDeviceProperties(0)),
                          grid=GRID, block=BLOCK, reps=a.reps, conventions=["cold", "clean", "warm"])
    stream = cp.cuda.get_current_stream()
    flush_buf = cp.zeros(256 * MIB, dtype=cp.uint8)
    other = cp.ones(256 * MIB // 4, dtype=cp.uint32)
    sink = cp.zeros(GRID * BLOCK, dtype=cp.uint32)
    spin = mod.get_function("spin")
    rd16 = mod.get_function("rd16")
    bufs = [cp.zeros(512 * MIB // 4, dtype=cp.uint32) for _ in range(3)]

    def memset():
        cp.cuda.runtime.memsetAsync(flush_buf.data.ptr, 0, flush_buf.nbytes, stream.ptr)

    def read_flush():
        rd16((GRID,), (BLOCK,), (other, sink, np.int64(256 * MIB // 16)))

    def events_us(fn, before):
        fn()
        cp.cuda.runtime.deviceSynchronize()
        times = []
        for _ in range(a.reps):
            if before is not None:
                before()
            spin((1,), (1,), (np.int64(40000),))
            s, e = cp.cuda.Event(), cp.cuda.Event()
            s.record()
            fn()
            e.record()
            e.synchronize()
            times.append(cp.cuda.get_elapsed_time(s, e) * 1e3)
        return {"median_us": statistics.median(times), "min_us": min(times), "max_us": max(times)}

    def launcher(kind, width, mib):
        n = np.int64(mib * MIB // width)
        b0, b1, b2 = bufs
        if kind == "cp_once":  # one element per thread
            k = mod.get_function(f"cp{width}_once")
            return lambda: k((int(n) // BLOCK,), (BLOCK,), (b0, b1, n))
        k = mod.get_function(f"{kind}{width}")
        if kind == "rd":
            return lambda: k((GRID,), (BLOCK,), (b0, sink, n))
        if kind == "wr":
            return lambda: k((GRID,), (BLOCK,), (b1, n))
        if kind == "cp":
            return lambda: k((GRID,), (BLOCK,), (b0, b1, n))
        return lambda: k((GRID,), (BLOCK,), (b0, b2, b1, n))

    points = [(kind, w, mib) for mib in SIZES_MIB for kind in a.kinds.split(",") for w in WIDTHS
              if not (kind == "cp_once" and mib > 128)]
    if a.once:
        for kind, w, mib in points:
            fn = launcher(kind, w, mib)
            memset()
            fn()
            cp.cuda.runtime.deviceSynchronize()
        return 0

    def run_all():
        out = []
        last = None
        for kind, w, mib in points:
            if time.time() - t_start > a.budget:
                out.append({"stopped": "budget", "at": [kind, w, mib]})
                break
            pt = {"kernel": kind, "bytes_per_lane": w, "buffer_mib": mib}
            try:
                fn = launcher(kind, w, mib)
                pt["cold"] = events_us(fn, memset)
                pt["clean"] = events_us(fn, read_flush)
                pt["warm"] = events_us(fn, None)
            except Exception:
                pt["error"] = traceback.format_exc()[-400:]
            out.append(pt)
            print({k: (round(v["median_us"], 2) if isinstance(v, dict) and "median_us" in v else v)
                   for k, v in pt.items()}, flush=True)
            if mib != last:
                results.res["items"]["streams"] = out
                results.save()
                last = mib
        return out

    results.item("streams", run_all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
