"""The checker: bit-for-bit comparison and statuses with a fake engine; the recorder's files
read back; the ci tier over whatever goldens exist."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ptxvm.conformance import check as C
from ptxvm.conformance import golden as G
from ptxvm.conformance.cases import all_cases
from ptxvm.conformance.units import Unit, build_units, summary

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _golden_case(case_id: str, expected_fn):
    """A GoldenCase built from the case list, with `expected_fn(launch)` as the 'GPU' outputs."""
    c = next(c for c in all_cases() if c.id == case_id)
    L = G.launch_for_case(c)
    meta = dict(G.case_meta(c), status="recorded")
    expected = {"out:" + n: a for n, a in expected_fn(L).items()}
    return G.GoldenCase(c.id, meta, L, expected)


def _add_f32(L):
    a, b = (x.view(np.float32) for _, x in L.srcs)
    with np.errstate(all="ignore"):
        d = (a + b).astype(np.float32).view(np.uint32)
    return {"d": d}


def _engine(fn):
    """A fake engine: writes fn(launch) into the output arrays, as ptxvm's launch would."""
    def run(L):
        outs = fn(L)
        got = {}
        for name, arr in L.dsts:
            arr[...] = outs[name]
            got["out:" + name] = arr
        return got
    return run


def test_verified_when_bits_match():
    gc = _golden_case("add.f32", _add_f32)
    r = C.run_case(gc, "floating", _engine(_add_f32))
    assert r.status == "verified" and r.lanes == gc.launch.lanes and not r.reason


def test_differs_names_the_lane_and_values():
    gc = _golden_case("add.f32", _add_f32)

    def off_by_one(L):
        d = _add_f32(L)["d"].copy()
        d[5] ^= 1
        d[9] = 0x7FC00000
        return {"d": d}

    r = C.run_case(gc, "floating", _engine(off_by_one))
    assert r.status == "differs"
    assert r.lanes_differing >= 1 and r.reason.startswith(f"{r.lanes_differing}/{gc.launch.lanes} lanes differ")
    assert "lane 5 " in r.reason and "expected 0x" in r.reason and "got 0x" in r.reason


def test_nan_payloads_and_signed_zero_count():
    gc = _golden_case("add.f32", _add_f32)

    def canonical_nans(L):
        d = _add_f32(L)["d"].copy()
        nan = ((d & 0x7F800000) == 0x7F800000) & ((d & 0x7FFFFF) != 0)
        d[nan] = 0x7FFFFFFF if (d[nan] != 0x7FFFFFFF).any() else 0x7FC00000
        return {"d": d}

    assert C.run_case(gc, "floating", _engine(canonical_nans)).status == "differs"


def test_not_implemented_and_error():
    gc = _golden_case("add.f32", _add_f32)

    def missing(L):
        raise NotImplementedError("no semantics for instruction 'add'")

    def broken(L):
        raise ValueError("boom")

    r = C.run_case(gc, "floating", missing)
    assert r.status == "not_implemented" and "add" in r.reason
    r = C.run_case(gc, "floating", broken)
    assert r.status == "error" and "boom" in r.reason


def test_undefined_is_never_run():
    c = next(c for c in all_cases() if c.undefined)
    L = G.launch_for_case(c)
    gc = G.GoldenCase(c.id, dict(G.case_meta(c), status="recorded"), L, {})

    def must_not_run(L):
        raise AssertionError("ran an undefined-result case")

    assert C.run_case(gc, "integer", must_not_run).status == "undefined"


def test_ci_truncation_keeps_lane_prefix():
    gc = _golden_case("add.f32", _add_f32)
    r = C.run_case(gc, "floating", _engine(_add_f32), lanes_limit=100)
    assert r.status == "verified" and r.lanes == 100


def test_unit_status_and_summary():
    def res(status, reason=""):
        return C.CaseResult("x", "f", "add.u32", "add", ["u32"], status, reason)

    u = Unit("k", "f", "add", "add.type d, a, b", ("u32",))
    assert u.status()[0] == "untested"  # no case, but the engine runs add
    assert Unit("k3", "f", "frobnicate", "frobnicate d", ()).status()[0] == "not_implemented"
    u.cases = [res("verified"), res("undefined", "div by zero")]
    assert u.status()[0] == "verified"
    u.cases.append(res("differs", "1/4 lanes differ"))
    assert u.status() == ("differs", "x: 1/4 lanes differ")
    assert Unit("k2", "f", "tcgen05", "tcgen05...", (), on_sm90=False, requirement="PTX ISA 8.6, sm_100a").status()[0] == "unsupported_sm90"
    results = [res("verified"), res("not_implemented", "no engine")]
    units, unmapped, from_table = build_units(results)
    s = summary(units, results, unmapped, from_table)
    for k in ("forms_total", "verified", "differs", "unsupported_sm90", "not_implemented"):
        assert k in s
    assert s["forms_total"] == sum(s[k] for k in ("verified", "differs", "unsupported_sm90", "not_implemented",
                                                  "untested", "undefined"))


