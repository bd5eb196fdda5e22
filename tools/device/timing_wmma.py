#!/usr/bin/env python3
"""wmma.load / wmma.store memory-time microbenchmarks (issue 20, wmma20) on the GPU:
benchmarks/timing/micro2/wmma.cu (its PTX, wmma.ptx, is what the model runs).

    python3 tools/device/timing_wmma.py --out RESULTS.json [--cubin wmma.cubin]

Needs CuPy and wmma.cubin (nvcc 13.0 -arch=sm_90a -O3 -cubin, built here). Items (each in its own
try block; the JSON is rewritten after each):
  chase:  one warp follows a chain of 16-KiB nodes, each step one load of the tile at the node's
          start (plain ld.global.u32; wmma.load.a row/col f16, wmma.load.c row/col s32 with
          strides 16 and 64 elements) and on to the node its registers name: %clock64 cycles per
          step from L2 (4 MiB, warmed) and from DRAM (1 GiB, L2 flushed by a 256 MiB memset);
          in shared memory (2-KiB nodes): ld.shared.u32, wmma.load.a row f16, wmma.load.c row s32.
  thr:    528 CTAs x 256 threads (32 warps per SM), each warp `iters` iterations of 4 independent
          accesses: wmma.load.a/.c, wmma.store.d (row/col, several strides), ld.global.v4 and
          ld.shared.v4 for reference; global data L1-resident (32 KiB read by every CTA),
          L2-resident (4 MiB read by every CTA), stores into 32 KiB per CTA; shared data with
          conflict-free and bank-conflicting strides. `cycles_per_iter` = slowest warp's
          (c(2N) - c(N)) / N; `cycles_per_access_per_sm` = that / (4 x 32 warps).
  check:  the wmma HGEMM check kernels (wgemm_global: a warp per 16x16 tile from global memory;
          wgemm_smem: 64x64 CTA tiles through shared memory) at 512^3 and 1024^3 (A, B random
          f16): CUDA events around one launch behind a spin kernel, L2 flushed ("cold") or as the
          previous launch left it ("warm"), median of 15; used to check the model, never to fit it.
  stream: a 528 MiB row-major f16 matrix 8192 halves wide read as 16x16 A tiles (wmma.load.a row,
          4 in flight per warp) or as the same bytes with one ld.global.v4 per lane, 264 CTAs x 256
          threads, L2 flushed; CUDA events around one launch behind a spin kernel, median of 7,
          difference of 256 and 512 tiles per warp.
"""
from __future__ import annotations

import argparse
import statistics
import sys

from results_file import ResultsFile, device_info  # tools/device/, beside this file


NODE_WORDS = 4096  # global chain nodes: 16 KiB
SNODE_WORDS = 512  # shared chain nodes: 2 KiB

CHASE = [("chase_ld", 0), ("chase_a_row", 16), ("chase_a_row", 64), ("chase_a_col", 16), ("chase_a_col", 64),
         ("chase_c_row", 16), ("chase_c_row", 64), ("chase_c_col", 16), ("chase_c_col", 64)]
CHASE_SHARED = [("chase_lds", 0), ("chase_a_row_s", 16), ("chase_a_row_s", 64), ("chase_c_row_s", 16),
                ("chase_c_row_s", 32)]
KB = 1024
SPREAD = 2080  # tiles of 16 rows of 128 B (f16 ld 64, s32 ld 32) one after another, 32 B further each


