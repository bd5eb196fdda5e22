"""Extended-precision integer arithmetic (PTX ISA 9.7.2): add.cc, addc, sub.cc, subc, mad.cc, madc.

The carry flag CC.CF travels between instructions as one more operand / result: a uint32 array of
0 or 1 per lane, which the engine keeps for each thread.
- A `.cc` instruction's lane function returns the pair (d, carry_out).
- An instruction that reads the carry (addc, subc, madc) takes carry_in as its LAST argument:
  addc(a, b, cf), subc(a, b, cf), madc(a, b, c, cf); with `.cc` it returns (d, carry_out) as well.
- The carry is that of the addition of the operands' unsigned bits, for .s32/.s64 as for .u32/.u64.
- For subtraction the flag is a carry, not a borrow, as the hardware keeps it: sub.cc computes
  a + ~b + 1 and sets CF = 1 when that carries out, i.e. when there is NO borrow (a >= b,
  unsigned); subc computes d = a + ~b + CF = a - b - (1 - CF). The manual writes subc as
  d = a - (b + CC.CF) with a borrow in CF; a sub.cc -> subc chain gives the same d either way, but
  the two differ where add.cc feeds subc or sub.cc feeds addc, and an H200 (CUDA 13.0, driver
  580) gives the carry form: tests/semantics/gpu_probe_intlogic.py, probes sub.cc / subc.
add.cc, sub.cc and mad.cc are `add`, `sub`, `mad` with the cc flag; integer.py routes them here.
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic
from ._ints import choice, flag, mul_hi, unsigned


def _carry(flag_array):
    return flag_array.astype(np.uint32)


def add_cc(a, b):
    d = np.add(a, b)  # the ufunc wraps modulo 2^n
    return d, _carry(unsigned(d) < unsigned(a))  # wrapped below a <=> carried out of bit n-1


def addc_cc(a, b, cf):
    s = np.add(a, b)
    d = np.add(s, cf.astype(s.dtype))
    return d, _carry((unsigned(s) < unsigned(a)) | (unsigned(d) < unsigned(s)))


def sub_cc(a, b):
    # a + ~b + 1 carries out exactly when a >= b (unsigned): CF = "no borrow"
    return np.subtract(a, b), _carry(unsigned(a) >= unsigned(b))


def subc_cc(a, b, cf):
    return addc_cc(a, np.invert(b), cf)  # d = a + ~b + CF, CF out = its carry


def _first(f):
    return lambda *args: f(*args)[0]


PRODUCT_PART = {"lo": np.multiply, "hi": mul_hi}  # np.multiply wraps: the low half


def mad_cc(part):
    return lambda a, b, c: add_cc(part(a, b), c)


@semantic("addc")
def addc(spec):
    return addc_cc if flag(spec, "cc") else _first(addc_cc)


@semantic("subc")
def subc(spec):
    return subc_cc if flag(spec, "cc") else _first(subc_cc)


@semantic("madc")
def madc(spec):
    part = PRODUCT_PART[choice(spec, ("hi", "lo"), "mode", default="lo")]

    def madc_cc(a, b, c, cf):
        return addc_cc(part(a, b), c, cf)

    return madc_cc if flag(spec, "cc") else _first(madc_cc)
