"""Positions of operands, which the parser does not store (operand nodes are shared between
occurrences): they are recovered from the instruction's span by lexing its text again."""
from __future__ import annotations

from typing import Optional, Sequence, Union

from ..errors import Span
from . import ast
from .lexer import EOF, Lexer

_OPEN = {"[": "]", "{": "}", "(": ")"}
_CLOSE = frozenset(_OPEN.values())
_MAX_LINES = 64  # an instruction written over more lines than this is not searched to its end


def operand_span(instruction: ast.Instruction, index: int, source_lines: Union[str, Sequence[str]]) -> Optional[Span]:
    """The span of operand `index` of `instruction` in the source it was parsed from, or None if
    the source does not hold that instruction there. `source_lines` is the module's text or its
    lines (as str.splitlines() gives them)."""
    lines = source_lines.splitlines() if isinstance(source_lines, str) else source_lines
    span = instruction.span
    if not 0 < span.line <= len(lines) or index < 0:
        return None
    first = span.line - 1
    chunk = lines[first : first + _MAX_LINES]
    text = "\n".join(chunk)
    start = span.col - 1
    lex = Lexer(text, start)
    if lex.start != start:
        return None
    lex.next()  # the opcode
    operand, depth, begin, end = 0, 0, None, None
    while lex.kind not in (EOF, ";") or depth:
        if lex.kind == EOF:
            return None
        if depth == 0 and lex.kind == ",":
            if operand == index:
                break
            operand += 1
        elif operand == index:
            if begin is None:
                begin = lex.start
            end = lex.end
        if lex.kind in _OPEN:
            depth += 1
        elif lex.kind in _CLOSE:
            depth = max(0, depth - 1)
        lex.next()
    if begin is None:
        return None
    return _span_at(span.file, first, chunk, begin, end)


def _span_at(file: str, first_line: int, chunk: Sequence[str], begin: int, end: int) -> Span:
    """Offsets into "\\n".join(chunk) -> a Span on the line where `begin` falls."""
    offset = 0
    for i, line in enumerate(chunk):
        if begin <= offset + len(line):
            col = begin - offset
            length = min(end, offset + len(line)) - begin
            return Span(file, first_line + i + 1, col + 1, max(1, length))
        offset += len(line) + 1
    return Span(file, first_line + 1, 1)
