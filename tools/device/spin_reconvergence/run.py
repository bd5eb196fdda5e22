#!/usr/bin/env python3
"""Does a warp regroup after a spin loop its lanes leave at different times? spin.cu: warp 0's lane j
sets flag[j] after a delay; warp 1's lane j spins until flag[j] is set, then the warp reduces in
shared memory with no __syncwarp (as HeCBench's sptrsv does). 496 means the lanes that left the
loop first waited for the others before the reduction; less means they ran ahead.

    python3 tools/device/spin_reconvergence/run.py           # on the GPU (CuPy), or
    python3 tools/device/spin_reconvergence/run.py --ptxvm   # on ptxvm
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PTX = os.path.join(HERE, "spin.ptx")  # nvcc 13.0 -arch=sm_90 -ptx -O3 spin.cu
DELAYS = {"increasing": np.arange(32) * 3, "decreasing": (31 - np.arange(32)) * 3, "none": np.zeros(32),
          "one late": np.where(np.arange(32) == 5, 200, 0), "increasing x20": np.arange(32) * 60}


def main():
    on_ptxvm = "--ptxvm" in sys.argv
    for name, delay in DELAYS.items():
        got = []
        for _ in range(5):
            flag = np.zeros(64, np.int32)
            out = np.zeros(1, np.int32)
            d = delay.astype(np.int32)
            if on_ptxvm:
                sys.path.insert(0, os.path.join(HERE, "..", "..", ".."))
                import ptxvm

                ptxvm.load(PTX).kernel("_Z1kPiPKiS_")[1, 64](flag, d, out)
                got.append(int(out[0]))
            else:
                import cupy as cp

                f, dd, o = cp.asarray(flag), cp.asarray(d), cp.asarray(out)
                cp.RawModule(path=PTX).get_function("_Z1kPiPKiS_")((1,), (64,), (f, dd, o))
                got.append(int(cp.asnumpy(o)[0]))
        print(f"{name:15s} {got}", flush=True)


if __name__ == "__main__":
    main()
