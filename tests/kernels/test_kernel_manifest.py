"""Integrity of the realistic-kernel manifest (tests/kernels/cases.py).

Needs only NumPy: the PTX signatures are read with the small regex parser of
tools/build_corpus.py, not with ptxvm.
"""
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


C = _load("kernel_cases_manifest", HERE / "cases.py")
BC = _load("build_corpus_tool", ROOT / "tools" / "build_corpus.py")

_ENTRIES = {}


def entries(ptx_file):
    if ptx_file not in _ENTRIES:
        _ENTRIES[ptx_file] = BC.ptx_entries((C.PTX_DIR / ptx_file).read_text())
    return _ENTRIES[ptx_file]


def test_case_lists():
    assert len(C.CORE_CASES) >= 20
    assert C.CASES == C.CORE_CASES + C.EXTRA_CASES
    assert all(c.feature is None for c in C.CASES)
    assert all(c.feature for c in C.ADVANCED_CASES)
    names = [c.name for c in C.ALL_CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", C.ALL_CASES, ids=lambda c: c.name)
def test_signature_matches_ptx(case):
    assert case.ptx.endswith((".sm_90.ptx", ".sm_90a.ptx"))  # sm_90a: wgmma
    params = entries(case.ptx)[case.kernel]
    assert len(params) == len(case.args)
    for arg, (ptype, size, align) in zip(case.args, params):
        if isinstance(arg, (C.In, C.Out, C.InOut, C.Texture, C.Surface)):
            assert size == 8, (arg, ptype)
        elif isinstance(arg, C.Scalar):
            assert C.scalar_dtype(arg.ptx_type).itemsize == size, (arg, ptype)
        else:
            assert len(arg.bytes_value) == size and arg.align in (None, align), (arg, ptype)


@pytest.mark.parametrize("case", C.ALL_CASES, ids=lambda c: c.name)
def test_materialize_is_deterministic(case):
    a = C.materialize(case, 7)
    b = C.materialize(case, 7)
    assert len(a) == len(case.args)
    for spec, x, y in zip(case.args, a, b):
        if isinstance(spec, C.Struct):
            assert isinstance(x, bytes) and x == y
        elif isinstance(spec, C.Scalar):
            assert x.dtype == C.scalar_dtype(spec.ptx_type) and x == y
        else:
            assert isinstance(x, np.ndarray) and x.flags.c_contiguous
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
            if isinstance(spec, C.Out):
                assert x.size == spec.count and x.dtype == np.dtype(spec.dtype)
                assert (x.view(np.uint8) == C.POISON_BYTE).all()


def test_launch_shapes_are_modest():
    for case in C.ALL_CASES:
        assert 1 <= case.threads <= 300_000, case.name
        assert all(1 <= b <= 1024 for b in case.block), case.name
        assert case.block[0] * case.block[1] * case.block[2] <= 1024, case.name
        assert 0 <= case.shared_bytes <= 48 * 1024, case.name
