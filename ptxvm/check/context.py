"""What every rule needs: the module's version, target and address size, and the list that the
diagnostics go to, with positions recovered from the source text when a rule reports one.

Rules never build Diagnostics themselves: they call `ctx.error(span, message)` (or `warning`), or,
for an instruction, return `(operand index, message)` pairs that `report_instruction` places: index
-1 is the instruction (its opcode), -2 its guard, 0.. the operands, whose columns are recovered
here by re-lexing the statement, since operand nodes carry no spans of their own (the parser shares
one node between every occurrence of the same operand text).
"""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import Optional

from ..errors import Diagnostic, Span
from ..isa.table import PTX_VERSIONS, parse_target
from .names import NAME

ERROR = "error"
WARNING = "warning"

# Target words other than sm_XX that .target may list (ISA 11.1.2).
TARGET_FLAGS = frozenset(("texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"))
_SM_RE = re.compile(r"sm_(\d+)([af]?)\Z")


class Context:
    """One verification run over one module."""

    def __init__(self, tree, source: str):
        self.tree = tree
        self.file = tree.file
        self.source = source if source else (getattr(tree, "source", "") or "")
        self.diagnostics: list[Diagnostic] = []
        self._line_starts: Optional[list[int]] = None
        self._lines: Optional[list[str]] = None
        self._splitlines: Optional[list[str]] = None
        self.version: tuple[int, int] = tuple(tree.version) if tree.version else (0, 0)
        self.address_size: int = tree.address_size or 32
        self.address_size_given = tree.address_size is not None
        # .target: the sm target (default sm_10 per ISA 11.1.2 when none is named) and the flags
        self.sm = 10
        self.suffix = ""
        self.sm_named = False
        self.flags: set[str] = set()
        for word in tree.target or ():
            m = _SM_RE.match(word)
            if m and not self.sm_named:
                self.sm, self.suffix, self.sm_named = int(m.group(1)), m.group(2), True
            elif word in TARGET_FLAGS:
                self.flags.add(word)
        self.target = f"sm_{self.sm}{self.suffix}"
        self.texmode_independent = "texmode_independent" in self.flags
        self.version_known = self.version in PTX_VERSIONS

    # ------------------------------------------------------------------ reporting
    def error(self, span: Span, message: str) -> None:
        self.diagnostics.append(Diagnostic(span, message, ERROR))

    def warning(self, span: Span, message: str) -> None:
        self.diagnostics.append(Diagnostic(span, message, WARNING))

    def report(self, span: Span, message: str, severity: str = ERROR) -> None:
        self.diagnostics.append(Diagnostic(span, message, severity))

    def report_instruction(self, instr, results) -> None:
        """Place `(index, message, severity)` results of an instruction check (memoized messages
        say names.NAME for the name of the symbol in the operand; it is filled in here)."""
        for index, message, severity in results:
            if NAME in message:
                message = message.replace(NAME, operand_symbol(instr, index) or "symbol")
            if index == -1:
                span = instr.span
            elif index == -2 and instr.guard is not None:
                span = instr.guard.span
            else:
                span = self.operand_span(instr, index)
            self.diagnostics.append(Diagnostic(span, message, severity))

    def finish(self) -> list[Diagnostic]:
        """The diagnostics in source order, each with its source line (for the caret display)."""
        out = []
        for d in self.diagnostics:
            line = self.line_text(d.span.line)
            out.append(Diagnostic(d.span, d.message, d.severity, line))
        out.sort(key=lambda d: (d.span.line, d.span.col))
        return out

    # ------------------------------------------------------------------ positions
    @property
    def line_starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.source)]
        return self._line_starts

    def line_text(self, line: int) -> Optional[str]:
        if line < 1 or not self.source:
            return None
        if self._lines is None:
            self._lines = self.source.split("\n")
        if line > len(self._lines):
            return None
        return self._lines[line - 1].rstrip("\r")

    def offset(self, span: Span) -> Optional[int]:
        starts = self.line_starts
        if span.line < 1 or span.line > len(starts):
            return None
        return starts[span.line - 1] + span.col - 1

    def span_at(self, offset: int, length: int = 1) -> Span:
        starts = self.line_starts
        i = bisect_right(starts, offset) - 1
        return Span(self.file, i + 1, offset - starts[i] + 1, max(1, length))

    def block_end(self, block) -> Span:
        """The span of the `}` that closes `block` (where ptxas reports some function errors)."""
        from ..syntax.lexer import Lexer

        start = self.offset(block.span)
        if start is None or not self.source:
            return block.span
        try:
            lex = Lexer(self.source, start)
            depth = 0
            while lex.kind != "eof":
                if lex.kind == "{":
                    depth += 1
                elif lex.kind == "}":
                    depth -= 1
                    if depth == 0:
                        return self.span_at(lex.start, 1)
                lex.next()
        except Exception:
            pass
        return block.span

    def operand_span(self, instr, index: int) -> Span:
        """The position of operand `index` of `instr` (the parser's spans.operand_span, which
        re-lexes the statement); the instruction's own span when the text does not say."""
        try:
            from ..syntax.spans import operand_span

            if self._splitlines is None:
                self._splitlines = self.source.splitlines()
            span = operand_span(instr, index, self._splitlines)
            if span is not None:
                return span
        except Exception:  # positions are a courtesy: never fail a report over them
            pass
        try:
            pieces = self._operand_offsets(instr)
        except Exception:
            pieces = None
        if not pieces or index >= len(pieces):
            return instr.span
        start, end = pieces[index]
        return self.span_at(start, end - start)

    def _operand_offsets(self, instr) -> Optional[list[tuple[int, int]]]:
        from ..syntax.lexer import Lexer

        start = self.offset(instr.span)
        if start is None or not self.source:
            return None
        lex = Lexer(self.source, start)  # the current token is the opcode (with its modifiers)
        lex.next()
        if lex.kind == ";":
            return []
        pieces: list[tuple[int, int]] = []
        depth = 0
        piece_start = lex.start
        last_end = lex.start
        guard = 0
        while lex.kind not in (";", "eof") and guard < 10000:
            guard += 1
            kind = lex.kind
            if kind in ("(", "[", "{"):
                depth += 1
            elif kind in (")", "]", "}"):
                depth -= 1
            elif kind == "," and depth == 0:
                pieces.append((piece_start, last_end))
                lex.next()
                piece_start = lex.start
                last_end = lex.start
                continue
            last_end = lex.start + max(1, len(lex.value) if isinstance(lex.value, str) else 1)
            lex.next()
        pieces.append((piece_start, last_end))
        return pieces


def operand_symbol(instr, index: int) -> Optional[str]:
    """The name of the variable or function an operand refers to (for messages)."""
    from ..syntax import ast

    if not 0 <= index < len(instr.operands):
        return None
    stack = [instr.operands[index]]
    while stack:
        node = stack.pop(0)
        t = type(node)
        if t is ast.SymbolRef or t is ast.Register:
            return node.name
        if t is ast.Immediate:
            stack.append(node.expr)
        elif t is ast.Address:
            if node.base is not None:
                stack.append(node.base)
        elif t is ast.ArrayElement:
            stack.append(node.base)
        elif t in (ast.VectorOperand, ast.BracketList, ast.ParamList):
            stack.extend(node.elements)
        elif t is ast.Binary:
            stack.extend((node.left, node.right))
        elif t in (ast.Unary, ast.Cast):
            stack.append(node.operand)
    return None


def sm_of(word: str) -> Optional[tuple[int, str]]:
    m = _SM_RE.match(word)
    if not m:
        return None
    return int(m.group(1)), m.group(2)


__all__ = ["Context", "ERROR", "WARNING", "TARGET_FLAGS", "sm_of", "parse_target"]
