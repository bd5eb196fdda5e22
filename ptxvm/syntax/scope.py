"""Which names are registers at a point of the module, and the per-module operand cache whose
entries depend on that.

Whether `x` in `add.s32 x, y, 1` is a Register or a SymbolRef (a variable's address, a label) is
decided by the declarations in scope, since PTX requires registers to be declared before use:
a name declared in `.reg` space (or a `.reg` parameter) is a register; any other declared name is
a symbol; an undeclared name is a register when it starts with `%` (special registers, or a
register the verifier will report as undeclared) and a symbol otherwise (labels, forward calls).

Operand nodes are interned by their source text (`operand_cache`). An entry stays valid as long as
the names it was classified with keep their meaning; `used` records those names, and the cache is
emptied when a declaration or the end of a scope may change the meaning of one of them.
"""
from __future__ import annotations

from typing import Optional

_DIGITS = "0123456789"


def split_number(name: str) -> tuple[str, Optional[int]]:
    """`%r12` -> ("%r", 12); names without a canonical numeric suffix -> (name, None)."""
    prefix = name.rstrip(_DIGITS)
    digits = name[len(prefix) :]
    if not digits or not prefix or (digits[0] == "0" and len(digits) > 1):
        return name, None
    return prefix, int(digits)


def _default(name: str) -> bool:
    return name.startswith("%")


class Scope:
    __slots__ = ("names", "ranges", "numbered")

    def __init__(self) -> None:
        self.names: dict[str, bool] = {}  # name -> is_register
        self.ranges: dict[str, tuple[int, bool]] = {}  # prefix -> (count, is_register)
        self.numbered: set[str] = set()  # prefixes of names in `names` that end in a number

    def lookup(self, name: str, prefix: str, number: Optional[int]) -> Optional[bool]:
        found = self.names.get(name)
        if found is None and number is not None:
            entry = self.ranges.get(prefix)
            if entry is not None and number < entry[0]:
                return entry[1]
        return found

    def mentions(self, prefix: str) -> bool:
        return prefix in self.ranges or prefix in self.numbered


class Scopes:
    def __init__(self) -> None:
        self.stack: list[Scope] = [Scope()]
        self.used: set[str] = set()
        self.used_prefixes: set[str] = set()
        self.operand_cache: dict[str, object] = {}

    def is_register(self, name: str) -> bool:
        self.used.add(name)
        prefix = name.rstrip(_DIGITS)  # split_number(name), inlined: the parser's hottest call
        digits = name[len(prefix) :]
        number = None if not digits or not prefix or (digits[0] == "0" and len(digits) > 1) else int(digits)
        if number is None:
            for scope in reversed(self.stack):
                found = scope.names.get(name)
                if found is not None:
                    return found
            return name.startswith("%")
        self.used_prefixes.add(prefix)
        for scope in reversed(self.stack):  # Scope.lookup, inlined
            found = scope.names.get(name)
            if found is not None:
                return found
            entry = scope.ranges.get(prefix)
            if entry is not None and number < entry[0]:
                return entry[1]
        return name.startswith("%")

    def _classify(self, name: str) -> bool:
        prefix, number = split_number(name)
        for scope in reversed(self.stack):
            found = scope.lookup(name, prefix, number)
            if found is not None:
                return found
        return _default(name)

    def push(self) -> None:
        self.stack.append(Scope())

    def pop(self) -> None:
        popped = self.stack.pop()
        for name, is_register in popped.names.items():
            if name in self.used and is_register != self._classify(name):
                self.invalidate()
                return
        for prefix, (_, is_register) in popped.ranges.items():
            if self._range_may_matter(prefix, is_register):
                self.invalidate()
                return

    def declare(self, name: str, is_register: bool) -> None:
        self._declare_in(self.stack[-1], name, is_register)

    def declare_global(self, name: str) -> None:
        """A module-level symbol (variable or function), declared from within any scope."""
        self._declare_in(self.stack[0], name, False)

    def _declare_in(self, scope: Scope, name: str, is_register: bool) -> None:
        if name in self.used and self._classify(name) != is_register:
            self.invalidate()
        scope.names[name] = is_register
        prefix, number = split_number(name)
        if number is not None:
            scope.numbered.add(prefix)

    def declare_range(self, prefix: str, count: int, is_register: bool) -> None:
        """`.reg .b32 %r<100>` declares %r0 .. %r99."""
        if self._range_may_matter(prefix, is_register):
            self.invalidate()
        self.stack[-1].ranges[prefix] = (count, is_register)

    def _range_may_matter(self, prefix: str, is_register: bool) -> bool:
        """Whether adding or removing a range of `prefix` names may reclassify a used name:
        only if such names were used and the range's meaning differs from what they would
        have without it (conservatively: from the default, with no other declaration around)."""
        if prefix not in self.used_prefixes:
            return False
        return is_register != _default(prefix) or any(s.mentions(prefix) for s in self.stack)

    def reset(self) -> None:
        """Back to module scope, after a syntax error left scopes open."""
        del self.stack[1:]
        self.invalidate()

    def invalidate(self) -> None:
        self.operand_cache.clear()
        self.used.clear()
        self.used_prefixes.clear()
