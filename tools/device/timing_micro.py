#!/usr/bin/env python3
"""Run the calibration microbenchmarks (benchmarks/timing/micro/micro.ptx) on the GPU.

    python3 tools/device/timing_micro.py --out RESULTS.json [--only NAME[,NAME]]

Needs CuPy. Each item is measured in its own try block and the JSON file is rewritten after every
item, so one failure (or a kill at the time limit) keeps everything measured before it.
Cycle counts come from %clock64 inside the kernels; bandwidths and atomic rates from CUDA events.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PTX = os.path.join(ROOT, "benchmarks", "timing", "micro", "micro.ptx")


def device_props(cp) -> dict:
    p = cp.cuda.runtime.getDeviceProperties(0)
    keep = ("name", "multiProcessorCount", "clockRate", "memoryClockRate", "memoryBusWidth",
            "l2CacheSize", "persistingL2CacheMaxSize", "sharedMemPerMultiprocessor",
            "sharedMemPerBlockOptin", "sharedMemPerBlock", "regsPerMultiprocessor",
            "maxThreadsPerMultiProcessor", "maxBlocksPerMultiProcessor", "totalGlobalMem",
            "major", "minor", "totalConstMem")
    out = {}
    for k in keep:
        v = p.get(k)
        out[k] = v.decode() if isinstance(v, bytes) else v
    return out


class Bench:
    def __init__(self, cp, np):
        self.cp, self.np = cp, np
        self.mod = cp.RawModule(path=PTX)
        self.out = cp.zeros(4096, dtype=cp.int64)
        self.sink = cp.zeros(4096, dtype=cp.float64)

    def k(self, name):
        return self.mod.get_function(name)

    def events_ms(self, fn, reps=10, warm=2):
        cp = self.cp
        for _ in range(warm):
            fn()
        cp.cuda.runtime.deviceSynchronize()
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b))
        return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times)}


# ------------------------------------------------------------------ items

def m_clock(b):
    np = b.np
    f = b.k("clock_rate")
    res = []
    for _ in range(3):
        b.out.fill(0)
        f((1,), (1,), (np.int64(400_000_000), b.out))
        b.cp.cuda.runtime.deviceSynchronize()
        cyc, ns = (int(x) for x in b.out[:2].get())
        res.append({"cycles": cyc, "ns": ns, "mhz": cyc / ns * 1e3})
    return {"runs": res, "mhz": statistics.median(r["mhz"] for r in res)}


def _chain(np, n_elems, stride_elems, count):
    """Element index chain: position i*stride holds ((i+1) % count) * stride (as uint32)."""
    a = np.zeros(n_elems, dtype=np.uint32)
    idx = np.arange(count, dtype=np.int64) * stride_elems
    a[idx] = (np.roll(idx, -1)).astype(np.uint32)
    return a


def _pointer_chain(cp, np, a, first, stride_bytes, count):
    """In uint64 device array `a`, from element `first`: `count` elements `stride_bytes` apart,
    each holding the absolute address of the next (the last one points back to the first)."""
    idx = first + np.arange(count, dtype=np.int64) * (stride_bytes // 8)
    nxt = np.roll(idx, -1)
    a[cp.asarray(idx)] = cp.asarray((a.data.ptr + nxt * 8).astype(np.uint64))
    return a.data.ptr + int(idx[0]) * 8


def m_chase_sweep(b):
    cp, np = b.cp, b.np
    sizes_kib = [4, 8, 16, 32, 64, 96, 128, 160, 192, 224, 256, 384, 512, 1024, 2048, 4096, 16384]
    out = []
    for kind in ("chase_ca", "chase_cg"):
        f = b.k(kind)
        for kib in sizes_kib:
            size = kib * 1024
            stride = 128 if kib <= 4096 else 4096 + 128
            count = size // stride
            a = cp.zeros(size // 8, dtype=cp.uint64)
            start = _pointer_chain(cp, np, a, 0, stride, count)
            steps = 4096
            b.out.fill(0)
            for _ in range(2):
                f((1,), (1,), (np.uint64(start), np.int32(count), np.int32(steps), b.out))
            cp.cuda.runtime.deviceSynchronize()
            cyc = int(b.out[0].get())
            out.append({"op": kind, "size_kib": kib, "stride": stride, "steps": steps,
                        "cycles_per_load": cyc / steps})
            del a
    return {"points": out}


def m_chase_dram(b):
    """Cold chases: build the chain, flush L2 by streaming 2 GiB through it, chase once; then
    chase again (now L2-resident)."""
    cp, np = b.cp, b.np
    a = cp.zeros((1 << 30) // 8, dtype=cp.uint64)
    flush_src = cp.zeros(1 << 28, dtype=cp.float32)
    flush_dst = cp.empty_like(flush_src)
    out = []
    for stride in (128, 4096 + 128, 65536 + 128, 2 * 1024 * 1024 + 128):
        for start_mb in (0, 256):
            first = start_mb * 1024 * 1024 // 8
            steps = int(min(2048, (a.size - first) // (stride // 8) - 1))
            start = _pointer_chain(cp, np, a, first, stride, steps + 1)
            cp.copyto(flush_dst, flush_src)
            cp.copyto(flush_src, flush_dst)
            cp.cuda.runtime.deviceSynchronize()
            cycles = []
            for _ in range(2):
                b.out.fill(0)
                b.k("chase_cg")((1,), (1,), (np.uint64(start), np.int32(0), np.int32(steps), b.out))
                cp.cuda.runtime.deviceSynchronize()
                cycles.append(int(b.out[0].get()))
            out.append({"stride": stride, "start_mb": start_mb, "steps": steps,
                        "cold_cycles_per_load": cycles[0] / steps, "warm_cycles_per_load": cycles[1] / steps})
    del a, flush_src, flush_dst
    return {"points": out}


def m_chase_shared(b):
    np = b.np
    res = {}
    for stride in (1, 33):
        b.out.fill(0)
        f = b.k("chase_shared")
        for _ in range(2):
            f((1,), (32,), (np.int32(1024), np.int32(stride), np.int32(4096), b.out), shared_mem=4096)
        b.cp.cuda.runtime.deviceSynchronize()
        res[f"stride{stride}"] = int(b.out[0].get()) / 4096
    return res


def m_chase_const(b):
    cp, np = b.cp, b.np
    ptr = b.mod.get_global("c_chain")
    res = []
    for span_words, stride_words in ((64, 1), (256, 8), (2048, 8), (4096, 32), (16384, 64), (16384, 512)):
        count = span_words // stride_words
        chain = _chain(np, 16384, stride_words, count) * np.uint32(4)  # byte offsets
        dev = cp.ndarray((16384,), dtype=cp.uint32, memptr=ptr)
        dev.set(chain)
        f = b.k("chase_const")
        cold = None
        for rep in range(2):
            b.out.fill(0)
            f((1,), (1,), (np.uint32(0), np.int32(0 if rep == 0 else count), np.int32(1024), b.out))
            cp.cuda.runtime.deviceSynchronize()
            v = int(b.out[0].get()) / 1024
            if rep == 0:
                cold = v
        res.append({"span_bytes": span_words * 4, "stride_bytes": stride_words * 4,
                    "cycles_per_load_warm": v, "cycles_per_load_first": cold})
    return {"points": res}


def m_bw_dram(b):
    cp, np = b.cp, b.np
    n = (1 << 30) // 16
    src = cp.ones(n * 4, dtype=cp.float32)
    dst = cp.empty_like(src)
    f = b.k("bw_copy")
    res = {}
    for grid, block in ((132 * 16, 256), (132 * 4, 1024)):
        t = b.events_ms(lambda: f((grid,), (block,), (src, dst, np.int64(n))))
        t["bytes"] = 2 * n * 16
        t["bytes_per_s"] = t["bytes"] / (t["min_ms"] * 1e-3)
        res[f"copy_{grid}x{block}"] = t
    del src, dst
    return res


def m_bw_dram_rw(b):
    cp, np = b.cp, b.np
    n = (1 << 30) // 16
    buf = cp.ones(n * 4, dtype=cp.float32)
    res = {}
    for label, fn in (("read", lambda: b.k("bw_readonly")((132 * 16,), (256,), (buf, np.int64(n), b.sink))),
                      ("write", lambda: b.k("bw_writeonly")((132 * 16,), (256,), (buf, np.int64(n))))):
        t = b.events_ms(fn)
        t["bytes"] = n * 16
        t["bytes_per_s"] = t["bytes"] / (t["min_ms"] * 1e-3)
        res[label] = t
    del buf
    return res


def m_bw_l1(b):
    cp, np = b.cp, b.np
    res = {}
    for kib in (16, 64):
        n4 = kib * 1024 // 16
        src = cp.ones(132 * n4 * 4, dtype=cp.float32)
        for _ in range(2):
            b.out.fill(0)
            b.k("bw_l1")((132,), (1024,), (src, np.int32(n4), np.int32(64), b.out, b.sink))
        cp.cuda.runtime.deviceSynchronize()
        o = b.out[:264].get()
        cyc = float(statistics.median(o[0::2]))
        res[f"{kib}KiB"] = {"cycles_median": cyc, "bytes_per_clk_per_sm": float(o[1]) / cyc}
        del src
    return res


def m_scatter(b):
    """Accesses per second for 1-sector-per-lane (stride 32 words) vs coalesced (stride 1) reads
    and writes, on an L2-resident buffer (16 MiB) and a DRAM-sized one (1 GiB)."""
    cp, np = b.cp, b.np
    res = {}
    count = 1 << 26
    for mib in (16, 1024):
        n = mib * 1024 * 1024 // 4
        buf = cp.zeros(n, dtype=cp.float32)
        for stride in (1, 32):
            for op in ("read", "write"):
                if op == "read":
                    fn = lambda: b.k("scatter_read")((132 * 16,), (256,), (buf, np.int64(n), np.int32(stride), np.int64(count), b.sink))
                else:
                    fn = lambda: b.k("scatter_write")((132 * 16,), (256,), (buf, np.int64(n), np.int32(stride), np.int64(count)))
                t = b.events_ms(fn, reps=5)
                t["accesses_per_s"] = count / (t["min_ms"] * 1e-3)
                t["sectors_per_s"] = t["accesses_per_s"] * (1 if stride == 32 else 1 / 8)
                res[f"{op}_stride{stride}_{mib}MiB"] = t
        del buf
    return res


def m_bw_l2(b):
    cp, np = b.cp, b.np
    res = {}
    f = b.k("bw_read")
    for mib in (4, 16, 32):
        n = mib * 1024 * 1024 // 16
        src = cp.ones(n * 4, dtype=cp.float32)
        grid = 132 * 2
        t = b.events_ms(lambda: f((grid,), (1024,), (src, np.int64(n), np.int32(1), b.sink)), reps=5)
        t["bytes"] = grid * n * 16
        t["bytes_per_s"] = t["bytes"] / (t["min_ms"] * 1e-3)
        res[f"read_{mib}MiB"] = t
    return res


def m_bw_shared(b):
    np = b.np
    reps = 256
    f = b.k("bw_shared")
    b.out.fill(0)
    for _ in range(2):
        f((132,), (1024,), (np.int32(reps), b.out, b.sink))
    b.cp.cuda.runtime.deviceSynchronize()
    cyc = b.out[:264].get()[0::2]
    med = float(statistics.median(cyc))
    return {"cycles_median": med, "bytes_per_clk_per_sm": 1024 * 8 * 16 * reps / med}


OPS = ("fadd", "fmul", "ffma", "iadd", "imul", "imad", "dfma", "dadd", "hfma2", "ex2", "rcp", "sin",
       "cvt", "shfl")


def _scalars(np, op):
    if op in ("iadd", "imul", "imad", "shfl"):
        return np.uint32(3), np.uint32(5)
    if op == "hfma2":
        return np.uint32(0x3C003C00), np.uint32(0x38003800)
    if op in ("dfma", "dadd"):
        return np.float64(1.0), np.float64(0.5)
    return np.float32(0.5), np.float32(0.25)


def m_inst(b):
    np = b.np
    res = {}
    for op in OPS:
        try:
            a, c = _scalars(np, op)
            f = b.k("lat_" + op)
            for _ in range(2):
                b.out.fill(0)
                f((1,), (32,), (a, c, np.int32(32), b.out, b.sink))  # one full warp (shfl needs it)
            b.cp.cuda.runtime.deviceSynchronize()
            cyc, ops = (int(x) for x in b.out[:2].get())
            lat = cyc / ops
            g = b.k("thr_" + op)
            for _ in range(2):
                b.out.fill(0)
                g((132,), (1024,), (a, c, np.int32(16), b.out, b.sink))
            b.cp.cuda.runtime.deviceSynchronize()
            o = b.out[:264].get()
            cyc_b = float(statistics.median(o[0::2]))
            lanes = int(o[1])
            lanes_per_clk = lanes / cyc_b
            res[op] = {"latency_cycles": lat, "lanes_per_clk_per_sm": lanes_per_clk,
                       "issue_interval": 128.0 / lanes_per_clk}
        except Exception:
            res[op] = {"error": traceback.format_exc()[-800:]}
    return res


def m_mma(b):
    np = b.np
    a, c = np.uint32(0x3C003C00), np.uint32(0x38003800)
    f = b.k("lat_mma")
    for _ in range(2):
        b.out.fill(0)
        f((1,), (32,), (a, c, np.int32(16), b.out, b.sink))
    b.cp.cuda.runtime.deviceSynchronize()
    cyc, ops = (int(x) for x in b.out[:2].get())
    res = {"latency_cycles": cyc / ops}
    g = b.k("thr_mma")
    for warps in (4, 8, 16):
        for _ in range(2):
            b.out.fill(0)
            g((132,), (32 * warps,), (a, c, np.int32(8), b.out, b.sink))
        b.cp.cuda.runtime.deviceSynchronize()
        o = b.out[:264].get()
        cyc_b = float(statistics.median(o[0::2]))
        per_clk = int(o[1]) / cyc_b
        res[f"warps{warps}"] = {"mma_per_clk_per_sm": per_clk,
                                "flop_per_clk_per_sm": per_clk * 2 * 16 * 8 * 16,
                                "issue_interval_per_subpartition": 4.0 / per_clk}
    return res


def m_control(b):
    np = b.np
    res = {"diverge": {}, "branch": {}, "barrier": {}}
    for ways in (1, 2, 4, 8, 16, 32):
        for _ in range(2):
            b.out.fill(0)
            b.k("diverge")((1,), (32,), (np.int32(ways), np.int32(16), b.out, b.sink))
        b.cp.cuda.runtime.deviceSynchronize()
        cyc, it = (int(x) for x in b.out[:2].get())
        res["diverge"][str(ways)] = cyc / it
    for flag in (0, 1):
        for _ in range(2):
            b.out.fill(0)
            b.k("branch_cost")((1,), (32,), (np.int32(4096), np.int32(flag), b.out, b.sink))
        b.cp.cuda.runtime.deviceSynchronize()
        cyc, it = (int(x) for x in b.out[:2].get())
        res["branch"]["taken" if flag else "not_taken"] = cyc / it
    for block in (32, 128, 256, 512, 1024):
        for _ in range(2):
            b.out.fill(0)
            b.k("barrier_cost")((1,), (block,), (np.int32(1024), b.out))
        b.cp.cuda.runtime.deviceSynchronize()
        cyc, it = (int(x) for x in b.out[:2].get())
        res["barrier"][str(block)] = cyc / it
    return res


def m_banks(b):
    np = b.np
    res = {}
    for block in (32, 1024):
        d = {}
        for ways in (1, 2, 4, 8, 16, 32):
            for _ in range(2):
                b.out.fill(0)
                b.k("bank_conflict")((1,), (block,), (np.int32(ways), np.int32(64), b.out))
            b.cp.cuda.runtime.deviceSynchronize()
            cyc, n = (int(x) for x in b.out[:2].get())
            d[str(ways)] = cyc / n  # cycles per load per warp chain (block=32: latency)
        res[f"block{block}"] = d
    return res


def m_atomics(b):
    cp, np = b.cp, b.np
    res = {}
    a = cp.zeros(1 << 22, dtype=cp.uint32)
    for name, f in (("global", "atom_lat_global"), ("shared", "atom_lat_shared")):
        for _ in range(2):
            b.out.fill(0)
            args = (a, np.int32(1024), b.out) if name == "global" else (np.int32(1024), b.out)
            b.k(f)((1,), (1,), args)
        cp.cuda.runtime.deviceSynchronize()
        cyc, n = (int(x) for x in b.out[:2].get())
        res[f"latency_{name}"] = cyc / n
    g = b.k("atom_thr")
    for mode, label in ((0, "global_same"), (1, "global_distinct"), (2, "shared_same"), (3, "shared_distinct")):
        grid, block, iters = 132 * 4, 1024, 64
        t = b.events_ms(lambda: g((grid,), (block,), (a, np.int32(mode), np.int32(iters))), reps=5)
        t["atomics"] = grid * block * iters
        t["atomics_per_s"] = t["atomics"] / (t["min_ms"] * 1e-3)
        res[label] = t
    return res


ITEMS = {
    "clock": m_clock, "chase_sweep": m_chase_sweep, "chase_dram": m_chase_dram,
    "chase_shared": m_chase_shared, "chase_const": m_chase_const, "inst": m_inst, "mma": m_mma,
    "control": m_control, "banks": m_banks, "atomics": m_atomics, "bw_dram": m_bw_dram,
    "bw_l2": m_bw_l2, "bw_shared": m_bw_shared, "bw_dram_rw": m_bw_dram_rw, "bw_l1": m_bw_l1,
    "scatter": m_scatter,
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "python": platform.python_version(), "cupy": cp.__version__, "items": {}}

    def save():
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1, default=float)
        os.replace(tmp, args.out)

    try:
        results["device"] = device_props(cp)
    except Exception:
        results["device"] = {"error": traceback.format_exc()[-800:]}
    save()
    b = Bench(cp, np)
    only = [s for s in args.only.split(",") if s]
    for name, fn in ITEMS.items():
        if only and name not in only:
            continue
        t0 = time.time()
        try:
            results["items"][name] = fn(b)
        except Exception:
            results["items"][name] = {"error": traceback.format_exc()[-1500:]}
        results["items"][name + "_seconds"] = round(time.time() - t0, 3)
        print(f"{name}: {time.time() - t0:.2f} s", flush=True)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
