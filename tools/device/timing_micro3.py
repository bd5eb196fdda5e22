#!/usr/bin/env python3
"""Run the DRAM access-pattern microbenchmarks (benchmarks/timing/micro3/dram.cu) on the GPU.

    python3 tools/device/timing_micro3.py --cubin dram.cubin --out RESULTS.json

Needs CuPy. Two sets, each point in its own try block, the JSON rewritten after every set:
  chase   one thread (or a warp of independent chains) following a pointer chain through DRAM with
          the L2 flushed before the launch (a 256 MiB memset): cycles per hop from %clock64 (the
          second of two launches) for sequential lines, fixed strides, and random lines within
          regions from 2 MiB to 1 GiB; the same launch without the flush (warm) beside it.
  gather  random gathers of 4 to 512-byte granules from a 1 GiB or 256 MiB table, 8M gathers over
          all SMs, L2 flushed before each launch, CUDA events (median of 7): achieved granules/s and
          bytes/s, against a sequential control and a plain stream of the table.
"""
from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import traceback

MIB = 1 << 20


class Bench:
    def __init__(self, cp, np, cubin):
        self.cp, self.np = cp, np
        self.mod = cp.RawModule(path=cubin)
        self.flush_buf = cp.zeros(256 * MIB, dtype=cp.uint8)
        self.out = cp.zeros(64, dtype=cp.int64)

    def flush(self):
        """The suite's cold convention: a 256 MiB cudaMemsetAsync on the stream."""
        self.cp.cuda.runtime.memsetAsync(self.flush_buf.data.ptr, 0, self.flush_buf.nbytes,
                                         self.cp.cuda.get_current_stream().ptr)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def events_us(self, fn, reps=7, flush=True):
        cp, np = self.cp, self.np
        spin = self.mod.get_function("spin")
        fn()
        self.sync()
        times = []
        for _ in range(reps):
            if flush:
                self.flush()
            spin((1,), (1,), (np.int64(40000),))
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            fn()
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        return {"median_us": statistics.median(times), "min_us": min(times), "max_us": max(times)}


def chain_lines(np, rng, region_bytes, hops, pattern):
    """Line indices (128-B lines) of a chain of `hops` steps within a region."""
    lines = region_bytes // 128
    if pattern == "sequential":
        return np.arange(hops, dtype=np.int64) % lines
    if pattern.startswith("stride"):
        step = int(pattern[6:]) // 128
        return (np.arange(hops, dtype=np.int64) * step) % lines
    if pattern == "random":
        # line 0 holds the chain heads: random lines are drawn from the others
        return 1 + rng.choice(lines - 1, size=hops, replace=lines - 1 < hops)
    raise ValueError(pattern)


