"""inline_asm: the seed's asm() examples elementwise over NumPy arrays, and its error checks."""
from __future__ import annotations

import numpy as np
import pytest

import ptxvm
from ptxvm import inline_asm
from ptxvm.frontdoor.inline_asm import InlineAsmError

RNG = np.random.default_rng(2)
J = RNG.integers(-1000, 1000, 300).astype(np.int32)
K = RNG.integers(-1000, 1000, 300).astype(np.int32)

CUBE = ("{\n\t"                       # use braces for scope
        ".reg .u32 t1;\n\t"           # temp reg t1
        "mul.lo.u32 t1, %1, %1;\n\t"  # t1 = x * x
        "mul.lo.u32 %0, t1, %1;"      # y = t1 * x
        "}")
COND = ("{\n\t"
        ".reg .pred %p;\n\t"
        "setp.eq.s32 %p,%1,34;\n\t"   # x == 34?
        "@%p mov.s32 %0, 1;\n\t"      # set y to 1 if true
        "}")                          # conceptually y = (x == 34) ? 1 : y


def test_add():
    i = inline_asm("add.s32 %0, %1, %2;", "=r,r,r", J, K)
    assert i.dtype == np.uint32  # 'r' is a .u32 register
    np.testing.assert_array_equal(i.view(np.int32), J + K)
    np.testing.assert_array_equal(inline_asm("add.s32 %0, %1, %2;", "=r,r,r", J, K, dtypes=np.int32), J + K)


def test_reordered_and_repeated_operands():
    np.testing.assert_array_equal(inline_asm("add.s32 %0, %2, %1;", "=r,r,r", K, J, dtypes=np.int32), J + K)
    np.testing.assert_array_equal(inline_asm("sub.s32 %0, %2, %1;", "=r,r,r", K, J, dtypes=np.int32), J - K)
    np.testing.assert_array_equal(inline_asm("add.s32 %0,%1,%1;", "=r,r", K, dtypes=np.int32), K + K)


def test_no_inputs_and_immediate():
    assert inline_asm("mov.s32 %0, 2;", "=r") == 2
    np.testing.assert_array_equal(inline_asm("add.s32 %0, %1, %2;", "=r,r,n", J, 100, dtypes=np.int32), J + 100)
    np.testing.assert_array_equal(inline_asm("shl.b32 %0, %1, %2;", "=r,r,n", J, np.int64(3), dtypes=np.int32),
                                  J << 3)


def test_read_write_operand():
    i = inline_asm("add.s32 %0, %0, %1;", "+r,r", J, K)
    assert i.dtype == np.int32  # a '+' output keeps its argument's dtype
    np.testing.assert_array_equal(i, J + K)


def test_scoped_register_cube_twice():
    x = np.arange(-20, 20, dtype=np.int32)
    np.testing.assert_array_equal(inline_asm(CUBE, "=r,r", x, dtypes=np.int32), x ** 3)
    # two asm blocks declaring the same .reg name: fine when each has its own { } scope ...
    twice = CUBE + "\n" + CUBE.replace("%1, %1", "%0, %0").replace("t1, %1;", "t1, %0;")
    y = np.arange(-5, 5, dtype=np.int32)
    np.testing.assert_array_equal(inline_asm(twice, "=r,r", y, dtypes=np.int32), y ** 9)
    # ... the seed's namespace conflict when not
    unscoped = ".reg .u32 t1;\nmul.lo.u32 t1, %1, %1;\n.reg .u32 t1;\nmul.lo.u32 %0, t1, %1;"
    with pytest.raises(InlineAsmError) as info:
        inline_asm(unscoped, "=r,r", y)
    (d,) = info.value.diagnostics
    assert (d.span.file, d.span.line, d.span.col, d.span.length) == ("<asm>", 3, 11, 2)
    assert d.message == "duplicate definition of 't1' in this scope (first declared at line 1 of the template)"
    assert d.source_line == ".reg .u32 t1;"


def test_predicated_cond_with_read_write_output():
    x = np.array([34, 0, 33, 34, -34, 35, 34], np.int32)
    y = inline_asm(COND, "+r,r", np.zeros(7, np.int32), x)
    np.testing.assert_array_equal(y, (x == 34).astype(np.int32))
    y = inline_asm(COND, "+r,r", np.int32(7), x)  # untouched elements keep the '+' operand's value
    np.testing.assert_array_equal(y, np.where(x == 34, 1, 7))


