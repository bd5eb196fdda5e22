"""Which names are registers at a point of the module, and the per-module operand cache whose
entries depend on that.

Whether `x` in `add.s32 x, y, 1` is a Register or a SymbolRef (a variable's address, a label) is
decided by the declarations in scope, since PTX requires registers to be declared before use:
a name declared in `.reg` space (or a `.reg` parameter) is a register; any other declared name is
a symbol; an undeclared name is a register when it starts with `%` (special registers, or a
register the verifier will report as undeclared) and a symbol otherwise (labels, forward calls).

Operand nodes are interned by their source text (`operand_cache`). An entry stays valid as long as
no name it was classified with changes meaning; `used` records those names, and any declaration
or end of scope touching one of them empties the cache.
"""
from __future__ import annotations

import re

_NUMBERED = re.compile(r"(.+?)(0|[1-9]\d*)\Z")


def _range_key(prefix: str) -> str:
    return prefix + "<>"


class Scopes:
    def __init__(self) -> None:
        # each scope: (names: name -> is_register, ranges: prefix -> (count, is_register))
        self.stack: list[tuple[dict[str, bool], dict[str, tuple[int, bool]]]] = [({}, {})]
        self.used: set[str] = set()
        self.operand_cache: dict[str, object] = {}

    def push(self) -> None:
        self.stack.append(({}, {}))

    def pop(self) -> None:
        names, ranges = self.stack.pop()
        used = self.used
        if used and (any(n in used for n in names) or any(_range_key(p) in used for p in ranges)):
            self.invalidate()

    def declare(self, name: str, is_register: bool) -> None:
        self.stack[-1][0][name] = is_register
        if name in self.used:
            self.invalidate()

    def declare_global(self, name: str) -> None:
        """A module-level symbol (variable or function), declared from within any scope."""
        self.stack[0][0][name] = False
        if name in self.used:
            self.invalidate()

    def reset(self) -> None:
        """Back to module scope, after a syntax error left scopes open."""
        del self.stack[1:]
        self.invalidate()

    def declare_range(self, prefix: str, count: int, is_register: bool) -> None:
        """`.reg .b32 %r<100>` declares %r0 .. %r99."""
        self.stack[-1][1][prefix] = (count, is_register)
        if _range_key(prefix) in self.used:
            self.invalidate()

    def is_register(self, name: str) -> bool:
        used = self.used
        used.add(name)
        m = _NUMBERED.match(name)
        prefix = number = None
        if m is not None:
            prefix, number = m.group(1), int(m.group(2))
            used.add(_range_key(prefix))
        for names, ranges in reversed(self.stack):
            if name in names:
                return names[name]
            if prefix is not None and prefix in ranges:
                count, is_register = ranges[prefix]
                if number < count:
                    return is_register
        return name.startswith("%")

    def invalidate(self) -> None:
        self.operand_cache.clear()
        self.used.clear()
