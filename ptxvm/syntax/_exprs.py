"""Constant expressions (ISA 4.5.4, C precedence) and variable initializers (ISA 5.4.4)."""
from __future__ import annotations

import re

from . import ast, lexer
from ._base import ParserBase
from .lexer import DIRECTIVE, FLOAT, HEXFLOAT, IDENT, INT

# Binary operators by precedence, loosest first (the ternary `?:` is looser than all of them).
BINARY_PRECEDENCE = {
    "||": 1,
    "&&": 2,
    "|": 3,
    "^": 4,
    "&": 5,
    "==": 6,
    "!=": 6,
    "<": 7,
    ">": 7,
    "<=": 7,
    ">=": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "%": 10,
}
UNARY_OPERATORS = ("-", "+", "!", "~")
CASTS = {".s64": "s64", ".u64": "u64"}

_DECIMAL = r"(?:0|[1-9]\d*)(?![\w$.])"
# `{1, 0, 0, 0, 2, ...}`: the byte arrays compilers emit, read in one step.
_FLAT_DECIMAL_LIST = re.compile(
    r"\{\s*(" + _DECIMAL + r"(?:\s*,\s*" + _DECIMAL + r")*)\s*\}", re.A
)

_SMALL_INTS = {}
_DIGIT_RUN = re.compile(r"\d+", re.A)


def int_lit(value: int, unsigned: bool) -> ast.IntLit:
    """IntLit nodes are immutable in practice; small signed ones are shared."""
    if unsigned or value > 1024:
        return ast.IntLit(value, unsigned)
    node = _SMALL_INTS.get(value)
    if node is None:
        node = _SMALL_INTS[value] = ast.IntLit(value)
    return node


_SMALL_INT_TEXT = {str(i): int_lit(i, False) for i in range(1025)}


def is_f32_literal(node) -> bool:
    return type(node) is ast.FloatLit and node.is_f32