def test_cvt_from_s64():
    y = np.array([0, 1, -1, 2 ** 40 + 1, -(2 ** 62) + 3, 2 ** 24 + 1, 123456789], np.int64)
    x = inline_asm("cvt.rn.f32.s64 %0,%1;", "=f,l", y)
    assert x.dtype == np.float32
    np.testing.assert_array_equal(x, y.astype(np.float32))
    # The seed writes cvt.f32.s64; ptxas 13 refuses it ("Rounding modifier required"), and so do we.
    with pytest.raises(InlineAsmError, match="rounding modifier"):
        inline_asm("cvt.f32.s64 %0,%1;", "=f,l", y)


def test_percent_escape_clock():
    c = inline_asm("mov.u32 %0, %%clock;", "=r,r", np.zeros(64, np.uint32))
    assert c.dtype == np.uint32 and c.shape == (64,)
    a, b = inline_asm("mov.u32 %0, %%clock;\n\tmov.u32 %1, %%clock;", "=r,=r,r", np.zeros(8, np.uint32))
    assert ((b - a).astype(np.int64) >= 0).all()


def test_several_outputs_and_instructions():
    x = np.linspace(-3, 3, 50, dtype=np.float32)
    d = np.linspace(0, 1, 50)
    s, p, h = inline_asm("add.f32 %0, %3, %3; mul.f64 %1, %4, 2.0; cvt.rni.u16.f32 %2, %3;", "=f,=d,=h,f,d", x, d,
                         dtypes=(None, None, np.int16))
    np.testing.assert_array_equal(s, x + x)
    np.testing.assert_array_equal(p, d * 2)
    assert h.dtype == np.int16


def test_broadcasting_and_dtypes():
    a = np.arange(3, dtype=np.uint16).reshape(3, 1)
    b = np.arange(4, dtype=np.uint16)
    out = inline_asm("add.u16 %0, %1, %2;", "=h,h,h", a, b)
    assert out.shape == (3, 4) and out.dtype == np.uint16
    np.testing.assert_array_equal(out, a + b)
    out = inline_asm("add.u64 %0, %1, %2;", "=l,l,l", np.arange(5, dtype=np.int64), 2 ** 40, dtypes=np.int64)
    np.testing.assert_array_equal(out, np.arange(5) + 2 ** 40)
    assert inline_asm("add.f32 %0, %1, %2;", "=f,f,f", np.float32(1.5), 2) == np.float32(3.5)  # scalars: a scalar
    assert inline_asm("add.s32 %0, %1, %2;", "=r,r,r", np.zeros((0, 3), np.int32), 1).shape == (0, 3)
    x = np.arange(10, dtype=np.int32)
    inline_asm("add.s32 %0, %0, 1;", "+r", x)
    np.testing.assert_array_equal(x, np.arange(10))  # the caller's arrays are not written


def test_many_elements():
    x = np.arange(100_000, dtype=np.float32)
    fused = (x.astype(np.float64) ** 2 + 1).astype(np.float32)  # x*x is exact in float64: one rounding, as fma
    np.testing.assert_array_equal(inline_asm("fma.rn.f32 %0, %1, %1, 1.0;", "=f,f", x), fused)


# ----------------------------------------------------------------------------------- the seed's errors
def _error(template, constraints, *args, **kw) -> InlineAsmError:
    with pytest.raises(InlineAsmError) as info:
        inline_asm(template, constraints, *args, **kw)
    assert isinstance(info.value, ptxvm.PtxError)
    return info.value


def test_one_constraint_letter_per_operand():
    e = _error("add.s32 %0,%1,%2;", "=r,rf,r", J, K)
    (d,) = e.diagnostics
    assert d.message == "an asm operand may specify only one constraint letter in a __device__/__global__ function"
    assert (d.span.file, d.span.col, d.span.length) == ("<constraints>", 4, 2)
    assert str(e).endswith("=r,rf,r\n   ^~")


