#!/usr/bin/env python3
"""Run two of tests/engine/ptx_gaps' kernels on the GPU (CuPy; the driver JIT-compiles the PTX) and
print what they store, for docs/hardware-notes.md:

- test_address_wrap32: `[%r+k]` with a 32-bit register whose value has wrapped below zero
  (depot - 12 + 16, sh - 2044 + 2056): the test expects [41, 43];
- test_scoped_labels: two `{ }` blocks that both define LAB_WAIT and DONE, a nested block branching
  outward, and a label of the function body shadowed by a block's: the test expects 3103.

    python3 tools/device/probe_wrap_and_labels.py
"""
import os
import sys

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "engine", "ptx_gaps"))
sys.path.insert(0, ROOT)


def _module(cp, ptx):
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "k.ptx")
    with open(path, "w") as f:
        f.write(ptx)
    return cp.RawModule(path=path)


def main():
    import cupy as cp

    import test_address_wrap32 as W
    import test_scoped_labels as L

    out = cp.zeros(2, np.uint32)
    _module(cp, W.PTX).get_function("k")((1,), (1,), (out, np.uint32(12), np.uint32(2044)))
    print("address_wrap32:", cp.asnumpy(out).tolist(), "(ptxvm: [41, 43])", flush=True)
    out = cp.zeros(1, np.uint32)
    _module(cp, L.PTX).get_function("k")((1,), (1,), (out,))
    print("scoped_labels:", cp.asnumpy(out).tolist(), "(ptxvm: [3103])", flush=True)
    print(cp.cuda.runtime.getDeviceProperties(0)["name"], "driver", cp.cuda.runtime.driverGetVersion())


if __name__ == "__main__":
    main()
