"""The wmma, matrix_ext and wgmma conformance families: every form the coverage table lists for them
has a case, their kernels run on the engine, and coverage reports forms the engine refuses as not
implemented (not as "no case yet")."""
from __future__ import annotations

import numpy as np
import pytest

from ptxvm.conformance import golden as G
from ptxvm.conformance import inputs as I
from ptxvm.conformance.cases import family_cases
from ptxvm.conformance.units import Unit, _literal_words, engine_refuses, isa_table

FAMILIES = ("wmma", "matrix_ext", "wgmma")


def _mapped_units():
    table = isa_table()
    if table is None:
        pytest.skip("the ISA table is not importable")
    units, mapper = table
    got = {}
    for fam in FAMILIES + ("matrix", "matrix_sp"):
        for c in family_cases(fam):
            key = mapper(c.opcode, c.modifiers)
            assert key is not None and key in units, f"{c.id} does not map onto the ISA table"
            got.setdefault(key, []).append(c.id)
    return units, got


def test_every_sm90_matrix_form_the_engine_takes_has_a_case():
    units, got = _mapped_units()
    want = [k for k, u in units.items() if u.on_sm90 and u.family == "matrix" and not engine_refuses(u.opcode, u.words)]
    assert len(want) >= 116
    missing = [k for k in want if k not in got]
    assert not missing, missing[:10]


@pytest.mark.parametrize("fam", FAMILIES)
def test_a_case_of_each_opcode_runs_on_the_engine_and_writes_every_output(fam):
    import ptxvm
    seen = set()
    for c in family_cases(fam):
        if c.instruction.split(".")[1] in seen:
            continue
        seen.add(c.instruction.split(".")[1])
        L = G.launch_for_case(c)
        k = ptxvm.loads(L.ptx).kernel(L.kernel)
        args = L.args()
        k.launch((L.grid, 1, 1), (L.block, 1, 1), args)
        for (name, _), a in zip(L.dsts, args[len(L.srcs):]):
            assert not (a.view(np.uint8) == G.SENTINEL).all(), f"{c.id}: output {name} never written"


def test_adversarial_inputs_hold_special_values_only_in_odd_warps():
    a, b, c = I.make(I.key("mma", "f16x2*4", "f16x2*2", "f32*4", arg="128"))
    h = a.view(np.float16).reshape(128, 8)
    assert np.isfinite(h[:32]).all() and np.isfinite(h[64:96]).all()
    assert not np.isfinite(h[32:64]).all() or not np.isfinite(h[96:]).all()
    pairs = h.reshape(128, 4, 2)
    assert (pairs[..., 1] == -pairs[..., 0]).sum() > 64      # cancelling pairs in the first operand
    bp = b.view(np.float16).reshape(128, 2, 2)
    assert (bp[..., 1] == bp[..., 0]).sum() > 32             # equal pairs in the second


def test_forms_the_engine_refuses_are_not_implemented_in_coverage(monkeypatch):
    from ptxvm.engine import dispatch
    monkeypatch.setitem(dispatch.ENGINE_REFUSES, "wgmma", (frozenset({"mma_async", "sp"}),))
    sp = "wgmma.mma_async.sp.sync.aligned.shape.dtype.atype.btype d, a-desc, b-desc, sp-meta, sp-sel, scale-d"
    dense = "wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc, b-desc, scale-d"
    u_sp = Unit(key="k", family="matrix", opcode="wgmma", syntax=sp, types=(), words=_literal_words(sp))
    u_dense = Unit(key="k", family="matrix", opcode="wgmma", syntax=dense, types=(), words=_literal_words(dense))
    assert u_sp.status()[0] == "not_implemented" and "refuses" in u_sp.status()[1]
    assert u_dense.status()[0] == "untested"


def test_literal_words_leave_optional_parts_out():
    assert _literal_words("wgmma.mma_async.sp.sync.aligned.shape{.satfinite}.s32 d") == \
        {"mma_async", "sp", "sync", "aligned", "shape", "s32"}
    assert _literal_words("ld{.weak}{.ss}.type d, [a]") == {"type"}
