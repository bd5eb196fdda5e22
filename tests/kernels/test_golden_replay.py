"""The realistic kernels of tests/kernels/cases.py, replayed on the CPU engine against the outputs
an H200 produced for the same PTX and inputs (tests/goldens/kernels, written by
tools/device/record_kernels.py). Inputs come from the golden file itself."""
from __future__ import annotations

import contextlib
import io
import json
import pathlib

import numpy as np
import pytest

import cases as C
import ptxvm

GOLDENS = pathlib.Path(__file__).resolve().parents[1] / "goldens" / "kernels"
RECORDED = [c for c in C.CASES if (GOLDENS / f"{c.name}.npz").exists()]
# Instructions the engine does not implement yet; each case says which.
NOT_YET: dict[str, str] = {}


def _host_args(case, golden):
    args = []
    for i, spec in enumerate(case.args):
        if f"arg{i}.in" in golden:
            args.append(np.array(golden[f"arg{i}.in"], copy=True))
        elif isinstance(spec, C.Scalar):
            raw = golden[f"arg{i}.value"].tobytes()
            args.append(np.frombuffer(raw, C.scalar_dtype(spec.ptx_type))[0])
        else:
            args.append(golden[f"arg{i}.value"].tobytes())
    return args


def _compare(name, check, got, want):
    if check.kind == "ignore":
        return
    if check.kind == "close":
        g, w = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_allclose(g, w, rtol=check.rtol, atol=check.atol, equal_nan=True, err_msg=name)
        return
    if check.kind == "multiset":
        seg = check.segment
        g = np.sort(got.reshape(-1, seg), axis=1)
        w = np.sort(want.reshape(-1, seg), axis=1)
        assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), name
        return
    gb, wb = got.reshape(-1).view(np.uint8), want.reshape(-1).view(np.uint8)
    if not np.array_equal(gb, wb):
        flat_g, flat_w = got.reshape(-1), want.reshape(-1)
        bad = np.flatnonzero(flat_g.view(np.uint8).reshape(flat_g.size, -1).any(axis=1) != False)  # noqa: E712
        diff = np.flatnonzero((flat_g.view(np.uint8).reshape(flat_g.size, -1) != flat_w.view(np.uint8).reshape(flat_w.size, -1)).any(axis=1))
        i = int(diff[0])
        raise AssertionError(f"{name}: {diff.size}/{flat_g.size} elements differ, first at {i}: "
                             f"engine {flat_g[i]!r} GPU {flat_w[i]!r}")


@pytest.mark.parametrize("case", RECORDED, ids=[c.name for c in RECORDED])
def test_kernel_matches_gpu(case):
    if case.name in NOT_YET:
        pytest.skip(NOT_YET[case.name])
    golden = np.load(GOLDENS / f"{case.name}.npz")
    meta = json.loads((GOLDENS / f"{case.name}.meta.json").read_text())
    ptx = golden["ptx"].tobytes().decode()
    args = _host_args(case, golden)
    mod = ptxvm.loads(ptx, f"{case.name}.ptx")
    with contextlib.redirect_stdout(io.StringIO()):
        mod[meta["kernel"]].launch(tuple(meta["grid"]), tuple(meta["block"]), args,
                                   shared_mem=meta.get("shared_mem", 0))
    for i, spec in enumerate(case.args):
        if f"arg{i}.out" in golden:
            _compare(f"{case.name} {spec.name}", spec.check, args[i], golden[f"arg{i}.out"])
