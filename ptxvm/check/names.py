"""Names and scopes (ISA 4.4, 5.4, 10.1 with ptxas 13.0's reading of them).

- Module scope holds functions and module variables; they share one namespace ("Duplicate
  definition of function" / "Inconsistent redefinition"). A function may be declared any number of
  times and defined once.
- A function's parameters live in the same scope as the top level of its body (`.reg .b32 a` next
  to `.param .u32 a` is a duplicate). Every `{ }` block opens a scope; an inner declaration shadows
  an outer one; a name declared in a block is gone after it.
- Names must be declared before they are used (a later declaration does not count: ptxas then
  reads the name as a forward reference to a label and fails).
- `.reg .b32 %r<N>` declares %r0 .. %r(N-1) and nothing else (`%r` and `%rN` are undeclared); two
  ranges with one prefix in one scope, or a range and a name it covers, are duplicates.
- Labels are block scoped too (checked with ptxas 13.0: the same label in a block and in a block
  nested in it is accepted; a label defined in an inner block is unknown outside it), visible in
  their whole block (forward references are fine) and in blocks nested in it. Labels have their
  own namespace: a label may share its name with a register or a function.
"""
from __future__ import annotations

from typing import Optional

from ..errors import Span
from ..isa.types import TYPES

_DIGITS = "0123456789"


_SPLIT: dict[str, tuple[str, Optional[int]]] = {}


def split_number(name: str) -> tuple[str, Optional[int]]:
    """`%r12` -> ("%r", 12); names without a canonical numeric suffix -> (name, None)."""
    r = _SPLIT.get(name)
    if r is None:
        r = _split_number(name)
        if len(_SPLIT) < 1_000_000:
            _SPLIT[name] = r
    return r


_RANGE_KEYS: dict[str, Optional[str]] = {}


def range_key(name: str) -> Optional[str]:
    """`%r12` -> "<%r": the dependency key of the parameterized names a range `%r<N>` declares."""
    r = _RANGE_KEYS.get(name, 0)
    if r == 0:
        prefix, number = split_number(name)
        r = None if number is None else "<" + prefix
        if len(_RANGE_KEYS) < 1_000_000:
            _RANGE_KEYS[name] = r
    return r


def _split_number(name: str) -> tuple[str, Optional[int]]:
    prefix = name.rstrip(_DIGITS)
    digits = name[len(prefix):]
    if not digits or not prefix or (digits[0] == "0" and len(digits) > 1):
        return name, None
    return prefix, int(digits)


class RegKind:
    """What operand rules need to know of a register: its type and vector width. Interned, so that
    `%r1` of one function and `%r7` of another have the same shape (operands.py)."""

    __slots__ = ("type", "ptype", "vector")

    def __init__(self, type: Optional[str], vector: Optional[int]):
        self.type = type
        self.ptype = TYPES.get(type) if type else None
        self.vector = vector

    def __repr__(self) -> str:
        return f"<reg {'.v%d ' % self.vector if self.vector else ''}.{self.type}>"


_REG_KINDS: dict[tuple, RegKind] = {}


def reg_kind(type: Optional[str], vector: Optional[int]) -> RegKind:
    key = (type, vector)
    k = _REG_KINDS.get(key)
    if k is None:
        k = _REG_KINDS[key] = RegKind(type, vector)
    return k


# Stands for a symbol's name in memoized messages; the report puts the operand's own name in.
NAME = "\x1fname\x1f"


class SymKind:
    """What operand rules need to know of a non-register symbol (a variable, a function): kind,
    state space, type, role. Interned, so that `st.param [param0]` in one call sequence has the
    same shape as in the next; messages say NAME where the symbol's name goes."""

    __slots__ = ("kind", "space", "type", "ptype", "vector", "role", "arrayed", "align")
    name = NAME

    def __init__(self, kind, space, type, vector, role, arrayed, align):
        self.kind = kind
        self.space = space
        self.type = type
        self.ptype = TYPES.get(type) if type else None
        self.vector = vector
        self.role = role
        self.arrayed = arrayed
        self.align = align

    @property
    def base_space(self) -> Optional[str]:
        s = self.space
        if s is None:
            return None
        return s.split("::")[0].split("[")[0]

    def describe(self) -> str:
        if self.kind == "func":
            return "function"
        return f".{self.space} variable" if self.space else "variable"

    def __repr__(self) -> str:
        return f"<{self.kind} .{self.space} .{self.type} {self.role}>"


_SYM_KINDS: dict[tuple, SymKind] = {}


def sym_kind(kind, space, type, vector, role, arrayed, align) -> SymKind:
    key = (kind, space, type, vector, role, arrayed, align)
    k = _SYM_KINDS.get(key)
    if k is None:
        k = _SYM_KINDS[key] = SymKind(*key)
    return k