def m_chase(b, res, rng):
    cp, np = b.cp, b.np
    hops = 2048
    k = b.mod.get_function("chase")
    cases = [("sequential", 64 * MIB, 1), ("stride2048", 64 * MIB, 1), ("stride4096", 64 * MIB, 1),
             ("stride65536", 1024 * MIB, 1), ("stride2097152", 1024 * MIB, 1),
             ("random", 2 * MIB, 1), ("random", 16 * MIB, 1), ("random", 64 * MIB, 1),
             ("random", 256 * MIB, 1), ("random", 1024 * MIB, 1),
             ("random", 4 * MIB, 32), ("random", 64 * MIB, 32), ("random", 1024 * MIB, 32)]
    # a warp of 32 lanes whose loads touch `chains` distinct lines per hop (lanes l and l + chains
    # follow the same line sequence, each on its own word): the cost of a request's slowest line
    cases += [("random", 64 * MIB, 32, c) for c in (1, 2, 4, 8, 16)]
    table = cp.zeros(1024 * MIB // 4 + 64, dtype=cp.uint32)
    for case in cases:
        pattern, region, lanes = case[:3]
        chains = case[3] if len(case) > 3 else lanes
        try:
            table.fill(0)
            host_words = []
            seqs = [chain_lines(np, rng, region, hops + 1, pattern) for _ in range(chains)]
            for lane in range(lanes):
                ln = seqs[lane % chains]
                # lane l uses word l of every line: chains never share a word
                words = ln * 32 + lane
                words[0] = lane  # the kernel starts at word = threadIdx.x
                host_words.append(words)
            src = np.concatenate([w[:-1] for w in host_words]).astype(np.int64)
            dst = np.concatenate([w[1:] for w in host_words]).astype(np.uint32)
            table[cp.asarray(src)] = cp.asarray(dst)
            pt = {"pattern": pattern, "region_bytes": region, "lanes": lanes, "lines_per_hop": chains, "hops": hops}
            for label, flush in (("cold", True), ("warm", False)):
                cyc = []
                for _ in range(3):
                    k((1,), (lanes,), (table, b.out, np.int32(hops)))
                    if flush:
                        b.flush()
                    k((1,), (lanes,), (table, b.out, np.int32(hops)))
                    b.sync()
                    cyc.append(int(b.out[0].get()) / hops)
                pt[label + "_cycles_per_hop"] = statistics.median(cyc)
            res.append(pt)
            print(pt, flush=True)
        except Exception:
            res.append({"pattern": pattern, "region_bytes": region, "lanes": lanes, "error": traceback.format_exc()[-400:]})
    del table


def m_gather(b, res, rng):
    cp, np = b.cp, b.np
    n = 8 << 20
    grid, block = 132 * 16, 256
    out = cp.zeros(grid * block, dtype=cp.uint32)
    table = cp.ones(1024 * MIB // 4, dtype=cp.uint32)
    for table_bytes in (1024 * MIB, 256 * MIB):
        for g in (4, 32, 64, 128, 512):
            for order in ("random", "sequential"):
                if order == "sequential" and g not in (4, 32, 128):
                    continue
                try:
                    granules = table_bytes // g
                    if order == "random":
                        idx = cp.asarray(rng.integers(0, granules, size=n, dtype=np.int64).astype(np.uint32))
                    else:
                        idx = cp.arange(n, dtype=cp.uint32) % granules
                    k = b.mod.get_function(f"gather{g}")
                    t = b.events_us(lambda: k((grid,), (block,), (table, idx, out, np.int32(n))))
                    s = t["median_us"] * 1e-6
                    pt = {"table_bytes": table_bytes, "granule": g, "order": order, "gathers": n, **t,
                          "granules_per_s": n / s, "bytes_per_s": n * g / s, "idx_bytes": 4 * n}
                    res.append(pt)
                    print(pt, flush=True)
                except Exception:
                    res.append({"table_bytes": table_bytes, "granule": g, "order": order, "error": traceback.format_exc()[-400:]})
    try:
        k = b.mod.get_function("stream_read")
        n4 = 1024 * MIB // 16
        t = b.events_us(lambda: k((grid,), (block,), (table, out, np.int64(n4))))
        res.append({"stream_read_bytes": 1024 * MIB, **t, "bytes_per_s": 1024 * MIB / (t["median_us"] * 1e-6)})
        print(res[-1], flush=True)
    except Exception:
        res.append({"stream_read": "error", "error": traceback.format_exc()[-400:]})


def m_cold_state(b, res, rng):
    """What the L2 holds before a launch: a stream of N MiB read (or written) right after the
    256 MiB memset flush (the L2 full of the memset's dirty lines), after a 256 MiB read of
    another buffer (the L2 full of clean lines), and back to back (warm: its own data)."""
    cp, np = b.cp, b.np
    grid, block = 132 * 8, 256
    out = cp.zeros(grid * block, dtype=cp.uint32)
    buf = cp.ones(256 * MIB // 4, dtype=cp.uint32)
    other = cp.ones(256 * MIB // 4, dtype=cp.uint32)
    rd, wr = b.mod.get_function("stream_read"), b.mod.get_function("stream_write")

    def read_flush():
        rd((grid,), (block,), (other, out, np.int64(256 * MIB // 16)))

    for mib in (4, 8, 16, 24, 32, 48, 64, 128):
        n4 = np.int64(mib * MIB // 16)
        for name, k, args in (("read", rd, (buf, out, n4)), ("write", wr, (buf, n4))):
            try:
                fn = lambda: k((grid,), (block,), args)
                pt = {"kernel": name, "mib": mib,
                      "memset_flush": b.events_us(fn, flush=True),
                      "warm": b.events_us(fn, flush=False)}
                # the read flush: a 256 MiB read of another buffer before the spin kernel
                saved = b.flush
                b.flush = read_flush
                try:
                    pt["read_flush"] = b.events_us(fn, flush=True)
                finally:
                    b.flush = saved
                res.append(pt)
                print({k2: (v["median_us"] if isinstance(v, dict) else v) for k2, v in pt.items()}, flush=True)
            except Exception:
                res.append({"kernel": name, "mib": mib, "error": traceback.format_exc()[-400:]})


def m_first_access(b, res, rng):
    """What a small launch's first memory accesses cost beyond the launch: one thread with 0-8
    dependent loads from a 64 MiB buffer (cold: after the memset flush; read_flush: after a 256 MiB
    read of another buffer; warm: back to back), and one warp loading one word from each of 1-32
    pages 2 MiB apart (or 32 words 4 KiB apart), median of 31 launches by CUDA events."""
    cp, np = b.cp, b.np
    buf = cp.zeros(64 * MIB // 4, dtype=cp.uint32)
    # a chain through lines 1 MiB apart: word i*2^18 -> (i+1)*2^18
    idx = np.arange(64, dtype=np.int64) * (1 << 18)
    buf[cp.asarray(idx[:-1])] = cp.asarray(idx[1:].astype(np.uint32))
    out = cp.zeros(64, dtype=cp.uint32)
    other = cp.ones(256 * MIB // 4, dtype=cp.uint32)
    rd = b.mod.get_function("stream_read")
    sink = cp.zeros(132 * 8 * 256, dtype=cp.uint32)

    def read_flush():
        rd((132 * 8,), (256,), (other, sink, np.int64(256 * MIB // 16)))

    def three(fn):
        pt = {"cold": b.events_us(fn, reps=31, flush=True), "warm": b.events_us(fn, reps=31, flush=False)}
        saved = b.flush
        b.flush = read_flush
        try:
            pt["read_flush"] = b.events_us(fn, reps=31, flush=True)
        finally:
            b.flush = saved
        return pt

    chase = b.mod.get_function("first_chase")
    for hops in (0, 1, 2, 4, 8):
        try:
            pt = {"kernel": "first_chase", "hops": hops, **three(lambda: chase((1,), (1,), (buf, out, np.int32(hops))))}
            res.append(pt)
            print({k: (v["median_us"] if isinstance(v, dict) else v) for k, v in pt.items()}, flush=True)
        except Exception:
            res.append({"kernel": "first_chase", "hops": hops, "error": traceback.format_exc()[-400:]})
    pages = b.mod.get_function("first_pages")
    big = cp.zeros(64 * MIB // 4, dtype=cp.uint32)
    for lanes, stride in ((1, 2 * MIB), (4, 2 * MIB), (32, 2 * MIB), (32, 4096)):
        try:
            fn = lambda: pages((1,), (lanes,), (big, out, np.int64(stride // 4)))
            pt = {"kernel": "first_pages", "lanes": lanes, "stride": stride, **three(fn)}
            res.append(pt)
            print({k: (v["median_us"] if isinstance(v, dict) else v) for k, v in pt.items()}, flush=True)
        except Exception:
            res.append({"kernel": "first_pages", "lanes": lanes, "error": traceback.format_exc()[-400:]})


def m_harness(b, res, rng):
    """The suite's timing harness (tools/device/timing_suite.py) against this file's: 30 launches
    with their memsets and events all queued behind one long spin kernel (cold: memset, event,
    launch, event; `cold_gap`: the same with a 20 us spin kernel between the memset and the first
    event; warm: back to back with an event between launches), medians, for an empty launch, one
    dependent DRAM load, and streams of 4 and 32 MiB."""
    cp, np = b.cp, b.np
    spin = b.mod.get_function("spin")
    chase = b.mod.get_function("first_chase")
    rd = b.mod.get_function("stream_read")
    buf = cp.zeros(64 * MIB // 4, dtype=cp.uint32)
    out = cp.zeros(132 * 8 * 256, dtype=cp.uint32)
    flush_ptr, flush_n = b.flush_buf.data.ptr, b.flush_buf.nbytes
    kernels = {
        "empty": lambda: chase((1,), (1,), (buf, out, np.int32(0))),
        "one_load": lambda: chase((1,), (1,), (buf, out, np.int32(1))),
        "read_4mib": lambda: rd((132 * 8,), (256,), (buf, out, np.int64(4 * MIB // 16))),
        "read_32mib": lambda: rd((132 * 8,), (256,), (buf, out, np.int64(32 * MIB // 16))),
    }
    reps = 30
    stream = cp.cuda.get_current_stream()

    def memset():
        cp.cuda.runtime.memsetAsync(flush_ptr, 0, flush_n, stream.ptr)

    for name, fn in kernels.items():
        try:
            fn()
            b.sync()
            pt = {"kernel": name}
            for method in ("cold", "cold_gap"):
                pairs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
                spin((1,), (1,), (np.int64(2 * 1980 * 1000 * 4),))
                for a, z in pairs:
                    memset()
                    if method == "cold_gap":
                        spin((1,), (1,), (np.int64(40000),))
                    a.record()
                    fn()
                    z.record()
                pairs[-1][1].synchronize()
                t = [cp.cuda.get_elapsed_time(a, z) * 1e3 for a, z in pairs]
                pt[method] = {"median_us": statistics.median(t), "min_us": min(t), "max_us": max(t)}
            events = [cp.cuda.Event() for _ in range(reps + 1)]
            spin((1,), (1,), (np.int64(2 * 1980 * 1000 * 4),))
            events[0].record()
            for i in range(reps):
                fn()
                events[i + 1].record()
            events[-1].synchronize()
            t = [cp.cuda.get_elapsed_time(events[i], events[i + 1]) * 1e3 for i in range(reps)]
            pt["warm"] = {"median_us": statistics.median(t), "min_us": min(t), "max_us": max(t)}
            pt["micro_cold"] = b.events_us(fn, reps=15, flush=True)
            pt["micro_warm"] = b.events_us(fn, reps=15, flush=False)
            res.append(pt)
            print({k: (round(v["median_us"], 3) if isinstance(v, dict) else v) for k, v in pt.items()}, flush=True)
        except Exception:
            res.append({"kernel": name, "error": traceback.format_exc()[-400:]})


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="chase,gather,cold_state,first_access,harness")
    a = ap.parse_args(argv)
    import cupy as cp
    import numpy as np
    b = Bench(cp, np, a.cubin)
    rng = np.random.default_rng(0)
    props = cp.cuda.runtime.getDeviceProperties(0)
    results = {"date": datetime.date.today().isoformat(), "device": props["name"].decode(),
               "cupy": cp.__version__, "items": {}}

    def save():
        with open(a.out, "w") as f:
            json.dump(results, f, indent=1)

    for name, fn in (("chase", m_chase), ("gather", m_gather), ("cold_state", m_cold_state),
                     ("first_access", m_first_access), ("harness", m_harness)):
        if name not in a.only.split(","):
            continue
        res = results["items"].setdefault(name, [])
        try:
            fn(b, res, rng)
        except Exception:
            res.append({"error": traceback.format_exc()[-800:]})
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
