"""vmad's negated sources (`-a`, `-b.h1`, `-c`): parsed, printed back, checked as ptxas does, and run
as the ISA's pseudocode says (the H200 goldens of the video family pin the rest)."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm.syntax import ast

SRC = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o)
{
 .reg .b32 %r<8>; .reg .b64 %rd<2>;
 ld.param.u64 %rd1, [o]; ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd1];
 INS
 st.global.b32 [%rd1], %r1; ret;
}
"""


def _load(ins):
    return ptxvm.loads(SRC.replace("INS", ins))


def test_parse_and_print():
    m = _load("vmad.s32.s32.s32.sat %r1, -%r2.b0, %r3.h1, %r4;")
    ins = next(s for s in m.ast.function("k").body.statements if getattr(s, "opcode", "") == "vmad")
    a = ins.operands[1]
    assert isinstance(a, ast.Register) and a.minus and a.component == "b0" and not a.negated
    assert "vmad.s32.s32.s32.sat %r1, -%r2.b0, %r3.h1, %r4;" in m.to_ptx()


@pytest.mark.parametrize("ins,msg", [
    ("vmad.s32.s32.s32 %r1, -%r2, %r3, -%r4;", "either \\(a xor b\\) or c"),
    ("vmad.u32.u32.u32.po %r1, -%r2, %r3, %r4;", "vmad.po takes no negated operands"),
    ("add.s32 %r1, -%r2, %r3;", "'-' negates only vmad's sources"),
    ("vmad.s32.s32.s32 -%r1, %r2, %r3, %r4;", "'-' negates only vmad's sources"),
])
def test_rejected_as_ptxas_does(ins, msg):
    with pytest.raises(ptxvm.PtxError, match=msg):
        _load(ins)


@pytest.mark.parametrize("ins,a,b,c,want", [
    ("vmad.s32.s32.s32 %r1, -%r2.b0, %r3.h1, %r4;", 5, 3 << 16, 100, 100 - 15),
    ("vmad.s32.s32.s32 %r1, %r2, %r3, -%r4;", 7, 6, 100, 42 - 100),
    ("vmad.s32.s32.s32 %r1, -%r2, -%r3, %r4;", 7, 6, 100, 142),   # the two negations cancel
    ("vmad.u32.u32.u32 %r1, %r2, %r3, -%r4;", 7, 6, 100, 42 - 100),  # -c makes the result signed
])
def test_values_follow_the_pseudocode(ins, a, b, c, want):
    buf = np.array([a, b, c, 0], np.uint32)
    _load(ins)["k"].launch(1, 1, [buf])
    assert int(buf[0].view(np.int32)) == want
