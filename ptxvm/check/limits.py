"""Resource limits ptxas 13.0 enforces on state spaces:

- `.const` data of a module: at most 64 KB ("File uses too much global constant data");
- static `.shared` data of a kernel, its own and that of the module variables it and the functions
  it calls use: at most 48 KB ("Entry function uses too much shared data"; more needs dynamic,
  `.extern` shared memory);
- kernel parameters: at most 4352 bytes before PTX 8.1, 32764 bytes from it.

Kernel header directives whose values no H200 can honour are warnings, as ptxas gives them
(`directive_limits`): `.maxnreg` above 255 (ignored) or below the ABI's 24 (raised to 24),
`.minnctapersm` above the 32 CTAs an SM holds, and `.maxntid`/`.reqntid` x `.minnctapersm`
above the 2048 threads an SM holds (ignored). ptxas accepts silently what the driver later
refuses at launch: a `.reqntid` block larger than a block may be, a `.reqnctapercluster` or
`.maxclusterrank` cluster larger than 16 CTAs; those are warnings here too, naming the launch
limit (engine/launch_limits.py enforces it).
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
MAX_REGISTERS = 255  # per thread
ABI_MIN_REGISTERS = 24  # ptxas raises a smaller .maxnreg to this
CTAS_PER_SM = 32
THREADS_PER_SM = 2048
MAX_BLOCK = (1024, 1024, 64)
THREADS_PER_BLOCK = 1024
MAX_CLUSTER = 16  # CTAs (8 portable; 16 with the non-portable cluster size attribute)


def directive_limits(ctx: Context, fn: ast.Function, values: dict, decls: dict) -> None:
    """Warnings for a kernel's header directives that exceed what the H200 has (see the module
    doc); `values` maps a directive's name to its integer values (None if not constant)."""

    def warn(name: str, message: str) -> None:
        d = decls[name]
        ctx.warning(d.span if d.span.line > 0 else fn.span, message)

    def one(name):
        v = values.get(name)
        return v[0] if v and len(v) == 1 and v[0] > 0 else None

    def dims(name):
        v = values.get(name)
        return tuple(v) if v and 1 <= len(v) <= 3 and all(x > 0 for x in v) else None

    nreg = one("maxnreg")
    if nreg is not None and nreg > MAX_REGISTERS:
        warn("maxnreg", f".maxnreg {nreg} exceeds the {MAX_REGISTERS} registers a thread can have; ptxas ignores it")
    elif nreg is not None and nreg < ABI_MIN_REGISTERS:
        warn("maxnreg", f".maxnreg {nreg} is below the ABI's minimum of {ABI_MIN_REGISTERS} registers; ptxas raises it "
                        f"to {ABI_MIN_REGISTERS}")
    bound_name = "reqntid" if "reqntid" in values else "maxntid"
    bound = dims(bound_name)
    threads = 1
    for x in bound or ():
        threads *= x
    min_ctas = one("minnctapersm")
    if bound is not None and threads > THREADS_PER_SM:
        warn(bound_name, f".{bound_name} {', '.join(map(str, bound))} asks for {threads} threads per CTA, more than the "
                         f"{THREADS_PER_SM} an SM holds; ptxas ignores .maxntid and .minnctapersm")
    elif min_ctas is not None and min_ctas > CTAS_PER_SM:
        warn("minnctapersm", f".minnctapersm {min_ctas} exceeds the {CTAS_PER_SM} CTAs an SM holds; ptxas ignores it")
    elif min_ctas is not None and bound is not None and threads * min_ctas > THREADS_PER_SM:
        warn("minnctapersm", f".minnctapersm {min_ctas} CTAs of {threads} threads ({threads * min_ctas}) exceed the "
                             f"{THREADS_PER_SM} threads an SM holds; ptxas ignores .minnctapersm")
    req = dims("reqntid")
    if req is not None:
        bad = [f"{axis} = {n} (at most {m})" for n, m, axis in zip(req, MAX_BLOCK, "xyz") if n > m]
        if bad or threads > THREADS_PER_BLOCK:
            why = ", ".join(bad) if bad else f"{threads} threads (at most {THREADS_PER_BLOCK})"
            warn("reqntid", f"no launch can give .reqntid {', '.join(map(str, req))}: {why} per block; the driver will "
                            f"refuse every launch of '{fn.name}'")
    cluster = dims("reqnctapercluster")
    if cluster is not None:
        size = 1
        for x in cluster:
            size *= x
        if size > MAX_CLUSTER:
            warn("reqnctapercluster", f".reqnctapercluster {', '.join(map(str, cluster))} asks for clusters of {size} "
                                      f"CTAs, more than the {MAX_CLUSTER} an H200 cluster may have; the driver will "
                                      f"refuse every launch of '{fn.name}'")
    rank = one("maxclusterrank")
    if rank is not None and rank > MAX_CLUSTER:
        warn("maxclusterrank", f".maxclusterrank {rank} exceeds the {MAX_CLUSTER} CTAs an H200 cluster may have")


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
