import pytest

from ptxvm.syntax import lexer
from ptxvm.syntax.lexer import DIRECTIVE, EOF, ERROR, FLOAT, HEXFLOAT, IDENT, INT, STRING, tokenize


def kinds(text):
    return [(t.kind, t.text) for t in tokenize(text)][:-1]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ld.global.v4.f32", [(IDENT, "ld.global.v4.f32")]),
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
            [(IDENT, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes")],
        ),
        ("ld.global.L2::128B", [(IDENT, "ld.global.L2::128B")]),
        ("%tid.x", [(IDENT, "%tid.x")]),
        ("$L__BB0_2 $str$1 _Z3fooi", [(IDENT, "$L__BB0_2"), (IDENT, "$str$1"), (IDENT, "_Z3fooi")]),
        (".reg .shared::cta .4byte", [(DIRECTIVE, ".reg"), (DIRECTIVE, ".shared::cta"), (DIRECTIVE, ".4byte")]),
        ("0f3F800000 0D3FF0000000000000", [(HEXFLOAT, "0f3F800000"), (HEXFLOAT, "0D3FF0000000000000")]),
        ("1.5 .5 1e10 7.8 1.5e-3", [(FLOAT, "1.5"), (FLOAT, ".5"), (FLOAT, "1e10"), (FLOAT, "7.8"), (FLOAT, "1.5e-3")]),
        ("0 42 0x1fU 017 0b101 42U", [(INT, "0"), (INT, "42"), (INT, "0x1fU"), (INT, "017"), (INT, "0b101"), (INT, "42U")]),
        ('"nounroll" "a\\"b"', [(STRING, '"nounroll"'), (STRING, '"a\\"b"')]),
        ("<< >> <= >= == != && || ? :", [(k, k) for k in "<< >> <= >= == != && || ? :".split()]),
        ("a // comment\n/* block\ncomment */ b", [(IDENT, "a"), (IDENT, "b")]),
        ("x % 3", [(IDENT, "x"), ("%", "%"), (INT, "3")]),
    ],
)
def test_tokens(text, expected):
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("08", "invalid numeric constant '08'"),
        ("12abc", "invalid numeric constant '12abc'"),
        ("0f3F80", "invalid numeric constant '0f3F80'"),
        ("/* never closed", "unterminated comment"),
        ('"never closed', "unterminated string literal"),
        ("#include", "unexpected character '#'"),
        ("\u00e9", "unexpected character '\u00e9'"),
    ],
)
def test_error_tokens(text, message):
    token = next(tokenize(text))
    assert token.kind == ERROR
    assert lexer.error_message(token.text) == message


def test_positions_and_eof():
    tokens = list(tokenize("  add.s32 %r1;\n"))
    assert [(t.start, t.end) for t in tokens] == [(2, 9), (10, 13), (13, 14), (15, 15)]
    assert tokens[-1].kind == EOF


@pytest.mark.parametrize(
    "text, value, unsigned",
    [
        ("42", 42, False),
        ("42U", 42, True),
        ("0x1234", 0x1234, False),
        ("0123", 0o123, False),
        ("0b1011", 11, False),
        ("9223372036854775807", 2**63 - 1, False),
        ("9223372036854775808", 2**63, True),
        ("0xfabc123400000000", 0xFABC123400000000, True),
        ("18446744073709551615", 2**64 - 1, True),
    ],
)
def test_int_literal(text, value, unsigned):
    assert lexer.int_literal(text) == (value, unsigned)


def test_int_literal_too_large():
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        lexer.int_literal("18446744073709551616")


def test_float_literals_are_exact():
    assert lexer.hexfloat_literal("0f3F800000") == (0x3F800000, True)
    assert lexer.hexfloat_literal("0d3FF0000000000000") == (0x3FF0000000000000, False)
    assert lexer.float_literal("0.1") == 0x3FB999999999999A
    assert lexer.float_literal("1e400") == 0x7FF0000000000000
    assert lexer.float_from_bits(0x3F800000, True) == 1.0
