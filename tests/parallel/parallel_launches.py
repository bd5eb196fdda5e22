"""Launches several tests of tests/parallel share (imported by name: pytest puts this folder on the path)."""
import pathlib

import numpy as np

import ptxvm

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


def vadd(workers, n=1 << 14, mod=None):
    """c = a + b over n elements (c starts at 7), on `workers`; returns (c, LaunchStats)."""
    a = np.arange(n, dtype=np.float32)
    b = np.full(n, 0.25, np.float32)
    c = np.full(n, 7, np.float32)
    st = (mod or ptxvm.load(KERNELS))["vadd"].launch(n // 128, 128, [a, b, c, n], workers=workers)
    return c, st
