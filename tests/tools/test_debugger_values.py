"""The debugger's typed values (values.py) and expressions over registers (expr.py), without a kernel."""
from __future__ import annotations

import numpy as np
import pytest

from ptxvm.tools.debugger.expr import Expression
from ptxvm.tools.debugger.program import DebuggerError
from ptxvm.tools.debugger.values import classify, elements, format_value


@pytest.mark.parametrize("bits, ptx_type, fmt, text", [
    (0x3F800000, "f32", None, "1.0"),
    (0x7FC00000, "f32", None, "nan"),
    (0xFF800000, "f32", None, "-inf"),
    (0x3FF8000000000000, "f64", None, "1.5"),
    (0x3C00, "f16", None, "1.0"),
    (0x3FC0, "bf16", None, "1.5"),
    (0x3C004000, "b32", "f16x2", "{2.0, 1.0}"),  # the low half is the first element
    (0x3F80BFC0, "b32", "bf16x2", "{-1.5, 1.0}"),
    (0xFFFFFFFF, "s32", None, "-1"),
    (0xFFFFFFFF, "u32", None, "4294967295"),
    (0xFFFFFFFF, "b32", None, "0xffffffff"),
    (0xFFFFFFFF, "b32", "d", "-1"),
    (5, "u8", "t", "0b00000101"),
    (0x41, "b8", "c", "65 'A'"),
    (1, "pred", None, "true"),
    (0, "pred", None, "false"),
    (0x3F800000, "b32", "f", "1.0"),
])
def test_format_value(bits, ptx_type, fmt, text):
    assert format_value(bits, ptx_type, fmt) == text


def test_bad_format_and_elements():
    with pytest.raises(DebuggerError, match="unknown format /q"):
        format_value(1, "b32", "q")
    raw = np.array([1.5, -2.0], np.float32).tobytes()
    assert elements(raw, "f32") == ["1.5", "-2.0"]
    assert elements(raw, "b16", "x") == ["0x0000", "0x3fc0", "0x0000", "0xc000"]


def test_generic_windows():
    assert classify(0x7F00_0000_0200) == ("global", 0x7F00_0000_0200)
    assert classify(0x7E00_0000_0010) == ("shared", 0x10)
    assert classify(0x7D00_0000_0020) == ("local", 0x20)
    assert classify(0x7B00_0000_0004) == ("const", 4)
    assert classify(0x7C00_0000_0008) == ("param", 8)


def _eval(text, **regs):
    n = max(len(v) for v in regs.values()) if regs else 1
    e = Expression(text)
    return e.evaluate(lambda name: np.asarray(regs[name.lstrip("%").replace(".", "_")]), n).tolist()


def test_expressions_follow_c():
    r = np.array([7, -7, 3, 0])
    assert _eval("%r5 / 2", r5=r) == [3, -3, 1, 0]  # truncates toward zero
    assert _eval("%r5 % 2", r5=r) == [1, -1, 1, 0]
    assert _eval("%r5 > 0 && %r5 < 5 || %r5 == -7", r5=r) == [False, True, True, False]
    assert _eval("!(%r5 == 0)", r5=r) == [True, True, True, False]
    assert _eval("%r5 != 3", r5=r) == [True, True, False, True]
    assert _eval("%tid.x * 2 + 1", tid_x=np.arange(3)) == [1, 3, 5]
    assert _eval("%f1 / 2", f1=np.array([1.0, 3.0])) == [0.5, 1.5]
    assert _eval("0 < %r5 <= 3", r5=r) == [False, False, True, False]
    assert _eval("(%r5 & 1) << 2 | 1", r5=np.array([1, 2])) == [5, 1]


@pytest.mark.parametrize("text, message", [
    ("", "empty expression"),
    ("%r5 +", "cannot parse"),
    ("x + 1", "unknown name 'x'"),
    ("__import__('os')", "unsupported"),
    ("'a'", "unsupported"),
    ("%r5[0]", "unsupported"),
])
def test_bad_expressions(text, message):
    with pytest.raises(DebuggerError, match=message):
        Expression(text)


def test_division_by_zero():
    with pytest.raises(DebuggerError, match="division by zero"):
        _eval("%r1 / 0", r1=np.array([1]))
