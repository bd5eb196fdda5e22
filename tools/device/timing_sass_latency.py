#!/usr/bin/env python3
"""Run the dependent-issue latency microbenchmarks (benchmarks/timing/sass/latency.ptx) on the GPU.

    python3 tools/device/timing_sass_latency.py --cubin latency.cubin --out RESULTS.json

Needs CuPy. Each item of benchmarks/timing/sass/latency.py is two kernels (`_k4`, `_k16`: 4 or 16
dependent links per loop trip, `.pragma "nounroll"`); ONE warp runs `iters` trips, timed by
%clock64 in the kernel (lane 0's figure). Each kernel is launched `reps` times (the first one as a
warm-up, not kept); the JSON holds every kept launch's cycles and the medians, and
cycles per link = (median k16 - median k4) / (12 x iters x chains).
"""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import traceback

ITEMS = ["ffma", "iadd", "lop3", "shf", "sel_iadd", "isetp_sel_iadd", "imad", "imad_hi", "vimnmx_iadd", "prmt",
         "imad_wide_u32", "imad_wide_s32", "iadd64", "sel64_iadd64", "isetp64_sel64_iadd64", "shl64", "popc", "clz_iadd", "i2f_fadd_f2i", "f2f16_h2f_fadd",
         "f2f64_dadd_f2f32", "hadd2", "hfma2", "dadd", "mufu_ex2", "sqrt_rn", "rcp_rn", "div_rn", "ex2_full", "shfl_idx", "shfl_bfly", "redux_add",
         "dp4a", "xor3_add64", "chi_add64", "chi_add32", "rot_add64", "chi_add64_ilp8", "iadd_ilp8", "lop3_ilp8", "imad_ilp8", "ffma_ilp8", "imad_wide_ilp8", "iadd64_ilp8", "hfma2_ilp8"]


def inputs(np):
    """Per lane 256 bytes: the operands latency.ptx loads (see its kernel prologue)."""
    buf = np.zeros((32, 256), np.uint8)
    lane = np.arange(32)
    u32 = buf.view(np.uint32)  # 64 words per lane
    u32[:, 0] = 1  # %r9: a shift amount / addend
    u32[:, 1] = 3  # %r10
    u32[:, 2] = lane ^ 1  # %r11: a shuffle source lane
    u32[:, 3] = 1  # %p1
    u32[:, 4] = lane & 1  # %p2
    buf.view(np.uint64)[:, 3] = 3  # %rd9
    f32 = buf.view(np.float32)
    f32[:, 8] = 1.0  # %f2
    f32[:, 9] = 0.5  # %f3
    buf.view(np.float64)[:, 5] = 1.0  # %fd2
    for j in range(8):  # chain starts at 64 + 8j: low word 1.5f (an int too), high word that of 1.5 (f64)
        u32[:, 16 + 2 * j] = 0x3FC00000
        u32[:, 17 + 2 * j] = 0x3FF80000
    return buf


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--iters", type=int, default=512)
    ap.add_argument("--reps", type=int, default=6)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=args.cubin)
    buf = inputs(np)
    dev_in = cp.asarray(buf.reshape(-1))
    out = cp.zeros(32 * 256 // 8, dtype=cp.uint64)
    props = cp.cuda.runtime.getDeviceProperties(0)
    res = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "device": props["name"].decode(),
           "cupy": cp.__version__, "iters": args.iters, "reps": args.reps, "items": {}}
    for name in ITEMS:
        try:
            got = {}
            for k in (4, 16):
                fn = mod.get_function(f"{name}_k{k}")
                cycles = []
                for r in range(args.reps):
                    fn((1,), (32,), (out, dev_in, np.uint32(args.iters)))
                    cp.cuda.runtime.deviceSynchronize()
                    if r:
                        cycles.append(int(out[0].get()))
                got[f"k{k}"] = {"cycles": cycles, "median": statistics.median(cycles)}
            chains = 8 if name.endswith("_ilp8") else 1
            got["cycles_per_link"] = (got["k16"]["median"] - got["k4"]["median"]) / (12 * args.iters * chains)
            res["items"][name] = got
            print(f"{name:20s} {got['cycles_per_link']:7.3f}", flush=True)
        except Exception:  # one broken item must not lose the others
            res["items"][name] = {"error": traceback.format_exc()}
        with open(args.out, "w") as fh:
            json.dump(res, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
