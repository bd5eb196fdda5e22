"""PTX tokens: one compiled regular expression that skips whitespace and comments and matches the
next token, plus the conversions of numeric literals to exact values.

The parser pulls tokens lazily from a position (`Lexer.next`), so that it can switch to whole-line
fast paths (see parser.py) without a token stream having to be kept in step.
"""
from __future__ import annotations

import re
import struct
from typing import Iterator, NamedTuple

# Token kinds. Punctuation tokens use their own text as kind (",", ";", "<<", ...).
IDENT = "ident"  # `%r1`, `$L__BB0_2`, `_Z3fooi`, `ld.global.v4.f32`, `%tid.x` (dotted suffixes included)
DIRECTIVE = "directive"  # `.reg`, `.b32`, `.shared::cta`, `.4byte`
INT = "int"
FLOAT = "float"  # decimal floating literal `1.5`, `.5e-3`, `1e10`
HEXFLOAT = "hexfloat"  # `0f3F800000`, `0d3FF0000000000000`
STRING = "string"
DWARF = "dwarf"  # a whole `@@DWARF ...` line
EOF = "eof"
ERROR = "error"

# Whitespace and comments, written so that they can be matched in only one way even when what
# follows fails and the regex engine backtracks: a nested `(?:\s+|...)*` would try exponentially
# many splits of a blank run, a lazy `/\*.*?\*/` would stretch a comment over the next `*/`, and
# `//[^\n]*` could stop short of the end of the line.
_LINE_COMMENT = r"//[^\n]*(?![^\n])"
_BLOCK_COMMENT = r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/"
SKIP = r"[ \t\r\n\f\v]*(?:(?:" + _LINE_COMMENT + "|" + _BLOCK_COMMENT + r")[ \t\r\n\f\v]*)*"
SKIP_RE = re.compile(SKIP)
_KINDS = (None, DWARF, DIRECTIVE, HEXFLOAT, FLOAT, INT, IDENT, STRING, ERROR, "punct", ERROR, EOF)
TOKEN_RE = re.compile(
    SKIP
    + r"""(?:
    (@@DWARF[^\n]*)
  | (\.(?:[A-Za-z_][\w$]*(?:::\w+)*|[248]byte(?![\w$])))
  | (0[fF][0-9a-fA-F]{8}(?![\w$.])|0[dD][0-9a-fA-F]{16}(?![\w$.]))
  | ((?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?(?![\w$.])|\d+[eE][+-]?\d+(?![\w$.]))
  | ((?:0[xX][0-9a-fA-F]+|0[bB][01]+|[1-9]\d*|0[0-7]*)U?(?![\w$.]))
  | ((?:[%$][\w$]|[A-Za-z_])[\w$]*(?:\.\w+(?:::\w+)*)*)
  | ("(?:[^"\\\n]|\\.)*")
  | (/\*[\s\S]*|"|\d[\w$.]*)
  | (<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%~!&|^?:;,()\[\]{}<>=@])
  | (.)
  | (\Z)
)""",
    re.X | re.A,
)
_PUNCT_GROUP = 9


class Token(NamedTuple):
    kind: str
    text: str
    start: int  # offset in the source text
    end: int


class Lexer:
    """Lazily lexes `text`. After `next()`, `kind`, `text`, `start` and `end` describe the current
    token; `end` is where the following token's whitespace begins."""

    __slots__ = ("source", "kind", "value", "start", "end", "_match")

    def __init__(self, source: str, pos: int = 0):
        self.source = source
        self._match = TOKEN_RE.match
        self.end = pos
        self.next()

    def next(self) -> None:
        m = self._match(self.source, self.end)
        group = m.lastindex
        kind = _KINDS[group]
        if group == _PUNCT_GROUP:
            kind = m.group(group)
        self.kind = kind
        self.value = m.group(group)
        self.start = m.start(group)
        self.end = m.end()

    def seek(self, pos: int) -> None:
        """Make the token at or after `pos` the current one."""
        self.end = pos
        self.next()

    def peek_kind(self) -> str:
        """The kind of the token after the current one, without consuming anything."""
        m = self._match(self.source, self.end)
        group = m.lastindex
        return m.group(group) if group == _PUNCT_GROUP else _KINDS[group]


def tokenize(source: str) -> Iterator[Token]:
    """Every token of `source` up to and including EOF (errors included as ERROR tokens)."""
    lex = Lexer(source)
    while True:
        yield Token(lex.kind, lex.value, lex.start, lex.end)
        if lex.kind == EOF:
            return
        lex.next()


def error_message(text: str) -> str:
    """Why an ERROR token is not a token."""
    if text.startswith("/*"):  # the token runs to the end of the text
        return "unterminated comment"
    if text == '"':
        return "unterminated string literal"
    if text[0].isdigit():
        return f"invalid numeric constant '{text}'"
    if text.isprintable():
        return f"unexpected character '{text}'"
    return f"unexpected character {text!r}"


INT64_MAX = (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def int_literal(text: str) -> tuple[int, bool]:
    """(value, unsigned) of an INT token; unsigned when it has a U suffix or exceeds .s64.
    Raises ValueError when the value does not fit in 64 bits."""
    unsigned = text.endswith("U")
    digits = text[:-1] if unsigned else text
    if digits[:2] in ("0x", "0X"):
        value = int(digits[2:], 16)
    elif digits[:2] in ("0b", "0B"):
        value = int(digits[2:], 2)
    elif len(digits) > 1 and digits[0] == "0":
        value = int(digits[1:], 8)
    else:
        value = int(digits)
    if value > UINT64_MAX:
        raise ValueError(f"integer constant '{text}' does not fit in 64 bits")
    return value, unsigned or value > INT64_MAX


def hexfloat_literal(text: str) -> tuple[int, bool]:
    """(bits, is_f32) of a HEXFLOAT token."""
    return int(text[2:], 16), text[1] in "fF"


def float_literal(text: str) -> int:
    """The IEEE double bits of a decimal floating literal, correctly rounded (Python's float())."""
    return struct.unpack("<Q", struct.pack("<d", float(text)))[0]


def float_from_bits(bits: int, is_f32: bool) -> float:
    if is_f32:
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]
