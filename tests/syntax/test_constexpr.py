"""Constant expressions (ISA 4.5). The expected values marked `ptxas` were read back from cubins
that ptxas 13.0 built from `.global .s64 v = <expr>;` where ptxas and the document disagree."""
import math

import pytest

from ptxvm.syntax import ast
from ptxvm.syntax.constexpr import ConstExprError, evaluate, evaluate_typed

from helpers import module

U64 = 2**64


def expr(text: str) -> ast.Expr:
    (decl,) = module(f".global .s64 v = {text};").items
    return decl.init


@pytest.mark.parametrize(
    "text, value, kind",
    [
        ("42", 42, "s64"),
        ("42U", 42, "u64"),
        ("0xfabc123400000000", 0xFABC123400000000, "u64"),
        ("-1", -1, "s64"),
        ("-1U", U64 - 1, "u64"),
        ("-(-42)", 42, "s64"),
        ("+123", 123, "s64"),
        ("!5", 0, "s64"),
        ("!0", 1, "s64"),
        ("~0", U64 - 1, "u64"),
        ("(1 + 2) * 3", 9, "s64"),
        ("1 + 2 * 3", 7, "s64"),
        ("10 - 4 - 3", 3, "s64"),
        ("(-7) / 2", -3, "s64"),  # truncation toward zero
        ("(-7) / 2U", (U64 - 7) // 2, "u64"),
        ("-9223372036854775807 - 1", -(2**63), "s64"),
        ("9223372036854775807 + 1", -(2**63), "s64"),  # wraps, stays signed
        ("(-9223372036854775807 - 1) / -1", -(2**63), "s64"),
        ("-1U >> 1", 2**63 - 1, "u64"),  # logical
        ("-16 >> 2U", -4, "s64"),  # arithmetic: the first operand's type
        ("(.u64)-1 >> 60", 15, "u64"),
        ("(.s64)0xFFFFFFFFFFFFFFFF >> 1", -1, "s64"),
        ("-1 < 0U", 0, "s64"),  # usual conversions: unsigned compare
        ("-3 < -2", 1, "s64"),
        ("2 == 2U", 1, "s64"),
        ("(-1 && 2) - 2", -1, "s64"),
        ("0 || 0", 0, "s64"),
        ("1 <= 2 >= 0 == 1 != 0", 1, "s64"),
        ("6 & 3 | 8 ^ 1", 11, "s64"),
        ("1 ? 2 : 3 ? 4 : 5", 2, "s64"),
        ("0 ? 2 : 0 ? 4 : 5", 5, "s64"),
        ("WARP_SZ * 2", 64, "s64"),
        # ptxas, where the document says otherwise
        ("(-8 & -1) >> 1", -4, "s64"),  # & | ^ keep the converted type (table: .u64)
        ("(-8 | 0) >> 1", -4, "s64"),
        ("(-8 ^ 0) >> 1", -4, "s64"),
        ("-7 % 2", 1, "u64"),  # operands as .u64
        ("((-8 % 5) - 10) >> 62", 3, "u64"),  # % yields .u64 (table: .s64)
        ("7 % -2", 7, "u64"),
        ("1 << 64", 1, "s64"),  # shift counts modulo 64
        ("1 << 65", 2, "s64"),
        ("-1 >> 70", -1, "s64"),
        ("256 >> 65", 128, "s64"),
        ("1 >> -1", 0, "s64"),
        ("(0 ? 2U : -1) >> 60", -1, "s64"),  # ?: keeps the chosen operand's type
        ("(1 ? -16 : 2U) / 2", -8, "s64"),
    ],
)
def test_integer_expressions(text, value, kind):
    assert evaluate_typed(expr(text)) == (value, kind)


@pytest.mark.parametrize(
    "text, value",
    [
        ("1.5 * 2.0 - 0.25", 2.75),
        ("-1.5", -1.5),
        ("1.0 / 3.0", 1.0 / 3.0),
        ("0d3FF0000000000000 + 1.0", 2.0),
        ("0.1", 0.1),
    ],
)
def test_float_expressions(text, value):
    assert evaluate_typed(expr(text)) == (value, "f64")


def test_float_comparisons_are_signed_integers():
    assert evaluate_typed(expr("1.5 < 2.5")) == (1, "s64")
    assert evaluate_typed(expr("1.5 == 1.5")) == (1, "s64")


def test_lone_0f_literal():
    assert evaluate(expr("0f3F800000")) == 1.0
    assert evaluate(expr("(0f40000000)")) == 2.0


@pytest.mark.parametrize(
    "text, message",
    [
        ("1.5 + 1", "type mismatch"),
        ("1 ? 1.5 : 2.5", "integer constant expression expected"),
        ("1.5 ? 1 : 2", "integer constant expression expected"),
        ("!1.5", "integer constant expression expected"),
        ("~1.5", "integer constant expression expected"),
        ("(.s64)1.5", "integer constant expression expected"),
        ("1.5 && 1", "type mismatch"),
        ("1.5 && 2.5", "needs integer operands"),
        ("1.5 % 1.0", "needs integer operands"),
        ("1 / 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("1.0 / 0.0", "division by zero"),
        ("undefined_name + 1", "unknown symbol 'undefined_name'"),
    ],
)
def test_errors(text, message):
    with pytest.raises(ConstExprError, match=message):
        evaluate(expr(text))


def test_symbols():
    e = expr("base + 8")
    assert evaluate_typed(e, {"base": 0x1000}) == (0x1008, "u64")
    assert evaluate(ast.SymbolRef("f"), {"f": 2.5}) == 2.5


def test_built_nodes():
    e = ast.Binary("*", ast.IntLit(3), ast.Unary("-", ast.IntLit(5)))
    assert evaluate(e) == -15
    assert math.isinf(evaluate(ast.FloatLit(0x7FF0000000000000, False)))
