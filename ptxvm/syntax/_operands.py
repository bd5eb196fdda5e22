"""Instruction statements: guard, opcode with modifiers, operands (ISA 4.3.2, chapter 6).

Operand nodes carry no spans: the fast path (_fastpath.py) interns them by their source text
within a module, so one `%r12` node serves every occurrence. `spans.operand_span` recovers an
operand's position from its instruction's span.
"""
from __future__ import annotations

import re
from typing import Optional

from . import ast
from ._exprs import ExprParser
from .lexer import DIRECTIVE, EOF, IDENT
from .scope import Scopes

COMPONENTS = frozenset("xyzwrgba")
# video instructions' byte/half-word selectors and masks (ISA 9.7.17): a.b0, a.h1, d.h10, a.b3210
VIDEO_SELECTOR = re.compile(r"(?:b[0-7]{1,4}|h[0-3]{1,2})\Z")
_COMPONENT_DIRECTIVES = frozenset("." + c for c in COMPONENTS)
SINK = ast.Sink()

_OPCODE = re.compile(r"[A-Za-z][\w$]*(?:\.\w+(?:::\w+)*)*\Z", re.A)
NAME = r"(?:[%$][\w$]|[A-Za-z_])[\w$]*"


def split_opcode(name: str) -> Optional[tuple[str, tuple[str, ...]]]:
    if not _OPCODE.match(name):
        return None
    parts = name.split(".")
    return parts[0], tuple(parts[1:])


