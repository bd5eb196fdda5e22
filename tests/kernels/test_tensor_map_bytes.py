"""ptxvm.tensor_map writes the driver's bytes: every map the H200's cuTensorMapEncodeTiled /
Im2col wrote for the recorded TMA cases (tests/goldens/tma/*.meta.json, map_bytes) comes out
of ptxvm.tensor_map bit for bit, the global address aside; and decode reads the driver's maps."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ptxvm
import tma_cases as T
from ptxvm.engine.async_copy import tensor_map as TM
from ptxvm.engine.async_copy import tensor_map_layout as L

GOLDEN = Path(__file__).resolve().parent.parent / "goldens" / "tma"


def _driver_maps():
    out = {}
    for m in sorted(GOLDEN.glob("*.meta.json")):
        for name, rec in json.loads(m.read_text())["cases"].items():
            if "map_bytes" in rec:
                out[name] = bytes.fromhex(rec["map_bytes"])
    return out


MAPS = _driver_maps()
CASES = {c.name: c for c in T.cases() + T.im2col_cases()}


def _ours(case, dev):
    if isinstance(case, T.Im2colCase):
        return ptxvm.tensor_map_im2col(dev, lower=case.lower, upper=case.upper, channels=case.channels,
                                       pixels=case.pixels, dtype="u32", shape=case.shape)
    strides = tuple(reversed(case.global_strides())) + (case.itemsize,)
    return ptxvm.tensor_map(dev, case.box, element_strides=case.element_strides, swizzle=case.swizzle,
                            oob_fill=case.oob_fill, dtype=case.dtype, shape=case.shape, strides=strides,
                            l2_promotion="128B")


@pytest.mark.skipif(not MAPS, reason="no recorded driver maps under tests/goldens/tma")
@pytest.mark.parametrize("name", sorted(MAPS))
def test_same_bytes_as_the_driver(name):
    case = CASES[name]
    data = T.im2col_tensor(case) if isinstance(case, T.Im2colCase) else T.tensor_bytes(case)
    dev = ptxvm.to_device(data)
    ours, theirs = bytes(_ours(case, dev)), MAPS[name]
    assert L.get_u64(ours, 0) == dev.address
    assert ours[8:] == theirs[8:], f"bytes differ at {[i for i in range(8, 128) if ours[i] != theirs[i]]}"


@pytest.mark.skipif(not MAPS, reason="no recorded driver maps under tests/goldens/tma")
def test_decode_reads_the_driver_maps():
    for name, raw in MAPS.items():
        d = TM.decode(raw)
        case = CASES[name]
        assert TM.encode(d, L.L2.get(raw)) == raw
        if isinstance(case, T.TmaCase):
            assert d.dims == tuple(reversed(case.shape)) and d.box == tuple(reversed(case.box))
            assert d.dtype == case.dtype and d.element_strides == tuple(reversed(case.element_strides or (1,) * case.rank))
        else:
            assert d.im2col == (tuple(case.lower), tuple(case.upper), case.channels, case.pixels)


def test_fields_round_trip_at_their_limits():
    a = np.zeros(1 << 16, np.uint8)
    dev = ptxvm.to_device(a)
    tm = ptxvm.tensor_map(dev, (2, 3, 4, 5, 16), element_strides=(8, 7, 6, 5, 1), dtype="u8",
                          shape=(2, 3, 4, 5, 256), swizzle="none", oob_fill="none")
    d = TM.decode(tm)
    assert d.box == (16, 5, 4, 3, 2) and d.element_strides == (1, 5, 6, 7, 8)
    assert d.dims == (256, 5, 4, 3, 2) and d.strides == (1, 256, 1280, 5120, 15360)


def test_a_map_without_an_address_is_refused():
    with pytest.raises(TM.TensorMapError, match="no global address"):
        TM.decode(bytes(128))


PROBE = GOLDEN / "tmap_layout_probe.json"   # tools/device/probe_tmap_layout.py on the H200
_DT = {"UINT8": "u8", "UINT16": "u16", "UINT32": "u32", "INT32": "s32", "UINT64": "u64", "INT64": "s64",
       "FLOAT16": "f16", "FLOAT32": "f32", "FLOAT64": "f64", "BFLOAT16": "bf16", "FLOAT32_FTZ": "f32_ftz",
       "TFLOAT32": "tf32", "TFLOAT32_FTZ": "tf32_ftz"}


def _probe_desc(name, p):
    if name.startswith("im2col"):
        r = p["rank"]
        return TM.Desc(r, "f32", int(p["addr"], 16), tuple(p["dims"]), (4,) + tuple(p["strides"]),
                       (p["channels"],) + (1,) * (r - 1), (1,) * r, 0, 0, False,
                       (tuple(p["lower"]), tuple(p["upper"]), p["channels"], p["pixels"])), 0
    dt = _DT[p["dtype"]]
    sw = {"NONE": 0, "32B": 1, "64B": 2, "128B": 3}[p["swizzle"]]
    il = {"NONE": 0, "16B": 1, "32B": 2}[p["interleave"]]
    l2 = {"NONE": 0, "L2_64B": 1, "L2_128B": 2, "L2_256B": 3}[p["l2"]]
    return TM.Desc(p["rank"], dt, int(p["addr"], 16), tuple(p["dims"]),
                   (TM.DATA_TYPES[dt][1],) + tuple(p["strides"][: p["rank"] - 1]), tuple(p["box"]), tuple(p["es"]),
                   sw, il, p["oob"] != "NONE"), l2


@pytest.mark.skipif(not PROBE.exists(), reason="no layout probe recorded")
def test_every_probed_map_encodes_and_decodes_like_the_driver():
    """One parameter varied at a time: element types (tf32 too), swizzles, L2 promotion, NaN fill,
    interleave, addresses, strides up to 2^40, dimensions up to 2^32, element strides 1..8,
    ranks 1..5, im2col 3-5d."""
    probe = json.loads(PROBE.read_text())
    done = 0
    for name, rec in probe.items():
        if "bytes" not in rec:
            continue
        raw = bytes.fromhex(rec["bytes"])
        d, l2 = _probe_desc(name, rec["params"])
        assert TM.encode(d, l2) == raw, name
        assert TM.decode(raw) == d, name
        done += 1
    assert done >= 50


@pytest.mark.skipif(not PROBE.exists(), reason="no layout probe recorded")
@pytest.mark.parametrize("name", ["stride_0_size1", "stride_0_broadcast", "stride_0_mid", "stride_16_overlapping"])
def test_strides_the_driver_takes_are_taken(name):
    """A zero stride (CUTLASS 3.x gives a batch of one stride 0; a broadcast dimension) and rows
    that overlap: the H200's driver encodes them, and so does ptxvm.tensor_map, to the same bytes
    but the address. ptxvm refused stride 0, so every CUTLASS 3.x Hopper GEMM with L = 1 failed."""
    import ptxvm

    rec = json.loads(PROBE.read_text())[name]
    assert "bytes" in rec, rec["result"]
    p = rec["params"]
    dt = _DT[p["dtype"]]
    size = TM.DATA_TYPES[dt][1]
    dev = ptxvm.to_device(np.zeros(1 << 16, np.uint8))
    tm = ptxvm.tensor_map(dev, box=tuple(reversed(p["box"])), shape=tuple(reversed(p["dims"])),
                          strides=tuple(reversed([size] + p["strides"])), element_strides=tuple(reversed(p["es"])),
                          dtype=dt)
    raw = bytes.fromhex(rec["bytes"])
    assert bytes(tm)[8:] == raw[8:]
