"""Texture and surface objects in conformance cases: the Resource spec, and record.py's whole path
(driver objects, golden files, replay) on a fake GPU that is ptxvm itself."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from ptxvm.conformance import check as C
from ptxvm.conformance import golden as G
from ptxvm.conformance import resources as R
from ptxvm.conformance.cases import family_cases

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def test_resource_meta_round_trip_and_contents():
    r = R.texture("t", "2d", "f32:16x16x4:normal", 5, address_mode=("wrap", "mirror"), filter_mode="linear")
    assert R.Resource.from_meta(json.loads(json.dumps(r.to_meta()))) == r
    levels = R.initial(r)
    assert [a.shape for a in levels] == [(16, 16, 4), (8, 8, 4), (4, 4, 4), (2, 2, 4), (1, 1, 4)]
    assert all(np.array_equal(a, b) for a, b in zip(levels, R.initial(r)))   # deterministic
    assert R.initial(R.texture("t", "2d", "f32:4x4x1:level", 3))[2].item() == 2.0
    with pytest.raises(ValueError):
        R.texture("t", "3d", "f32:4x4x1:normal")          # 3d needs depth, height, width, channels
    with pytest.raises(ValueError):
        R.texture("t", "2d", "f32:4x4x1:normal", bogus=1)


def test_kernel_takes_the_handle_before_n():
    c = next(c for c in family_cases("texture") if c.id == "tex.2d.v4.f32.f32#unnorm_clamp_linear")
    assert c.param_names() == ["in_x", "in_y", "out_d", "res_t", "n"]
    assert "ld.param.u64 %x_t, [res_t];" in c.ptx() and "[%x_t, {%o_x, %o_y}]" in c.ptx()


def test_store_cases_give_every_lane_its_own_target():
    from ptxvm.conformance.cases._texcoords import slots
    for S, H, Z in ((8, 4, 1), (6, 1, 1), (4, 3, 2)):
        for mode in ("trap", "zero", "clamp"):
            x, y, z = slots(S, H, Z, mode)
            inside = (x >= 0) & (x < S) & (y >= 0) & (y < H) & (z >= 0) & (z < Z)
            if mode == "clamp":
                x, y, inside = np.clip(x, 0, S - 1), np.clip(y, 0, H - 1), np.ones_like(inside)
            t = set(zip(x[inside].tolist(), y[inside].tolist(), z[inside].tolist()))
            assert len(t) == inside.sum() == S * H * Z, (S, H, Z, mode)


# a GPU that is ptxvm: CuPy kernels run on the engine, driver-API objects are ptxvm objects
FAKE = {
    "cupy/__init__.py": "import numpy as np\n__version__ = 'fake'\nfrom . import cuda\n"
                        "def asarray(a): return np.array(a)\ndef asnumpy(a): return np.array(a)\n",
    "cupy/cuda/__init__.py": "from . import function, runtime\n",
    "cupy/cuda/function.py": (
        "import ptxvm\n"
        "class Module:\n"
        "    def load(self, b): self.mod = ptxvm.loads(b.decode())\n"
        "    def get_function(self, name):\n"
        "        k = self.mod.kernel(name)\n"
        "        return lambda grid, block, args: k.launch(grid, block, list(args))\n"),
    "cupy/cuda/runtime.py": (
        "def getDeviceProperties(i): return {'name': b'FakeGPU', 'major': 9, 'minor': 0, 'multiProcessorCount': 1}\n"
        "def driverGetVersion(): return 13000\ndef runtimeGetVersion(): return 13000\n"
        "def deviceSynchronize(): pass\n"),
    # record_resources imports cudriver_textures by name: this one is found first (sys.modules)
    "sitecustomize.py": "import sys, fake_cudriver\nsys.modules['cudriver_textures'] = fake_cudriver\n",
    "fake_cudriver.py": (
        "import numpy as np\nimport ptxvm\nfrom ptxvm.conformance.resources import GEOMETRIES\n"
        "class Arr:\n"
        "    def __init__(self, a, geom, fmt=None): self.a, self.geom, self.fmt = np.array(a), geom, fmt or ''\n"
        "def ensure_context(): pass\n"
        "def make_array(a, geom, flags=0, fmt=None): return Arr(a, geom, fmt)\n"
        "def make_mipmapped(levels, geom, flags=0): return [Arr(a, geom) for a in levels]\n"
        "def read_array(arr, like, geom): return arr.a.copy()\n"
        "def texture_object(res, desc, geom, dtype, nlevels=1):\n"
        "    dims, layered, cube = GEOMETRIES[geom]\n"
        "    src = [x.a for x in res] if isinstance(res, list) else res.a\n"
        "    return ptxvm.texture_object(src, dims=dims, layered=layered and geom != 'cube', cubemap=cube,\n"
        "                                **desc).handle\n"
        "def surface_object(arr):\n"
        "    dims, layered, cube = GEOMETRIES[arr.geom]\n"
        "    return ptxvm.surface_object(arr.a, dims=dims, layered=layered and not cube, cubemap=cube,\n"
        "                                normalized='NORM' in arr.fmt).handle\n"),
    "cuda/__init__.py": "",
    "cuda/bindings/__init__.py": "",
    "cuda/bindings/driver.py": (
        "CUDA_ARRAY3D_SURFACE_LDST = 2\n"
        "def _ok(*a): return (0,)\n"
        "cuTexObjectDestroy = cuSurfObjectDestroy = cuArrayDestroy = cuMipmappedArrayDestroy = _ok\n"),
}


def test_recorder_makes_objects_and_goldens_replay(tmp_path):
    for rel, text in FAKE.items():
        p = tmp_path / "site" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    out = tmp_path / "gold"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "site"), ROOT]))
    first_store = next(i for i, c in enumerate(family_cases("surface")) if c.opcode == "sust")
    for fam, limit in (("texture", 4), ("surface", first_store + 2)):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "device", "record.py"), "--family", fam,
                            "--limit", str(limit), "--out", str(out)], capture_output=True, text=True, env=env,
                           cwd=ROOT, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        meta = json.loads((out / f"{fam}.meta.json").read_text())
        assert meta["statuses"] == {"recorded": limit}, meta["statuses"]
    results = C.check(str(out), "full")
    assert {x.status for x in results} == {"verified"}, [(x.id, x.status, x.reason) for x in results
                                                         if x.status != "verified"][:3]
    gf = G.GoldenFamily("surface", str(out))
    stored = gf.case(gf.case_ids[-1])                   # a store: the final surface is compared
    assert stored.launch.res[0][0].kind == "surface" and "res:s" in stored.expected
    assert not gf.meta["cases"][stored.id]["res_unchanged"]
