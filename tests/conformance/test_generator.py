"""The case generator: PTX that ptxas accepts, stable ids, deterministic inputs."""
from __future__ import annotations

import hashlib
import os

import numpy as np
import pytest

from ptxvm.conformance import golden as G
from ptxvm.conformance import inputs as I
from ptxvm.conformance import ptxas
from ptxvm.conformance.cases import FAMILIES, all_cases, family_cases

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = 48


def _sample():
    cases = all_cases()
    step = max(1, len(cases) // SAMPLE)
    picked = cases[::step][:SAMPLE]
    # every family is represented, and the refusal documented for mad.f32
    for fam in FAMILIES:
        if not any(c.family == fam for c in picked):
            picked.append(family_cases(fam)[0])
    picked += [c for c in cases if c.expect_reject][:1]
    # cases of a PTX ISA newer than the installed ptxas knows (9.1+ needs ptxas 13.1+) are left out
    newest = ptxas.newest_isa()
    return [c for c in picked if tuple(int(x) for x in c.version.split(".")) <= newest]


@pytest.mark.skipif(not ptxas.available(), reason="ptxas is not installed (CUDA toolkit absent): PTX not re-checked")
def test_ptxas_accepts_a_sample():
    cases = _sample()
    bad = ptxas.assemble_cases(cases)
    unexpected = {cid: msg for cid, msg in bad.items() if not next(c for c in cases if c.id == cid).expect_reject}
    assert not unexpected, "\n".join(f"{k}: {v}" for k, v in unexpected.items())
    refused = [c.id for c in cases if c.expect_reject]
    assert all(cid in bad for cid in refused), "a form documented as refused on sm_90 now assembles"


def test_ids_unique_and_stable():
    ids = [c.id for c in all_cases()]
    assert len(ids) == len(set(ids))
    with open(os.path.join(HERE, "case_ids.txt")) as f:
        pinned = [line.strip() for line in f if line.strip() and not line.startswith("#")]
    missing = sorted(set(pinned) - set(ids))
    assert not missing, f"case ids disappeared (goldens key on them): {missing[:20]}"


def test_generation_is_deterministic():
    c = next(c for c in all_cases() if c.id == "add.rn.ftz.f32")
    a, b = G.launch_for_case(c), G.launch_for_case(c)
    assert a.ptx == b.ptx
    for (_, x), (_, y) in zip(a.srcs, b.srcs):
        assert np.array_equal(x, y)
    digest = hashlib.sha256(b"".join(x.tobytes() for _, x in a.srcs)).hexdigest()
    I._make.cache_clear()
    again = hashlib.sha256(b"".join(x.tobytes() for _, x in G.launch_for_case(c).srcs)).hexdigest()
    assert digest == again


def test_kernel_shape():
    c = next(c for c in all_cases() if c.id == "addc.cc.u32")
    ptx = c.ptx()
    assert ptx.startswith(".version 7.8\n.target sm_90\n.address_size 64\n")
    assert "addc.cc.u32 %o_d, %o_a, %o_b;" in ptx
    assert c.param_names() == ["in_a", "in_b", "in_ci", "out_d", "out_cf", "n"]
    L = G.launch_for_case(c)
    assert [n for n, _ in L.dsts] == ["d", "cf"]
    assert all((a.view(np.uint8) == G.SENTINEL).all() for _, a in L.dsts)
    assert L.lanes % 32 == 0 and L.srcs[2][1].max() <= 1


def test_edges_come_first():
    key = I.key("nary", "f32", "f32")
    a, b = I.make(key)
    first = set(a[:64].tolist()) | set(b[:64].tolist())
    assert 0x7F800000 in first and 0x80000000 in first     # +inf, -0
    assert any(0x7F800000 < x < 0x80000000 for x in first)  # a NaN


def test_exhaustive_half_inputs():
    c = next(c for c in all_cases() if c.id == "neg.f16")
    (a,) = I.make(c.inputs)
    assert a.size == 65536 and np.array_equal(np.sort(a), np.arange(65536, dtype=np.uint16))
