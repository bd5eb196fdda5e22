#!/usr/bin/env python3
"""Launches every instruction-fetch case through ptxvm once: each body size of build.py, looped to
DYNAMIC instructions a warp (warm instruction caches where the body fits) and run once (every
instruction fetched once), with CTAs of 1, 4 and 16 warps, one CTA per SM of the H200. Timed with
tools/device/replay_launches.py:

    python tools/device/replay_launches.py capture OUT --per-kernel 6 benchmarks/timing/ifetch/cases.py [SIZE...]
    python3 tools/device/replay_launches.py time OUT results.json          (on the GPU)
    python tools/device/replay_launches.py compare OUT results.json
"""
import importlib.util
import os
import sys
import tempfile

import numpy as np

import ptxvm


def _sibling(name: str):
    """build.py beside this file, under a name of its own (benchmarks/timing/cas has a build.py too)."""
    spec = importlib.util.spec_from_file_location(f"ifetch_{name}", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                                 f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_build = _sibling("build")
SIZES, module_text = _build.SIZES, _build.module_text

DYNAMIC = 16384
SMS = 132


def cases(sizes=SIZES) -> list:
    return [(size, reps, threads) for size in sizes for reps in sorted({max(1, DYNAMIC // size), 1})
            for threads in (32, 128, 512)]


def reference(size: int, reps: int, gids: np.ndarray) -> np.ndarray:
    """What build.py's kernel stores, computed with NumPy (the chains of eight registers)."""
    r = [(gids + np.uint32((0x9E3779B9 * (c + 1)) & 0xFFFFFFFF)).astype(np.uint32) for c in range(8)]
    for _ in range(reps):
        for k in range(size):
            c = k % 8
            if (k // 8) % 2 == 0:
                r[c] = r[c] ^ r[(c + 1) % 8]
            else:
                r[c] = r[c] + r[(c + 3) % 8]
    out = np.zeros_like(gids)
    for c in range(8):
        out ^= r[c]
    return out


def main(sizes=SIZES) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ifetch.ptx")
        with open(path, "w") as f:
            f.write(module_text(sizes))
        module = ptxvm.load(path)
        for size, reps, threads in cases(sizes):
            out = np.zeros(SMS * threads, np.uint32)
            module[f"ifetch_{size}"].launch(SMS, threads, [out, np.uint32(reps)])
            if size * reps <= 4096:
                assert np.array_equal(out, reference(size, reps, np.arange(out.size, dtype=np.uint32))), (size, reps)


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
