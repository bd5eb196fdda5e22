"""The filter-arithmetic probes an H200 ran (tests/goldens/kernels/texture_filter.npz, recorded by
tools/device/record_textures_ext.py --probes texture_filter_probes --compact from the probe list in
texture_filter_probes.py): s8 blending, levels of detail from gradients, sRGB, mipmapped 3D
weights. Replayed on ptxvm bit for bit."""
from __future__ import annotations

import functools
import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.texture import GEOMETRIES

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
GOLDEN = ROOT / "tests" / "goldens" / "kernels" / "texture_filter.npz"
META = json.loads(GOLDEN.with_suffix(".meta.json").read_text())["probes"] if GOLDEN.exists() else {}
DATA = np.load(GOLDEN) if GOLDEN.exists() else {}
RECORDED = sorted(k for k, v in META.items() if v["status"] == "ok")

# probes ptxvm does not reproduce bit for bit: name -> (why, largest difference allowed)
KNOWN: dict = {}

_SAMPLER_KEYS = ("address_mode", "filter_mode", "normalized_coords", "read_mode", "border_color",
                 "mipmap_filter_mode", "mipmap_level_bias", "min_mipmap_level_clamp", "max_mipmap_level_clamp",
                 "max_anisotropy", "seamless_cubemap", "disable_trilinear_optimization", "srgb")


@functools.lru_cache(maxsize=1)
def probe_list() -> dict:
    import texture_filter_probes as TP

    return {p["name"]: p for p in TP.probes()}


def _digest(arrays) -> str:
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in arrays)).hexdigest()


def make_texture(name: str):
    p, m = probe_list()[name], META[name]
    src = p["levels"] if "levels" in p else [p["data"]]
    assert _digest(src) == m["data_sha256"], f"{name}: texture_filter_probes.py no longer makes the data the GPU ran"
    dims, layered = GEOMETRIES[m["geom"]]
    kw = {k: v for k, v in m.get("desc", {}).items() if k in _SAMPLER_KEYS}
    cube = m["geom"] in ("cube", "acube")
    return ptxvm.texture_object(list(src) if "levels" in p else src[0], dims=dims, layered=layered and m["geom"] != "cube",
                                cubemap=cube, **kw)


def replay(name: str) -> np.ndarray:
    p, m = probe_list()[name], META[name]
    inp = np.ascontiguousarray(p["inp"], np.uint32)
    assert hashlib.sha256(inp.tobytes()).hexdigest() == m["inp_sha256"], f"{name}: inputs changed (re-record)"
    import texture_filter_probes as TP

    text = TP.probe_ptx(p)
    assert hashlib.sha256(text.encode()).hexdigest() == m["ptx_sha256"], f"{name}: PTX changed (re-record)"
    n = inp.shape[0]
    out = np.zeros(4 * n, np.uint32)
    ptxvm.loads(text, name)["probe"].launch((n + 127) // 128, 128, [make_texture(name), inp, out, np.int32(n)])
    return out.reshape(n, 4)


@pytest.mark.skipif(not RECORDED, reason="no texture_filter goldens recorded yet")
@pytest.mark.parametrize("name", RECORDED)
def test_probe_matches_h200(name):
    got = replay(name)
    want = DATA[f"{name}.out"]
    if name in KNOWN:
        why, tol = KNOWN[name]
        np.testing.assert_allclose(got.view(np.float32), want.view(np.float32), rtol=tol, atol=tol,
                                   err_msg=f"{name}: {why}")
        return
    assert np.array_equal(got, want), f"{name}: {np.count_nonzero(np.any(got != want, axis=1))} of {len(got)} lanes differ"
