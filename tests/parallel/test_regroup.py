"""Cache-sized waves (Launch.regroup): a launch whose CTAs may be grouped freely runs in waves of
at most CACHE_WAVE_THREADS threads, with the bytes of the GPU-sized waves; a kernel with
cross-CTA ordering, or a launch a tool or limit watches, keeps the GPU's residency."""
from __future__ import annotations

import pathlib

import numpy as np

import ptxvm
from ptxvm.engine import launch as launch_mod
from ptxvm.engine.launch import Launch
from ptxvm.parallel.analysis import may_regroup

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


def _waves(kernel, grid, block, args):
    calls = []
    kernel.launch(grid, block, args, workers=1, progress=calls.append)
    return calls


def test_regrouped_waves_give_the_gpu_sized_waves_bytes(monkeypatch):
    k = ptxvm.load(KERNELS)["vadd"]
    n = 600 * 256 - 7
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    regrouped = np.zeros(n, np.float32)
    waves = _waves(k, 600, 256, [a, b, regrouped, n])
    per_wave = launch_mod.CACHE_WAVE_THREADS // 256
    assert waves == list(range(per_wave, 600, per_wave)) + [600]
    monkeypatch.setenv("PTXVM_REGROUP", "0")
    gpu = np.zeros(n, np.float32)
    assert _waves(k, 600, 256, [a, b, gpu, n]) == [600]  # 600 CTAs of 256: one wave on 132 SMs
    assert regrouped.tobytes() == gpu.tobytes() == (a + b).tobytes()


def test_cross_cta_ordering_keeps_the_gpu_residency():
    k = ptxvm.load(KERNELS)["flag"]  # ld.acquire polling a flag another CTA sets
    out = np.zeros(600, np.uint32)
    assert _waves(k, 600, 256, [np.zeros(1, np.uint32), out]) == [600]
    assert (out == 42).all()


def test_an_instruction_limit_or_a_tool_keeps_the_gpu_waves():
    k = ptxvm.load(KERNELS)["vadd"]
    from ptxvm.engine.core.hooks import LaunchHooks

    a = np.zeros(4, np.float32)
    launches = [Launch(k, 1, 4, [a, a, a, 4]), Launch(k, 1, 4, [a, a, a, 4], max_instructions=10 ** 6),
                Launch(k, 1, 4, [a, a, a, 4], hooks=LaunchHooks())]
    assert [may_regroup(x) for x in launches] == [True, False, False]
    for x in launches:
        x._discard()  # the argument copies
