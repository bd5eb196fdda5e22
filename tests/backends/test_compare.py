"""ptxvm.compare and its report, without a GPU: synthetic arrays, two CPU runs, an injected device."""
import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ptxvm
from ptxvm.backends.compare import compare_arrays

SAXPY = Path(__file__).resolve().parents[2] / "examples" / "saxpy.ptx"


def saxpy_args(n=1000):
    rng = np.random.default_rng(7)
    return [np.int32(n), np.float32(2.5), rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)]


def test_identical_arrays():
    a = np.arange(10, dtype=np.float32)
    d = compare_arrays(a, a.copy(), name="a")
    assert d.identical and d.differing == 0 and d.first == [] and d.kind == "float"


def test_float_ulps_signed_zero_and_nan():
    ref = np.array([1.0, 2.0, 0.0, np.nan, -1.0, 5.0], np.float32)
    got = ref.copy()
    got[1] = np.nextafter(np.float32(2), np.float32(3))
    got[2] = -0.0
    got[3:4].view(np.uint32)[0] = 0x7FC00001  # another NaN payload: bitwise different
    got[4] = np.float32(1.0)  # across zero: 2 * 0x3f800000 ulps
    d = compare_arrays(ref, got, name="y", first=10)
    assert d.differing == 4 and [m.index for m in d.first] == [(1,), (2,), (3,), (4,)]
    assert [m.distance for m in d.first] == [1, 0, None, 2 * 0x3F800000]
    assert d.first[0].reference_bits == "0x40000000" and d.first[0].candidate_bits == "0x40000001"
    assert d.max_distance == 2 * 0x3F800000


def test_f64_and_bf16_distances():
    ref = np.array([1.0, 1e300], np.float64)
    got = np.array([np.nextafter(1.0, 2.0), -1e300])
    d = compare_arrays(ref, got)
    assert d.first[0].distance == 1 and d.first[1].distance == 2 * int(ref[1:].view(np.uint64)[0])
    b = np.array([1, 2], ml_dtypes.bfloat16)
    c = b.copy()
    c[1] = ml_dtypes.bfloat16(2.015625)  # next bf16 above 2
    d = compare_arrays(b, c)
    assert d.kind == "float" and d.first[0].distance == 1 and d.first[0].index == (1,)


def test_integers_report_signed_difference_and_nd_index():
    ref = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = ref.copy()
    got[1, 2] = -7
    d = compare_arrays(ref, got)
    assert d.kind == "int" and d.first[0].index == (1, 2) and d.first[0].distance == -12
    u = compare_arrays(np.array([3], np.uint64), np.array([2**64 - 1], np.uint64))
    assert u.first[0].distance == 2**64 - 4


def test_structured_elements_compare_as_bytes():
    dt = np.dtype([("a", "<u2"), ("b", "<f4")])
    ref = np.zeros(3, dt)
    got = ref.copy()
    got["b"][2] = 1.0
    d = compare_arrays(ref, got)
    assert d.kind == "bytes" and d.differing == 1 and d.first[0].index == (2,) and d.first[0].distance is None


def test_only_the_first_differences_are_listed():
    ref = np.zeros(100, np.int16)
    d = compare_arrays(ref, ref + 1, first=3)
    assert d.differing == 100 and len(d.first) == 3 and d.max_distance == 1


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError):
        compare_arrays(np.zeros(3, np.float32), np.zeros(4, np.float32))


def test_two_cpu_runs_agree_and_leave_the_inputs_alone():
    args = saxpy_args()
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    report = ptxvm.compare(ptxvm.load(SAXPY)["saxpy"], 4, 256, args, devices=("cpu", "cpu"))
    assert report.ok and report.devices == ("cpu#1", "cpu#2")
    assert [(a.position, a.name, a.identical) for a in report.arrays] == [(2, "saxpy_param_2", True), (3, "saxpy_param_3", True)]
    assert "all 2 arrays bitwise identical" in str(report)
    assert all(np.array_equal(a, b) for a, b in zip(args[2:], before[2:]))


