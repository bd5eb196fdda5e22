#!/usr/bin/env python3
"""Time the timing kernel suite (benchmarks/timing/kernels/) on the GPU with CUDA events.

    python3 tools/device/timing_suite.py --out suite.json [--reps 25] [--only a,b]
    python3 tools/device/timing_suite.py --conventions --out measured.json [--reps 30] [--new-only]
    python3 tools/device/timing_suite.py --ncu-mode [--only a,b] [--new-only]   # one launch per case, for ncu

Every case is loaded from its cubin (benchmarks/timing/build.py --cubins; built off the GPU, so
the GPU only loads and times) or, without one, from its PTX. For every case: build its arguments
(seed 0), launch once on fresh data and keep a checksum of the outputs (and whether they match the
case's NumPy check, where it has one), then 3 warm-up launches and timings of `reps` launches
(min / median / max in microseconds). Without --conventions (the 2026-11-22 recording):
  us         queued: a spin kernel holds the GPU while all launches and the events between them
             are enqueued, so they run back to back and each interval is the kernel's GPU time;
  us_single  each launch between its own pair of events, synchronizing after each (includes the
             host's launch latency, ~5 us with CuPy, for kernels shorter than that).
With --conventions (issue 20; the conventions ptxvm.timing predicts):
  us         "cold", the default convention: L2 flushed before each launch by a memset of a
             256 MiB buffer (as triton.testing.do_bench does), then events around the one launch;
             a spin kernel first holds the GPU so everything is queued: no host gap in the interval;
  us_warm    "warm": back-to-back launches queued behind the spin kernel, events between them
             (the previous launch leaves its data in L2).
The JSON file is rewritten after every case; a failing case records its error.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import statistics
import sys
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def load_suite():
    path = os.path.join(ROOT, "benchmarks", "timing", "kernels", "suite.py")
    spec = importlib.util.spec_from_file_location("timing_suite_cases", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["timing_suite_cases"] = mod
    spec.loader.exec_module(mod)
    return mod


def checksum(np, a) -> dict:
    a = np.ascontiguousarray(a)
    out = {"sha256": hashlib.sha256(a.tobytes()).hexdigest()[:16], "dtype": str(a.dtype), "size": int(a.size)}
    if a.dtype.kind == "f":
        f = a.astype(np.float64)
        out["sum"] = float(np.nansum(f))
        out["abs_sum"] = float(np.nansum(np.abs(f)))
    else:
        out["sum"] = int(a.astype(np.int64).sum())
    return out


FLUSH_BYTES = 256 << 20  # > 4x the H200's L2 (60 MiB as the driver reports it)


class Runner:
    def __init__(self, cp, np, suite):
        self.cp, self.np, self.suite = cp, np, suite
        self.modules = {}
        self.mod = self.module_of(suite.CASES[0])  # suite.ptx: spin
        self.flush_buf = None

    def module_of(self, case):
        key = getattr(case, "module", "suite")
        if key not in self.modules:
            cubin = self.suite.cubin_path(case) if hasattr(self.suite, "cubin_path") else None
            path = cubin if cubin is not None and os.path.exists(cubin) else (
                self.suite.ptx_path(case) if hasattr(self.suite, "ptx_path") else self.suite.PTX_PATH)
            self.modules[key] = self.cp.RawModule(path=str(path))
        return self.modules[key]

    def prepare(self, case):
        cp, np = self.cp, self.np
        host = self.suite.materialize(case, 0)
        mod = self.module_of(case)
        if case.const:
            for name, arr in case.const().items():
                ptr = mod.get_global(name)
                dev = cp.ndarray(arr.shape, dtype=arr.dtype, memptr=ptr)
                dev.set(np.ascontiguousarray(arr))
        dev = [cp.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
        f = mod.get_function(case.kernel)
        if case.shared > 48 * 1024:
            try:
                f.max_dynamic_shared_size_bytes = case.shared
            except Exception:  # older CuPy: the driver call itself (8 = MAX_DYNAMIC_SHARED_SIZE_BYTES)
                cp.cuda.driver.funcSetAttribute(f.ptr, 8, case.shared)
        return host, dev, f

    def launch(self, case, f, dev):
        f(tuple(case.grid), tuple(case.block), tuple(dev), shared_mem=case.shared)

    def time_single(self, case, f, dev, reps):
        """Each launch between its own pair of events, synchronizing after each: includes the
        host's launch latency (a few us) for kernels shorter than it."""
        cp = self.cp
        times = []
        for _ in range(reps):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            self.launch(case, f, dev)
            b.record()
            b.synchronize()
            times.append(cp.cuda.get_elapsed_time(a, b) * 1e3)
        return {"min": min(times), "median": statistics.median(times), "max": max(times), "reps": reps}

    def time_queued(self, case, f, dev, reps):
        """A spin kernel first keeps the GPU busy while all `reps` launches and the events between
        them are enqueued, so they run back to back: each interval is one kernel's GPU time (plus
        the gap between two kernels, as a stream of launches sees it)."""
        cp, np = self.cp, self.np
        spin = self.mod.get_function("spin")
        events = [cp.cuda.Event() for _ in range(reps + 1)]
        spin((1,), (1,), (np.int64(2 * 1980 * 1000 * (1 + reps // 10)),))
        events[0].record()
        for i in range(reps):
            self.launch(case, f, dev)
            events[i + 1].record()
        events[-1].synchronize()
        times = [cp.cuda.get_elapsed_time(events[i], events[i + 1]) * 1e3 for i in range(reps)]
        return {"min": min(times), "median": statistics.median(times), "max": max(times), "reps": reps,
                "method": "queued behind a spin kernel, events between back-to-back launches"}

    def flush(self):
        """Evict the L2: write a buffer several times its size (on the stream, no host wait)."""
        if self.flush_buf is None:
            self.flush_buf = self.cp.empty(FLUSH_BYTES, dtype=self.np.uint8)
        self.cp.cuda.runtime.memsetAsync(self.flush_buf.data.ptr, 0, FLUSH_BYTES,
                                         self.cp.cuda.get_current_stream().ptr)

    def time_cold(self, case, f, dev, reps):
        """The default convention: L2 flushed, then events around one launch; all queued behind a
        spin kernel so the host's submission never shows in an interval."""
        times = time_launches(self.cp, self.np, self.mod.get_function("spin"), lambda: self.launch(case, f, dev),
                              reps, before=self.flush)
        return {"min": min(times), "median": statistics.median(times), "max": max(times), "reps": reps,
                "method": "L2 flushed (256 MiB memset) before each launch; events around it; queued behind a spin kernel"}

    def run_conventions(self, case, reps):
        cp, np = self.cp, self.np
        host, dev, f = self.prepare(case)
        self.launch(case, f, dev)
        cp.cuda.runtime.deviceSynchronize()
        res = {"kernel": case.kernel, "module": getattr(case, "module", "suite"), "family": getattr(case, "family", ""),
               "grid": list(case.grid), "block": list(case.block), "shared": case.shared, "outputs": {}}
        for i in case.outputs:
            res["outputs"][str(i)] = checksum(np, cp.asnumpy(dev[i]))
        for _ in range(3):
            self.launch(case, f, dev)
        cp.cuda.runtime.deviceSynchronize()
        res["us"] = self.time_cold(case, f, dev, reps)
        res["us_warm"] = self.time_queued(case, f, dev, reps)
        del dev
        cp.get_default_memory_pool().free_all_blocks()
        return res

    def run_case(self, case, reps):
        cp, np = self.cp, self.np
        host, dev, f = self.prepare(case)
        self.launch(case, f, dev)
        cp.cuda.runtime.deviceSynchronize()
        res = {"kernel": case.kernel, "grid": list(case.grid), "block": list(case.block), "shared": case.shared,
               "outputs": {}}
        expect = case.check(host) if case.check else {}
        for i in case.outputs:
            got = cp.asnumpy(dev[i])
            res["outputs"][str(i)] = checksum(np, got)
            if i in expect:
                e = np.asarray(expect[i])
                ok = got.shape == e.shape and (np.array_equal(got, e) if got.dtype.kind != "f"
                                               else bool(np.allclose(got, e, rtol=1e-4, atol=1e-4)))
                res["outputs"][str(i)]["matches_check"] = bool(ok)
        for _ in range(3):
            self.launch(case, f, dev)
        cp.cuda.runtime.deviceSynchronize()
        res["us_single"] = self.time_single(case, f, dev, reps)
        res["us"] = self.time_queued(case, f, dev, reps)
        del dev
        cp.get_default_memory_pool().free_all_blocks()
        return res


def time_launches(cp, np, spin, launch, reps: int, before=None) -> list:
    """Microseconds of `reps` launches, each between its own pair of events, all queued behind a
    spin kernel (the host's submission never shows in an interval); `before()` is queued ahead
    of each pair (the L2 flush of the cold convention; tools/device/replay_launches.py also puts
    the arguments back)."""
    pairs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
    spin((1,), (1,), (np.int64(2 * 1980 * 1000 * (1 + reps // 10)),))
    for a, b in pairs:
        if before is not None:
            before()
        a.record()
        launch()
        b.record()
    pairs[-1][1].synchronize()
    return [cp.cuda.get_elapsed_time(a, b) * 1e3 for a, b in pairs]


def clock_info(cp) -> dict:
    """The SM clock the GPU reports (kHz -> MHz); clocks are not locked: as the H200 runs them."""
    try:
        props = cp.cuda.runtime.getDeviceProperties(0)
        return {"clock_rate_mhz": props.get("clockRate", 0) / 1e3, "sms": props.get("multiProcessorCount"),
                "l2_bytes": props.get("l2CacheSize")}
    except Exception as e:  # informative only
        return {"error": str(e)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--reps", type=int, default=25)
    ap.add_argument("--only", default="")
    ap.add_argument("--ncu-mode", action="store_true", help="launch each case once (under ncu)")
    ap.add_argument("--conventions", action="store_true", help="time cold (L2 flushed) and warm (issue 20)")
    ap.add_argument("--new-only", action="store_true", help="skip the 36 cases of suite.ptx except the empty kernel")
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    suite = load_suite()
    only = [s for s in args.only.split(",") if s]
    cases = [c for c in suite.CASES if not only or c.name in only]
    if args.new_only:
        cases = [c for c in cases if getattr(c, "module", "suite") != "suite" or c.kernel == "empty_kernel"]
    r = Runner(cp, np, suite)
    if args.ncu_mode:
        for c in cases:
            try:
                host, dev, f = r.prepare(c)
                r.launch(c, f, dev)
                cp.cuda.runtime.deviceSynchronize()
                print(f"ncu-mode {c.name}: launched", flush=True)
                del dev
                cp.get_default_memory_pool().free_all_blocks()
            except Exception:
                print(f"ncu-mode {c.name}: FAILED\n{traceback.format_exc()[-600:]}", flush=True)
        return 0

    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "cupy": cp.__version__,
               "ptx_sha256": hashlib.sha256(open(suite.PTX_PATH, "rb").read()).hexdigest()[:16], "cases": {}}
    if args.conventions:
        results["conventions"] = {"us": "cold: L2 flushed before the launch (default)", "us_warm": "warm: back to back"}
        results["clock"] = clock_info(cp)

    def save():
        tmp = args.out + ".tmp"
        with open(tmp, "w") as fh:
            json.dump(results, fh, indent=1)
        os.replace(tmp, args.out)

    for c in cases:
        t0 = time.time()
        try:
            results["cases"][c.name] = (r.run_conventions if args.conventions else r.run_case)(c, args.reps)
        except Exception:
            results["cases"][c.name] = {"error": traceback.format_exc()[-1500:]}
        results["cases"][c.name]["wall_s"] = round(time.time() - t0, 2)
        us = results["cases"][c.name].get("us", {}).get("median")
        print(f"{c.name}: {us} us ({time.time() - t0:.1f} s)", flush=True)
        save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
