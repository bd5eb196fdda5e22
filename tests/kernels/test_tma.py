"""Tiled tensor copies (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor, prefetch, multicast)
on the CPU engine with maps from ptxvm.tensor_map, against what an H200 did with the same kernels
and maps from cuTensorMapEncodeTiled (tests/goldens/tma, tools/device/record_tma.py), bit for bit;
and the API's checks of the driver's rules."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ptxvm
import tma_cases as T
from ptxvm.engine.async_copy import tensor_map as TM

GOLDEN = Path(__file__).resolve().parent.parent / "goldens" / "tma"


def _golden():
    """Every recording under tests/goldens/tma (tma.npz, and later ones such as tma_rules.npz)."""
    arrays, meta = {}, {"cases": {}}
    for m in sorted(GOLDEN.glob("*.meta.json")):
        rec = json.loads(m.read_text())
        meta["cases"].update(rec["cases"])
        meta.update({k: v for k, v in rec.items() if k != "cases"})
        with np.load(m.with_name(m.name.replace(".meta.json", ".npz"))) as z:
            arrays.update({k: z[k] for k in z.files})
    return (arrays or None), meta


def numpy_strides(case):
    return tuple(reversed(case.global_strides())) + (case.itemsize,)


def run_case(case):
    """(result bytes, the map) of one case on the engine."""
    dev = ptxvm.to_device(T.tensor_bytes(case))
    tm = ptxvm.tensor_map(dev, case.box, element_strides=case.element_strides, swizzle=case.swizzle,
                          oob_fill=case.oob_fill, dtype=case.dtype, shape=case.shape, strides=numpy_strides(case))
    first = ptxvm.to_device(np.frombuffer(tm, np.uint8).copy()) if case.map_in == "global" else tm
    out = np.zeros(case.ctas * case.smem_bytes, np.uint8)
    grid, block = T.launch(case)
    ptxvm.loads(T.kernel_ptx(case), f"{case.name}.ptx")["tma"].launch(
        grid, block, [first, out, T.coords_array(case), T.shared_input(case)], max_instructions=10**7)
    return (out if case.kind in ("load", "prefetch", "multicast") else dev.copy_to_host()), tm


def reference(case):
    """What the ISA says, computed with NumPy indexing (no swizzle; loads and stores only)."""
    raw = T.tensor_bytes(case)
    dt = np.dtype(f"<u{case.itemsize}")
    strides = numpy_strides(case)
    full = np.lib.stride_tricks.as_strided(raw.view(dt), case.shape, strides)
    if case.kind == "load":
        out = np.full(case.ctas * case.smem_bytes, T.SENTINEL, np.uint8)
        for c, coord in enumerate(case.coords):
            idx = []
            for axis in range(case.rank):
                i = case.rank - 1 - axis  # the coordinate index of this NumPy axis
                step = 1 if i == 0 else case.estrides[axis]
                idx.append(coord[i] + np.arange(case.counts[axis]) * step)
            grids = np.meshgrid(*idx, indexing="ij")
            ok = np.ones(grids[0].shape, bool)
            for g, d in zip(grids, case.shape):
                ok &= (g >= 0) & (g < d)
            vals = np.zeros(grids[0].shape, dt)
            vals[ok] = full[tuple(g[ok] for g in grids)]
            if case.oob_fill == "nan":
                vals[~ok] = TM.OOB_NAN[case.itemsize]
            b = vals.reshape(-1).view(np.uint8)
            out[c * case.smem_bytes: c * case.smem_bytes + b.size] = b
        return out
    return None


CASES = T.cases()


def _gpu_error(name):
    _, meta = _golden()
    m = meta.get("cases", {}).get(name, {})
    return m.get("error", "") if m.get("status") == "failed" else ""


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_matches_the_gpu(case):
    if "IllegalInstruction" in _gpu_error(case.name):  # the H200 refused the copy: so must the engine
        with pytest.raises(ptxvm.KernelFault, match="illegal instruction"):
            run_case(case)
        return
    golden, meta = _golden()
    recorded = golden is not None and meta["cases"].get(case.name, {}).get("status") == "recorded"
    if not recorded:
        try:
            got, tm = run_case(case)
        except ptxvm.KernelFault as e:
            pytest.skip(f"no H200 recording; the engine refuses it: {e}")
    else:
        got, tm = run_case(case)
    if recorded:
        want = golden[f"{case.name}|out"]
        diff = np.flatnonzero(got != want)
        assert not diff.size, f"{case.name}: {diff.size} bytes differ, first at {diff[0]}: got {got[diff[0]]} want {want[diff[0]]}"
    elif case.kind == "load" and case.swizzle == "none":
        assert np.array_equal(got, reference(case))
    else:
        pytest.skip("no H200 golden for this case (tools/device/record_tma.py)")


@pytest.mark.parametrize("name", ["load_2d_f32", "load_3d_f32_estride", "load_2d_f32_nan", "load_2d_s32_pad"])
def test_unswizzled_loads_match_numpy_indexing(name):
    case = T.by_name()[name]
    got, _ = run_case(case)
    assert np.array_equal(got, reference(case))


def test_map_round_trips_and_is_128_bytes():
    a = np.arange(32 * 48, dtype=np.float32).reshape(32, 48)
    tm = ptxvm.tensor_map(a, (8, 16), element_strides=(2, 1), swizzle="64B")
    assert isinstance(tm, bytes) and len(tm) == 128
    d = TM.decode(tm)
    assert d == tm.desc
    assert d.dims == (48, 32) and d.box == (16, 8) and d.element_strides == (1, 2) and d.strides == (4, 192)
    assert d.counts == (16, 4) and d.box_bytes == 256
    assert np.array_equal(tm.array.copy_to_host(), a)


@pytest.mark.parametrize("kw,msg", [
    (dict(box=(8, 6)), "multiple of 16 bytes"),
    (dict(box=(8, 300)), "1 .. 256"),
    (dict(box=(8, 64), swizzle="128B"), "at most 128 bytes"),
    (dict(box=(8, 16), element_strides=(9, 1)), "1 .. 8"),
    (dict(box=(8, 16), interleave="16B"), "not supported"),
    (dict(box=(8, 16), swizzle="256B"), "swizzle in"),
])
def test_map_rules(kw, msg):
    a = np.zeros((32, 64), np.float32)
    with pytest.raises(TM.TensorMapError, match=msg):
        ptxvm.tensor_map(a, **kw)


def test_nan_fill_needs_a_float_type_and_strides_multiple_of_16():
    with pytest.raises(TM.TensorMapError, match="floating-point"):
        ptxvm.tensor_map(np.zeros((8, 16), np.int32), (4, 4), oob_fill="nan")
    with pytest.raises(TM.TensorMapError, match="multiple of 16"):
        ptxvm.tensor_map(np.zeros((8, 5), np.float32), (4, 4))


def test_a_pointer_that_is_not_a_map_faults():
    case = T.by_name()["load_2d_f32_global"]
    junk = ptxvm.to_device(np.zeros(128, np.uint8))
    out = np.zeros(case.smem_bytes, np.uint8)
    with pytest.raises(ptxvm.KernelFault, match="tensor map"):
        ptxvm.loads(T.kernel_ptx(case))["tma"].launch(1, 128, [junk, out, T.coords_array(case), T.shared_input(case)])


def test_swizzle_permutes_16_byte_chunks_within_rows():
    off = np.arange(0, 1024, 16)
    for mode, span in ((1, 32), (2, 64), (3, 128)):
        s = TM.swizzle(off, mode)
        assert sorted(s.tolist()) == off.tolist()
        assert np.array_equal(s // span // (128 // span) * 0, np.zeros_like(s))  # stays in its 128-byte row
        assert np.array_equal(s >> 7, off >> 7)


def _nvcc_ptx():
    import shutil
    import subprocess
    import tempfile
    if shutil.which("nvcc") is None:
        return None
    src = Path(__file__).resolve().parent / "cuda" / "tma_scale.cu"
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "k.ptx"
        r = subprocess.run(["nvcc", "-arch=sm_90", "-ptx", str(src), "-o", str(out)], capture_output=True, text=True)
        return out.read_text() if r.returncode == 0 else None


def test_nvcc_tma_kernel():
    """tests/kernels/cuda/tma_scale.cu (cde::cp_async_bulk_tensor_2d_* with cuda::barrier): the
    H200's PTX and output when recorded, else this machine's nvcc and the formula."""
    golden, meta = _golden()
    recorded = golden is not None and meta.get("nvcc_tma_scale_2d", {}).get("status") == "recorded"
    ptx = golden["nvcc_tma_scale_2d|ptx"].tobytes().decode() if recorded else _nvcc_ptx()
    if ptx is None:
        pytest.skip("neither a recorded golden nor nvcc for tests/kernels/cuda/tma_scale.cu")
    h, w = 64, 96
    a = golden["nvcc_tma_scale_2d|in"] if recorded else np.random.default_rng(5).standard_normal((h, w)).astype(np.float32)
    din, dout = ptxvm.to_device(a), ptxvm.to_device(np.zeros((h, w), np.float32))
    ptxvm.loads(ptx)["tma_scale_2d"].launch((w // 32, h // 16, 1), 128, [ptxvm.tensor_map(din, (16, 32)),
                                                                          ptxvm.tensor_map(dout, (16, 32)), np.float32(1.5)])
    got = dout.copy_to_host()
    if recorded:
        assert np.array_equal(got.view(np.uint32), golden["nvcc_tma_scale_2d|out"].view(np.uint32))
    else:
        want = (a.astype(np.float64) * 1.5 + 1.0).astype(np.float32)  # one rounding: nvcc contracts to fma
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


IM2COL = T.im2col_cases()


def run_im2col(case):
    dev = ptxvm.to_device(T.im2col_tensor(case))
    tm = ptxvm.tensor_map_im2col(dev, lower=case.lower, upper=case.upper, channels=case.channels, pixels=case.pixels,
                              dtype="u32", shape=case.shape)
    out = np.zeros(case.ctas * case.smem_bytes, np.uint8)
    ptxvm.loads(T.im2col_ptx(case), f"{case.name}.ptx")["im2col"].launch(case.ctas, 128,
                                                                         [tm, out, T.im2col_coords(case)])
    return out


@pytest.mark.parametrize("case", IM2COL, ids=lambda c: c.name)
def test_im2col_matches_the_gpu(case):
    got = run_im2col(case)
    golden, meta = _golden()
    if golden is None or meta["cases"].get(case.name, {}).get("status") != "recorded":
        pytest.skip("no H200 golden for this im2col case (tools/device/record_tma.py)")
    want = golden[f"{case.name}|out"]
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), \
        (got.view(np.uint32)[:64].tolist(), want.view(np.uint32)[:64].tolist())
