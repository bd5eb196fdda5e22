"""The texture probes of issue 17 an H200 ran (tests/goldens/kernels/texture_gaps.npz, recorded by
tools/device/record_textures_ext.py --probes texture_gap_probes --compact from the probe list in
texture_gap_probes.py): 1D border filtering, the blend over infinities / NaN / subnormals,
normalized-float u8 with a border colour, tld4 from normalized-float textures, txq of a 1D
texture. Replayed on ptxvm bit for bit."""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.texture.objects import GEOMETRIES

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
# texture_gaps.npz: the first recording; texture_gaps2.npz: the follow-up probes (--only their names)
GOLDENS = [ROOT / "tests" / "goldens" / "kernels" / f"{g}.npz" for g in ("texture_gaps", "texture_gaps2")]
META: dict = {}
DATA: dict = {}
for _g in GOLDENS:
    if _g.exists():
        META.update(json.loads(_g.with_suffix(".meta.json").read_text())["probes"])
        DATA.update(dict(np.load(_g)))
RECORDED = sorted(k for k, v in META.items() if v["status"] == "ok")

# probes ptxvm does not reproduce bit for bit: name -> (why, lanes allowed to differ); docs/hardware-notes.md
KNOWN: dict = {}

_SAMPLER_KEYS = ("address_mode", "filter_mode", "normalized_coords", "read_mode", "border_color",
                 "mipmap_filter_mode")


@functools.lru_cache(maxsize=1)
def probe_list() -> dict:
    import texture_gap_probes as TP

    return {p["name"]: p for p in TP.probes()}


def replay(name: str) -> np.ndarray:
    import texture_gap_probes as TP

    p, m = probe_list()[name], META[name]
    src = p["levels"] if "levels" in p else [p["data"]]
    digest = hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in src)).hexdigest()
    assert digest == m["data_sha256"], f"{name}: texture_gap_probes.py no longer makes the data the GPU ran"
    inp = np.ascontiguousarray(p["inp"], np.uint32)
    assert hashlib.sha256(inp.tobytes()).hexdigest() == m["inp_sha256"], f"{name}: inputs changed (re-record)"
    text = TP.probe_ptx(p)
    assert hashlib.sha256(text.encode()).hexdigest() == m["ptx_sha256"], f"{name}: PTX changed (re-record)"
    dims, layered = GEOMETRIES[m["geom"]]
    kw = {k: v for k, v in m.get("desc", {}).items() if k in _SAMPLER_KEYS}
    tex = ptxvm.texture_object(list(src) if "levels" in p else src[0], dims=dims, layered=layered, **kw)
    n = inp.shape[0]
    out = np.zeros(4 * n, np.uint32)
    ptxvm.loads(text, name)["probe"].launch((n + 127) // 128, 128, [tex, inp, out, np.int32(n)])
    return out.reshape(n, 4)


@pytest.mark.skipif(not RECORDED, reason="no texture_gaps goldens recorded yet")
@pytest.mark.parametrize("name", RECORDED)
def test_probe_matches_h200(name):
    got, want = replay(name), DATA[f"{name}.out"]
    wrong = int(np.count_nonzero(np.any(got != want, axis=1)))
    if name in KNOWN:
        why, allowed = KNOWN[name]
        assert wrong <= allowed, f"{name}: {wrong} lanes differ (known: {why}; {allowed} allowed)"
        return
    assert wrong == 0, f"{name}: {wrong} of {len(got)} lanes differ"
