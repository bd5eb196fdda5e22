"""The tensor family's plumbing: a TensorMapArg becomes a 128-byte kernel parameter, the launch
names which memory array each map covers, and the checker's runner (ptxvm.tensor_map over the
engine's copy of that array) loads the box a NumPy reference expects."""
import numpy as np

from ptxvm.conformance import check as CK
from ptxvm.conformance import golden as G
from ptxvm.conformance.cases import family_cases

LOAD = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes#2d_f32"


def _case(cid):
    return next(c for c in family_cases("tensor") if c.id == cid)


def test_map_parameter_and_slots():
    c = _case(LOAD)
    ptx = c.ptx()
    assert "  .param .align 64 .b8 tmap_t[128],\n  .param .u32 n" in ptx
    assert "cvta.param.u64 %tm_t, %tm_t;" in ptx
    L = G.launch_for_case(c)
    args = L.args()
    (ti, mi, spec), = L.tensor_map_slots()
    assert isinstance(args[ti], dict) and spec["memory"] == "t" and args[mi] is L.mems[0][1]
    assert G.case_meta(c)["tmaps"] == [spec]


def test_engine_loads_the_reference_box():
    c = _case(LOAD)
    L = G.launch_for_case(c)
    t = L.mems[0][1].view(np.uint32).reshape(40, 48).copy()
    a = L.srcs[0][1].reshape(4, 128)
    got = CK.engine_runner()(L)["out:d"].view(np.uint32).reshape(4, 2048 // 4)
    for cta in range(4):
        x0, y0 = 16 * cta - 8, 8 * cta - 4
        want = np.zeros((8, 16), np.uint32)
        for i in range(8):
            for j in range(16):
                y, x = y0 + i, x0 + j
                if 0 <= y < 40 and 0 <= x < 48:
                    want[i, j] = t[y, x]
        assert np.array_equal(got[cta, :128], want.reshape(-1))
        assert np.array_equal(got[cta, 128:].reshape(-1, 4), np.repeat(a[cta, 32:, None], 4, axis=1))


def test_stores_leave_the_rest_of_the_tensor():
    c = _case("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group#2d_f32")
    L = G.launch_for_case(c)
    before = L.mems[0][1].copy()
    out = CK.engine_runner()(L)
    t = out["mem:t"].view(np.uint32).reshape(36, 40)
    assert (t != before.view(np.uint32).reshape(36, 40)).any()
    assert np.array_equal(t[0], before.view(np.uint32).reshape(36, 40)[0])   # row 0 is above every box


def test_recorded_golden_replays_with_its_tensor_map():
    directory = G.default_dir()
    if "tensor" not in G.families_present(directory):
        import pytest
        pytest.skip("tensor goldens not recorded")
    gc = G.GoldenFamily("tensor", directory).case(LOAD)
    assert gc.launch.tmaps and CK.run_case(gc, "tensor", CK.engine_runner()).status == "verified"