def test_scalar_operands_only():
    int4 = np.zeros(3, dtype=[("x", "i4"), ("y", "i4"), ("z", "i4"), ("w", "i4")])
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", int4, K)
    assert e.diagnostics[0].message == "an asm operand must have scalar type"
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", J, np.array([object()]))
    assert e.diagnostics[0].message == "an asm operand must have scalar type"


def test_operand_size_must_match_constraint():
    ci = np.zeros(4, np.int8)
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", ci, K)
    assert e.diagnostics[0].message == "asm operand type size(1) does not match type/size implied by constraint 'r'"
    assert e.diagnostics[0].span.col == 4
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", J, J, dtypes=np.int8)  # the seed's "=r"(ci)
    assert e.diagnostics[0].message == "asm operand type size(1) does not match type/size implied by constraint 'r'"
    assert e.diagnostics[0].span.col == 1
    fi = np.zeros(4, np.float32)
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", fi, K)  # same size, wrong kind
    assert e.diagnostics[0].message == "asm operand type size(4) does not match type/size implied by constraint 'r'"
    e = _error("add.s32 %0,%1,%2;", "=r,r,r", J, J, dtypes=np.float32)
    assert e.diagnostics[0].message == "asm operand type size(4) does not match type/size implied by constraint 'r'"
    e = _error("add.f32 %0,%1,%1;", "=f,f", J)
    assert e.diagnostics[0].message == "asm operand type size(4) does not match type/size implied by constraint 'f'"
    e = _error("add.s64 %0,%1,%1;", "=l,l", 1.5)  # a Python float is a double
    assert e.diagnostics[0].message == "asm operand type size(8) does not match type/size implied by constraint 'l'"
    _error("add.s32 %0,%1,%1;", "=r,r", 2 ** 40)
    _error("add.s32 %0,%1,%1;", "=r,r", np.array([True]))


def test_unsupported_modifier_is_a_verifier_error_on_the_template():
    e = _error("mov.u32 %0,%n1;", "=r,r", 1)
    (d,) = e.diagnostics
    assert d.message == "'%n1' is not declared (no register or special register of that name)"
    assert (d.span.file, d.span.line, d.span.col, d.span.length) == ("<asm>", 1, 12, 3)
    assert str(e) == ("<asm>:1:12: error: '%n1' is not declared (no register or special register of that name)\n"
                      "mov.u32 %0,%n1;\n"
                      "           ^~~")


def test_verifier_positions_map_onto_the_template():
    e = _error("mul.lo.u32 %0, %1,\n   %1;\n  foo.u32 %0, %1;", "=r,r", J)
    (d,) = e.diagnostics
    assert (d.span.line, d.span.col, d.span.length) == (3, 3, 7) and "unknown instruction" in d.message
    e = _error("add.s64 %0, %1, %2;", "=r,r,r", J, K)  # .u32 registers for a 64-bit add: %N mapped back whole
    assert [(d.span.col, d.span.length) for d in e.diagnostics] == [(9, 2), (13, 2), (17, 2)]
    assert all("%__asm" not in d.message for d in e.diagnostics)
    e = _error("mov.u32 %0, %1", "=r,r", J)  # a missing ';' is reported at the template's end
    assert (e.diagnostics[0].span.line, e.diagnostics[0].span.col) == (1, 15)


def test_constraint_and_argument_errors():
    assert "operand number %3" in _error("add.s32 %0,%1,%3;", "=r,r,r", J, K).diagnostics[0].message
    assert "unknown constraint letter 'q'" in _error("mov.u32 %0, %1;", "=r,q", J).diagnostics[0].message
    assert "outputs come first" in _error("mov.u32 %1, %0;", "r,=r", J).diagnostics[0].message
    assert "cannot be an output" in _error("mov.u32 %0, 1;", "=n").diagnostics[0].message
    assert "integer constant" in _error("add.s32 %0,%1,%2;", "=r,r,n", J, K).diagnostics[0].message
    assert "2 operand value(s) expected" in _error("add.s32 %0,%1,%2;", "=r,r,r", J).diagnostics[0].message
    assert "broadcast" in _error("add.s32 %0,%1,%2;", "=r,r,r", J, K[:7]).diagnostics[0].message
