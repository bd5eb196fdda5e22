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


def mark_ci(cases: list[Case], key=lambda c: (c.opcode, c.modifiers[-1] if c.modifiers else "")) -> list[Case]:
    """Put the first case of each (opcode, last modifier) group into the quick tier."""
    import dataclasses
    seen = set()
    out = []
    for c in cases:
        k = key(c)
        if k not in seen and c.undefined is None:
            seen.add(k)
            c = dataclasses.replace(c, ci=True)
        out.append(c)
    return out
