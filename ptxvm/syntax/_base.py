"""Parser plumbing shared by the grammar mixins: the current token, expectations, spans and the
error that unwinds a statement so the parser can resynchronize."""
from __future__ import annotations

import re
from bisect import bisect_right
from typing import NoReturn

from ..errors import Diagnostic, Span
from . import lexer
from .lexer import EOF, ERROR, Lexer

MAX_ERRORS = 50
MAX_NESTING = 64  # blocks, parentheses, unary chains, initializer braces


class ParseError(Exception):
    """A syntax error at text[start:end]; caught by the statement loops, which report it and skip."""

    def __init__(self, message: str, start: int, end: int):
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


class TooManyErrors(Exception):
    pass


def describe(kind: str, text: str) -> str:
    if kind == EOF:
        return "end of file"
    if kind == lexer.DWARF:
        return "'@@DWARF'"
    if len(text) > 40:
        text = text[:37] + "..."
    return f"'{text}'"


class ParserBase:
    def __init__(self, text: str, file: str):
        self.text = text
        self.file = file
        self.diagnostics: list[Diagnostic] = []
        self._line_starts: list[int] | None = None
        # span() moves forward from the last position it was asked for, counting newlines:
        # the offset, its 0-based line, and where that line starts.
        self._span_pos = 0
        self._span_line = 0
        self._span_line_start = 0
        self.lex = Lexer(text)

    # ------------------------------------------------------------------ positions

    @property
    def line_starts(self) -> list[int]:
        """Offsets where each line begins (built on first use: the forward path needs none)."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        return self._line_starts

    def line_index(self, pos: int) -> int:
        """0-based line of text offset `pos`."""
        return bisect_right(self.line_starts, pos) - 1

    def span(self, start: int, end: int) -> Span:
        pos = self._span_pos
        text = self.text
        if start < pos:  # behind the last span asked for (a header's name, error recovery)
            line = self._span_line - text.count("\n", start, pos)
            line_start = self._span_line_start if line == self._span_line else text.rfind("\n", 0, start) + 1
            return Span(self.file, line + 1, start - line_start + 1, max(1, end - start))
        newlines = text.count("\n", pos, start)
        if newlines:
            self._span_line += newlines
            self._span_line_start = text.rfind("\n", pos, start) + 1
        self._span_pos = start
        return Span(self.file, self._span_line + 1, start - self._span_line_start + 1, max(1, end - start))

    def token_span(self) -> Span:
        return self.span(self.lex.start, self.lex.end)

    def source_line(self, line: int) -> str:
        starts = self.line_starts
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end].rstrip("\r")

    # ------------------------------------------------------------------ errors

    def fail(self, message: str, start: int | None = None, end: int | None = None) -> NoReturn:
        lex = self.lex
        if start is None:
            start, end = lex.start, max(lex.end, lex.start + 1)
            if lex.kind == ERROR:
                message = lexer.error_message(lex.value)
        raise ParseError(message, start, end if end is not None else start + 1)

    def fail_expected(self, what: str) -> NoReturn:
        lex = self.lex
        end = lex.start + max(1, len(lex.value))
        if lex.kind == ERROR:  # a malformed token says more than what was expected
            self.fail(lexer.error_message(lex.value), lex.start, end)
        self.fail(f"expected {what}, found {describe(lex.kind, lex.value)}", lex.start, end)

    def report(self, error: ParseError) -> None:
        span = self.span(error.start, error.end)
        diagnostic = Diagnostic(span, error.message, "error", self.source_line(span.line))
        if self.diagnostics and self.diagnostics[-1] == diagnostic:
            return  # the same error seen again while unwinding nested blocks
        self.diagnostics.append(diagnostic)
        if len(self.diagnostics) >= MAX_ERRORS:
            raise TooManyErrors()

    # ------------------------------------------------------------------ tokens

    def expect(self, kind: str, what: str | None = None) -> str:
        lex = self.lex
        if lex.kind != kind:
            self.fail_expected(what or f"'{kind}'")
        value = lex.value
        lex.next()
        return value

    def accept(self, kind: str) -> bool:
        if self.lex.kind == kind:
            self.lex.next()
            return True
        return False

    def expect_name(self, what: str = "a name") -> str:
        """A plain identifier (no dotted suffix)."""
        lex = self.lex
        if lex.kind != lexer.IDENT or "." in lex.value:
            self.fail_expected(what)
        value = lex.value
        lex.next()
        return value

    def expect_int(self, what: str = "an integer") -> int:
        lex = self.lex
        if lex.kind != lexer.INT:
            self.fail_expected(what)
        try:
            value, _ = lexer.int_literal(lex.value)
        except ValueError as exc:
            self.fail(str(exc))
        lex.next()
        return value

    def check_depth(self, depth: int) -> None:
        if depth > MAX_NESTING:
            self.fail(f"nesting deeper than {MAX_NESTING} levels")