class ExprParser(ParserBase):
    def is_register_name(self, name: str) -> bool:
        """Registers are not constants; the operand parser knows which names are registers."""
        return False
    # ------------------------------------------------------------------ constant expressions

    def parse_expr(self, depth: int = 0, section: bool = False) -> ast.Expr:
        """A full constant expression. `section` admits section names (`.debug_info`) as symbols."""
        start = self.lex.start
        cond = self._binary(1, depth, section)
        if self.lex.kind != "?":
            return cond
        self.lex.next()
        if_true = self.parse_expr(depth + 1, section)
        self.expect(":", "':' in conditional expression")
        if_false = self.parse_expr(depth + 1, section)
        return self._checked(ast.Conditional(cond, if_true, if_false), start, (cond, if_true, if_false))

    def _binary(self, min_precedence: int, depth: int, section: bool) -> ast.Expr:
        start = self.lex.start
        left = self._unary(depth, section)
        lex = self.lex
        while True:
            op = lex.kind
            precedence = BINARY_PRECEDENCE.get(op)
            if precedence is None or precedence < min_precedence:
                return left
            lex.next()
            right = self._binary(precedence + 1, depth, section)
            left = self._checked(ast.Binary(op, left, right), start, (left, right))

    def _unary(self, depth: int, section: bool) -> ast.Expr:
        self.check_depth(depth)
        lex = self.lex
        start = lex.start
        if lex.kind in UNARY_OPERATORS:
            op = lex.kind
            lex.next()
            operand = self._unary(depth + 1, section)
            return self._checked(ast.Unary(op, operand), start, (operand,))
        if lex.kind == "(" and lex.peek_kind() == DIRECTIVE:
            return self._cast(depth, section)
        return self._primary(depth, section)

    def _cast(self, depth: int, section: bool) -> ast.Expr:
        lex = self.lex
        start = lex.start
        lex.next()
        cast = CASTS.get(lex.value) if lex.kind == DIRECTIVE else None
        if cast is None:
            if section:  # `(.debug_str+4)`: a parenthesized expression after all
                lex.seek(start)
                return self._primary(depth, section)
            self.fail_expected("'.s64' or '.u64' in a cast")
        lex.next()
        self.expect(")", "')' after cast")
        operand = self._unary(depth + 1, section)
        return self._checked(ast.Cast(cast, operand), start, (operand,))

    def _primary(self, depth: int, section: bool) -> ast.Expr:
        lex = self.lex
        kind = lex.kind
        if kind == INT:
            try:
                value, unsigned = lexer.int_literal(lex.value)
            except ValueError as exc:
                self.fail(str(exc))
            lex.next()
            return int_lit(value, unsigned)
        if kind == HEXFLOAT:
            bits, is_f32 = lexer.hexfloat_literal(lex.value)
            lex.next()
            return ast.FloatLit(bits, is_f32)
        if kind == FLOAT:
            bits = lexer.float_literal(lex.value)
            lex.next()
            return ast.FloatLit(bits, False)
        if kind == IDENT:
            name = lex.value
            if "." in name or self.is_register_name(name):
                self.fail(f"'{name}' cannot be used in a constant expression")
            lex.next()
            return ast.SymbolRef(name)
        if kind == DIRECTIVE and section:
            name = lex.value
            lex.next()
            return ast.SymbolRef(name)
        if kind == "(":
            lex.next()
            inner = self.parse_expr(depth + 1, section)
            self.expect(")", "')'")
            return inner
        self.fail_expected("an expression")

    def _checked(self, node, start: int, children) -> ast.Expr:
        # ptxas rejects 0f literals as operands of any operator (ISA 4.5.2: not in expressions).
        for child in children:
            if is_f32_literal(child):
                self.fail("a 0f literal cannot be used in a constant expression", start, self.lex.start)
        return node

    # ------------------------------------------------------------------ initializers

    def parse_initializer(self, depth: int = 0) -> ast.InitItem:
        """`= value` or `= { ... }` (the `=` already consumed)."""
        lex = self.lex
        self.check_depth(depth)
        if lex.kind == "{":
            start = lex.start
            flat = _flat_list(self.text, start)
            if flat is not None:
                items, end = flat
                lex.seek(end)
                return ast.Initializer(items, self.span(start, start + 1))
            lex.next()
            items = [self.parse_initializer(depth + 1)]
            while lex.kind == ",":
                lex.next()
                items.append(self.parse_initializer(depth + 1))
            self.expect("}", "',' or '}' in initializer")
            return ast.Initializer(tuple(items), self.span(start, start + 1))
        if lex.kind == IDENT:
            following = lex.peek_kind()
            if lex.value == "generic" and following == "(":
                return self._generic()
            if following == "=" and "." not in lex.value:
                return self._field_init()
        if lex.kind == INT and lex.peek_kind() == "(":
            return self._mask(depth)
        return self.parse_expr(depth)

    def _generic(self) -> ast.Generic:
        """`generic(var)` or `generic(var)+offset`."""
        lex = self.lex
        start = lex.start
        lex.next()
        self.expect("(")
        name = self.expect_name("a variable name in generic()")
        self.expect(")", "')' after generic(name")
        offset = None
        if lex.kind == "+":
            lex.next()
            offset = self.parse_expr()
        return ast.Generic(name, offset, self.span(start, lex.start))

    def _mask(self, depth: int) -> ast.Mask:
        """`0xFF00(var)`: one byte of an address, selected by the mask (ISA 5.4.4)."""
        lex = self.lex
        start = lex.start
        mask = self.expect_int()
        self.expect("(")
        if lex.kind == IDENT and lex.value == "generic" and lex.peek_kind() == "(":
            operand = self._generic()
        else:
            operand = self.parse_expr(depth + 1)
        self.expect(")", "')' after mask operand")
        return ast.Mask(mask, operand, self.span(start, lex.start))

    def _field_init(self) -> ast.FieldInit:
        """`addr_mode_0 = wrap` in an opaque (.samplerref/.texref/.surfref) initializer."""
        lex = self.lex
        start = lex.start
        name = lex.value
        lex.next()
        lex.next()  # '='
        value = self.parse_expr()
        return ast.FieldInit(name, value, self.span(start, start + len(name)))


def _flat_list(text: str, start: int):
    """(items, end) when text[start:] begins with a brace list of decimal integers."""
    m = _FLAT_DECIMAL_LIST.match(text, start)
    if m is None:
        return None
    small = _SMALL_INT_TEXT.get
    items = []
    for digits in _DIGIT_RUN.findall(m.group(1)):
        node = small(digits)
        if node is None:
            value = int(digits)
            if value > lexer.UINT64_MAX:
                return None
            node = int_lit(value, value > lexer.INT64_MAX)
        items.append(node)
    return tuple(items), m.end()
