"""Assertions for tests of kernels: the same launch on two devices, compared bit for bit.

    ptxvm.testing.assert_same("k.ptx", grid=4, block=256, args=[x, y], kernel="saxpy")

runs the launch on the CPU engine and on the GPU (`ptxvm.compare`) and fails with the compare report
(which arrays differ, where, by how many ulps) unless every array is bitwise identical; where there
is no GPU the test is skipped with the reason, so the same test passes in CPU-only CI.
"""
from __future__ import annotations

from typing import Sequence

__all__ = ["assert_same"]


def assert_same(target, grid, block, args, *, kernel=None, shared_mem: int = 0, cluster=None,
                devices: Sequence = ("cpu", "cuda"), symbols=None):
    """Launch on each of `devices` and assert bitwise-identical results; returns the CompareReport."""
    from .backends.compare import compare

    if "cuda" in devices:
        from .backends.cuda import gpu_available

        reason = gpu_available()
        if reason is not None:
            import pytest

            pytest.skip(f"assert_same needs a GPU: {reason}")
    report = compare(target, grid, block, args, kernel=kernel, shared_mem=shared_mem, cluster=cluster,
                     devices=devices, symbols=symbols)
    if not report.ok:
        raise AssertionError(str(report))
    return report
