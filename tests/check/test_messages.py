"""What the diagnostics say and where they point: exact text (position, message, source line,
caret) of a few; every error of a file reported; rule failures as diagnostics, never tracebacks."""
from __future__ import annotations

import pytest

import ptxvm
from ptxvm.check import verify
from ptxvm.errors import PtxError, PtxVerifyError
from ptxvm.frontend import parse

from .conftest import CORPUS, SNIPPETS, diagnostics_of

KERNEL = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(
    .param .u64 p_out
)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<4>;
{body}
    ret;
}}
"""


def formatted(text: str, name: str = "t.ptx") -> list[str]:
    return [d.format() for d in diagnostics_of(text, name)[1]]


def test_range_register_off_by_one():
    text = (CORPUS / "invalid" / "register_range_off_by_one.ptx").read_text()
    assert formatted(text) == [
        "t.ptx:16:13: error: '%r4' is not declared (%r<4> declares %r0 to %r3)\n"
        "    add.s32 %r4, %r1, 1;\n"
        "            ^~~",
        "t.ptx:17:18: error: '%r4' is not declared (%r<4> declares %r0 to %r3)\n"
        "    mov.u32 %r1, %r4;\n"
        "                 ^~~",
    ]


def test_state_space_mismatch_points_at_the_address():
    text = (SNIPPETS / "space_ld_global_of_param.ptx").read_text()
    assert formatted(text) == [
        "t.ptx:19:25: error: state space mismatch: 'p_out' is a .param variable but the instruction accesses "
        ".global\n"
        "    ld.global.u64 %rd2, [p_out];\n"
        "                        ^~~~~~~",
    ]


def test_guard_and_special_register_messages():
    text = KERNEL.format(body="    @%r1 add.u32 %r2, %tid.x, 1;")
    assert formatted(text) == [
        "t.ptx:13:5: error: the guard must be a .pred register, not .b32\n"
        "    @%r1 add.u32 %r2, %tid.x, 1;\n"
        "    ^~~~",
        "t.ptx:13:23: error: special registers cannot be operands of add.u32 (copy them with mov first)\n"
        "    @%r1 add.u32 %r2, %tid.x, 1;\n"
        "                      ^~~~~~",
    ]


def test_call_argument_type():
    text = (SNIPPETS / "call_array_size.ptx").read_text()
    assert formatted(text) == [
        "t.ptx:15:21: error: type of argument 'x' does not match formal parameter 'a'\n"
        "        call.uni f, (x);\n"
        "                    ^~~",
    ]


def test_duplicate_label_names_the_first():
    text = (CORPUS / "invalid" / "duplicate_label.ptx").read_text()
    assert formatted(text) == [
        "t.ptx:22:5: error: duplicate definition of label 'LOOP' (first defined at line 20)\n"
        "    LOOP:\n"
        "    ^~~~",
    ]


def test_undeclared_label():
    text = KERNEL.format(body="    bra NOWHERE;")
    assert formatted(text) == ["t.ptx:13:9: error: label 'NOWHERE' is not declared\n    bra NOWHERE;\n        ^~~~~~~"]


def test_every_error_of_a_file_is_reported():
    text = (CORPUS / "invalid" / "multiple_errors.ptx").read_text()
    kind, ds = diagnostics_of(text, "t.ptx")
    assert kind == "verify"
    assert [d.span.line for d in ds] == [20, 21, 22]
    text = KERNEL.format(body="\n".join([
        "    add.s32 %r1, %f1, 1;",  # 13: .f32 register for .s32
        "    mov.u32 %r2, %nope;",  # 14: undeclared
        "    add.sat.u32 %r3, %r1, 1;",  # 15: .sat with .u32
        "    st.const.u32 [%rd1], %r1;",  # 16: st to .const
        "    bra MISSING;",  # 17: undeclared label
        "    .reg .b32 %r2;",  # 18: duplicate of %r<4>'s %r2
    ]))
    kind, ds = diagnostics_of(text, "t.ptx")
    assert [d.span.line for d in ds] == [13, 14, 15, 16, 17, 18]
    assert all(d.severity == "error" for d in ds)


def test_diagnostics_are_in_source_order_across_rules():
    text = """.version 8.0
.target sm_90
.address_size 64
.global .u32 g;
.global .u32 g;
.visible .entry k()
{
    .reg .b32 %r<2>;
    mov.u32 %r1, %r5;
    ret;
}
.func f()
{
    ret;
}
.func f()
{
    ret;
}
"""
    kind, ds = diagnostics_of(text, "t.ptx")
    lines = [d.span.line for d in ds]
    assert lines == sorted(lines) and lines == [5, 9, 17]


def test_loads_raises_verify_error_with_every_diagnostic():
    text = (CORPUS / "invalid" / "multiple_errors.ptx").read_text()
    with pytest.raises(PtxVerifyError) as info:
        ptxvm.loads(text, "m.ptx")
    assert len(info.value.diagnostics) == 3
    assert "m.ptx:20:" in str(info.value)


def test_warnings_do_not_fail_a_module():
    text = (SNIPPETS / "dir_minnctapersm_alone_ok.ptx").read_text()
    ds = verify(parse(text, "t.ptx"), text)
    assert [d.severity for d in ds] == ["warning"]
    ptxvm.loads(text, "t.ptx", verify=True)  # no exception: warnings only


def test_a_failing_rule_becomes_an_internal_error_diagnostic(monkeypatch):
    from ptxvm.check import instructions

    def broken(self, *args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(instructions.InstructionRules, "check", broken)
    text = KERNEL.format(body="    add.u32 %r1, %r2, 1;")
    ds = verify(parse(text, "t.ptx"), text)
    assert ds and all(d.severity == "error" for d in ds)
    assert "internal verifier error: RuntimeError: boom" in ds[0].message
    with pytest.raises(PtxError):
        ptxvm.loads(text, "t.ptx")


def test_a_failing_walker_still_returns_diagnostics(monkeypatch):
    from ptxvm.check import walk

    monkeypatch.setattr(walk.Walker, "run", lambda self: 1 / 0)
    text = KERNEL.format(body="")
    ds = verify(parse(text, "t.ptx"), text)
    assert len(ds) == 1 and ds[0].message.startswith("internal verifier error: ZeroDivisionError")


def test_constant_wider_than_its_operand_is_a_warning():
    # ptxas accepts it (snippets/imm_int_wide_ok.ptx) and keeps the low bits: a warning, not an error
    text = KERNEL.format(body="    add.u32 %r1, %r1, 4294967296;\n    add.u32 %r1, %r1, -1;")
    assert formatted(text) == [
        "t.ptx:13:23: warning: constant 4294967296 does not fit in .u32; only its low 32 bits are used\n"
        "    add.u32 %r1, %r1, 4294967296;\n"
        "                      ^~~~~~~~~~",
    ]
    ptxvm.loads(text, "t.ptx")
