"""Where every name of a module lives: register slots, variable offsets, labels, function frames.

Built once per module from the AST. Scoping follows PTX: a `{ }` block opens a scope; a name
declared in it shadows outer ones and is visible in the whole block (labels may be used before
they are defined).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...semantics.dtypes import bits_of, storage_dtype
from ...syntax import ast

VECTOR_COMPONENTS = ("x", "y", "z", "w")
COLOR_COMPONENTS = ("r", "g", "b", "a")  # the same elements, by their other names (ISA 5.4.2)


def component_index(component: str) -> int:
    """0-3 for x/y/z/w (or r/g/b/a), -1 for anything else."""
    return max(("x", "y", "z", "w").index(component) if component in VECTOR_COMPONENTS else -1,
               COLOR_COMPONENTS.index(component) if component in COLOR_COMPONENTS else -1)


def vector_register(name: str, ptx_type: str, count: int, decl=None) -> "Symbol":
    """A `.reg .vN .type name`: a "regvec" Symbol whose parts are N ordinary registers."""
    parts = tuple(Symbol(f"{name}.{c}", "reg", ptx_type, offset=-1) for c in VECTOR_COMPONENTS[:count])
    return Symbol(name, "regvec", ptx_type, size=count, decl=decl, parts=parts)


@dataclass
class Symbol:
    """A named thing an operand can refer to."""

    name: str
    space: str  # "reg" "global" "const" "shared" "local" "kparam" "fparam" "function" "label" "sreg"
    type: str = "b8"
    size: int = 0  # bytes (variables)
    offset: int = 0  # space-relative address (variables), pc (labels), slot (registers)
    decl: Optional[ast.VarDecl] = None
    dynamic: bool = False  # extern .shared array: the dynamic shared memory
    parts: tuple = ()  # a vector register ("regvec"): one "reg" Symbol per element, x y z w


@dataclass
class Scope:
    names: dict = field(default_factory=dict)
    parent: Optional["Scope"] = None

    def lookup(self, name: str) -> Optional[Symbol]:
        s = self
        while s is not None:
            sym = s.names.get(name)
            if sym is not None:
                return sym
            s = s.parent
        return None


def type_size(decl: ast.VarDecl) -> int:
    """Bytes of one element (vector included) of a declaration."""
    if decl.type in ("texref", "samplerref", "surfref"):
        return 8
    bits = bits_of(decl.type)
    return max(bits // 8, 1) * (decl.vector or 1)


def var_size(decl: ast.VarDecl) -> int:
    n = type_size(decl)
    for d in decl.array:
        n *= d if d is not None else 0
    if decl.array and decl.array[-1] is None and decl.init is not None:
        n = type_size(decl) * _count_init(decl.init)
    return n


def _count_init(init) -> int:
    if isinstance(init, ast.Initializer):
        return sum(_count_init(i) for i in init.items)
    return 1


def var_align(decl: ast.VarDecl) -> int:
    return decl.align or min(max(type_size(decl), 1), 16)


class RegisterFile:
    """Register slots, allocated on first use so that `%r<5000>` costs nothing until used."""

    def __init__(self):
        self.dtypes: list[np.dtype] = []
        self.types: list[str] = []
        self.names: list[str] = []

    def new(self, name: str, ptx_type: str) -> int:
        self.dtypes.append(np.dtype(np.bool_) if ptx_type == "pred" else storage_dtype(ptx_type))
        self.types.append(ptx_type)
        self.names.append(name)
        return len(self.dtypes) - 1


class Frame:
    """The per-activation memory of a function: its .local variables and its .param variables.

    Frames live in local memory; recursion gives every activation its own copy, as ptxas does.
    """

    def __init__(self):
        self.size = 0

    def place(self, size: int, align: int) -> int:
        off = -(-self.size // align) * align
        self.size = off + size
        return off


class FlatLayout:
    """Offsets in a space shared by the whole module (.global images, .const bank, static .shared)."""

    def __init__(self):
        self.size = 0
        self.max_align = 1

    def place(self, size: int, align: int) -> int:
        off = -(-self.size // align) * align
        self.size = off + size
        self.max_align = max(self.max_align, align)
        return off
