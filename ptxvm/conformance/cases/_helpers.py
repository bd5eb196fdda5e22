"""Small helpers to write case lists as data."""
from __future__ import annotations

from typing import Iterable, Optional, Sequence

from ..case import Case, Memory, Operand
from .. import inputs as I


def ops(spec: str) -> tuple[Operand, ...]:
    """"d:s32 p:pred v:b32*4" -> operands (name:type, *k for a vector of k registers)."""
    out = []
    for item in spec.split():
        name, t = item.split(":")
        count = 1
        if "*" in t:
            t, c = t.split("*")
            count = int(c)
        out.append(Operand(name, t, count))
    return tuple(out)


def default_inputs(srcs: Sequence[Operand]) -> str:
    types = [o.type + (f"*{o.count}" if o.count > 1 else "") for o in srcs]
    if len(types) == 1:
        return I.key("unary", *types)
    return I.key("nary", *types)


def case(family: str, spelling: str, dsts: str, srcs: str, inputs: Optional[str] = None,
         variant: str = "", **kw) -> Case:
    words = spelling.split(".")
    opcode, mods = words[0], tuple(words[1:])
    d, s = ops(dsts), ops(srcs)
    cid = spelling + (("#" + variant) if variant else "")
    return Case(id=cid, family=family, opcode=opcode, modifiers=mods, dsts=d, srcs=s,
                inputs=inputs or default_inputs(s), **kw)


CI_CAP = 30  # quick-tier cases per family at most


def mark_ci(cases: list[Case], key=lambda c: (c.opcode, c.modifiers[-1] if c.modifiers else ""),
            cap: int = CI_CAP) -> list[Case]:
    """Put the first case of each group (by default: opcode and last modifier) into the quick
    tier, thinned evenly to at most `cap` cases."""
    import dataclasses
    seen = set()
    reps = []
    for i, c in enumerate(cases):
        k = key(c)
        if k not in seen and c.undefined is None and c.expect_reject is None:
            seen.add(k)
            reps.append(i)
    if len(reps) > cap:
        step = len(reps) / cap
        reps = [reps[int(j * step)] for j in range(cap)]
    keep = set(reps)
    return [dataclasses.replace(c, ci=True) if i in keep else c for i, c in enumerate(cases)]
