"""Array elements indexed by a register (`tab[%r]`, `tab[%rd+1]`, ISA "Arrays as Operands"), replayed
against the H200 (tests/goldens/kernels/array_operands.npz, recorded by
tools/device/probe_array_operands.py from the kernels in array_operand_probe.py): the index steps by
the array's scalar size (4 bytes in a .v4 .u32 array), a .s16 index is sign-extended, a 64-bit
index register gives its low 32 bits, and the byte offset wraps in 32 bits. Plus what the verifier
refuses, as ptxas 13.0 does."""
from __future__ import annotations

import hashlib
import json
import pathlib
import sys

import numpy as np
import pytest

import ptxvm

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "engine"))
import array_operand_probe as P  # noqa: E402

GOLDEN = ROOT / "tests" / "goldens" / "kernels" / "array_operands.npz"
META = json.loads(GOLDEN.with_suffix(".meta.json").read_text())


def test_the_recorded_kernels_are_these():
    assert META["ptx_sha256"] == hashlib.sha256(P.PTX.encode()).hexdigest(), "PTX changed: re-record"
    assert META["kernels"]["probe"]["inp_sha256"] == hashlib.sha256(P.probe_inputs().tobytes()).hexdigest()
    assert META["kernels"]["wrap"]["inp_sha256"] == hashlib.sha256(P.wrap_inputs().tobytes()).hexdigest()
    assert "H200" in META["device"]["gpu"]


@pytest.mark.parametrize("kernel, inputs, shape", [("probe", P.probe_inputs, (P.THREADS, 8)),
                                                   ("wrap", P.wrap_inputs, (32,))])
def test_register_indexed_elements_match_h200(kernel, inputs, shape):
    assert META["kernels"][kernel]["status"] == "ok"
    want = np.load(GOLDEN)[f"{kernel}.out"]
    out = np.full(shape, 0x55555555, np.uint32)
    ptxvm.loads(P.PTX, "array_operands.ptx").kernel(kernel)[1, shape[0]](inputs(), out)
    np.testing.assert_array_equal(out, want)


BODY = """.version 8.0
.target sm_90
.address_size 64
.global .u32 tab[8];
.visible .entry k(.param .u64 out)
{{
  .reg .b32 %r<4>; .reg .pred %p; .reg .f32 %f; .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x; setp.eq.u32 %p, %r1, 0; mov.b32 %f, %r1;
  {instr}
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r2;
  ret;
}}
"""


@pytest.mark.parametrize("instr, message", [
    ("ld.global.u32 %r2, tab[%p];", "cannot index an array"),       # ptxas: "Use integer or bit only"
    ("ld.global.u32 %r2, tab[%f];", "cannot index an array"),
    ("ld.global.u32 %r2, tab[%r1-1];", "']' after array index"),     # ptxas: syntax error at '-'
    ("ld.global.u32 %r2, tab[2+%r1];", "constant expression"),       # ptxas: syntax error at '%r1'
    ("ld.global.u32 %r2, tab[%tid.x];", "constant expression"),      # ptxas: syntax error at '.x'

    ("ld.global.u32 %r2, tab[%r9];", "%r9"),
])
def test_what_ptxas_refuses_is_refused(instr, message):
    with pytest.raises((ptxvm.PtxSyntaxError, ptxvm.PtxVerifyError), match=message.replace("[", r"\[")):
        ptxvm.loads(BODY.format(instr=instr), "idx.ptx")


def test_a_special_register_may_index():
    """ptxas 13.0 takes `tab[%laneid]` (not `tab[%tid.x]`)."""
    src = BODY.format(instr="ld.global.u32 %r2, tab[%laneid];").replace(".global .u32 tab[8];",
                                                                        ".global .u32 tab[8] = {5, 6, 7, 8};")
    src = src.replace("st.global.u32 [%rd1], %r2;", "mul.wide.u32 %rd2, %r1, 4; add.s64 %rd1, %rd1, %rd2;\n"
                      "  st.global.u32 [%rd1], %r2;")
    out = np.zeros(4, np.uint32)
    ptxvm.loads(src, "laneid.ptx").kernel("k")[1, 4](out)
    assert out.tolist() == [5, 6, 7, 8]


def test_printed_back_it_parses_to_the_same_module():
    from ptxvm.syntax.printer import print_module

    mod = ptxvm.loads(P.PTX, "array_operands.ptx")
    text = print_module(mod.ast)
    assert "tab[%j + 1]" in text and "sh[%r9 + (-0)]" in text and "mov.u64 %rd4, tab[%i];" in text
    again = ptxvm.loads(text, "printed.ptx")
    out1, out2 = (np.zeros((P.THREADS, 8), np.uint32) for _ in range(2))
    mod.kernel("probe")[1, P.THREADS](P.probe_inputs(), out1)
    again.kernel("probe")[1, P.THREADS](P.probe_inputs(), out2)
    np.testing.assert_array_equal(out1, out2)
