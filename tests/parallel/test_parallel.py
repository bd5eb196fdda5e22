"""CTA-parallel launches (ptxvm/parallel) give the single process's bytes, report races, and run
in one process what cannot be split. Launches here are small, so the size threshold is lowered."""
from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pytest

import ptxvm
from ptxvm.errors import DataRaceError, DataRaceWarning, KernelFault, LaunchError


KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")


@pytest.fixture(autouse=True, params=["pool", "forked per launch"])
def split_small_launches(monkeypatch, request):
    """Every test twice: on the persistent pool (the default where it is available) and with
    workers forked per launch (PTXVM_POOL=0)."""
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    monkeypatch.setenv("PTXVM_POOL", "1" if request.param == "pool" else "0")


@pytest.fixture(scope="module")
def mod():
    return ptxvm.load(KERNELS)


def both(kernel, grid, block, make_args, workers=2, **kw):
    """Launch with one worker and with `workers`; return (args after 1, args after N, stats of N)."""
    one = make_args()
    kernel.launch(grid, block, one, workers=1, **kw)
    many = make_args()
    stats = kernel.launch(grid, block, many, workers=workers, **kw)
    return one, many, stats


def same_bytes(xs, ys):
    return all(np.array_equal(np.asarray(x).view(np.uint8), np.asarray(y).view(np.uint8))
               for x, y in zip(xs, ys) if isinstance(x, np.ndarray))


