"""The whole-statement fast paths on the shapes at their edges: each case parses exactly as the
general parser alone parses it (same tree, same spans, or the same diagnostics)."""
import pytest

from ptxvm.frontend import parse
from ptxvm.errors import PtxSyntaxError
from ptxvm.syntax import ast

from helpers import HEADER, parse_general, statement_spans

SECTION_LINES = [
    ".b64 $L__tmp355",
    ".b32 .debug_loc+206",
    ".b32 .debug_loc + 206",
    ".b32 .debug_abbrev",
    ".b64 __local_depot0",
    ".b64 sym+4+4",
    ".b64 sym+4*2",
    ".b64 sym-4",
    ".b64 sym\n+ 4",
    ".b64 sym // a comment\n.b8 1",
    ".b64 sym /* c */ + 4",
    ".b64 sym+18446744073709551615",
    ".b64 sym+18446744073709551616",
    ".b64 sym+4U",
    ".b64 sym+0x10",
    ".b64 sym+007",
    ".b64 %r1",
    ".b64 %sym",
    ".b64 _",
    ".b64 kernel_param_0",
    ".b64 a.b",
    ".b64 a.",
    ".b32 .debug_loc::x",
    ".b32 .debug_loc.x",
    ".b64 sym:",
    ".b64 sym;",
    ".b64 sym ? 1 : 2",
    ".b64 sym, 4",
    ".b8 1, 2,\n3",
    ".b8 1 2",
    ".b8 18446744073709551616",
    ".b8 1025, 65535, 0",
    "label_1:\n.b64 label_1",
    ".b64 $L__tmp355\n$L__tmp356:\n.b32 $L__tmp356+1",
]
DECLARATIONS = ".global .b32 sym;\n.global .b32 kernel_param_0;\n"


def _same_as_general(text: str) -> None:
    try:
        fast = parse(text, "t.ptx")
    except PtxSyntaxError as error:
        with pytest.raises(PtxSyntaxError) as general:
            parse_general(text, "t.ptx")
        assert general.value.diagnostics == error.diagnostics
        return
    general = parse_general(text, "t.ptx")
    assert general == fast
    assert statement_spans(general) == statement_spans(fast)


@pytest.mark.parametrize("line", SECTION_LINES)
def test_section_data_lines(line):
    _same_as_general(HEADER + DECLARATIONS + ".section .debug_info\n{\n\t.b8 1\n\t" + line + "\n\t.b8 2\n}\n")


def test_section_symbols_are_symbols():
    text = HEADER + ".section .debug_info\n{\n.b64 $L__tmp1\n.b32 .debug_loc+206\n}\n"
    (section,) = parse(text, "t.ptx").items
    first, second = section.entries
    assert first == ast.SectionEntry("b64", (ast.SymbolRef("$L__tmp1"),))
    assert second == ast.SectionEntry("b32", (ast.Binary("+", ast.SymbolRef(".debug_loc"), ast.IntLit(206)),))
    assert (first.span.line, first.span.col, first.span.length) == (6, 1, 4)
    assert (second.span.line, second.span.col, second.span.length) == (7, 1, 4)


@pytest.mark.parametrize("register", ["%r1", "$sym", "sym"])
def test_section_symbol_declared_as_a_register(register):
    """A section's name that a .reg declaration made a register is the general parser's error."""
    _same_as_general(HEADER + f".reg .b64 {register};\n.section .debug_info\n{{\n.b64 {register}\n}}\n")


BODY_LINES = [
    "add.s32 %r1, %r2, 1;",
    "add.s32 %r1, %r1, %r1;",
    "add.s32 %r1,%r2,1;",
    "add.s32 \t%r1 , %r2 ,\t1 ;",
    "ret ;",
    "ret \t;",
    "exit\t;",
    "add.s32 %r1, , 1;",
    "add.s32 %r1 %r2, 1;",
    "add.s32 %r1, %r2, 1",
    "@%p1 bra $L__BB0_1;",
    "@!%p1 bra $L__BB0_1;",
    "mov.b64 %rd1, {%r1, %r2};",
    "mov.u32 %r1, %tid.x;",
    "ld.global.u32 %r1, [%rd1+4];",
    "ld.global.u32 %r1, [%rd1 + -4];",
    "st.global.u32 [%rd1], 18446744073709551616;",
    ".loc 1 2 3\n\tadd.s32 %r1, %r2, 1;",
    ".loc 1 2 3\n\t, function_name $L__info_string0, inlined_at 1 1 1\n\tret;",
    "$L__BB0_1:\n\tret;",
    "$L__BB0_1: ret;",
    ".reg .b32 %q<3>;\n\tadd.s32 %q1, %q2, 1;",
    "{\n\t.reg .b32 %r1;\n\tadd.s32 %r1, %r1, 1;\n\t}\n\tadd.s32 %r1, %r1, 1;",
]


@pytest.mark.parametrize("line", BODY_LINES)
def test_body_statements(line):
    regs = ".reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n\t.reg .pred %p<10>;\n"
    _same_as_general(HEADER + f".visible .entry k()\n{{\n\t{regs}\t{line}\n$L__BB0_9:\n\tret;\n}}\n")


def test_spans_after_a_long_header():
    """Spans asked for behind the last one (a function's name after its parameters) and far
    ahead of it keep their lines and columns."""
    params = ",\n".join(f"\t.param .u64 k_param_{i}" for i in range(50))
    text = HEADER + f".visible .entry k(\n{params}\n)\n{{\n\tret;\n}}\n" + "\n" * 1000 + ".global .b32 g;\n"
    module = parse(text, "t.ptx")
    kernel, variable = module.items
    assert (kernel.span.line, kernel.span.col) == (4, 17)
    assert (kernel.params[49].span.line, kernel.params[49].span.col) == (54, 14)
    assert kernel.body.statements[0].span.line == 57
    assert (variable.span.line, variable.span.col) == (1059, 14)
    assert statement_spans(parse_general(text, "t.ptx")) == statement_spans(module)
