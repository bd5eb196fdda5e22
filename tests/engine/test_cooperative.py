"""Cooperative launches (launch(..., cooperative=True), cudaLaunchCooperativeKernel): cooperative
groups' grid.sync() as nvcc 13.0 compiles it (tests/engine/ptx/coop_grid_sync.cu -> .ptx) reads the
grid workspace's address from %envreg1:%envreg2, counts CTAs in with atom.add.release.gpu and
spins on ld.acquire.gpu; without a cooperative launch the address is 0 and it traps, as on the GPU."""
import pathlib

import numpy as np
import pytest

import ptxvm

PTX = pathlib.Path(__file__).parent / "ptx" / "coop_grid_sync.ptx"


@pytest.fixture(scope="module")
def mod():
    return ptxvm.load(str(PTX))


def test_grid_sync_orders_the_whole_grid(mod):
    x, out = np.arange(512, dtype=np.int32), np.zeros(512, np.int32)
    stats = mod["two_phase"].launch(4, 128, [x, out], cooperative=True)
    assert np.array_equal(out, np.roll(np.arange(512, dtype=np.int32) * 2, -1))
    assert stats.waves == 1


def test_repeated_grid_syncs(mod):
    """Six barriers in a loop over 8 CTAs: each round reads values the round before wrote."""
    x = np.random.default_rng(0).integers(-100, 100, 8 * 64).astype(np.int32)
    want = x.copy()
    for _ in range(3):
        want = want + np.roll(want, -1)
    mod["rounds"].launch(8, 64, [x, np.int32(3)], cooperative=True)
    assert np.array_equal(x, want)


def test_without_a_cooperative_launch_grid_sync_traps(mod):
    x, out = np.arange(512, dtype=np.int32), np.zeros(512, np.int32)
    with pytest.raises(ptxvm.KernelFault, match="trap"):
        mod["two_phase"].launch(4, 128, [x, out])
    assert not out.any() and np.array_equal(x, np.arange(512))


def test_a_grid_too_large_to_be_resident_is_refused(mod):
    with pytest.raises(ptxvm.LaunchError, match="cooperative launch of 5000 CTAs.*cudaErrorCooperativeLaunchTooLarge"):
        mod["two_phase"].launch(5000, 128, [np.zeros(5000 * 128, np.int32)] * 2, cooperative=True)


def test_sanitizer_and_tracer_take_a_cooperative_launch(mod):
    """The tools run the launch the engine runs: racecheck finds no hazard in the grid barrier's
    shared-memory use, and the trace has the spin of every CTA's thread 0."""
    x, out = np.arange(512, dtype=np.int32), np.zeros(512, np.int32)
    report = mod["two_phase"].sanitize(4, 128, [x, out], tool="racecheck", cooperative=True)
    assert "0 errors" in str(report) or "0 hazards" in str(report)
    assert np.array_equal(out, np.roll(np.arange(512, dtype=np.int32) * 2, -1))
    tr = mod["two_phase"].trace(4, 128, [np.arange(512, dtype=np.int32), np.zeros(512, np.int32)],
                                opcodes=["atom"], cooperative=True)
    assert tr.fault is None and len(tr) == 4  # one atom.add.release.gpu per CTA (its thread 0's warp)


def test_the_timing_model_profiles_a_cooperative_launch(mod):
    """Kernel.profile(..., cooperative=True) runs it as launch does (outputs complete) and predicts
    a time; a sampled profile, or a launch of some CTAs only, would leave grid.sync waiting for
    CTAs that never run, so both are refused."""
    x, out = np.arange(512, dtype=np.int32), np.zeros(512, np.int32)
    p = mod["two_phase"].profile(4, 128, [x, out], cooperative=True)
    assert p.seconds > 0 and np.array_equal(out, np.roll(np.arange(512, dtype=np.int32) * 2, -1))
    with pytest.raises(ValueError, match="functional='all'"):
        mod["two_phase"].profile(4, 128, [x, out], cooperative=True, functional="sampled")
    with pytest.raises(ptxvm.LaunchError, match="runs the whole grid"):
        mod["two_phase"].launch(4, 128, [x, out], cooperative=True, only_ctas=[0])


def test_the_debugger_runs_a_cooperative_launch(mod):
    from ptxvm.tools.debugger import Debugger

    x, out = np.arange(512, dtype=np.int32), np.zeros(512, np.int32)
    with Debugger(mod["two_phase"], 4, 128, [x, out], cooperative=True) as d:
        assert d.run().reason == "exited"
    assert np.array_equal(out, np.roll(np.arange(512, dtype=np.int32) * 2, -1))
    with Debugger(mod["two_phase"], 4, 128, [np.arange(512, dtype=np.int32), np.zeros(512, np.int32)]) as d:
        stop = d.run()
        assert stop.reason == "fault" and "trap" in stop.fault.reason
