"""Kernel- and function-scoped .global, .shared and .const variables (ISA 5.1: a variable declared in
a function body is visible in its block only, but lives as long as a module-scope one: a .global one
is one variable for the module, a .shared one one per CTA; ptxas 13.0 and 13.5 accept both, with
initializers for .global and .const). They used to crash the loader with a KeyError."""
from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxas_opinion import VERSIONS, ptxas_accepts

HERE = Path(__file__).resolve().parent
HDR = ".version 8.0\n.target sm_90\n.address_size 64\n"


def _kernel(body):
    return HDR + ".visible .entry k(.param .u64 p)\n{\n.reg .u32 %r<4>;\n" + body + "\nret;\n}\n"


def test_scoped_variables_run():
    m = ptxvm.load(HERE / "scoped_variables.ptx")
    a = np.zeros(64, np.uint32)
    m["k"].launch(1, 4, [a])
    # two sibling blocks each have their own `g` (50, 70), the module's `g` is 1: 121 + 2*tid
    assert a[:4].tolist() == [121, 123, 125, 127]
    # bump(): its own .global g = 1000 (reached through an initialized pointer), its .shared fs[1]
    # shared by the CTA and grown by its .const step[1] = 20 per call
    assert a[32:36].tolist() == [1000, 1021, 1042, 1063]
    m["k2"].launch(1, 1, [a])
    assert a[0] == 1004  # the function's .global persists across launches; a new CTA's .shared is fresh
    text = m.to_ptx()
    assert ptxvm.loads(text).to_ptx() == text


@pytest.mark.parametrize("version", VERSIONS)
def test_scoped_variables_ptxas(version):
    ok, err = ptxas_accepts(version, (HERE / "scoped_variables.ptx").read_text())
    assert ok, err


REFUSED = {
    # ptxas 13.0/13.5: "No initial value is allowed for 's' in this state space"
    "shared_init": ".shared .u32 s = 4;",
    "local_init": ".local .u32 l = 1;",
    # ptxas: "Parsing error near '.global'": .extern only at module scope
    "extern_global": ".extern .global .u32 eg;",
    "extern_shared": ".extern .shared .align 16 .b8 dyn[];",
    # ptxas: "Texture/surface variable must be at module or entry parameter scope"
    "texref": ".global .texref t;",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_scoped_refused(name):
    with pytest.raises(ptxvm.PtxError):
        ptxvm.loads(_kernel(REFUSED[name]))


@pytest.mark.parametrize("version", VERSIONS)
def test_scoped_refused_ptxas(version):
    for name, body in REFUSED.items():
        ok, err = ptxas_accepts(version, _kernel(body))
        assert not ok, name
