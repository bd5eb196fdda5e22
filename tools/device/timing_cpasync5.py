#!/usr/bin/env python3
"""DRAM read latency under load, with and without concurrent writes, plain loads against cp.async
(benchmarks/timing/cpasync5/mixed.cu) on the GPU.

    python3 tools/device/timing_cpasync5.py --out RESULTS.json [--cubin mixed.cubin]
        [--barrier-cubin barrier.cubin] [--only mixed,barrier]

Needs CuPy. Item `mixed`: 528 CTAs (4 per SM) of 8 warps; `writers` warps of each CTA store
(4 or 16 B per lane) while the others read K requests per round from a 1 GiB buffer (ld4 / ld16 /
cp16, or copy4 / copy16: each value stored back), `rounds` rounds. Before each launch the L2 is
left dirty (a 256 MiB memset, the timing suite's cold convention) or clean (the memset, then a
256 MiB read). Per point, over `reps` launches (one more before, not kept): the kernel's time
(CUDA events, behind a spin kernel), the readers' cycles per round (clock64; median, 90th
percentile and max over reader warps), the bytes read and written; medians over the launches.
Item `mixed64`: the readers and copies alone with 8 CTAs per SM (64 warps, as the suite's
grid-stride copies). Item `barrier` (benchmarks/timing/cpasync5/barrier.cu): 32 warps per SM in CTAs of 2, 8 or 32 warps
streaming 512-B requests (ld16 / cp16), K per round, unpipelined (S = 1) or issued a round ahead
(S = 2), with and without a __syncthreads per round; the L2 dirty or clean before; the same
figures per point.
"""
from __future__ import annotations

import argparse
import statistics
import sys

from results_file import ResultsFile, device_info  # tools/device/, beside this file

SMS_CTAS = 4
WARPS = 8
ROUNDS = {1: 192, 2: 128, 4: 96}


def points():
    for mode in ("ld4", "ld16", "cp16"):
        for k in (1, 2, 4):
            yield mode, k, 0, 16, "dirty"
            yield mode, k, 0, 16, "clean"
            for writers in (2, 4):
                for ww in (4, 16):
                    yield mode, k, writers, ww, "dirty"
    for mode in ("copy4", "copy16"):
        for k in (1, 4):
            for state in ("dirty", "clean"):
                yield mode, k, 0, 16, state


