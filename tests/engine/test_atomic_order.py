"""Colliding atomic adds: the engine applies them one at a time in lane order, each rounded on its
own, which is one of the outcomes the hardware may give; the H200's own results (recorded by
tools/device/probe_atomic_order.py) are checked to be such serialisations too
(docs/hardware-notes.md, "Colliding atomics")."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import ptxvm

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "device"))
import analyze_atomic_order as A  # noqa: E402
import probe_atomic_order as P  # noqa: E402

GPU = os.path.join(ROOT, "tests", "goldens", "atomics", "atomic_order.npz")
SUBSET = ("f32_global_ones_cta", "f32_global_mixed_1warp", "f32_shared_mixed_cta4", "f16x2_global_mixed_1warp",
          "bf16_shared_mixed_1warp", "f64_global_mixed_1warp", "f32_global_red_cta", "u32_shared_ones_cta")


def engine_npz(path, names=SUBSET):
    rng = np.random.default_rng(2026)
    saved = {}
    for name, t, space, returns, grid, block, nslot, kind, repeats in P.experiments():
        vals = P._values(t, grid * block, kind, rng)  # drawn for every experiment, as the probe does
        if name not in names:
            continue
        mod = ptxvm.loads(P.kernel_ptx("probe", t, space, returns))
        saved[f"{name}.vals"] = vals
        for r in range(repeats):
            old = np.zeros_like(vals)
            mem = P.initial(t, nslot * (grid if space == "shared" else 1))
            mod["probe"].launch(grid, block, [vals, old, mem, np.uint32(nslot)])
            if returns:
                saved[f"{name}.old{r}"] = old
            saved[f"{name}.mem{r}"] = mem
    np.savez(path, **saved)


def test_engine_serialises_in_lane_order(tmp_path):
    p = tmp_path / "engine.npz"
    engine_npz(p)
    rows = A.analyze(str(p))
    assert {r["experiment"] for r in rows} == set(SUBSET)
    assert sum("lane_order" in r for r in rows) >= 4
    for r in rows:
        if "serialisable" in r:  # the order is known where no two lanes saw the same value
            assert r["serialisable"] and r.get("lane_order", True), r
        else:
            assert r["final_equals_lane_order"], r


def test_chain_rejects_a_combined_update():
    add = A.adder("f32", "shared")
    vals = np.array([1.0, 0.5, 0.5], np.float32).view(np.uint32)
    olds = np.array([0, 0x3F800000, 0x3F800000], np.uint32)  # two lanes claim to have seen 1.0
    assert A.chain(0, olds, vals, add) is None
    olds = np.array([0x3F800000, 0, 0x3F000000], np.uint32)  # lane 1, lane 2, lane 0
    assert A.chain(0, olds, vals, add, final=0x40000000) == [1, 2, 0]
    tiny = np.array([1.0, 2.0 ** -24, 2.0 ** -24], np.float32).view(np.uint32)  # ties to even: 1.0 stays
    assert A.chain(0, np.array([0, 0x3F800000, 0x3F800000], np.uint32), tiny, add, final=0x3F800000) is not None


@pytest.mark.skipif(not os.path.exists(GPU), reason="no H200 atomics-order recording (tools/device/probe_atomic_order.py)")
def test_h200_results_are_serialisations_of_rounded_updates():
    """Every returning experiment is a chain of single rounded adds; within a warp the lanes go
    in ascending order (so single-warp collisions match the engine exactly), across warps they
    interleave."""
    rows = [r for r in A.analyze(GPU) if "serialisable" in r]
    assert len(rows) >= 30 and all(r["serialisable"] for r in rows), [r for r in rows if not r["serialisable"]][:3]
    ordered = [r for r in rows if "lane_order" in r]
    assert ordered and all(r["ascending_within_warp"] == 1.0 for r in ordered)
    assert all(r["lane_order"] for r in ordered if r["experiment"].endswith("_1warp"))
    assert any(r["warp_switches"] > 0 for r in ordered)