FAKE_CUPY = {
    "cupy/__init__.py": "import numpy as np\n__version__ = 'fake'\nfrom . import cuda\n"
                        "def asarray(a): return np.array(a)\ndef asnumpy(a): return np.array(a)\n",
    "cupy/cuda/__init__.py": "from . import function, runtime\n",
    "cupy/cuda/function.py": (
        "import numpy as np\n"
        "class Module:\n"
        "    def load(self, b): self.ptx = b\n"
        "    def get_function(self, name):\n"
        "        def f(grid, block, args):\n"
        "            n = int(args[-1])\n"
        "            for a in args[:-1]:\n"
        "                a.view(np.uint8)[:] = np.arange(a.nbytes, dtype=np.uint8)  # 'results'\n"
        "        return f\n"),
    "cupy/cuda/runtime.py": (
        "def getDeviceProperties(i): return {'name': b'FakeGPU', 'major': 9, 'minor': 0, 'multiProcessorCount': 1}\n"
        "def driverGetVersion(): return 13000\ndef runtimeGetVersion(): return 13000\n"
        "def deviceSynchronize(): pass\n"),
}


def _faulted_golden(case_id: str):
    c = next(c for c in all_cases() if c.id == case_id)
    meta = dict(G.case_meta(c), status="faulted", message="CUDARuntimeError: cudaErrorLaunchFailure")
    return G.GoldenCase(c.id, meta, G.launch_for_case(c), {})


def test_expected_fault_matches_only_a_kernel_fault():
    gc = _faulted_golden("trap#one_thread")
    r = C.run_case(gc, "misc", C.engine_runner())
    assert r.status == "verified" and "trap" in r.reason and "cudaErrorLaunchFailure" in r.reason
    r = C.run_case(gc, "misc", _engine(lambda L: {"d": L.srcs[0][1]}))
    assert r.status == "differs" and "ran it to completion" in r.reason

    def broken(L):
        raise ValueError("boom")

    assert C.run_case(gc, "misc", broken).status == "error"


def test_recorder_files_read_back(tmp_path):
    """record.py (on a fake CuPy) writes goldens the checker reads and replays."""
    for rel, text in FAKE_CUPY.items():
        p = tmp_path / "site" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    out = tmp_path / "gold"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "device", "record.py"), "--family", "movperm",
                        "--limit", "4", "--out", str(out)], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    meta = json.loads((out / "movperm.meta.json").read_text())
    assert meta["device"]["gpu"] == "FakeGPU" and meta["statuses"] == {"recorded": 4}
    assert all(len(m["ptx_sha256"]) == 64 for m in meta["cases"].values())
    gf = G.GoldenFamily("movperm", str(out))
    gc = gf.case(gf.case_ids[0])
    assert gc.launch.ptx.startswith(".version")

    def replay(L):  # the 'engine' reproduces the fake GPU
        got = {}
        for name, a in L.dsts:
            a.view(np.uint8)[:] = np.arange(a.nbytes, dtype=np.uint8)
            got["out:" + name] = a
        return got

    results = C.check(str(out), "full", runner=replay)
    assert [r.status for r in results] == ["verified"] * 4


def test_recorder_keeps_an_expected_fault(tmp_path):
    """A launch that stops on the (fake) GPU is recorded as faulted with its PTX and inputs; the
    checker replays it and wants a KernelFault from the engine."""
    from ptxvm.errors import FaultSite, KernelFault
    files = dict(FAKE_CUPY)
    files["cupy/cuda/function.py"] = files["cupy/cuda/function.py"].replace(
        "        def f(grid, block, args):\n",
        "        def f(grid, block, args):\n"
        "            if b'@%t_p trap;' in self.ptx: raise RuntimeError('cudaErrorLaunchFailure')\n")
    for rel, text in files.items():
        p = tmp_path / "site" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    out = tmp_path / "gold"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "device", "record.py"), "--family", "misc",
                        "--out", str(out)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    meta = json.loads((out / "misc.meta.json").read_text())
    m = meta["cases"]["trap#one_thread"]
    assert m["status"] == "faulted" and "cudaErrorLaunchFailure" in m["message"] and m["expect_fault"]
    gf = G.GoldenFamily("misc", str(out))
    gc = gf.case("trap#one_thread")
    assert "trap;" in gc.launch.ptx and not gc.expected

    def fault(L):
        raise KernelFault("trap instruction executed", FaultSite(L.kernel, (0, 0, 0), (37, 0, 0)))

    assert C.run_case(gc, "misc", fault).status == "verified"


def test_ci_tier_over_recorded_goldens():
    directory = G.default_dir()
    if not G.families_present(directory):
        pytest.skip("no conformance goldens recorded yet (tools/device/record_all.sh on a GPU)")
    results = C.check(directory, "ci")
    s = C.summarize_cases(results)
    assert s["total"] == len(results) > 0
    assert set(s) >= set(C.STATUSES)
    print("conformance ci:", {k: v for k, v in s.items() if v})
    broken = [r for r in results if r.status == "error"]   # the replay itself failed: never a hardware finding
    assert not broken, "\n".join(f"{r.id}: {r.reason}" for r in broken[:20])
    if os.environ.get("PTXVM_CONFORMANCE_STRICT"):
        bad = [r for r in results if r.status in ("differs", "error")]
        assert not bad, "\n".join(f"{r.id}: {r.status}: {r.reason}" for r in bad[:20])


def test_ci_never_truncates_cases_that_write_memory():
    c = next(c for c in all_cases() if c.id == "st.global.b32")
    L = G.launch_for_case(c)
    meta = dict(G.case_meta(c), status="recorded", mem_unchanged=[])
    seen = {}

    def run(launch):
        seen["lanes"] = launch.lanes
        raise NotImplementedError("no engine")

    C.run_case(G.GoldenCase(c.id, meta, L, {}), "memory", run, lanes_limit=64)
    assert seen["lanes"] == L.lanes
