"""The printer: exact canonical text, and the fixed-point / equal-AST round trip."""
import pytest

from ptxvm.syntax import ast
from ptxvm.syntax.printer import print_expr, print_module, print_operand, print_statement

from helpers import HEADER, body, parse, roundtrip

R = ast.Register
I = ast.IntLit


def test_module_text():
    text = (
        HEADER
        + """
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);
.global .align 8 .u64 gptr = generic(gvals)+8;
.visible .entry k(.param .u64 .ptr.global.align 16 p0) .maxntid 256, 1, 1 .pragma "nounroll";
{
.reg .pred %p<2>; .reg .b64 %rd<4>;
ld.param.u64 %rd1, [p0];
$L1: @!%p1 bra.uni $L1;
{ .param .b64 param0; st.param.b64 [param0+0], %rd1; call.uni (retval0), vprintf, (param0, param0); }
.loc 1 2 3
ret;
}
"""
    )
    assert roundtrip(text) == (
        ".version 8.0\n"
        ".target sm_90\n"
        ".address_size 64\n"
        "\n"
        ".extern .func (.param .b32 func_retval0) vprintf(\n"
        "\t.param .b64 a,\n"
        "\t.param .b64 b\n"
        ")\n"
        ";\n"
        "\n"
        ".global .align 8 .u64 gptr = generic(gvals)+8;\n"
        "\n"
        ".visible .entry k(\n"
        "\t.param .u64 .ptr.global.align 16 p0\n"
        ")\n"
        ".maxntid 256, 1, 1\n"
        '.pragma "nounroll";\n'
        "{\n"
        "\t.reg .pred %p<2>;\n"
        "\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [p0];\n"
        "$L1:\n"
        "\t@!%p1 bra.uni $L1;\n"
        "\t{\n"
        "\t\t.param .b64 param0;\n"
        "\t\tst.param.b64 [param0+0], %rd1;\n"
        "\t\tcall.uni (retval0), vprintf, (param0, param0);\n"
        "\t}\n"
        "\t.loc 1 2 3\n"
        "\tret;\n"
        "}\n"
    )


@pytest.mark.parametrize(
    "expr, text",
    [
        (I(42), "42"),
        (I(42, True), "42U"),
        (I(2**64 - 1, True), "18446744073709551615U"),
        (ast.FloatLit(0x3F800000, True), "0f3F800000"),
        (ast.FloatLit(0x3FB999999999999A, False), "0d3FB999999999999A"),
        (ast.Unary("-", I(1)), "-1"),
        (ast.Unary("-", ast.Unary("-", I(1))), "-(-1)"),
        (ast.Binary("-", I(1), ast.Unary("-", I(1))), "1 - -1"),
        (ast.Binary("*", ast.Binary("+", I(1), I(2)), I(3)), "(1 + 2) * 3"),
        (ast.Binary("+", I(1), ast.Binary("*", I(2), I(3))), "1 + 2 * 3"),
        (ast.Binary("-", I(1), ast.Binary("-", I(2), I(3))), "1 - (2 - 3)"),
        (ast.Binary("-", ast.Binary("-", I(1), I(2)), I(3)), "1 - 2 - 3"),
        (ast.Conditional(ast.Conditional(I(1), I(2), I(3)), I(4), I(5)), "(1 ? 2 : 3) ? 4 : 5"),
        (ast.Conditional(I(1), I(2), ast.Conditional(I(3), I(4), I(5))), "1 ? 2 : 3 ? 4 : 5"),
        (ast.Cast("u64", ast.Unary("-", I(1))), "(.u64)(-1)"),
        (ast.Binary("<<", ast.Cast("s64", I(1)), I(3)), "(.s64)1 << 3"),
        (ast.Unary("!", ast.Binary("&&", I(1), I(0))), "!(1 && 0)"),
    ],
)
def test_expressions(expr, text):
    assert print_expr(expr) == text


@pytest.mark.parametrize(
    "operand, text",
    [
        (R("%tid", "x"), "%tid.x"),
        (R("%p1", negated=True), "!%p1"),
        (ast.Address(R("%rd1"), ast.Unary("-", I(4))), "[%rd1+-4]"),
        (ast.Address(ast.SymbolRef("g")), "[g]"),
        (ast.Address(None, I(16)), "[16]"),
        (ast.Address(None, ast.Binary("+", ast.SymbolRef("g"), I(4))), "[(g + 4)]"),
        (ast.PredPair(ast.Sink(), R("%p")), "_|%p"),
        (ast.ArrayElement(ast.SymbolRef("a"), I(1)), "a[1]"),
        (ast.BracketList((ast.Immediate(ast.SymbolRef("t")), ast.VectorOperand((R("%f1"), R("%f2"))))), "[t, {%f1, %f2}]"),
    ],
)
def test_operands(operand, text):
    assert print_operand(operand) == text


def test_statements():
    stmts = body(
        "ts: .branchtargets L0;\nL0:\np: .callprototype (.param .b32 _) _ (.param .b8 _[12]) .abi_preserve 4;\n"
        ".loc 1 9 3, function_name s0+2, inlined_at 1 21 3\n"
    )
    assert [print_statement(s) for s in stmts] == [
        "\tts: .branchtargets L0;",
        "L0:",
        "\tp: .callprototype (.param .b32 _) _ (.param .b8 _[12]) .abi_preserve 4;",
        "\t.loc 1 9 3, function_name s0+2, inlined_at 1 21 3",
    ]


@pytest.mark.parametrize(
    "snippet",
    [
        ".global .u8 addr[] = {0xff(foo), 0xff00(foo+4), 0xff0000(generic(foo)+4)};",
        ".global .samplerref s = { addr_mode_0 = wrap, filter_mode = linear };",
        ".global .attribute(.managed) .align 4 .f32 mvar;",
        ".const .f32 vals[] = { 0.1, -1.5, 0f3F800000, 1e300 };",
        ".global .s64 e = (.s64)(-1) >> 1 ? 1 : (2 + 3) * 4;",
        ".section .debug_info\n{\n.b32 a-b\na:\n.b32 .debug_abbrev+4\n.b8 -1, 2\n}",
        '.file 1 "x.cu", 12, 34',
        ".func (.reg .b32 r) f(.reg .b32 a) .noreturn { ret; }",
    ],
)
def test_fixed_point_on_snippets(snippet):
    roundtrip(HEADER + snippet + "\n")


def test_print_statement_rejects_non_statements():
    with pytest.raises(TypeError):
        print_statement(ast.IntLit(1))


def test_print_module_of_built_ast():
    m = ast.Module(
        (7, 8),
        ("sm_90",),
        64,
        (
            ast.Function(
                "entry",
                "k",
                body=ast.Block((ast.Instruction("add", ("s32",), (R("%r1"), R("%r1"), ast.Immediate(I(1)))),)),
            ),
        ),
    )
    printed = print_module(m)
    assert "\tadd.s32 %r1, %r1, 1;" in printed
    assert parse(printed) == m
