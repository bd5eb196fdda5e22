"""Syntax errors: compiler-style diagnostics with a caret, collected past the first error."""
import pytest

from ptxvm.errors import Diagnostic, PtxSyntaxError
from ptxvm.frontend import parse, parse_file
from ptxvm.syntax import ast
from ptxvm.syntax.spans import operand_span

from helpers import HEADER, corpus_files


def errors(text: str) -> list[Diagnostic]:
    with pytest.raises(PtxSyntaxError) as info:
        parse(text, "bad.ptx")
    return info.value.diagnostics


def listing(text: str) -> str:
    with pytest.raises(PtxSyntaxError) as info:
        parse(text, "bad.ptx")
    return str(info.value)


def test_exact_diagnostic_with_caret():
    text = HEADER + ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2 1;\n\tret;\n}\n"
    assert listing(text) == (
        "bad.ptx:7:19: error: expected ',' or ';' after operand, found '1'\n"
        " add.s32 %r1, %r2 1;\n"
        "                  ^"
    )


def test_caret_covers_the_token():
    text = HEADER + ".visible .entry k()\n{\n\tmov.u32 %r1 %r22;\n}\n"
    assert listing(text).splitlines()[1:] == [" mov.u32 %r1 %r22;", "             ^~~~"]


def test_several_errors_are_collected_and_parsing_goes_on():
    text = (
        HEADER
        + ".visible .entry k()\n{\n"
        + "\tadd.s32 %r1, 08;\n"  # 6
        + "\tld.global.u32 %r1, [%rd1-4];\n"  # 7
        + "\t{ mov.u32 %r1, {%r2 %r3}; }\n"  # 8
        + "\tret\n}\n"  # 9, 10
        + ".global .u32 x\n"  # 11
        + ".global .u32 y;\n"  # 12
        + ".visible .entry k2() { bogus!; }\n"  # 13
    )
    diagnostics = errors(text)
    assert [(d.span.line, d.span.col, d.message) for d in diagnostics] == [
        (6, 15, "invalid numeric constant '08'"),
        (7, 26, "an address offset is written [base+offset]; use '+-' for a negative offset"),
        (8, 22, "expected ',' or '}' in vector operand, found '%r3'"),
        (10, 1, "expected ';' after the instruction, found '}'"),
        (12, 1, "expected ',' or ';' after declaration, found '.global'"),
        (13, 30, "expected an expression, found ';'"),
    ]
    assert all(d.span.file == "bad.ptx" and d.severity == "error" for d in diagnostics)


@pytest.mark.parametrize(
    "text, line, col, message",
    [
        ("", 1, 1, "missing .version directive"),
        (".target sm_90\n", 1, 1, "missing .version directive at the start of the module"),
        (HEADER + ".visible .entry k() {\n\tret;\n", 6, 1, "expected '}' to close the block, found end of file"),
        (HEADER + ".visible .entry k() { /* never closed\n ret; }", 4, 23, "unterminated comment"),
        (HEADER + ".global .f32 x = 0f3F800000 + 1.0;\n", 4, 18, "a 0f literal cannot be used in a constant expression"),
        (HEADER + ".global .u32 y[2+2];\n", 4, 17, "expected ']' after array size, found '+'"),
        (HEADER + ".entry (.param .b32 r) e() { ret; }\n", 4, 8, "a kernel (.entry) has no return parameters"),
        (HEADER + ".visible .entry k() { ;; }\n", 4, 23, "expected a statement, found ';'"),
        (HEADER + ".visible .entry k() { .file 1 \"a\" }\n", 4, 23, ".file is only allowed at module scope"),
        (HEADER + "ret;\n", 4, 1, "expected a directive, found 'ret'"),
        (HEADER + ".loc 1 2 3\n", 4, 1, ".loc is only allowed inside a function body"),
        (HEADER + ".visible .entry k() { mov.u32 %r1, %tid.q; }\n", 4, 36, "'%tid.q': '.q' is not a vector component (x, y, z, w, r, g, b, a)"),
        (HEADER + ".global .u64 x = 18446744073709551616;\n", 4, 18, "integer constant '18446744073709551616' does not fit in 64 bits"),
        (HEADER + ".visible .entry k() { add.s32 %r1, %r1, %r2 - 1; }\n", 4, 45, "expected ',' or ';' after operand, found '-'"),
        (".version 8\n", 1, 10, "expected a version number such as 8.0, found '8'"),
    ],
)
def test_messages(text, line, col, message):
    first = errors(text)[0]
    assert (first.span.line, first.span.col, first.message) == (line, col, message)


def test_error_limit():
    text = HEADER + ".visible .entry k() {\n" + "\tbad bad bad;\n" * 500 + "}\n"
    diagnostics = errors(text)
    assert len(diagnostics) == 51
    assert (diagnostics[-1].severity, diagnostics[-1].message) == ("note", "too many errors; parsing stopped here")


def test_deep_nesting_is_an_error_not_a_crash():
    text = HEADER + ".visible .entry k() {" + "{" * 5000 + "}" * 5000 + "}\n"
    assert "nesting deeper than" in errors(text)[0].message
    expr = "(" * 5000 + "1" + ")" * 5000
    assert "nesting deeper than" in errors(HEADER + f".global .u32 x = {expr};\n")[0].message
    assert "nesting deeper than" in errors(HEADER + ".global .u32 x = " + "-" * 5000 + "1;\n")[0].message


def test_invalid_corpus_files_parse_or_fail_cleanly():
    for path in corpus_files("invalid"):
        try:
            parse_file(path)
        except PtxSyntaxError as error:
            assert error.diagnostics and all(d.span.file == str(path) for d in error.diagnostics)


def test_operand_span():
    text = HEADER + ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tadd.s32 \t%r1, [x+4], {%r2, %r3};\n\tcall.uni (r),\n\t  f,\n\t  (a, b);\n}\n"
    m = parse(text, "t.ptx")
    add, call = [s for s in m.function("k").body.statements if isinstance(s, ast.Instruction)]
    lines = text.splitlines()
    spans = [operand_span(add, i, lines) for i in range(3)]
    assert [(s.line, s.col, s.length) for s in spans] == [(7, 11, 3), (7, 16, 5), (7, 23, 10)]
    assert operand_span(add, 3, lines) is None
    assert [(s.line, s.col) for s in (operand_span(call, i, text) for i in range(3))] == [(8, 11), (9, 4), (10, 4)]
    d = Diagnostic(spans[1], "not a register", "error", lines[6])
    assert d.format() == "t.ptx:7:16: error: not a register\n add.s32  %r1, [x+4], {%r2, %r3};\n               ^~~~~"
