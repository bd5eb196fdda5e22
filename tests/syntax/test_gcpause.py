"""Parsing and verifying pause the cyclic garbage collector and leave it as they found it."""
import gc

import pytest

from ptxvm.check import verify
from ptxvm.errors import PtxSyntaxError
from ptxvm.frontend import parse
from ptxvm.syntax.gcpause import paused_gc

from helpers import HEADER

GOOD = HEADER + ".visible .entry k()\n{\n\tret;\n}\n"
BAD = HEADER + ".visible .entry k()\n{\n\tadd.s32 %r1 %r2;\n}\n"


@pytest.mark.parametrize("enabled", [True, False])
def test_parse_and_verify_leave_the_collector_as_they_found_it(enabled):
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        verify(parse(GOOD, "t.ptx"), GOOD)
        assert gc.isenabled() == enabled
        with pytest.raises(PtxSyntaxError):
            parse(BAD, "t.ptx")
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def test_paused_inside():
    was = gc.isenabled()
    gc.enable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert gc.isenabled()
        with pytest.raises(ValueError), paused_gc():
            raise ValueError
        assert gc.isenabled()
    finally:
        gc.enable() if was else gc.disable()
