"""Whole-statement fast paths for the shapes that make up most compiler output.

Inside a block, `fast_statements` matches one regular expression per statement at a text
position (`_STATEMENT`, whose alternatives are the shapes), with no tokens lexed: instructions
`[@[!]p] opcode.mods operands;` on one line, labels, `.loc f l c` and simple declarations;
inside a `.section`, `fast_section_entries` does the same for `.bN 1, 2, 3` data lines,
`.bN symbol[+N]` lines and labels. Whatever does not fit is left to the general parser at the
returned position. tests/syntax/test_fast_shapes.py holds the shapes at the edges.

Operands are resolved through `scopes.operand_cache` (text -> node); a miss is parsed by the
simple-operand pattern or, failing that, by the general `parse_operand` on the operand's text.
Both paths build identical trees, so the fast path only changes speed.
"""
from __future__ import annotations

import re
from typing import Optional

from . import ast
from ..errors import Span
from ._base import ParseError
from ._decls import DeclParser
from ._exprs import _SMALL_INT_TEXT, int_lit
from ._operands import NAME, SINK, split_opcode
from .lexer import SKIP, SKIP_RE, int_literal

_BLANKS = " \t\r\f\v"  # the whitespace the lexer skips, bar newlines (never inside a fast match)
# Characters that would continue a statement that has no terminator (.loc, data lines).
_CONTINUATIONS = frozenset(",+-*/%<>&|^?(!~=")
_DECIMAL = r"(?:0|[1-9]\d*)(?![\w$.])"

_INSTRUCTION = re.compile(
    SKIP + r"(?:(@)(!?)(" + NAME + r")[ \t]+)?([A-Za-z][\w$.:]*)([ \t][^;/\n\"]*)?;",
    re.A,
)
_LABEL = re.compile(
    SKIP + r"(" + NAME + r")[ \t]*:(?!" + SKIP + r"\.(?:branchtargets|calltargets|callprototype)(?![\w$]))",
    re.A,
)
_LOC = re.compile(
    SKIP + r"(\.loc)[ \t]+(" + _DECIMAL + r")[ \t]+(" + _DECIMAL + r")[ \t]+(" + _DECIMAL + r")",
    re.A,
)
# A `.section` data line or label: `.b8 1, 2, 3`; `.b64 $L__tmp12`, `.b32 .debug_abbrev+4` (a symbol,
# optionally plus a decimal offset: not `%` names, which the general parser classifies); `label:`.
_SECTION_SYMBOL = r"(?:\$[\w$]|[A-Za-z_])[\w$]*(?![\w$.])|\.[A-Za-z_][\w$]*(?![\w$.:])"
_DATA_LINE = re.compile(
    SKIP
    + r"(?:\.(b8|b16|b32|b64)[ \t]+(?:("
    + _DECIMAL
    + r"(?:[ \t]*,[ \t]*"
    + _DECIMAL
    + r")*)|("
    + _SECTION_SYMBOL
    + r")(?:[ \t]*\+[ \t]*("
    + _DECIMAL
    + r"))?)|("
    + NAME
    + r")[ \t]*:)",
    re.A,
)
_DECLARATION = re.compile(
    SKIP
    + r"\.(reg|param|local|shared)[ \t]+(?:\.align[ \t]+("
    + _DECIMAL
    + r")[ \t]+)?\.([a-z][a-z0-9]*)[ \t]+("
    + NAME
    + r")(?:<("
    + _DECIMAL
    + r")>|\[("
    + _DECIMAL
    + r")\])?[ \t]*;",
    re.A,
)
# The four shapes above as one pattern: one match per statement whichever it is (they are tried in
# this order; none can begin with a blank or '/', so sharing the leading SKIP changes nothing). The
# empty group that ends each alternative tells which one matched (`Match.lastindex`).
_STATEMENT = re.compile(
    SKIP
    + r"(?:"
    + _INSTRUCTION.pattern[len(SKIP):] + r"()"
    + r"|" + _LABEL.pattern[len(SKIP):] + r"()"
    + r"|" + _LOC.pattern[len(SKIP):] + r"()"
    + r"|" + _DECLARATION.pattern[len(SKIP):] + r"()"
    + r")",
    re.A,
)
# group numbers in _STATEMENT: instruction 1-5 (@, !, guard, opcode, operands) and 6 (end);
# label 7 and 8; .loc 9-12 and 13; declaration 14-19 and 20
_IS_INSTRUCTION, _IS_LABEL, _IS_LOC, _IS_DECLARATION = 6, 8, 13, 20
_LIST = r"(?:\s*" + NAME + r"\s*(?:,\s*" + NAME + r"\s*)*)?"
# nvcc writes calls over several lines: `call.uni (retval0),\n\tvprintf,\n\t(\n\tparam0\n\t);`
_CALL = re.compile(
    SKIP
    + r"(?:(@)(!?)("
    + NAME
    + r")\s+)?(call(?:\.\w+)*)\s+(?:\(\s*("
    + NAME
    + r")\s*\)\s*,\s*)?("
    + NAME
    + r")\s*(?:,\s*\(("
    + _LIST
    + r")\))?\s*(?:,\s*("
    + NAME
    + r")\s*)?;",
    re.A,
)
_NOT_TYPES = frozenset(("align", "attribute", "ptr", "v2", "v4", "v8", "v16"))
# The operands that make up most compiler output: registers, names, integers, 0f/0d literals,
# `[base]`, `[base+offset]`.
_SIMPLE_OPERAND = re.compile(
    r"""(?:
        (?P<name>""" + NAME + r""")(?:\.(?P<component>[xyzwrgba]))?
      | (?P<minus>-)?(?P<int>0|[1-9]\d*)
      | 0(?P<f32>[fF][0-9a-fA-F]{8})
      | 0(?P<f64>[dD][0-9a-fA-F]{16})
      | \[[ \t]*(?P<base>""" + NAME + r""")[ \t]*
            (?:\+[ \t]*(?P<offset_minus>-)?[ \t]*(?P<offset>0|[1-9]\d*)[ \t]*)?\]
    )\Z""",
    re.X | re.A,
)
# One operand of a list split at top-level commas; brackets nest one level deep at most.
_PIECE = re.compile(r"(?:[^,\[{(]|\[[^\]\[]*\]|\{[^}{]*\}|\([^)(]*\))*", re.A)


