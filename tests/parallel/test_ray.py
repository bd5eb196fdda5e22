"""The Ray executor and sweeps on a local Ray instance (one per test session: starting Ray takes
seconds). Skipped, with the reason shown, where ray is not installed (pip install 'ptxvm[ray]')."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

import ptxvm
from ptxvm.errors import DataRaceWarning

ray = pytest.importorskip("ray", reason="ray is not installed (pip install 'ptxvm[ray]'): the Ray executor is untested")

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


@pytest.fixture(scope="session")
def ray_session():
    import ptxvm.ray

    started = not ray.is_initialized()
    ptxvm.ray.init(num_cpus=2)
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture(scope="module")
def mod():
    return ptxvm.load(KERNELS)


def test_launch_on_ray_is_the_single_process_one(ray_session, mod):
    n = 4096
    data = np.random.default_rng(3).integers(0, 1 << 31, n).astype(np.uint32)

    def args():
        stats = np.zeros(10, np.uint32)
        stats[2:4] = 0xFFFFFFFF
        stats[5] = 0xFFFFFFFF
        return [data, np.zeros(64, np.uint32), stats, n]

    one, many = args(), args()
    mod["atomics"].launch(n // 128, 128, one, workers=1)
    st = mod["atomics"].launch(n // 128, 128, many, executor="ray", workers=3)
    assert st.workers == 3 and st.serial_reason == ""
    for x, y in zip(one[1:3], many[1:3]):
        assert np.array_equal(x, y)
    # a module variable and a race go the same way
    with pytest.warns(DataRaceWarning, match="kernel 'racy'"):
        out = np.zeros(257, np.uint32)
        st = mod["racy"].launch(8, 32, [out], executor="ray", workers=2)
    ref = np.zeros(257, np.uint32)
    mod["racy"].launch(8, 32, [ref], workers=1)
    assert np.array_equal(out, ref)


def test_module_variables_travel_to_ray(ray_session):
    m = ptxvm.load(KERNELS)  # its own variables
    m.write_symbol("step", np.array([5], np.uint32))
    m.write_symbol("total", np.array([1000], np.uint32))
    out = np.zeros(256, np.uint32)
    st = m["modvars"].launch(8, 32, [out], executor="ray", workers=2)
    assert st.workers == 2
    assert (out == 5).all() and m.read_symbol("total", np.uint32)[0] == 1000 + 5 * 256


def test_map_launches_on_ray(ray_session):
    path = str(KERNELS)

    def vadd_case(n):  # defined here, so that Ray ships it by value (tests are not importable there)
        m = ptxvm.load(path)
        a = np.arange(n, dtype=np.float32)
        c = np.zeros(n, np.float32)
        m["vadd"].launch(-(-n // 64), 64, [a, a, c, n])
        return float(c.sum())

    sizes = [64, 100, 1000]
    assert ptxvm.map_launches(vadd_case, sizes, executor="ray") == [vadd_case(n) for n in sizes]


def test_conformance_check_on_ray(ray_session):
    from ptxvm.conformance import check as C
    from ptxvm.conformance import golden as G

    if "compare" not in G.families_present(G.default_dir()):
        pytest.skip("no conformance goldens in this checkout")
    serial = C.check(tier="ci", families=["compare", "atomic"])
    remote = C.check(tier="ci", families=["compare", "atomic"], executor="ray")
    assert [(r.id, r.status) for r in serial] == [(r.id, r.status) for r in remote]


def test_timing_tools_on_ray_print_the_serial_output(ray_session):
    """tools/timing_accuracy.py and tools/timing_tune.py with --executor ray (tasks and actors
    that load the tools from their paths) print what their serial runs print, wall times aside."""
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    import test_sweep_tools as t
    import timing_accuracy
    import timing_tune

    # the serial reference runs in a fresh interpreter, as Ray's workers start: a prediction
    # depends on where the arguments land in the device arena (cache sets, DRAM rows), and this
    # process has loaded other modules since (tests above)
    import subprocess

    root = pathlib.Path(__file__).resolve().parents[2]
    serial = subprocess.run([sys.executable, str(root / "tools" / "timing_accuracy.py"), "--only", t.CASES],
                            capture_output=True, text=True, check=True, cwd=root).stdout
    assert t.without_times(t.output(timing_accuracy.main, ["--only", t.CASES, "--executor", "ray"])) == \
        t.without_times(serial)
    argv = ["--only", t.CASES, "--rounds", "1", "--params", "kernel_launch,cta_launch"]
    serial = subprocess.run([sys.executable, str(root / "tools" / "timing_tune.py"), *argv],
                            capture_output=True, text=True, check=True, cwd=root).stdout
    assert "round 0:" in serial
    assert t.without_times(t.output(timing_tune.main, argv + ["--executor", "ray", "--workers", "2"])) == \
        t.without_times(serial)
