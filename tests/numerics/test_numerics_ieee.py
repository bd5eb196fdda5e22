import itertools

import numpy as np
import pytest
from hypothesis import given, strategies as st

import numerics_ref as R
from numerics_strategies import NUMERICS, arrays, operand_tuples, specials
from ptxvm.numerics import ieee32, ieee64
from ptxvm.numerics.formats import F32, F64
from ptxvm.numerics.rounding import Rounding

MODES = [Rounding.RN, Rounding.RZ, Rounding.RM, Rounding.RP]
ARITY = {"add": 2, "sub": 2, "mul": 2, "div": 2, "fma": 3, "sqrt": 1, "rcp": 1}
REF_FMT = {F32: R.F32, F64: R.F64}
MODULE = {F32: ieee32, F64: ieee64}


def check(fmt, op, cols, mode, ftz=False, sat=False):
    kw = {"sat": sat}
    if ftz:
        kw["ftz"] = True
    got = getattr(MODULE[fmt], op)(*cols, mode, **kw)
    assert got.dtype == fmt.dtype
    for i in range(len(got)):
        ops = [int(c[i]) for c in cols]
        want = R.ref_op(op, ops, REF_FMT[fmt], mode.value, ftz, sat)
        if int(got[i]) != want:
            args = ", ".join(hex(o) for o in ops)
            pytest.fail(f"{fmt}.{op}.{mode.value} ftz={ftz} sat={sat} ({args}) "
                        f"-> {int(got[i]):#x}, want {want:#x}")


def _case(fmt, op):
    @st.composite
    def case(draw):
        mode = draw(st.sampled_from(MODES))
        ftz = fmt is F32 and draw(st.booleans())
        sat = draw(st.integers(0, 5)) == 0
        tuples = draw(st.lists(operand_tuples(fmt, ARITY[op]), min_size=1, max_size=24))
        return mode, ftz, sat, arrays(tuples, fmt)
    return case()


@pytest.mark.parametrize("fmt", [F32, F64])
@pytest.mark.parametrize("op", list(ARITY))
def test_random_against_exact_reference(fmt, op):
    @NUMERICS
    @given(_case(fmt, op))
    def run(case):
        mode, ftz, sat, cols = case
        check(fmt, op, cols, mode, ftz, sat)
    run()


@pytest.mark.parametrize("fmt", [F32, F64])
@pytest.mark.parametrize("op", list(ARITY))
@pytest.mark.parametrize("mode", MODES)
def test_special_grid(fmt, op, mode):
    sp = specials(fmt)
    n = ARITY[op]
    sp = sp[::4] if n == 3 else sp[::2] if n == 2 else sp
    tuples = list(itertools.product(sp, repeat=n))
    cols = arrays(tuples, fmt)
    check(fmt, op, cols, mode)
    if fmt is F32 and mode in (Rounding.RN, Rounding.RM):
        check(fmt, op, cols, mode, ftz=True, sat=True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("negate", [False, True])
def test_f32_fma_just_below_overflow_midpoint(mode, negate):
    # a*b = 2**103 - 2**60: max + a*b rounds in f64 to the f32 overflow
    # midpoint max + 2**103 with a negative residual, so RN must give max.
    a = np.array([np.float32(4188889.0 * 2.0 ** 30)]).view(np.uint32)
    b = np.array([np.float32(2099863.0 * 2.0 ** 30)]).view(np.uint32)
    c = np.array([0x7F7FFFFF], np.uint32)
    if negate:
        a, c = a ^ np.uint32(1 << 31), c ^ np.uint32(1 << 31)
    check(F32, "fma", [a, b, c], mode)


def test_f64_exact_zero_signs():
    z = np.array([0, 1 << 63], np.uint64)
    x = np.array([0x3FF0000000000000], np.uint64)
    for mode in MODES:
        check(F64, "add", [np.repeat(z, 2), np.tile(z, 2)], mode)
        check(F64, "sub", [x, x], mode)
        check(F64, "fma", [x, x, x | np.uint64(1 << 63)], mode)