class Sym:
    """A declared name.

    kind: "reg" (a .reg variable or a .reg parameter), "var" (a variable in an addressable space,
    parameters included), "func", "label", "proto" (a .callprototype label), "btargets",
    "ctargets" (.branchtargets / .calltargets labels).
    role (variables): "module", "body" (declared in a function body), "entry-param",
    "func-param", "func-ret".
    """

    __slots__ = ("kind", "name", "space", "type", "ptype", "vector", "array", "align", "span", "role", "node",
                 "count", "info")

    def __init__(self, kind: str, name: str, span: Span, *, space: Optional[str] = None, type: Optional[str] = None,
                 vector: Optional[int] = None, array: tuple = (), align: Optional[int] = None, role: str = "",
                 node=None, count: Optional[int] = None):
        self.kind = kind
        self.name = name
        self.span = span
        self.space = space
        self.type = type
        self.ptype = TYPES.get(type) if type else None
        self.vector = vector
        self.array = array
        self.align = align
        self.role = role
        self.node = node
        self.count = count
        if kind == "reg":
            self.info = reg_kind(type, vector)
        elif kind in ("var", "func"):
            self.info = sym_kind(kind, space, type, vector, role, bool(array), align)
        else:
            self.info = None

    @property
    def base_space(self) -> Optional[str]:
        """`shared` for `shared::cta`, `const` for `const[2]`."""
        s = self.space
        if s is None:
            return None
        return s.split("::")[0].split("[")[0]

    @property
    def size_bits(self) -> int:
        """Storage size of one element (vector included), in bits."""
        t = self.ptype
        bits = t.bits if t is not None else 0
        return bits * (self.vector or 1)

    @property
    def total_bytes(self) -> Optional[int]:
        n = (self.size_bits + 7) // 8
        for d in self.array:
            if d is None:
                return None
            n *= d
        return n

    def describe(self) -> str:
        if self.kind == "reg":
            return "register"
        if self.kind == "func":
            return "function"
        if self.kind in ("label", "btargets", "ctargets", "proto"):
            return "label"
        return f".{self.space} variable" if self.space else "variable"

    def __repr__(self) -> str:
        return f"<Sym {self.kind} {self.name}>"


LABEL_KINDS = {"Label": "label", "CallPrototype": "proto", "BranchTargets": "btargets", "CallTargets": "ctargets"}


def label_kind(node) -> str:
    return LABEL_KINDS.get(type(node).__name__, "label")


class Scope:
    """One block's declarations: names, parameterized ranges and labels."""

    __slots__ = ("names", "ranges", "numbered", "labels", "parent")

    def __init__(self, parent: Optional["Scope"] = None):
        self.names: dict[str, Sym] = {}
        self.ranges: dict[str, tuple[int, Sym]] = {}  # prefix -> (count, the range's symbol)
        self.numbered: dict[str, list[int]] = {}  # prefix -> numbers of plain names declared here
        self.labels: dict = {}  # name -> the label statement
        self.parent = parent

    # ------------------------------------------------------------------ lookups
    def local(self, name: str) -> Optional[Sym]:
        sym = self.names.get(name)
        if sym is not None or not self.ranges:
            return sym
        prefix, number = split_number(name)
        if number is not None:
            entry = self.ranges.get(prefix)
            if entry is not None and number < entry[0]:
                return entry[1]
        return None

    def lookup(self, name: str) -> Optional[Sym]:
        scope: Optional[Scope] = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                return sym
            if scope.ranges:
                prefix, number = split_number(name)
                if number is not None:
                    entry = scope.ranges.get(prefix)
                    if entry is not None and number < entry[0]:
                        return entry[1]
            scope = scope.parent
        return None

    def label(self, name: str):
        """The label statement (Label, CallPrototype, BranchTargets, CallTargets) `name` names."""
        scope: Optional[Scope] = self
        while scope is not None:
            sym = scope.labels.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def nearest_range(self, name: str) -> Optional[tuple[int, str]]:
        """(count, prefix) of the range declaration whose prefix `name` has (for "declared %r0..%r7")."""
        prefix, number = split_number(name)
        if number is None:
            return None
        scope: Optional[Scope] = self
        while scope is not None:
            entry = scope.ranges.get(prefix)
            if entry is not None:
                return entry[0], prefix
            scope = scope.parent
        return None

    # ------------------------------------------------------------------ declarations
    def declare(self, sym: Sym) -> Optional[Sym]:
        """Add `sym`; the symbol it clashes with in this scope, if any (then it is not added)."""
        name = sym.name
        if sym.count is not None:  # %r<N>
            entry = self.ranges.get(name)
            if entry is not None:
                return entry[1]
            clash = self.names.get(name)
            if clash is not None and clash.count is not None:
                return clash
            for number in self.numbered.get(name, ()):
                if number < sym.count:
                    return self.names[f"{name}{number}"]
            self.ranges[name] = (sym.count, sym)
            return None
        clash = self.local(name)
        if clash is not None:
            return clash
        self.names[name] = sym
        prefix, number = split_number(name)
        if number is not None:
            self.numbered.setdefault(prefix, []).append(number)
        return None

    def declare_label(self, node):
        """Add a label statement; the one of the same name already in this block, if any."""
        clash = self.labels.get(node.name)
        if clash is not None:
            return clash
        self.labels[node.name] = node
        return None
