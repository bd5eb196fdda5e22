"""The ADVANCED_CASES of tests/kernels/cases.py that use asynchronous copies, mbarriers and thread
block clusters, replayed on the CPU engine against the outputs an H200 produced
(tests/goldens/kernels, recorded by `tools/device/record_kernels.py --advanced`). Cluster shapes
come from the PTX (.reqnctapercluster) or, for launch-time clusters, from the case."""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

import cases as C
import ptxvm
from test_golden_replay import GOLDENS, _compare, _host_args

FEATURES = ("cp.async", "cp.async.bulk", "mbarrier", "cluster")
RECORDED = [c for c in C.ADVANCED_CASES if c.feature in FEATURES and (GOLDENS / f"{c.name}.npz").exists()]


def test_every_async_and_cluster_case_has_a_golden():
    wanted = {c.name for c in C.ADVANCED_CASES if c.feature in FEATURES}
    assert wanted == {c.name for c in RECORDED}


@pytest.mark.parametrize("case", RECORDED, ids=[c.name for c in RECORDED])
def test_advanced_kernel_matches_gpu(case):
    golden = np.load(GOLDENS / f"{case.name}.npz")
    meta = json.loads((GOLDENS / f"{case.name}.meta.json").read_text())
    assert meta.get("cluster") == (list(case.cluster) if case.cluster else None)
    ptx = golden["ptx"].tobytes().decode()
    args = _host_args(case, golden)
    mod = ptxvm.loads(ptx, f"{case.name}.ptx")
    with contextlib.redirect_stdout(io.StringIO()):
        mod[meta["kernel"]].launch(tuple(meta["grid"]), tuple(meta["block"]), args,
                                   shared_mem=meta.get("shared_mem", 0), cluster=case.cluster)
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" in golden:
            _compare(f"{case.name} {spec.name}", spec.check, args[i], golden[f"arg{i}.out"])
