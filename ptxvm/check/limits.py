"""Resource limits ptxas 13.0 enforces on state spaces:

- `.const` data of a module: at most 64 KB ("File uses too much global constant data");
- static `.shared` data of a kernel, its own and that of the module variables it and the functions
  it calls use: at most 48 KB ("Entry function uses too much shared data"; more needs dynamic,
  `.extern` shared memory);
- kernel parameters: at most 4352 bytes before PTX 8.1, 32764 bytes from it.
"""
from __future__ import annotations

from typing import Optional

from ..isa.types import TYPES
from ..syntax import ast
from .context import Context

CONST_LIMIT = 64 * 1024
SHARED_LIMIT = 48 * 1024
PARAM_LIMIT_OLD = 4352
PARAM_LIMIT = 32764


def var_bytes(d: ast.VarDecl) -> int:
    t = TYPES.get(d.type)
    n = ((t.bits + 7) // 8 if t is not None else 0) * (d.vector or 1)
    for dim in d.array:
        n *= dim or 0
    return n


def _align(offset: int, align: int) -> int:
    return -(-offset // align) * align


class Limits:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.const_bytes = 0
        self.const_reported = False
        self.body_shared: dict[str, int] = {}  # function -> its own static shared bytes
        self.uses: dict[str, set] = {}  # function -> module shared variables it names
        self.callees: dict[str, set] = {}
        self.module_shared: dict[str, int] = {}  # module shared variable -> bytes
        self.entries: list[ast.Function] = []
        self.current: Optional[str] = None

    # ------------------------------------------------------------------ hooks
    def module_variable(self, d: ast.VarDecl) -> None:
        space = d.space.split("[")[0]
        if d.linkage == "extern":
            return
        if space == "const":
            self.const_bytes += var_bytes(d)
            if self.const_bytes > CONST_LIMIT and not self.const_reported:
                self.const_reported = True
                self.ctx.error(d.span, f"the module uses too much constant data ({self.const_bytes} bytes, "
                                       f"{CONST_LIMIT} max)")
        elif space.startswith("shared"):
            self.module_shared[d.name] = var_bytes(d)

    def function(self, fn: ast.Function) -> None:
        self.current = fn.name
        self.body_shared.setdefault(fn.name, 0)
        self.uses.setdefault(fn.name, set())
        self.callees.setdefault(fn.name, set())
        if fn.kind == "entry" and fn.body is not None:
            self.entries.append(fn)
            self._params(fn)

    def body_variable(self, d: ast.VarDecl) -> None:
        if self.current is not None and d.space.startswith("shared") and d.linkage != "extern":
            self.body_shared[self.current] += var_bytes(d)

    def use(self, name: str) -> None:
        if self.current is not None and name in self.module_shared:
            self.uses[self.current].add(name)

    def call(self, callee: str) -> None:
        if self.current is not None:
            self.callees[self.current].add(callee)

    # ------------------------------------------------------------------ checks
    def _params(self, fn: ast.Function) -> None:
        offset = 0
        for p in fn.params:
            t = TYPES.get(p.type)
            size = var_bytes(p)
            align = p.align or (((t.bits + 7) // 8) * (p.vector or 1) if t is not None else 1) or 1
            offset = _align(offset, max(1, align)) + size
        limit = PARAM_LIMIT if tuple(self.ctx.version) >= (8, 1) else PARAM_LIMIT_OLD
        if offset > limit:
            more = " (PTX ISA 8.1 raised the limit to 32764 bytes)" if limit == PARAM_LIMIT_OLD else ""
            from .decls import end_span

            self.ctx.error(end_span(self.ctx, fn),
                           f"kernel '{fn.name}' uses too much parameter space ({offset} bytes, {limit} max){more}")

    def finish(self) -> None:
        for fn in self.entries:
            seen = set()
            todo = [fn.name]
            total = 0
            names = set()
            while todo:
                f = todo.pop()
                if f in seen:
                    continue
                seen.add(f)
                total += self.body_shared.get(f, 0)
                names |= self.uses.get(f, set())
                todo.extend(self.callees.get(f, ()))
            total += sum(self.module_shared[n] for n in names)
            if total > SHARED_LIMIT:
                self.ctx.error(fn.span, f"kernel '{fn.name}' uses too much static shared data ({total} bytes, "
                                        f"{SHARED_LIMIT} max; use dynamic .extern .shared memory beyond that)")