def thr_points():
    """(where, kernel, ld, tile_bytes, region_bytes, cta_bytes)."""
    pts = []
    for where, region in (("l1", 32 * KB), ("l2", 4096 * KB)):
        for kern, ld, tile in (("thr_ld_v4", 0, 512), ("thr_a_row", 16, 512), ("thr_a_row", 64, SPREAD),
                               ("thr_a_col", 16, 512), ("thr_a_col", 64, SPREAD), ("thr_c_row", 16, 1024),
                               ("thr_c_row", 32, SPREAD), ("thr_c_col", 16, 1024), ("thr_c_col", 32, SPREAD)):
            pts.append((where, kern, ld, tile, region, 0))
    for kern, ld, tile in (("thr_st_row", 16, 1024), ("thr_st_row", 32, SPREAD), ("thr_st_col", 16, 1024),
                           ("thr_st_col", 32, SPREAD)):
        pts.append(("store", kern, ld, tile, 32 * KB, 40 * KB))
    for kern, ld, tile in (("thr_lds_v4", 0, 512), ("thr_a_row_s", 16, 512), ("thr_a_row_s", 64, SPREAD),
                           ("thr_a_row_s", 72, SPREAD), ("thr_a_col_s", 16, 512), ("thr_a_col_s", 64, SPREAD),
                           ("thr_a_col_s", 72, SPREAD), ("thr_c_row_s", 16, 1024), ("thr_c_row_s", 32, SPREAD),
                           ("thr_c_row_s", 40, SPREAD), ("thr_c_col_s", 16, 1024), ("thr_c_col_s", 32, SPREAD),
                           ("thr_c_col_s", 40, SPREAD), ("thr_st_row_s", 16, 1024), ("thr_st_row_s", 32, SPREAD),
                           ("thr_st_row_s", 40, SPREAD)):
        pts.append(("shared", kern, ld, tile, 32 * KB, 0))
    return pts