class OperandParser(ExprParser):
    scopes: Scopes

    def is_register_name(self, name: str) -> bool:
        return self.scopes.is_register(name)

    # ------------------------------------------------------------------ instructions

    def parse_guard(self) -> ast.Guard:
        lex = self.lex
        start = lex.start
        lex.next()  # '@'
        negated = self.accept("!")
        end = lex.end
        name = self.expect_name("a predicate after '@'")
        return ast.Guard(name, negated, self.span(start, end))

    def parse_instruction(self, guard: Optional[ast.Guard]) -> ast.Instruction:
        lex = self.lex
        if lex.kind != IDENT:
            self.fail_expected("an instruction")
        start, end = lex.start, lex.end
        parts = split_opcode(lex.value)
        if parts is None:
            self.fail(f"'{lex.value}' is not an instruction")
        opcode, modifiers = parts
        lex.next()
        operands = []
        if lex.kind in ("}", EOF, DIRECTIVE):
            self.fail_expected("';' after the instruction")
        if lex.kind != ";":
            in_call = opcode == "call"
            operands.append(self._plus_constant(self.parse_operand(in_call)))
            while lex.kind == ",":
                lex.next()
                operands.append(self._plus_constant(self.parse_operand(in_call)))
        self.expect(";", "',' or ';' after operand")
        return ast.Instruction(opcode, modifiers, tuple(operands), guard, self.span(start, end))

    # ------------------------------------------------------------------ operands

    def parse_operand(self, in_call: bool = False):
        lex = self.lex
        kind = lex.kind
        if kind == IDENT:
            name = lex.value
            if name == "_":
                lex.next()
                return self._pred_pair(SINK)
            if "." in name:
                return self._pred_pair(self._component_register(name))
            following = lex.peek_kind()
            if following == "[":
                return self._array_element()
            if following == DIRECTIVE or self.scopes.is_register(name):
                register = self._register(name)
                if register is not None:
                    return self._pred_pair(register)
            return ast.Immediate(self.parse_expr())
        if kind == "[":
            return self._bracket()
        if kind == "{":
            return self._pred_pair(self._vector())
        if kind == "(" and in_call:
            return self._param_list()
        if kind == "-" and lex.peek_kind() == IDENT:  # `-a`, `-a.b1`: vmad's negated sources
            start = lex.start
            lex.next()
            name = lex.value
            base = name.split(".", 1)[0]
            if self.scopes.is_register(base) and lex.peek_kind() not in ("[", "+", "-", "*", "/"):
                reg = self._component_register(name) if "." in name else self._register(name)
                if reg is not None:
                    return ast.Register(reg.name, reg.component, minus=True)
            lex.seek(start)
        if kind == "!" and lex.peek_kind() == IDENT:
            start = lex.start
            lex.next()
            name = lex.value
            if "." not in name and self.scopes.is_register(name) and lex.peek_kind() != "[":
                lex.next()
                return ast.Register(name, None, True)
            lex.seek(start)
        return ast.Immediate(self.parse_expr())

    def _plus_constant(self, operand):
        """`%r + 4` as a whole operand: ptxas 13.0/13.5 take a register plus a constant expression
        in any source position (not `%r - 4`, not `4 + %r`, not inside braces or brackets)."""
        if self.lex.kind != "+" or type(operand) is not ast.Register or operand.negated or operand.minus:
            return operand
        self.lex.next()
        return ast.Register(operand.name, operand.component, offset=self.parse_expr())

    def _register(self, name: str) -> Optional[ast.Register]:
        """A register named `name` (the current token); `%tid .x` with a detached component too.
        None, with nothing consumed, when `name` followed by a directive is not a register."""
        lex = self.lex
        start = lex.start
        lex.next()
        if lex.kind == DIRECTIVE and lex.value in _COMPONENT_DIRECTIVES:
            component = lex.value[1]
            lex.next()
            return ast.Register(name, component)
        if not self.scopes.is_register(name):
            lex.seek(start)
            return None
        return ast.Register(name)

    def _component_register(self, dotted: str) -> ast.Register:
        name, component = dotted.split(".", 1)
        if component not in COMPONENTS and not VIDEO_SELECTOR.match(component):
            self.fail(f"'{dotted}': '.{component}' is not a vector component (x, y, z, w, r, g, b, a)")
        self.lex.next()
        return ast.Register(name, component)

    def _pred_pair(self, first):
        """`first|second`: the predicate pair destination of setp and friends."""
        lex = self.lex
        if lex.kind != "|":
            return first
        lex.next()
        if lex.kind != IDENT:
            self.fail_expected("a predicate after '|'")
        name = lex.value
        if name == "_":
            lex.next()
            return ast.PredPair(first, SINK)
        if "." in name:
            return ast.PredPair(first, self._component_register(name))
        lex.next()
        return ast.PredPair(first, ast.Register(name))

    def _array_element(self) -> ast.ArrayElement:
        lex = self.lex
        base = ast.SymbolRef(lex.value)
        lex.next()
        lex.next()  # '['
        if lex.kind == IDENT and "." not in lex.value and self.scopes.is_register(lex.value):
            # `a[%r]`, `a[%r+4]` (ISA "Arrays as Operands"; ptxas 13.0 takes no `a[%r-4]`, no `a[4+%r]`)
            name = lex.value
            lex.next()
            index = self._plus_constant(ast.Register(name))
        else:
            index = self.parse_expr()
        self.expect("]", "']' after array index")
        return ast.ArrayElement(base, index)

    def _bracket(self):
        """`[addr]`, `[base+offset]`, or a bracketed operand list `[tex, sampler, {coords}]`."""
        lex = self.lex
        lex.next()  # '['
        if lex.kind == IDENT and "." not in lex.value and lex.peek_kind() == "-":
            lex.next()
            self.fail("an address offset is written [base+offset]; use '+-' for a negative offset")
        if lex.kind == IDENT and "." not in lex.value and lex.peek_kind() in ("+", "]", ","):
            name = lex.value
            base = ast.Register(name) if self.scopes.is_register(name) else ast.SymbolRef(name)
            lex.next()
            if lex.kind == ",":
                first = base if isinstance(base, ast.Register) else ast.Immediate(base)
                return self._bracket_list(first)
            offset = None
            if lex.kind == "+":
                lex.next()
                offset = self.parse_expr()
            self.expect("]", "']' after address")
            return ast.Address(base, offset, unified=self._unified_suffix())
        if lex.kind in ("{", "[") or (lex.kind == IDENT and "." in lex.value):
            return self._bracket_list(self.parse_operand())
        offset = self.parse_expr()
        if lex.kind == ",":
            return self._bracket_list(ast.Immediate(offset))
        self.expect("]", "']' after address")
        return ast.Address(None, offset, unified=self._unified_suffix())

    def _unified_suffix(self) -> bool:
        """`[a].unified` (ld of a unified address): the suffix after the closing bracket."""
        lex = self.lex
        if lex.kind == DIRECTIVE and lex.value == ".unified":
            lex.next()
            return True
        return False

    def _bracket_list(self, first) -> ast.BracketList:
        lex = self.lex
        elements = [first]
        while lex.kind == ",":
            lex.next()
            elements.append(self.parse_operand())
        self.expect("]", "',' or ']' in bracketed operand")
        return ast.BracketList(tuple(elements))

    def _vector(self) -> ast.VectorOperand:
        lex = self.lex
        lex.next()  # '{'
        elements = [self.parse_operand()]
        while lex.kind == ",":
            lex.next()
            elements.append(self.parse_operand())
        self.expect("}", "',' or '}' in vector operand")
        return ast.VectorOperand(tuple(elements))

    def _param_list(self) -> ast.ParamList:
        lex = self.lex
        lex.next()  # '('
        elements = []
        if lex.kind != ")":
            elements.append(self.parse_operand())
            while lex.kind == ",":
                lex.next()
                elements.append(self.parse_operand())
        self.expect(")", "',' or ')' in call parameter list")
        return ast.ParamList(tuple(elements))
