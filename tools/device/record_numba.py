#!/usr/bin/env python3
"""Record the Numba kernels of tests/frontdoor/numba_cases.py on a real GPU, through numba-cuda's
own launch (`cuda.jit(fn)[grid, block](*host arrays)`: Numba copies the arrays there and back).

    python3 tools/device/record_numba.py --out tests/goldens/frontdoor/numba.npz

Stores, per case, every argument after the launch (`<case>.arg<i>`), plus a `meta` JSON string:
GPU, driver, numba / numba-cuda / CUDA versions, date, and the PTX each kernel compiled to there
(`<case>.ptx`), so a difference can be traced to the compiler or to ptxvm.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names it; NumPy 2.5 removed it
    np.row_stack = np.vstack

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "frontdoor"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--case", action="append")
    a = ap.parse_args()
    import numba
    from numba import cuda

    import numba_cases as C

    out, status = {}, {}
    for case in C.CASES:
        if a.case and case.name not in a.case:
            continue
        args = C.inputs(case)
        try:
            k = cuda.jit(case.kernel(cuda))
            k[case.grid, case.block](*args)
            cuda.synchronize()
            for i, v in enumerate(args):
                out[f"{case.name}.arg{i}"] = np.asarray(v)
            sig = tuple(numba.typeof(v) for v in args)
            try:
                out[f"{case.name}.ptx"] = np.frombuffer(k.inspect_asm(sig).encode(), np.uint8)
            except Exception as e:  # noqa: BLE001
                status[case.name + ".ptx"] = repr(e)
            status[case.name] = "ok"
        except Exception as e:  # noqa: BLE001  (record what failed and go on)
            status[case.name] = f"failed: {e!r}"[:500]
        print(case.name, status[case.name], flush=True)

    from record import sh  # the conformance recorder's (tools/device/record.py, beside this file)

    import importlib.metadata as md

    meta = {
        "gpu": sh(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
        "numba": numba.__version__, "numba_cuda": md.version("numba-cuda"),
        "runtime": ".".join(map(str, cuda.runtime.get_version())) if hasattr(cuda, "runtime") else "",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "status": status,
        "recorder": "tools/device/record_numba.py",
    }
    out["meta"] = np.frombuffer(json.dumps(meta).encode(), np.uint8)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    np.savez_compressed(a.out, **out)
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