class FastPathParser(DeclParser):
    def __init__(self, text: str, file: str):
        super().__init__(text, file)
        self._opcodes: dict[str, Optional[tuple[str, tuple[str, ...]]]] = {}
        self._data_values: dict[str, tuple[ast.IntLit, ...]] = {}

    # ------------------------------------------------------------------ statements

    def fast_statements(self, statements: list, pos: int) -> int:
        """Append the statements from `pos` on that have a fast shape; return where they end."""
        text = self.text
        match = _STATEMENT.match
        append = statements.append
        opcodes = self._opcodes
        operands_of = self._operands
        span = self.span
        file = self.file
        count = text.count
        rfind = text.rfind
        Instruction, Label, Loc, Guard = ast.Instruction, ast.Label, ast.Loc, ast.Guard
        loc_start = None  # where the last .loc began, until known not to go on
        while True:
            m = match(text, pos)
            node = None
            if m is not None:
                kind = m.lastindex
                if kind == _IS_INSTRUCTION:
                    negation, predicate, name, operand_text = m.group(2, 3, 4, 5)
                    parts = opcodes.get(name)
                    if parts is None:
                        parts = opcodes[name] = split_opcode(name) or ("", ())
                    opcode, modifiers = parts
                    if opcode and opcode != "call":  # call's parenthesized lists go the general way
                        operands = () if operand_text is None else operands_of(operand_text, m.start(5))
                        if operands is not None:
                            guard = None
                            if predicate is not None:
                                guard = Guard(predicate, negation == "!", span(m.start(1), m.end(3)))
                            start = m.start(4)
                            span_pos = self._span_pos
                            if start >= span_pos:  # span(start, start + len(name)), inlined
                                newlines = count("\n", span_pos, start)
                                if newlines:
                                    self._span_line += newlines
                                    self._span_line_start = rfind("\n", span_pos, start) + 1
                                self._span_pos = start
                                where = Span(file, self._span_line + 1, start - self._span_line_start + 1, len(name))
                            else:
                                where = span(start, start + len(name))
                            node = Instruction(opcode, modifiers, operands, guard, where)
                elif kind == _IS_LABEL:
                    node = Label(m.group(7), span(m.start(7), m.end(7)))
                elif kind == _IS_LOC:
                    loc_start = pos
                    start = m.start(9)
                    node = Loc(int(m.group(10)), int(m.group(11)), int(m.group(12)), None, None, None,
                               span(start, start + 4))
                    append(node)
                    pos = m.end()
                    continue
                else:
                    node = self._declaration(m)
            if node is None:
                m = _CALL.match(text, pos)
                node = None if m is None else self._call(m)
                if node is None:
                    if loc_start is not None and self._continued(pos):
                        statements.pop()
                        return loc_start
                    return pos
            loc_start = None
            append(node)
            pos = m.end()

    def _continued(self, pos: int) -> bool:
        """Whether the statement ending at `pos` goes on (`.loc 1 2 3\n, function_name ...`)."""
        end = SKIP_RE.match(self.text, pos).end()
        return self.text[end : end + 1] in _CONTINUATIONS

    def _declaration(self, m: re.Match) -> Optional[ast.VarDecl]:
        """A declaration _STATEMENT matched (groups 14-19)."""
        space, align, type_, name, count, size = m.group(14, 15, 16, 17, 18, 19)
        if type_ in _NOT_TYPES:
            return None
        start = m.start(17)
        decl = ast.VarDecl(
            space,
            type_,
            name,
            array=() if size is None else (int(size),),
            align=None if align is None else int(align),
            count=None if count is None else int(count),
            span=self.span(start, start + len(name)),
        )
        self._declare(decl)
        return decl

    def _call(self, m: re.Match) -> Optional[ast.Instruction]:
        _, negation, predicate, name, result, target, arguments, prototype = m.groups()
        opcode, modifiers = split_opcode(name) or ("", ())
        if opcode != "call":
            return None
        operands = []
        if result is not None:
            operands.append(ast.ParamList((self._name_operand(result),)))
        operands.append(self._name_operand(target))
        if arguments is not None:
            names = arguments.split(",") if arguments.strip() else ()
            operands.append(ast.ParamList(tuple(self._name_operand(n.strip()) for n in names)))
        if prototype is not None:
            operands.append(self._name_operand(prototype))
        guard = None
        if predicate is not None:
            guard = ast.Guard(predicate, negation == "!", self.span(m.start(1), m.end(3)))
        start = m.start(4)
        return ast.Instruction(opcode, modifiers, tuple(operands), guard, self.span(start, start + len(name)))

    def _name_operand(self, name: str):
        """What parse_operand builds for a lone name followed by `,`, `)` or `;`."""
        cache = self.scopes.operand_cache
        node = cache.get(name)
        if node is None:
            if name == "_":
                node = SINK
            elif self.scopes.is_register(name):
                node = ast.Register(name)
            else:
                node = ast.Immediate(ast.SymbolRef(name))
            cache[name] = node
        return node

    # ------------------------------------------------------------------ operands

    def _operands(self, text: str, offset: int) -> Optional[tuple]:
        """The operands in `text` (what follows the opcode, up to the `;`), which begins at
        `offset`; None when one of them does not parse."""
        if "{" in text or "(" in text:
            pieces = _split_pieces(text)
            if pieces is None:
                return None
        else:
            pieces = text.split(",")
        get = self.scopes.operand_cache.get
        operands = []
        append = operands.append
        for piece in pieces:
            node = get(piece.strip(_BLANKS))
            if node is None:
                return self._resolve(pieces, operands, offset)
            append(node)
        return tuple(operands)

    def _resolve(self, pieces: list[str], operands: list, offset: int) -> Optional[tuple]:
        """The operands whose texts are `pieces`, the first at `offset`, when the cache lacks
        some of them (`operands`: those before the first it lacks); None when one does not parse."""
        if len(pieces) == 1 and not pieces[0].strip(_BLANKS):
            return ()  # no operands, only blanks
        for piece in pieces[: len(operands)]:
            offset += len(piece) + 1
        cache = self.scopes.operand_cache
        is_register = self.scopes.is_register
        Register = ast.Register
        for piece in pieces[len(operands) :]:
            key = piece.strip(_BLANKS)
            node = cache.get(key)  # an earlier operand of this instruction may have added it
            if node is None:
                if key[:1] == "%" and key[1:].isalnum() and key.isascii():  # a register, most likely
                    node = Register(key) if is_register(key) else ast.Immediate(ast.SymbolRef(key))
                else:
                    node = self._operand_from_piece(piece, key, offset)
                    if node is None:
                        return None
                cache[key] = node
            operands.append(node)
            offset += len(piece) + 1
        return tuple(operands)

    def _operand_from_piece(self, piece: str, key: str, offset: int):
        """The operand spanning text[offset:offset+len(piece)] (`key` stripped), or None if it
        does not parse."""
        if key[:1] == "%" and key[1:].isalnum() and key.isascii():  # a register, most likely
            return ast.Register(key) if self.scopes.is_register(key) else ast.Immediate(ast.SymbolRef(key))
        m = _SIMPLE_OPERAND.match(key)
        if m is not None:
            node = self._simple_operand(m)
            if node is not None:
                return node
        lex = self.lex
        lex.seek(offset)
        try:
            node = self.parse_operand(False)
        except ParseError:  # the general parser will report it
            return None
        if lex.start != offset + len(piece):
            return None
        return node

    def _simple_operand(self, m: re.Match):
        """What parse_operand would build for the operand `m` matched."""
        name = m.group("name")
        if name is not None:
            component = m.group("component")
            if component is not None:
                return ast.Register(name, component)
            if name == "_":
                return SINK
            if self.scopes.is_register(name):
                return ast.Register(name)
            return ast.Immediate(ast.SymbolRef(name))
        digits = m.group("int")
        if digits is not None:
            value = _decimal(digits)
            if value is None:
                return None
            return ast.Immediate(ast.Unary("-", value) if m.group("minus") else value)
        if m.group("f32") is not None:
            return ast.Immediate(ast.FloatLit(int(m.group("f32")[1:], 16), True))
        if m.group("f64") is not None:
            return ast.Immediate(ast.FloatLit(int(m.group("f64")[1:], 16), False))
        base = m.group("base")
        base_node = ast.Register(base) if self.scopes.is_register(base) else ast.SymbolRef(base)
        digits = m.group("offset")
        if digits is None:
            return ast.Address(base_node)
        value = _decimal(digits)
        if value is None:
            return None
        return ast.Address(base_node, ast.Unary("-", value) if m.group("offset_minus") else value)

    # ------------------------------------------------------------------ .section data

    def fast_section_entries(self, entries: list, pos: int) -> int:
        """Append the `.bN` data lines and labels from `pos` on; return where they end.

        The hottest loop of a `-G` module (most of its lines are DWARF bytes), so span() is
        inlined: the same forward newline count, kept in locals and stored back on return."""
        text = self.text
        file = self.file
        match = _DATA_LINE.match
        count = text.count
        rfind = text.rfind
        cache = self._data_values
        symbols: dict[str, Optional[ast.SymbolRef]] = {}  # name -> its node, None for a register
        append = entries.append
        SectionEntry, SymbolRef = ast.SectionEntry, ast.SymbolRef
        span_pos, line, line_start = self._span_pos, self._span_line, self._span_line_start
        data_line_start = None  # where the last data line began, until known not to go on
        while True:
            m = match(text, pos)
            if m is None:
                break
            directive, numbers, symbol, offset, label = m.groups()
            if label is not None:
                start = m.start(5)
                length = len(label)
                directive = "label"
                values = (SymbolRef(label),)
            else:
                if numbers is not None:
                    values = cache.get(numbers)
                    if values is None:
                        values = _data_values(numbers)
                        if values is None:  # beyond 64 bits: the general parser reports it
                            break
                        cache[numbers] = values
                else:
                    value = symbols.get(symbol, False)
                    if value is False:
                        value = symbols[symbol] = self._section_symbol(symbol)
                    if value is None:
                        break
                    if offset is not None:
                        offset_value = _decimal(offset)
                        if offset_value is None:
                            break
                        value = ast.Binary("+", value, offset_value)
                    values = (value,)
                start = m.start(1) - 1
                length = 1 + len(directive)
            if start >= span_pos:  # as span(start, start + length)
                newlines = count("\n", span_pos, start)
                if newlines:
                    line += newlines
                    line_start = rfind("\n", span_pos, start) + 1
                span_pos = start
                where = Span(file, line + 1, start - line_start + 1, length)
            else:
                self._span_pos, self._span_line, self._span_line_start = span_pos, line, line_start
                where = self.span(start, start + length)
            append(SectionEntry(directive, values, where))
            data_line_start = None if label is not None else pos
            pos = m.end()
        self._span_pos, self._span_line, self._span_line_start = span_pos, line, line_start
        if m is None and data_line_start is not None and self._continued(pos):
            entries.pop()
            return data_line_start
        return pos

    def _section_symbol(self, name: str) -> Optional[ast.SymbolRef]:
        """What the general parser builds for a lone name in a section's data line, or None where
        it reports an error (a register) or the name is `_`."""
        if name[0] == ".":
            return ast.SymbolRef(name)
        if name == "_" or self.scopes.is_register(name):
            return None
        return ast.SymbolRef(name)


def _decimal(digits: str) -> Optional[ast.IntLit]:
    try:
        return int_lit(*int_literal(digits))
    except ValueError:  # beyond 64 bits: the general parser reports it
        return None


def _data_values(numbers: str) -> Optional[tuple[ast.IntLit, ...]]:
    small = _SMALL_INT_TEXT.get
    values = []
    for digits in numbers.split(","):
        digits = digits.strip(_BLANKS)
        value = small(digits)
        if value is None:
            value = _decimal(digits)
            if value is None:
                return None
        values.append(value)
    return tuple(values)


def _split_pieces(text: str) -> Optional[list[str]]:
    pieces = []
    pos, end = 0, len(text)
    match = _PIECE.match
    while True:
        m = match(text, pos)
        pos = m.end()
        pieces.append(m.group())
        if pos == end:
            return pieces
        if text[pos] != ",":
            return None
        pos += 1
