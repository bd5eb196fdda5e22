#!/usr/bin/env python3
"""Launches every case of cas.ptx through ptxvm once: 4 types x 3 modes x CTAs of 1 and 8 warps,
64 adds per thread, one CTA. Timed on the H200 with tools/device/replay_launches.py:

    python tools/device/replay_launches.py capture OUT benchmarks/timing/cas/cases.py
    python3 tools/device/replay_launches.py time OUT results.json          (on the GPU)
    python tools/device/replay_launches.py compare OUT results.json
"""
import os

import numpy as np

import ptxvm

HERE = os.path.dirname(os.path.abspath(__file__))
ITERS = 64
CASES = [(ty, mode, threads) for ty in ("u32", "u64", "f32", "f64") for mode in (0, 1, 2) for threads in (32, 256)]


def main() -> None:
    module = ptxvm.load(os.path.join(HERE, "cas.ptx"))
    for ty, mode, threads in CASES:
        out = np.zeros(1, np.uint64)
        module[f"cas_{ty}"].launch(1, threads, [out, np.uint32(ITERS), np.uint32(mode)])
        word = out.view({"u32": np.uint32, "u64": np.uint64, "f32": np.float32, "f64": np.float64}[ty])[0]
        expect = ITERS * {0: threads, 1: threads // 32, 2: 1}[mode]
        assert word == expect, (ty, mode, threads, word, expect)


if __name__ == "__main__":
    main()
