#!/usr/bin/env python3
"""Run the hand-written asynchronous-copy / mbarrier / cluster kernels of tests/engine/async_cases.py
on a real GPU and say whether each output matches what the tests state (the ISA's results).

    python3 tools/device/probe_async.py [--out FILE.npz] [NAME ...]

Every output array (and every input array, read back: some are accumulators) is saved to the
.npz as `<probe>.arg<i>`; one JSON line per probe reports the comparison with `expect()` and the
values the ISA leaves open (`engine_only`), so the engine's choices can be compared with the
hardware's. Needs CuPy and the CUDA driver; launches through cuLaunchKernelEx (cluster shapes).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "engine"))

import async_cases as A  # noqa: E402
from record_kernels import launch_ex  # noqa: E402


def _dim3(v):
    if isinstance(v, int):
        return (v, 1, 1)
    v = tuple(int(x) for x in v)
    return v + (1,) * (3 - len(v))


def run_probe(p, saved: dict) -> dict:
    import numpy as np
    import cupy as cp

    report = {"probe": p.name}
    mod = cp.cuda.function.Module()
    mod.load(p.ptx.encode())
    fn = mod.get_function(p.kernel)
    host = p.host_args()
    inputs = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in host]
    keep, ptrs, dev = [], [], {}
    for i, a in enumerate(host):
        if isinstance(a, np.ndarray):
            d = cp.asarray(a)
            dev[i] = d
            buf = ctypes.c_uint64(d.data.ptr)
        else:
            raw = np.asarray(a).tobytes()
            buf = ctypes.create_string_buffer(raw, len(raw))
        keep.append(buf)
        ptrs.append(ctypes.cast(ctypes.byref(buf), ctypes.c_void_p).value)
    params = (ctypes.c_void_p * max(1, len(ptrs)))(*ptrs)
    grid, block = _dim3(p.grid), _dim3(p.block)
    if p.cluster:
        launch_ex(fn.ptr, grid, block, 0, _dim3(p.cluster), params)
    else:  # a cluster attribute would conflict with the kernel's own .reqnctapercluster
        cp.cuda.driver.launchKernel(fn.ptr, *grid, *block, 0, 0, ctypes.addressof(params), 0)
    cp.cuda.runtime.deviceSynchronize()
    outs = {i: cp.asnumpy(d) for i, d in dev.items()}
    for i, o in outs.items():
        saved[f"{p.name}.arg{i}"] = o
    expect = p.expect(inputs)
    checks = {}
    for i, e in expect.items():
        e = np.asarray(e).reshape(-1)
        got = outs[i].reshape(-1)[: e.size]
        checks[i] = bool(np.array_equal(got.view(np.uint8), e.view(np.uint8)))
        if not checks[i]:
            rows_g = got.view(np.uint8).reshape(e.size, -1)
            rows_e = e.view(np.uint8).reshape(e.size, -1)
            diff = np.flatnonzero((rows_g != rows_e).any(axis=1))
            j = int(diff[0])
            report[f"arg{i}_first_diff"] = {"index": j, "gpu": got[j].item(), "stated": e[j].item(), "count": int(diff.size)}
    report["matches"] = checks
    if p.name == "mbarrier_bulk_phases":
        report["pending_count_and_test_wait"] = outs[2][64:68].tolist()
        report["engine_says"] = list(p.engine_only.get("pending_counts", ()))
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="probes.npz")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args(argv)
    import numpy as np

    saved: dict = {}
    for p in A.ALL:
        if a.names and p.name not in a.names:
            continue
        try:
            r = run_probe(p, saved)
        except Exception as e:  # noqa: BLE001 - report and go on with the next probe
            r = {"probe": p.name, "error": f"{type(e).__name__}: {e}"[:1500], "traceback": traceback.format_exc()[-1500:]}
        print(json.dumps(r), flush=True)
    np.savez_compressed(a.out, **saved)
    return 0


if __name__ == "__main__":
    sys.exit(main())