def test_vector_add_identical(mod):
    n = 5000
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    one, many, st = both(mod["vadd"], -(-n // 128), 128, lambda: [a, b, np.zeros(n, np.float32), n], workers=3)
    assert st.workers == 3 and st.serial_reason == ""
    assert same_bytes(one, many) and np.array_equal(many[2], a + b)
    assert st.ctas == -(-n // 128) and st.thread_instructions > 0


def test_integer_atomics_merge_exactly(mod):
    n = 4096
    data = np.random.default_rng(1).integers(0, 1 << 31, n).astype(np.uint32)

    def args():
        stats = np.zeros(10, np.uint32)
        stats[2:4] = [np.iinfo(np.uint32).max] * 2  # min u64 starts high
        stats[5] = 0xFFFFFFFF  # the and-word
        stats[8], stats[9] = 5, 3  # the inc and dec counters start inside their ranges
        return [data, np.zeros(64, np.uint32), stats, n]

    one, many, st = both(mod["atomics"], n // 128, 128, args, workers=4)
    assert st.workers == 4
    assert same_bytes(one, many)
    bins, stats = many[1], many[2]
    assert np.array_equal(bins, np.bincount(data & 63, minlength=64))
    assert stats[0] == n - 1 and stats[2] == data.min()
    assert stats[8] == (5 + n) % 1000


def test_stencil_reads_across_shards(mod):
    n = 3000
    x = np.random.default_rng(2).integers(0, 1000, n).astype(np.int32)
    one, many, st = both(mod["stencil"], -(-n // 64), 64, lambda: [x, np.zeros(n, np.int32), n], workers=5)
    assert st.workers == 5 and same_bytes(one, many)
    assert np.array_equal(many[1][1:-1], x[:-2] + 2 * x[1:-1] + x[2:])


def test_same_value_stores_are_not_a_race(mod):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one, many, st = both(mod["same_value"], 8, 32, lambda: [np.zeros(257, np.uint32)])
    assert st.workers == 2 and same_bytes(one, many)


def test_race_warns_with_both_ctas_and_lines(mod):
    with pytest.warns(DataRaceWarning) as w:
        one, many, st = both(mod["racy"], 8, 32, lambda: [np.zeros(257, np.uint32)])
    text = str(w[0].message)
    assert "kernel 'racy'" in text and text.count("CTA (") == 2 and "kernels.ptx:" in text
    assert "st.global.u32 [%rd1], %r2" in text
    assert same_bytes(one, many) and "race" in st.serial_reason


def test_race_is_an_error_on_request_and_arrays_stay(mod, monkeypatch):
    out = np.full(257, 9, np.uint32)
    with pytest.raises(DataRaceError, match="racy"):
        mod["racy"].launch(8, 32, [out], workers=2, on_race="error")
    assert (out == 9).all()
    monkeypatch.setenv("PTXVM_ON_RACE", "error")
    with pytest.raises(DataRaceError, match="racy"):
        mod["racy"].launch(8, 32, [out], workers=2)
    assert (out == 9).all()


@pytest.mark.parametrize("kernel, make, why", [
    ("slots", lambda: [np.zeros(1, np.uint32), np.zeros(256, np.uint32)], "returned value"),
    ("fsum", lambda: [np.linspace(0.1, 3.3, 256, dtype=np.float32), np.zeros(1, np.float32)], "floating-point"),
    ("flag", lambda: [np.zeros(1, np.uint32), np.zeros(8, np.uint32)], "ld.acquire"),
    ("placement", lambda: [np.zeros(8 * 4, np.uint32)], "%clock64, %smid"),
])
def test_order_dependent_kernels_run_in_one_process(mod, kernel, make, why):
    grid = 8 if kernel != "flag" else 8
    block = 32 if kernel != "flag" else 1
    one, many, st = both(mod[kernel], grid, block, make)
    assert st.workers == 1 and why in st.serial_reason
    assert same_bytes(one, many)


def test_atomics_of_two_kinds_on_one_word_rerun(mod):
    one, many, st = both(mod["mixed"], 8, 4, lambda: [np.zeros(1, np.uint32), 4])
    assert st.workers == 1 and "different kinds" in st.serial_reason
    assert same_bytes(one, many)


def test_fault_is_the_single_process_one_and_arrays_stay(mod):
    faults = []
    for workers in (1, 3):
        out = np.full(8 * 32, 5, np.uint32)
        with pytest.raises(KernelFault) as e:
            mod["faulty"].launch(8, 32, [out, 6], workers=workers)
        faults.append(str(e.value))
        assert (out == 5).all()
    assert faults[0] == faults[1] and "(6, 0, 0)" in faults[0]


def test_clusters_stay_whole(mod):
    one, many, st = both(mod["pairs"], 12, 32, lambda: [np.zeros(12, np.uint32)], workers=4)
    assert st.workers == 4 and same_bytes(one, many)
    assert np.array_equal(many[0], np.arange(12) ^ 1)


def test_small_launches_stay_in_process(mod, monkeypatch):
    monkeypatch.delenv("PTXVM_PARALLEL_MIN_WORK")
    a = np.ones(256, np.float32)
    st = mod["vadd"].launch(2, 128, [a, a, np.zeros(256, np.float32), 256], workers=2)
    assert st.workers == 1 and "small launch" in st.serial_reason


def test_workers_from_the_environment(mod, monkeypatch):
    monkeypatch.setenv("PTXVM_WORKERS", "3")
    a = np.ones(1024, np.float32)
    st = mod["vadd"].launch(8, 128, [a, a, np.zeros(1024, np.float32), 1024])
    assert st.workers == 3
    monkeypatch.setenv("PTXVM_WORKERS", "many")
    with pytest.raises(LaunchError, match="PTXVM_WORKERS"):
        mod["vadd"].launch(8, 128, [a, a, np.zeros(1024, np.float32), 1024])


def test_bad_options_are_launch_errors(mod):
    a = np.ones(256, np.float32)
    for kw in ({"workers": 0}, {"executor": "mpi"}, {"on_race": "ignore"}):
        with pytest.raises(LaunchError):
            mod["vadd"].launch(2, 128, [a, a, np.zeros(256, np.float32), 256], **kw)


def test_progress_counts_every_cta(mod):
    seen = []
    a = np.ones(2048, np.float32)
    mod["vadd"].launch(16, 128, [a, a, np.zeros(2048, np.float32), 2048], workers=2, progress=seen.append)
    assert seen[-1] == 16


def test_module_variables_merge(mod):
    m = ptxvm.load(KERNELS)
    m.write_symbol("step", np.array([3], np.uint32))
    out = np.zeros(256, np.uint32)
    st = m["modvars"].launch(8, 32, [out], workers=2)
    assert st.workers == 2 and (out == 3).all() and m.read_symbol("total", np.uint32)[0] == 3 * 256


def test_device_arrays_and_module_variables(mod):
    m = ptxvm.loads(KERNELS.read_text().replace(".visible .entry vadd", ".global .align 4 .u32 g[4];\n.visible .entry vadd"))
    a = ptxvm.to_device(np.arange(1024, dtype=np.float32))
    c = ptxvm.device_array(1024, np.float32)
    st = m["vadd"].launch(8, 128, [a, a, c, 1024], workers=2)
    assert st.workers == 2 and np.array_equal(c.copy_to_host(), 2 * np.arange(1024, dtype=np.float32))


def _square(x):
    if x == 3:
        raise ValueError("three")
    return x * x


def test_map_launches_locally(mod):
    assert ptxvm.map_launches(_square, [0, 1, 2, 4], workers=2) == [0, 1, 4, 16]
    from ptxvm.parallel.sweep import SweepError

    with pytest.raises(SweepError, match="(?s)item 2 .*ValueError: three"):
        ptxvm.map_launches(_square, [1, 2, 3], workers=2)


def test_conformance_check_side_by_side():
    from ptxvm.conformance import check as C
    from ptxvm.conformance import golden as G

    if "compare" not in G.families_present(G.default_dir()):
        pytest.skip("no conformance goldens in this checkout")
    serial = C.check(tier="ci", families=["compare"])
    local_ = C.check(tier="ci", families=["compare"], executor="local", workers=2)
    assert [(r.id, r.status, r.reason) for r in serial] == [(r.id, r.status, r.reason) for r in local_]


def test_spawned_workers_give_the_same_bytes(mod, monkeypatch):
    """Where fork is missing (Windows, macOS) workers are spawned and get the launch as data, as
    Ray tasks do; forced here."""
    monkeypatch.setenv("PTXVM_START_METHOD", "spawn")
    n = 4096
    data = np.random.default_rng(4).integers(0, 1 << 31, n).astype(np.uint32)

    def args():
        stats = np.zeros(10, np.uint32)
        stats[2:4] = 0xFFFFFFFF
        stats[5] = 0xFFFFFFFF
        return [data, np.zeros(64, np.uint32), stats, n]

    one, many, st = both(mod["atomics"], n // 128, 128, args, workers=2)
    assert st.workers == 2 and same_bytes(one, many)
