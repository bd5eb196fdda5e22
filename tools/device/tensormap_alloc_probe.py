#!/usr/bin/env python3
"""The H200's tensormap.replace .alloc_large/.alloc_small/.alloc_same and tensormap.query
.alloc_class_large (PTX ISA 9.5), on ten 128-byte maps (tests/engine/ptx/tensormap_alloc_class.ptx).

    here:    python3 tools/device/tensormap_alloc_probe.py --build DIR     (ptxas 13.5 -> DIR/tm.cubin, DIR/base.npy)
    device:  python3 tools/device/tensormap_alloc_probe.py --run DIR [--ones]   (writes $OUT/tensormap_alloc_class[_ones].npz)

The maps start as copies of one ptxvm.tensor_map (the driver's layout) with map 5 all ones and map 9
all zeros (or, with --ones, every map all ones); the npz holds before, after and the ten query
predicates. The driver (CUDA 13.0) cannot JIT PTX 9.5: the cubin comes from ptxas 13.5 here.
Recorded 2026-11-28 on the H200 (driver 580.159.04) from a cubin of ptxas 13.5 (V13.5.37).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PTX = os.path.join(ROOT, "tests", "engine", "ptx", "tensormap_alloc_class.ptx")
NEW_ADDRESS = 0x7F1234567800


def build(out: str) -> None:
    import numpy as np
    sys.path.insert(0, ROOT)
    import ptxvm
    from ptxvm.conformance.ptxas import find
    os.makedirs(out, exist_ok=True)
    subprocess.run([find(), "-arch=sm_90a", PTX, "-o", os.path.join(out, "tm.cubin")], check=True)
    base = np.frombuffer(bytes(ptxvm.tensor_map(np.zeros((64, 64), np.float32), (16, 16))), np.uint8)
    np.save(os.path.join(out, "base.npy"), base)


def initial_maps(base, ones: bool):
    import numpy as np
    maps = np.tile(base, 10).copy()
    if ones:
        maps[:] = 0xFF
    else:
        maps[5 * 128:6 * 128] = 0xFF
        maps[9 * 128:10 * 128] = 0
    return maps


def run(d: str, ones: bool) -> None:
    import cupy as cp
    import numpy as np
    maps = initial_maps(np.load(os.path.join(d, "base.npy")), ones)
    mod = cp.cuda.function.Module()
    mod.load(open(os.path.join(d, "tm.cubin"), "rb").read())
    dm, dp = cp.asarray(maps), cp.zeros(10, cp.uint32)
    mod.get_function("k")((1, 1, 1), (1, 1, 1), (dm, dp, np.uint64(NEW_ADDRESS)))
    cp.cuda.runtime.deviceSynchronize()
    name = "tensormap_alloc_class_ones.npz" if ones else "tensormap_alloc_class.npz"
    np.savez(os.path.join(os.environ.get("OUT", "."), name), before=maps, after=cp.asnumpy(dm), preds=cp.asnumpy(dp))


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build")
    ap.add_argument("--run")
    ap.add_argument("--ones", action="store_true")
    a = ap.parse_args()
    if a.build:
        build(a.build)
    if a.run:
        run(a.run, a.ones)
