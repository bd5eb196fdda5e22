"""Memory-model litmus tests (litmus.py) on the CPU engine: every test terminates (spinning CTAs
included) and every outcome is one the PTX model allows. The engine's interleavings are
sequentially consistent, so the relaxed outcomes the H200 shows (docs/hardware-notes.md, "Memory
model litmus tests") never appear here; that is a legal subset."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import litmus as L
import ptxvm

HERE = os.path.dirname(os.path.abspath(__file__))
GPU = os.path.join(HERE, "..", "goldens", "memory_model", "litmus_h200.json")


def run(t, groups=2, block=64):
    grid, blk, n = L.launch_shape(t, groups, block)
    words = n * L.LINE // 4
    x, y, z = (np.zeros(words, np.uint32) for _ in range(3))
    out = np.zeros(n * 4, np.uint32)
    ptxvm.loads(L.kernel_ptx(t), f"{t.name}.ptx")["litmus"].launch(grid, blk, [x, y, z, out, np.uint32(n)],
                                                                   max_instructions=10**7)
    return L.histogram(out, n, t.slots), n


@pytest.mark.parametrize("t", L.tests(), ids=lambda t: t.name)
def test_outcomes_are_allowed(t):
    hist, n = run(t)
    assert sum(hist.values()) == n
    bad = {k: c for k, c in hist.items() if not t.allowed(k)}
    assert not bad, f"{t.name}: forbidden outcomes {bad} ({t.forbidden})"


def test_a_forbidden_outcome_is_caught():
    t = L.by_name()["MP.rel_acq.gpu"]
    assert not t.allowed((1, 0)) and t.allowed((1, 1)) and t.allowed((0, 0)) and t.allowed((0, 1))
    assert not L.by_name()["SB.fence_sc.gpu"].allowed((0, 0))
    assert not L.by_name()["IRIW.fence_sc"].allowed((1, 0, 1, 0))


def test_spinning_reader_before_its_writer_terminates():
    """The spinning role has the lower CTA ids: the engine must run the writer CTAs meanwhile."""
    hist, n = run(L.by_name()["spin.rel_acq.gpu.reader_first"], groups=3, block=32)
    assert hist == {(42,): n}


def test_instances_use_distinct_threads_and_lines():
    t = L.by_name()["IRIW.relaxed"]
    grid, block, n = L.launch_shape(t, 2, 64)
    assert (grid, block, n) == (8, 64, 128)
    grid, block, n = L.launch_shape(L.by_name()["CoRR.cta_scope_same_cta"], 2, 256)
    assert (grid, block, n) == (2, 256, 256)


def test_proxy_fenced_bulk_copies():
    mod = ptxvm.loads(L.PROXY, "proxy.ptx")
    out = np.zeros(3 * 256, np.uint32)
    mod["proxy_bulk_store"].launch(3, 256, [out, np.uint32(1)])
    assert np.array_equal(out, L.proxy_store_expect(3))
    src = np.arange(3 * 256, dtype=np.uint32) * 3 + 1
    out = np.zeros_like(src)
    mod["proxy_bulk_load"].launch(3, 256, [src, out])
    assert np.array_equal(out, src)


@pytest.mark.skipif(not os.path.exists(GPU), reason="no H200 litmus histograms recorded (tools/device/run_litmus.py)")
def test_h200_histograms_respect_the_model():
    """What the H200 showed: no forbidden outcome for any test the model constrains, and the proxy-
    fenced bulk copies saw every generic store."""
    rec = json.load(open(GPU))
    names = {t.name for t in L.tests()}
    for r in rec["tests"]:
        assert r["test"] in names and "error" not in r, r
        assert not r["forbidden_seen"], (r["test"], r["forbidden_seen"])
    proxy = {p["test"]: p for p in rec["proxy"]}
    assert proxy["proxy_bulk_store.fence=1"]["stale_words"] == 0
    assert proxy["proxy_bulk_load"]["stale_words"] == 0
