"""PTX state spaces as data (ISA 5.1, Tables "State Spaces" and "Properties of State Spaces").

A state space is a storage area with its own addressability, access rights and sharing. Sub-spaces
(`.shared::cta`, `.shared::cluster`, `.param::entry`, `.param::func`) name a window of their parent;
`SPACES["shared"]` is the plain spelling, which means `.shared::cta` for instructions (ISA 5.1.7).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional


class Sharing(Enum):
    """Who sees the same storage."""

    THREAD = "thread"  # .reg, .local, .param of a device function
    CTA = "cta"  # .shared (::cta), .sreg values such as %tid are per thread but %ntid per CTA
    CLUSTER = "cluster"  # .shared::cluster: the shared memory of every CTA of the cluster
    GRID = "grid"  # .param of a kernel, .const
    CONTEXT = "context"  # .global, .tex: every grid of the context


class Access(Enum):
    RO = "read-only"
    RW = "read-write"


@dataclass(frozen=True, slots=True)
class StateSpace:
    name: str  # "shared::cluster" (without the dot)
    addressable: bool  # `ld`/`st` through an address, a variable's address can be taken
    initializable: bool  # variables may have initializers
    kernel_access: Access  # access from kernel code
    sharing: Sharing
    generic: bool  # part of the generic address space (cvta / isspacep / generic ld/st)
    declarable: bool = True  # variables can be declared in it with this spelling
    parent: Optional[str] = None  # "shared" for "shared::cta"
    banks: int = 0  # .const: 11 banks .const[0] .. .const[10] (banked constants are deprecated)
    min_ptx: tuple[int, int] = (1, 0)
    min_sm: int = 10
    note: str = ""

    @property
    def writable(self) -> bool:
        """Writable from kernel code (st, atom, red ...)."""
        return self.kernel_access is Access.RW

    def __str__(self) -> str:
        return "." + self.name


_RO, _RW = Access.RO, Access.RW
_T, _C, _CL, _G, _X = Sharing.THREAD, Sharing.CTA, Sharing.CLUSTER, Sharing.GRID, Sharing.CONTEXT

_ALL = [
    StateSpace("reg", False, False, _RW, _T, False, note="registers; not addressable"),
    StateSpace("sreg", False, False, _RO, _C, False, declarable=False,
               note="special registers, predefined (ptxvm.isa.sregs); sharing varies per register"),
    StateSpace("const", True, True, _RO, _G, True, banks=11,
               note="64KB statically sized plus driver-allocated buffers; banked form .const[n] deprecated"),
    StateSpace("global", True, True, _RW, _X, True),
    StateSpace("local", True, False, _RW, _T, True, note="per-thread stack/frame memory"),
    StateSpace("param", True, False, _RO, _G, True,
               note="kernel parameters (read-only, per grid) or device-function parameters "
                    "(read-write, per thread); addresses restricted (ISA 5.1.6)"),
    StateSpace("param::entry", True, False, _RO, _G, True, declarable=False, parent="param", min_ptx=(8, 3),
               note="kernel-parameter window of .param (instructions only)"),
    StateSpace("param::func", True, False, _RW, _T, False, declarable=False, parent="param", min_ptx=(8, 3),
               note="device-function-parameter window of .param (instructions only)"),
    StateSpace("shared", True, False, _RW, _C, True, note="means .shared::cta in instructions"),
    StateSpace("shared::cta", True, False, _RW, _C, True, declarable=False, parent="shared", min_ptx=(7, 8),
               min_sm=30),
    StateSpace("shared::cluster", True, False, _RW, _CL, True, declarable=False, parent="shared",
               min_ptx=(7, 8), min_sm=90, note="shared memory of any CTA of the cluster (mapa addresses)"),
    StateSpace("tex", False, True, _RO, _X, False, note="deprecated: texture references are .global .texref"),
]

SPACES: dict[str, StateSpace] = {s.name: s for s in _ALL}

# Spaces an `ld`/`st` may name, and the ones that belong to the generic address window.
DATA_SPACES = ("const", "global", "local", "param", "param::entry", "param::func", "shared", "shared::cta",
               "shared::cluster")
GENERIC_WINDOWS = tuple(s.name for s in _ALL if s.generic)


def space(name: str) -> StateSpace:
    """The state space named `name` (with or without the dot). KeyError if unknown."""
    return SPACES[name[1:] if name.startswith(".") else name]


def canonical(name: str) -> str:
    """The space an instruction actually addresses: `shared` -> `shared::cta` (ISA 5.1.7)."""
    name = name[1:] if name.startswith(".") else name
    return "shared::cta" if name == "shared" else name