def chain_words(nodes: int, node_words: int, rng, np):
    """Every word of node i holds next(i) | next(i) << 16; one cycle through all nodes from node 0."""
    perm = rng.permutation(nodes)
    perm = perm[perm != 0]
    order = np.concatenate([[0], perm])
    nxt = np.empty(nodes, np.uint32)
    nxt[order[:-1]] = order[1:]
    nxt[order[-1]] = 0
    return np.repeat(nxt | (nxt << np.uint32(16)), node_words).astype(np.uint32)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cubin", default="wmma.cubin")
    ap.add_argument("--only", default="", help="comma-separated items (chase, thr, stream, check); default all")
    args = ap.parse_args(argv)
    only = set(filter(None, args.only.split(",")))
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=args.cubin)
    k = mod.get_function
    out = cp.zeros(1 << 16, dtype=cp.int64)
    sink = cp.zeros(16, dtype=cp.uint32)
    flush_buf = cp.zeros(1 << 28, dtype=cp.uint8)
    p = cp.cuda.runtime.getDeviceProperties(0)
    sms = p["multiProcessorCount"]
    results = ResultsFile(args.out, device_info(p))

    def sync():
        cp.cuda.runtime.deviceSynchronize()

    def flush():
        flush_buf.fill(1)

    def item(name, fn):
        results.item(name, fn, only)

    rng = np.random.default_rng(0)

    def chase_cycles(kern, buf, ld, steps, flushed):
        vals = []
        for _ in range(3):
            out[:3].fill(0)
            if flushed:
                flush()
            k(kern)((1,), (32,), (buf, np.int32(ld), np.int32(steps), out))
            sync()
            c = out[:2].get()
            vals.append(float(c[0]) / float(c[1]))
        return statistics.median(vals)

    def m_chase():
        r = []
        for where, nbytes, flushed, steps in (("l2", 4 << 20, False, 2048), ("dram", 1 << 30, True, 512)):
            buf = cp.asarray(chain_words(nbytes // (4 * NODE_WORDS), NODE_WORDS, rng, np))
            for kern, ld in CHASE:
                if not flushed:  # warm the chain into L2
                    chase_cycles(kern, buf, ld, steps, False)
                r.append({"where": where, "kernel": kern, "ld": ld, "steps": steps,
                          "cycles_per_step": chase_cycles(kern, buf, ld, steps, flushed)})
            del buf
        sbuf = cp.asarray(chain_words(16, SNODE_WORDS, rng, np))
        for kern, ld in CHASE_SHARED:
            r.append({"where": "shared", "kernel": kern, "ld": ld, "steps": 2048,
                      "cycles_per_step": chase_cycles(kern, sbuf, ld, 2048, False)})
        return r

    def m_thr():
        r = []
        grid, block = 4 * sms, 256
        warps = grid * block // 32
        big = cp.zeros((grid * 40 * KB + 4096 * KB) // 4, dtype=cp.uint32)
        for where, kern, ld, tile, region, cta in thr_points():
            per = {}
            for n in (64, 128):
                best = None
                for _ in range(2):
                    out[:warps].fill(0)
                    k(kern)((grid,), (block,), (big, np.int32(ld), np.int32(n), np.uint32(tile), np.uint32(region),
                                               np.uint32(cta), out, sink))
                    sync()
                    c = int(out[:warps].max().get())
                    best = c if best is None else min(best, c)
                per[n] = best
            cyc = (per[128] - per[64]) / 64.0
            r.append({"where": where, "kernel": kern, "ld": ld, "tile_bytes": tile, "region_bytes": region,
                      "cta_bytes": cta, "grid": grid, "block": block, "cycles": per, "cycles_per_iter": cyc,
                      "cycles_per_access_per_sm": cyc / (4 * (grid // sms) * block // 32)})
        del big
        return r

    def m_stream():
        r = []
        cols, grid, block = 8192, 2 * sms, 256
        warps = grid * block // 32
        big = cp.zeros(warps * 16 * cols // 2, dtype=cp.uint32)
        for kern in ("stream_a_row", "stream_v4"):
            t = {}
            for tiles in (256, 512):
                f = k(kern)
                f((grid,), (block,), (big, np.int32(cols), np.int32(tiles), sink))
                sync()
                ts = []
                for _ in range(7):
                    flush()
                    k("spin")((1,), (1,), (np.int64(40000),))
                    a, b = cp.cuda.Event(), cp.cuda.Event()
                    a.record()
                    f((grid,), (block,), (big, np.int32(cols), np.int32(tiles), sink))
                    b.record()
                    b.synchronize()
                    ts.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
                t[tiles] = statistics.median(ts)
            nbytes = warps * 256 * 512
            r.append({"kernel": kern, "cols": cols, "grid": grid, "block": block, "us": t,
                      "TBps": nbytes / (t[512] - t[256]) / 1e6})
        del big
        return r

    def m_check():
        r = []
        for size in (512, 1024):
            M = N = K = size
            a = cp.asarray(np.random.default_rng(1).standard_normal((M, K)).astype(np.float16))
            b = cp.asarray(np.random.default_rng(2).standard_normal((N, K)).astype(np.float16))
            c = cp.zeros((M, N), dtype=cp.float32)
            for kern, grid, block in (("wgemm_global", (M // 16) * (N // 16) * 32 // 128, 128),
                                      ("wgemm_smem", (N // 64, M // 64), 128)):
                f = k(kern)
                args_ = (a, b, c, np.int32(M), np.int32(N), np.int32(K))
                grid_ = grid if isinstance(grid, tuple) else (grid,)
                f(grid_, (block,), args_)
                sync()
                ref = cp.asnumpy(a).astype(np.float32) @ cp.asnumpy(b).astype(np.float32).T
                err = float(np.abs(cp.asnumpy(c) - ref).max())
                times = {}
                for conv in ("cold", "warm"):
                    ts = []
                    for _ in range(15):
                        if conv == "cold":
                            flush()
                        else:
                            f(grid_, (block,), args_)
                        k("spin")((1,), (1,), (np.int64(40000),))
                        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                        e0.record()
                        f(grid_, (block,), args_)
                        e1.record()
                        e1.synchronize()
                        ts.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
                    times[conv] = statistics.median(ts)
                r.append({"kernel": kern, "size": size, "grid": list(grid_), "block": block, "max_abs_err": err,
                          "us": times})
        return r

    item("chase", m_chase)
    item("thr", m_thr)
    item("stream", m_stream)
    item("check", m_check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
