"""Evaluation of PTX constant expressions (ISA 4.5): 64-bit integers that are signed (.s64) or
unsigned (.u64), and .f64 floating point.

Where ptxas (CUDA 13) disagrees with the document, this follows ptxas, which was checked by
assembling initialized `.global .s64` variables and reading the values back from the cubin:
  - `%` yields .u64 (the document's table says .s64);
  - `&`, `|`, `^` use the usual arithmetic conversions (as the text says; the table says .u64);
  - a shift count is taken modulo 64 (`1 << 64` is 1, `-1 >> 70` is -1);
  - `c ? a : b` yields the chosen operand with its own type, without the usual conversions, and
    its operands must be integers;
  - INT64_MIN / -1 wraps to INT64_MIN (ptxas itself crashes on it).
"""
from __future__ import annotations

from typing import Mapping, Optional, Union

from . import ast
from .lexer import float_from_bits

S64 = "s64"
U64 = "u64"
F64 = "f64"
MASK64 = (1 << 64) - 1

Number = Union[int, float]

PREDEFINED = {"WARP_SZ": (32, S64)}


class ConstExprError(ValueError):
    """The expression cannot be evaluated; `node` is the sub-expression at fault."""

    def __init__(self, message: str, node: object = None):
        super().__init__(message)
        self.message = message
        self.node = node


def evaluate(expr: ast.Expr, symbols: Optional[Mapping[str, Number]] = None) -> Number:
    """The value of `expr`: an int (.s64 results in [-2**63, 2**63), .u64 in [0, 2**64)) or a float.

    `symbols` maps names (variables, functions, labels) to their values, e.g. addresses; a symbol
    given as an int is .u64. `WARP_SZ` is predefined. Raises ConstExprError.
    """
    return evaluate_typed(expr, symbols)[0]


def evaluate_typed(expr: ast.Expr, symbols: Optional[Mapping[str, Number]] = None) -> tuple[Number, str]:
    """(value, type) of `expr`, type being "s64", "u64" or "f64"."""
    if isinstance(expr, ast.FloatLit) and expr.is_f32:
        return float_from_bits(expr.bits, True), F64
    return _Evaluator(symbols or {}).eval(expr)


def _wrap(value: int, kind: str) -> int:
    value &= MASK64
    if kind == S64 and value >> 63:
        value -= 1 << 64
    return value


class _Evaluator:
    def __init__(self, symbols: Mapping[str, Number]):
        self.symbols = symbols

    def eval(self, e) -> tuple[Number, str]:
        method = getattr(self, "_" + type(e).__name__, None)
        if method is None:
            raise ConstExprError(f"{type(e).__name__} is not a constant expression", e)
        return method(e)

    def _int(self, e) -> tuple[int, str]:
        value, kind = self.eval(e)
        if kind == F64:
            raise ConstExprError("integer constant expression expected", e)
        return value, kind

    def _IntLit(self, e: ast.IntLit):
        kind = U64 if e.unsigned or e.value >> 63 else S64
        return _wrap(e.value, kind), kind

    def _FloatLit(self, e: ast.FloatLit):
        if e.is_f32:
            raise ConstExprError("a 0f literal cannot be used in a constant expression", e)
        return float_from_bits(e.bits, False), F64

    def _SymbolRef(self, e: ast.SymbolRef):
        if e.name in self.symbols:
            value = self.symbols[e.name]
            if isinstance(value, float):
                return value, F64
            return _wrap(int(value), U64), U64
        if e.name in PREDEFINED:
            return PREDEFINED[e.name]
        raise ConstExprError(f"unknown symbol '{e.name}' in constant expression", e)

    def _Unary(self, e: ast.Unary):
        if e.op in "+-":
            value, kind = self.eval(e.operand)
            if e.op == "+":
                return value, kind
            return (-value, kind) if kind == F64 else (_wrap(-value, kind), kind)
        value, kind = self._int(e.operand)
        if e.op == "!":
            return int(value == 0), S64
        if e.op == "~":
            return ~value & MASK64, U64
        raise ConstExprError(f"unknown unary operator '{e.op}'", e)

    def _Cast(self, e: ast.Cast):
        value, _ = self._int(e.operand)
        if e.type not in (S64, U64):
            raise ConstExprError(f"invalid cast (.{e.type})", e)
        return _wrap(value, e.type), e.type

    def _Conditional(self, e: ast.Conditional):
        cond, _ = self._int(e.cond)
        chosen = self._int(e.if_true)
        other = self._int(e.if_false)
        return chosen if cond else other

    def _Binary(self, e: ast.Binary):
        lv, lk = self.eval(e.left)
        rv, rk = self.eval(e.right)
        if (lk == F64) != (rk == F64):
            raise ConstExprError("constant expression type mismatch (integer and floating point)", e)
        if lk == F64:
            return self._float_binary(e, lv, rv)
        return self._int_binary(e, lv, lk, rv, rk)

    @staticmethod
    def _float_binary(e: ast.Binary, a: float, b: float):
        op = e.op
        if op == "+":
            return a + b, F64
        if op == "-":
            return a - b, F64
        if op == "*":
            return a * b, F64
        if op == "/":
            if b == 0:
                raise ConstExprError("division by zero in constant expression", e)
            return a / b, F64
        comparisons = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}
        if op in comparisons:
            return int(comparisons[op]), S64
        raise ConstExprError(f"operator '{op}' needs integer operands", e)

    @staticmethod
    def _int_binary(e: ast.Binary, a: int, ak: str, b: int, bk: str):
        op = e.op
        if op in ("<<", ">>"):
            count = b & 63
            if op == "<<":
                return _wrap(a << count, ak), ak
            return (a >> count if ak == S64 else (a & MASK64) >> count), ak
        if op == "&&":
            return int(a != 0 and b != 0), S64
        if op == "||":
            return int(a != 0 or b != 0), S64
        if op == "%":
            if b == 0:
                raise ConstExprError("division by zero in constant expression", e)
            return (a & MASK64) % (b & MASK64), U64
        kind = U64 if U64 in (ak, bk) else S64
        a, b = _wrap(a, kind), _wrap(b, kind)
        if op == "+":
            return _wrap(a + b, kind), kind
        if op == "-":
            return _wrap(a - b, kind), kind
        if op == "*":
            return _wrap(a * b, kind), kind
        if op == "/":
            if b == 0:
                raise ConstExprError("division by zero in constant expression", e)
            quotient = abs(a) // abs(b)
            return _wrap(quotient if (a < 0) == (b < 0) else -quotient, kind), kind
        if op == "&":
            return _wrap(a & b, kind), kind
        if op == "|":
            return _wrap(a | b, kind), kind
        if op == "^":
            return _wrap(a ^ b, kind), kind
        comparisons = {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b, "==": a == b, "!=": a != b}
        if op in comparisons:
            return int(comparisons[op]), S64
        raise ConstExprError(f"unknown binary operator '{op}'", e)