def perturbing_device(position, index, label="fakegpu"):
    """A stand-in for the GPU: the CPU engine, then one element nudged by one ulp."""
    def run(module, name, grid, block, args, shared_mem, cluster):
        module.kernel(name).launch(grid, block, args, shared_mem=shared_mem, cluster=cluster)
        a = args[position]
        a[index] = np.nextafter(a[index], np.float32(np.inf))
    run.label = label
    return run


def test_an_injected_device_that_differs():
    args = saxpy_args()
    mod = ptxvm.load(SAXPY)
    report = ptxvm.compare(mod, 4, 256, args, kernel="saxpy", devices=("cpu", perturbing_device(3, 17)))
    assert not report.ok and report.devices == ("cpu", "fakegpu")
    (diff,) = report.differing
    assert diff.position == 3 and diff.differing == 1 and diff.first[0].index == (17,) and diff.first[0].distance == 1
    text = str(report)
    assert "1 of 2 arrays differ" in text and "[17]" in text and "1 ulp" in text and "fakegpu" in text
    data = json.loads(json.dumps(report.to_json()))
    assert data["ok"] is False and data["candidate"] == "fakegpu"
    assert data["arrays"][1]["first"][0]["index"] == [17] and data["arrays"][1]["first"][0]["distance"] == 1


def test_an_array_passed_twice_stays_aliased_in_each_copy():
    seen = []

    def run(module, name, grid, block, args, shared_mem, cluster):
        seen.append(args[2] is args[3])
        module.kernel(name).launch(grid, block, args)
    args = saxpy_args()
    args[3] = args[2]
    report = ptxvm.compare(ptxvm.load(SAXPY)["saxpy"], 4, 256, args, devices=("cpu", run))
    assert seen == [True] and report.ok and len(report.arrays) == 1


def test_a_fault_on_one_side_is_reported():
    text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry t(.param .u64 p) { trap; }\n"
    report = ptxvm.compare(ptxvm.loads(text)["t"], 1, 32, [np.zeros(4, np.int32)], devices=("cpu", "cpu"))
    assert not report.ok and set(report.faults) == {"cpu#1", "cpu#2"} and "a launch failed" in str(report)


def test_compare_takes_a_path_and_a_kernel_name():
    report = ptxvm.compare(str(SAXPY), 4, 256, saxpy_args(), kernel="saxpy", devices=("cpu", "cpu"))
    assert report.ok and report.kernel == "saxpy"
    with pytest.raises(TypeError, match="kernel="):
        ptxvm.compare(ptxvm.load(SAXPY), 4, 256, saxpy_args(), devices=("cpu", "cpu"))
    with pytest.raises(ValueError, match="unknown device"):
        ptxvm.compare(ptxvm.load(SAXPY)["saxpy"], 4, 256, saxpy_args(), devices=("cpu", "tpu"))


def test_surfaces_get_fresh_copies_per_device():
    from .ptx_kernels import SURFACE_SQUARE

    s = np.arange(8 * 16, dtype=np.uint32).reshape(8, 16)
    before = s.copy()
    seen = []

    def run(module, name, grid, block, args, shared_mem, cluster):
        seen.append(args[0])
        module.kernel(name).launch(grid, block, args)
    report = ptxvm.compare(ptxvm.loads(SURFACE_SQUARE)["square"], 1, (16, 8), [ptxvm.surface_object(s)],
                           devices=("cpu", run))
    assert report.ok and report.arrays[0].identical and report.arrays[0].name == "s"
    assert np.array_equal(s, before) and seen[0].array is not s
    assert np.array_equal(seen[0].array, before * before)


