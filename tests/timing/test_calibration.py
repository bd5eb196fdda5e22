"""The calibration pipeline's host side: suite manifest against its PTX, microbenchmark JSON ->
GPU description numbers, ncu CSV -> per-case metrics. No GPU needed."""
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import ptxvm

ROOT = Path(__file__).resolve().parents[2]
TIMING = ROOT / "benchmarks" / "timing"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


suite = _load("timing_suite_cases", TIMING / "kernels" / "suite.py")
calibrate = _load("timing_calibrate", TIMING / "calibrate.py")
ncu_parse = _load("timing_ncu_parse", TIMING / "ncu_parse.py")


def test_suite_has_enough_distinct_cases_with_kernels_in_the_ptx():
    assert len(suite.CASES) >= 24
    assert len({c.name for c in suite.CASES}) == len(suite.CASES)
    module = ptxvm.load(str(suite.PTX_PATH))
    for c in suite.CASES:
        assert module[c.kernel].info.kind == "entry", c.name


def test_suite_argument_sizes_match_parameters():
    module = ptxvm.load(str(suite.PTX_PATH))
    small = [c for c in suite.CASES if suite.threads(c) <= 132 * 64 or c.name.startswith("launch")]
    for c in small:
        args = suite.materialize(c, 0)
        params = module[c.kernel].info.params
        assert len(args) == len(params), c.name
        for a, p in zip(args, params):
            assert (8 if a.ndim else a.dtype.itemsize) == p.size, (c.name, p.name)


SYNTHETIC = {
    "date": "2026-11-22T03:00:00+00:00", "device": {"l2CacheSize": 62914560},
    "items": {
        "clock": {"mhz": 1980.0}, "chase_shared": {"stride1": 30.2},
        "chase_sweep": {"points": [{"op": "chase_ca", "size_kib": 16, "cycles_per_load": 33.0},
                                   {"op": "chase_ca", "size_kib": 1024, "cycles_per_load": 290.0},
                                   {"op": "chase_cg", "size_kib": 1024, "cycles_per_load": 270.0}]},
        "chase_dram": {"points": [{"stride": 4224, "cold_cycles_per_load": 640.0}]},
        "inst": {"fadd": {"latency_cycles": 4.0, "issue_interval": 1.0},
                 "ex2": {"latency_cycles": 22.0, "issue_interval": 8.0},
                 "cvt": {"latency_cycles": 30.0, "issue_interval": 16.0}},
        "bw_dram": {"copy": {"bytes_per_s": 4.2e12}},
    },
}


def test_calibrate_derives_latencies_and_pipes():
    lat, pipes, other = calibrate.derive(SYNTHETIC)
    assert lat["shared"][0] == 30.2 and lat["l1_hit"][0] == 33.0
    assert lat["l2_hit"][0] == 270.0 and lat["dram"][0] == 640.0
    assert pipes["sfu"][:2] == (18.0, 8.0)  # the add.f32 in each chain step is subtracted
    assert pipes["conv"][:2] == (13.0, 8.0)  # two cvt per step
    assert other["dram_bytes_per_s"][0] == 4.2e12
    spec = json.loads((ROOT / "ptxvm" / "timing" / "gpus" / "h100.json").read_text())
    out = calibrate.apply(spec, lat, pipes, other, "measured on H200 2026-11-22", transfer=True)
    assert out["latency"]["shared"]["value"] == 30
    assert "transferred" in out["latency"]["shared"]["source"]
    assert out["latency"]["dram"]["value"] == spec["latency"]["dram"]["value"]  # H100's memory is not the H200's
    assert out["dram_bytes_per_s"] == spec["dram_bytes_per_s"]


def test_ncu_csv_rows_are_matched_to_cases_in_order(tmp_path):
    csv = tmp_path / "n.csv"
    csv.write_text(
        '==PROF== Connected\n'
        '"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum"\n'
        '"","","nsecond","byte"\n'
        '"0","copy_f32","20,480","33554432"\n'
        '"1","copy_strided","15000","1000"\n'
        '"2","copy_strided","16000","2000"\n')
    rows = ncu_parse.read_rows(str(csv))
    got = ncu_parse.match(suite.CASES, rows)
    assert got["copy_f32"]["gpu__time_duration.sum"] == 20480.0
    assert got["copy_stride2"]["dram__bytes_read.sum"] == 1000.0
    assert got["copy_stride8"]["dram__bytes_read.sum"] == 2000.0
    assert "copy_stride32" not in got
