"""The filter-arithmetic probes an H200 ran (tests/goldens/kernels/texture_filter*.npz, recorded by
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
from ptxvm.engine.texture.objects import GEOMETRIES

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
# texture_filter.npz: the first recording; texture_filter_srgb.npz: the sRGB exponent probes
GOLDENS = [ROOT / "tests" / "goldens" / "kernels" / f"{g}.npz" for g in ("texture_filter", "texture_filter_srgb")]
META: dict = {}
DATA: dict = {}
for _g in GOLDENS:
    if _g.exists():
        META.update(json.loads(_g.with_suffix(".meta.json").read_text())["probes"])
        _z = np.load(_g)
        DATA.update({k: _z[k] for k in _z.files})
RECORDED = sorted(k for k, v in META.items() if v["status"] == "ok")

# probes ptxvm does not reproduce bit for bit: name -> (why, absolute and relative difference allowed);
# docs/hardware-notes.md gives the measured exactness of each
_ISO = ("level of detail: the rounding inside the footprint-length estimate is not pinned where dPdx +- dPdy has two nonzero "
        "components (one or two 1/256 steps; lanes off: 3d 63/1024, length_x/_y 7/1028, orthogonal 7/528, parallel 43/528, "
        "random 54/1024, rect 39/1024, size48 116/1024 (the scaling by a non-power-of-two size), two_vectors 48/640)")
_ANISO = "anisotropic filtering (max_anisotropy > 1) is not modelled (its probes, their count and placement)"
KNOWN: dict = {
    **{n: (_ISO, 2.1 / 256, 0) for n in ("grad_3d", "grad_length_x", "grad_length_y", "grad_orthogonal", "grad_parallel",
                                         "grad_random", "grad_random_aniso1", "grad_rect", "grad_size48",
                                         "grad_two_vectors", "grad_two_vectors_aniso1")},
    **{f"grad_{k}_aniso{a}": (_ANISO, 4.1, 0) for k in ("random", "two_vectors") for a in (2, 4, 16)},
    "accum3d_wide": ("3D blend: the grid the two slice sums are added on (20 of 4096 lanes, 1 ulp)", 0, 2.4e-7),
    "accum3d_f16": ("3D blend of f16 texels: the slice-sum grid (6 of 2048 lanes, 1 to 8 f16 ulps)", 0, 1e-2),
}

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
        why, atol, rtol = KNOWN[name]
        np.testing.assert_allclose(got.view(np.float32), want.view(np.float32), rtol=rtol, atol=atol,
                                   err_msg=f"{name}: {why}")
        return
    assert np.array_equal(got, want), f"{name}: {np.count_nonzero(np.any(got != want, axis=1))} of {len(got)} lanes differ"
