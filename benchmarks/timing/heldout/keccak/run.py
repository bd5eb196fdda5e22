#!/usr/bin/env python3
"""Keccak-f[1600] with its 24 rounds unrolled (keccak.cu, PTX from nvcc 13.0 -arch=sm_90): a
held-out check of the timing model's instruction fetch, written after the mechanism was pinned
and never fitted on. keccak_iter runs one permutation a trip (ptxas: 76 KB of code), keccak_iter2
two (150 KB); 132 CTAs of 1, 4 or 8 warps, 1 or 4 trips.

    python tools/device/replay_launches.py capture OUT --per-kernel 6 --max-mib 32 benchmarks/timing/heldout/keccak/run.py
    python3 tools/device/replay_launches.py time OUT results.json          (on the GPU)
    python tools/device/replay_launches.py compare OUT results.json

Measured: benchmarks/timing/results/keccak_h200.json (docs/timing-model.md, "Instruction fetch").
"""
import os

import numpy as np

import ptxvm

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> None:
    module = ptxvm.load(os.path.join(HERE, "keccak.ptx"))
    for name in ("keccak_iter", "keccak_iter2"):
        for threads in (32, 128, 256):
            for iters in (1, 4):
                n = 132 * threads
                state = np.arange(n * 25, dtype=np.uint64)  # the time does not depend on the data
                out = np.zeros_like(state)
                module[name].launch(132, threads, [state, out, np.int32(iters)])


if __name__ == "__main__":
    main()
