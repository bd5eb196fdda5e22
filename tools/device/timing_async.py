#!/usr/bin/env python3
"""Asynchronous-copy microbenchmarks (benchmarks/timing/micro2/async.cu) on the GPU.

    python3 tools/device/timing_async.py --out RESULTS.json [--cubin async.cubin]

Needs CuPy. Items (each in its own try block, the JSON rewritten after each):
  chase:  cycles per step of one thread's dependent chain through a buffer in L2 (4 MiB, warmed)
          and in DRAM (1 GiB, L2 flushed), with ld.global.cg, with cp.async.cg + wait_group 0 +
          ld.shared, and with cp.async.bulk of 16 / 1024 / 8192 bytes + mbarrier try_wait.
  mbar:   cycles per arrive + try_wait round trip of one CTA (1, 4, 8 warps; every thread or one
          lane per warp arrives), and __syncthreads in the same loop for comparison.
  stream: bytes per second of streams with K = 1 / 2 / 4 stages in flight: plain float4 loads
          (ld.global.cg), 16-B cp.async.cg per thread, 8 KiB bulk copies issued by one thread;
          132 or 528 CTAs of 256 threads; data in DRAM (512 MiB, L2 flushed) or L2-resident
          (each CTA re-reads its own 32 KiB region).
"""
from __future__ import annotations

import argparse
import statistics
import sys

from results_file import ResultsFile, device_info  # tools/device/, beside this file


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cubin", default="async.cubin")
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=args.cubin)
    k = mod.get_function
    out = cp.zeros(64, dtype=cp.int64)
    flush_buf = cp.zeros(1 << 28, dtype=cp.uint8)
    p = cp.cuda.runtime.getDeviceProperties(0)
    sms = p["multiProcessorCount"]
    results = ResultsFile(args.out, device_info(p))

    def sync():
        cp.cuda.runtime.deviceSynchronize()

    def flush():
        flush_buf.fill(1)

    def cycles(fn, n, do_flush):
        for _ in range(2):
            out.fill(0)
            if do_flush:
                flush()
            fn()
        sync()
        return [int(x) for x in out[:n].get()]

    def events_us(fn, do_flush, reps=7):
        fn()
        sync()
        ts = []
        for _ in range(reps):
            if do_flush:
                flush()
            k("spin")((1,), (1,), (np.int64(40000),))
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        return statistics.median(ts)

    def chain(n_blocks, block_ints, rng):
        perm = rng.permutation(n_blocks)
        nxt = np.empty(n_blocks, np.int64)
        nxt[perm[:-1]] = perm[1:]
        nxt[perm[-1]] = perm[0]
        host = np.zeros(n_blocks * block_ints, np.int32)
        host[np.arange(n_blocks) * block_ints] = (nxt * block_ints).astype(np.int32)
        # start at block 0
        return cp.asarray(host)

    item = results.item

    rng = np.random.default_rng(0)

    def m_chase():
        r = []
        for where, nbytes, flushed in (("l2", 4 << 20, False), ("dram", 1 << 30, True)):
            for block in (128, 8192):
                ch = chain(nbytes // block, block // 4, rng)
                steps = 512 if where == "dram" else 2048
                for kern, extra in (("chase_ld", ()), ("chase_cpasync", ()), ("bulk16", (16,)),
                                    ("bulk1024", (1024,)), ("bulk8192", (8192,))):
                    if block == 128 and kern in ("bulk1024", "bulk8192"):
                        continue
                    if block == 8192 and kern in ("chase_ld", "chase_cpasync", "bulk16"):
                        continue
                    f = k("chase_bulk" if kern.startswith("bulk") else kern)
                    args_ = (ch, np.int32(steps)) + tuple(np.int32(x) for x in extra) + (out,)
                    c = cycles(lambda: f((1,), (32,), args_), 2, flushed)
                    r.append({"where": where, "block": block, "kernel": kern, "steps": steps,
                              "cycles_per_step": c[0] / c[1]})
                del ch
        return r

    def m_mbar():
        r = []
        for warps in (1, 4, 8):
            for all_ in (1, 0):
                c = cycles(lambda: k("mbar_roundtrip")((1,), (32 * warps,), (np.int32(256), np.int32(all_), out)), 2, False)
                r.append({"warps": warps, "all_threads_arrive": bool(all_), "cycles_per_round": c[0] / c[1]})
            c = cycles(lambda: k("bar_roundtrip")((1,), (32 * warps,), (np.int32(256), out)), 2, False)
            r.append({"warps": warps, "syncthreads": True, "cycles_per_round": c[0] / c[1]})
        return r

    def m_stream():
        r = []
        big = cp.zeros((512 << 20) // 4, dtype=cp.float32)
        sink = cp.zeros(4 * sms * 256, dtype=cp.float32)
        for where in ("dram", "l2"):
            for grid in (sms, 4 * sms):
                for kind in ("ld", "cpasync", "bulk"):
                    for K in (1, 2, 4):
                        f = k(f"stream_{kind}{K}")
                        tile = 8192 if kind == "bulk" else 4096
                        if where == "dram":
                            tiles = (512 << 20) // tile // grid
                            region = tiles
                        else:
                            region = (32 << 10) // tile
                            tiles = (4096 if grid == sms else 1024) * 4096 // tile
                        us = events_us(lambda: f((grid,), (256,), (big, np.int32(region), np.int32(tiles), sink)),
                                       where == "dram")
                        nbytes = grid * tiles * tile
                        r.append({"where": where, "grid": grid, "kind": kind, "stages": K, "us": us,
                                  "bytes": nbytes, "TBps": nbytes / us / 1e6,
                                  "bytes_per_clk_per_sm": nbytes / (us * 1e-6 * p["clockRate"] * 1e3) / sms})
        return r

    item("chase", m_chase)
    item("mbar", m_mbar)
    item("stream", m_stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
