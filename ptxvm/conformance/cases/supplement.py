"""Forms that the large families (compare, half, memory) leave out, in a family of their own so
that adding them needs no re-recording of those families' multi-megabyte goldens: setp with a
boolean combine for the bit and 16/32/64-bit integer types, set into s32/u32 from scalar bf16,
setp on f16x2 pairs with a boolean combine (p|q), and ld/st.mmio with .b128."""
from __future__ import annotations

import dataclasses

from ._helpers import case, mark_ci
from .memory import ld_case, st_case
from .. import inputs as I

F = "supplement"

BOOL_SETP = [  # (type, comparison, boolean op, negate c)
    ("b16", "eq", "and", False), ("b32", "ne", "or", True), ("b64", "eq", "xor", False),
    ("s16", "le", "or", False), ("s64", "gt", "xor", True), ("u16", "hs", "and", True),
    ("u32", "lo", "xor", False),
]


def cases():
    C = []
    for t, cmp, boolop, neg in BOOL_SETP:
        sp = f"setp.{cmp}.{boolop}.{t}"
        C.append(case(F, sp, "p:pred q:pred", f"a:{t} b:{t} c:pred", I.key("nary", t, t, "pred", arg=1024),
                      asm=f"{sp} {{p}}|{{q}}, {{a}}, {{b}}, {'!' if neg else ''}{{c}};"))
    for d, cmp in (("s32", "lt"), ("u32", "gtu")):
        C.append(case(F, f"set.{cmp}.{d}.bf16", f"d:{d}", "a:bf16 b:bf16", I.key("nary", "bf16", "bf16", arg=1024)))
    for sp, neg in (("setp.ltu.and.f16x2", True), ("setp.ge.or.ftz.f16x2", False)):
        C.append(case(F, sp, "p:pred q:pred", "a:f16x2 b:f16x2 c:pred",
                      I.key("nary", "f16x2", "f16x2", "pred", arg=1024),
                      asm=f"{sp} {{p}}|{{q}}, {{a}}, {{b}}, {'!' if neg else ''}{{c}};"))
    for c in (ld_case("ld.mmio.relaxed.sys.global.b128", "b128", version="8.2"),
              st_case("st.mmio.relaxed.sys.global.b128", "b128", version="8.2")):
        C.append(dataclasses.replace(c, family=F))
    return mark_ci(C, key=lambda c: c.instruction)