def test_a_differing_surface_is_reported():
    from .ptx_kernels import SURFACE_SQUARE

    def run(module, name, grid, block, args, shared_mem, cluster):
        module.kernel(name).launch(grid, block, args)
        args[0].array[3, 5] += 1
    report = ptxvm.compare(ptxvm.loads(SURFACE_SQUARE)["square"], 1, (16, 8),
                           [ptxvm.surface_object(np.ones((8, 16), np.uint32))], devices=("cpu", run))
    assert not report.ok and report.differing[0].first[0].index == (3, 5)


def tensor_store_launch():
    """A recorded TMA store case: its kernel and arguments, the map over a DeviceArray."""
    from ptxvm.conformance import golden as G
    from ptxvm.engine.core.device import default_device

    if "tensor" not in G.families_present(G.default_dir()):
        pytest.skip("tensor goldens not recorded")
    L = G.GoldenFamily("tensor", G.default_dir()).case("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group#2d_f32").launch
    args = L.args([])
    for ti, mi, t in L.tensor_map_slots():
        args[mi] = dev = default_device().to_device(args[mi])
        args[ti] = ptxvm.tensor_map(dev, tuple(t["box"]), element_strides=tuple(t["element_strides"]), swizzle=t["swizzle"],
                                    oob_fill=t["oob_fill"], dtype=t["dtype"], shape=tuple(t["shape"]))
    return ptxvm.loads(L.ptx)[L.kernel], L.grid, L.block, args


def test_tensor_maps_and_device_arrays_get_fresh_copies():
    kernel, grid, block, args = tensor_store_launch()
    dev = next(a for a in args if isinstance(a, ptxvm.DeviceArray))
    before = dev.copy_to_host()

    def run(module, name, grid, block, args, shared_mem, cluster):
        module.kernel(name).launch(grid, block, args)
        d = next(a for a in args if isinstance(a, ptxvm.DeviceArray))
        assert d is not dev and next(a for a in args if isinstance(a, bytes) and len(a) == 128).array is d
        d.copy_from_host(d.copy_to_host() + 1)
    report = ptxvm.compare(kernel, grid, block, args, devices=("cpu", run))
    assert np.array_equal(dev.copy_to_host(), before)
    (diff,) = report.differing
    assert args[diff.position] is dev and diff.differing == dev.copy_to_host().size


def symbol_launch():
    from .ptx_kernels import SYMBOLS

    st = np.zeros(1, dtype=[("tag", "<u4"), ("pad", "<u4"), ("x", "<f4"), ("pad2", "<u4")])
    st["tag"], st["x"] = 7, 10.0
    return ptxvm.loads(SYMBOLS)["k"], [np.zeros(3, np.uint32), st[0]]


def test_module_variables_are_compared_from_the_same_start():
    k, args = symbol_launch()
    k.module.write_symbol("gcount", np.array([41], np.uint32))
    seen = []

    def run(module, name, grid, block, args, shared_mem, cluster):
        seen.append(int(module.read_symbol("gcount", np.uint32)[0]))
        module.kernel(name).launch(grid, block, args)
        module.write_symbol("cscale", np.array([2.0], np.float32))
    report = ptxvm.compare(k, 1, 1, args, symbols=["gcount", "cscale"], devices=("cpu", run))
    assert seen == [41]  # the candidate starts where the reference started, not where it ended
    gcount, cscale = report.arrays[1:]
    assert gcount.name == "gcount" and gcount.position == -1 and gcount.dtype == "uint32" and gcount.identical
    assert not cscale.identical and cscale.first[0].reference == "3.0" and cscale.first[0].candidate == "2.0"
    assert "symbol cscale" in str(report) and not report.ok
    assert k.module.read_symbol("gcount", np.uint32)[0] == 41  # the caller's module as it was
    report = ptxvm.compare(k, 1, 1, args, symbols={"gcount": np.int32}, devices=("cpu", "cpu"))
    assert report.ok and report.arrays[-1].dtype == "int32"
    with pytest.raises(KeyError):
        ptxvm.compare(k, 1, 1, args, symbols=["nope"], devices=("cpu", "cpu"))