def points64():
    """64 warps per SM (the suite's grid-stride copies' occupancy), readers and copies alone."""
    # (kernels of at most 32 registers, so that 8 CTAs of 256 threads fit on an SM)
    for mode, ks in (("ld4", (1, 4)), ("ld16", (1, 2)), ("copy4", (1, 4)), ("copy16", (1,))):
        for k in ks:
            for state in ("dirty", "clean"):
                yield mode, k, 0, 16, state


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cubin", default="mixed.cubin")
    ap.add_argument("--barrier-cubin", default="barrier.cubin")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=args.cubin)
    p = cp.cuda.runtime.getDeviceProperties(0)
    sms = p["multiProcessorCount"]
    grid = SMS_CTAS * sms
    results = ResultsFile(args.out, device_info(p), grid=grid, block=32 * WARPS, rounds=ROUNDS)
    rd = cp.zeros(1 << 30, dtype=cp.uint8)
    wr = cp.zeros(1 << 28, dtype=cp.uint8)
    flush_buf = cp.zeros(1 << 28, dtype=cp.uint8)
    clean_buf = cp.zeros((1 << 28) // 4, dtype=cp.float32)
    cyc = cp.zeros(grid * WARPS, dtype=cp.int64)
    counts = cp.zeros(4, dtype=cp.uint64)
    spin = mod.get_function("spin")

    def prepare(state):
        flush_buf.fill(1)
        if state == "clean":
            float(clean_buf.sum())

    def m_mixed(ctas_per_sm=SMS_CTAS, pts=points):
        grid = ctas_per_sm * sms
        cyc = cp.zeros(grid * WARPS, dtype=cp.int64)
        out = []
        for mode, k, writers, ww, state in pts():
            f = mod.get_function(f"mixed_{mode}_k{k}_w{ww}")
            rounds = ROUNDS[k]
            bpl = 4 if mode in ("ld4", "copy4") else 16
            nreaders = grid * (WARPS - writers)
            a = (rd, wr, np.uint64(rd.size - 1), np.uint64(wr.size - 1), np.int32(rounds), np.int32(writers),
                 np.int32(0), cyc, counts)
            runs = []
            for rep in range(args.reps + 1):
                counts.fill(0)
                cyc.fill(0)
                prepare(state)
                spin((1,), (1,), (np.int64(40000),))
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                f((grid,), (32 * WARPS,), a)
                e1.record()
                e1.synchronize()
                us = cp.cuda.get_elapsed_time(e0, e1) * 1e3
                c = cyc.get().reshape(grid, WARPS)
                n = counts.get()
                per_round = np.sort(c[:, writers:].ravel() / rounds)
                runs.append({"us": us, "round_median": float(np.median(per_round)),
                             "round_p90": float(per_round[int(0.9 * (per_round.size - 1))]),
                             "round_max": float(per_round[-1]),
                             "writer_cycles_median": float(np.median(c[:, :writers])) if writers else 0.0,
                             "readers_done": int(n[0]), "bytes_written": int(n[1])})
            runs = runs[1:]
            rec = {"grid": grid, "mode": mode, "k": k, "writers": writers, "write_bytes_per_lane": ww, "l2_before": state,
                   "rounds": rounds, "bytes_read": rounds * k * nreaders * 32 * bpl,
                   "bytes_copied": rounds * k * nreaders * 32 * bpl if mode.startswith("copy") else 0}
            for key in runs[0]:
                rec[key] = statistics.median(r[key] for r in runs)
            rec["us_all"] = [round(r["us"], 2) for r in runs]
            rec["round_median_all"] = [round(r["round_median"], 1) for r in runs]
            out.append(rec)
            print(mode, k, writers, ww, state, round(rec["us"], 1), round(rec["round_median"], 1),
                  round(rec["round_p90"], 1), rec["bytes_written"], flush=True)
        return out

    def m_barrier():
        bmod = cp.RawModule(path=args.barrier_cubin)
        out = []
        for mode in ("ld16", "cp16"):
            for k, s in ((1, 1), (2, 1), (1, 2)):
                f = bmod.get_function(f"bstream_{mode}_k{k}_s{s}")
                rounds = 192 // k
                for cta_warps in (2, 8, 32):
                    g = 32 * sms // cta_warps
                    block = 32 * cta_warps
                    shared = block * k * s * 16
                    if shared > 48 * 1024:
                        f.max_dynamic_shared_size_bytes = shared
                    bcyc = cp.zeros(g * cta_warps, dtype=cp.int64)
                    for bar in (0, 1):
                        for state in ("dirty", "clean"):
                            a = (rd, np.uint64(rd.size - 1), np.int32(rounds), np.int32(bar), bcyc, counts)
                            runs = []
                            for rep in range(args.reps + 1):
                                counts.fill(0)
                                prepare(state)
                                spin((1,), (1,), (np.int64(40000),))
                                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                                e0.record()
                                f((g,), (block,), a, shared_mem=shared)
                                e1.record()
                                e1.synchronize()
                                per_round = np.sort(bcyc.get() / rounds)
                                runs.append({"us": cp.cuda.get_elapsed_time(e0, e1) * 1e3,
                                             "round_median": float(np.median(per_round)),
                                             "round_p90": float(per_round[int(0.9 * (per_round.size - 1))]),
                                             "round_max": float(per_round[-1]),
                                             "warps_done": int(counts.get()[0])})
                            runs = runs[1:]
                            rec = {"mode": mode, "k": k, "stages": s, "cta_warps": cta_warps, "grid": g,
                                   "bar": bar, "l2_before": state, "rounds": rounds,
                                   "bytes_read": rounds * k * g * cta_warps * 512}
                            for key in runs[0]:
                                rec[key] = statistics.median(r[key] for r in runs)
                            rec["us_all"] = [round(r["us"], 2) for r in runs]
                            out.append(rec)
                            print(mode, k, s, cta_warps, bar, state, round(rec["us"], 1),
                                  round(rec["round_median"], 1), round(rec["round_p90"], 1), flush=True)
        return out

    only = [x for x in args.only.split(",") if x]
    results.item("mixed", m_mixed, only)
    results.item("barrier", m_barrier, only)
    results.item("mixed64", lambda: m_mixed(8, points64), only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
