"""The warp-synchronous and video probes of issue 17 an H200 ran (tests/goldens/kernels/hw_gaps.npz,
recorded by tools/device/record_hw_gaps.py from the probe list in hw_gap_probes.py): collectives
whose membermask names lanes that have exited, video instructions with a third operand and no
secondary operation, vset's merge forms. Replayed on ptxvm bit for bit."""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
GOLDEN = ROOT / "tests" / "goldens" / "kernels" / "hw_gaps.npz"
META = json.loads(GOLDEN.with_suffix(".meta.json").read_text())["probes"] if GOLDEN.exists() else {}
DATA = dict(np.load(GOLDEN)) if GOLDEN.exists() else {}
RECORDED = sorted(k for k, v in META.items() if v["status"] == "ok")


@functools.lru_cache(maxsize=1)
def probe_list() -> dict:
    import hw_gap_probes as HP

    return {p["name"]: p for p in HP.probes()}


def replay(name: str) -> np.ndarray:
    import hw_gap_probes as HP

    p, m = probe_list()[name], META[name]
    inp = np.ascontiguousarray(p["inp"], np.uint32)
    assert hashlib.sha256(inp.tobytes()).hexdigest() == m["inp_sha256"], f"{name}: inputs changed (re-record)"
    text = HP.probe_ptx(p)
    assert hashlib.sha256(text.encode()).hexdigest() == m["ptx_sha256"], f"{name}: PTX changed (re-record)"
    n = inp.shape[0]
    out = np.full(2 * n, 0x55555555, np.uint32)
    ptxvm.loads(text, name)["probe"].launch((n + 127) // 128, 128, [inp, out, np.int32(n)])
    return out.reshape(n, 2)


@pytest.mark.skipif(not RECORDED, reason="no hw_gaps goldens recorded yet")
@pytest.mark.parametrize("name", RECORDED)
def test_probe_matches_h200(name):
    got, want = replay(name), DATA[f"{name}.out"]
    wrong = int(np.count_nonzero(np.any(got != want, axis=1)))
    assert wrong == 0, f"{name}: {wrong} of {len(got)} lanes differ"
