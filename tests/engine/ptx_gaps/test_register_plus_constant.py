"""`register + constant` source operands (`st.u64 [x], r + 1;`). ptxas 13.0/13.5 accept them in any
source position of an integer or bit-size register and add in the register's width (IADD3 in the
SASS, read with cuobjdump); the engine does the same, then reads the sum as the operand's type."""
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

HERE = Path(__file__).resolve().parent
FILE = HERE / "register_plus_constant.ptx"
HDR = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _kernel(body):
    return (HDR + ".visible .entry k(.param .u64 p)\n{\n.reg .u64 %rd<4>; .reg .u32 %r<4>; .reg .f32 %f<4>;\n"
            ".reg .pred %p<3>;\n" + body + "\nret;\n}\n")


def test_register_plus_constant_runs():
    m = ptxvm.load(FILE)
    a = np.zeros(256, np.uint32)
    m["plus"].launch(1, 32, [a])
    tid = np.arange(32)
    assert a[0:32].tolist() == (tid + 1).tolist()
    assert a[32:64].tolist() == (2 * tid + 13).tolist()
    assert a[64:96].tolist() == [(0xFFFFFFFF + 5000000000) % 2**32] * 32
    assert a[96:128].tolist() == [100 if t == 3 else 200 for t in tid]
    assert a[128:160].tolist() == (((tid + 1) % 32) + 10).tolist()
    assert a[160:192].tolist() == [1] * 32
    assert a[192:196].view(np.int64).tolist() == [-3, 1]
    assert a[196] == sum(range(1, 33))
    assert a[224:256].tolist() == (2 * tid + 14).tolist()


def test_round_trip():
    m = ptxvm.load(FILE)
    text = m.to_ptx()
    assert "%r1 + (1 << 4)" in text and "%rd4 + 2" in text
    assert ptxvm.loads(text).to_ptx() == text


@pytest.mark.parametrize("version", VERSIONS)
def test_ptxas_accepts_file(version):
    ok, err = ptxas_accepts(version, FILE.read_text())
    assert ok, err


# ptxas 13.0 and 13.5 refuse these; so does ptxvm
REFUSED = {
    "minus": "st.global.u32 [%rd1], %r2 - 1;",  # Parsing error near '-'
    "constant_first": "st.global.u32 [%rd1], 1 + %r2;",  # Parsing error near '%r2'
    "destination": "ld.global.u32 %r1 + 1, [%rd1];",  # Result register required
    "in_braces": "st.global.v2.u32 [%rd1], {%r1 + 1, %r2};",  # Parsing error near '+'
    "special_register": "st.global.u32 [%rd1], %tid.x + 1;",  # Parsing error near '+'
    "vector_element": ".reg .v2 .u32 w;\nst.global.u32 [%rd1], w.y + 1;",  # Parsing error near '+'
    "float_constant": "st.global.u32 [%rd1], %r2 + 0f3f800000;",  # Integer constant expression expected
    "register_register": "mov.u32 %r1, %r2 + %r3;",  # Parsing error near '%r3'
    "branch": "bra.uni %r1 + 1;",  # Label expected
    "call_argument": None,  # a module, below
}
REFUSED_MODULES = {
    "call_argument": ".func f(.reg .u32 a) { ret; }\n"
                     ".visible .entry k() { .reg .u32 %r<3>; call f, (%r1 + 1); ret; }",
    "symbol": ".global .u32 g;\n.visible .entry k() { .reg .u64 %rd<3>; mov.u64 %rd1, %rd2 + g; ret; }",
}

# ptxas 13.0/13.5 accept these but cannot compile them to anything meaningful: a float register
# crashes ptxas (SIGSEGV) or the instruction is dropped, a predicate makes it run out of memory, a
# whole vector register adds the constant to the first element and garbage to the others. Not
# given to ptxas here (it would crash or hang the test).
MEANINGLESS = {
    "float_register": "st.global.f32 [%rd1], %f1 + 1;",
    "float_add": "add.f32 %f1, %f2, %f3 + 1;",
    "predicate": "selp.u32 %r1, 1, 2, %p1 + 1;",
    "whole_vector": ".reg .v2 .u32 w;\nst.global.v2.u32 [%rd1], w + 1;",
}


@pytest.mark.parametrize("name", sorted(n for n, b in REFUSED.items() if b))
def test_refused(name):
    with pytest.raises(ptxvm.PtxError):
        ptxvm.loads(_kernel(REFUSED[name]))


@pytest.mark.parametrize("name", sorted(REFUSED_MODULES))
def test_refused_modules(name):
    with pytest.raises(ptxvm.PtxError):
        ptxvm.loads(HDR + REFUSED_MODULES[name])


@pytest.mark.parametrize("name", sorted(MEANINGLESS))
def test_meaningless_refused(name):
    with pytest.raises(ptxvm.PtxError, match=r"\+ constant"):
        ptxvm.loads(_kernel(MEANINGLESS[name]))


@pytest.mark.parametrize("version", VERSIONS)
def test_ptxas_refuses(version):
    for name, body in REFUSED.items():
        if body:
            ok, _ = ptxas_accepts(version, _kernel(body))
            assert not ok, name
    for name, text in REFUSED_MODULES.items():
        ok, _ = ptxas_accepts(version, HDR + text)
        assert not ok, name
