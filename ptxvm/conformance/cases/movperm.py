"""Data movement: mov (every type, packing and unpacking), prmt (every mode), special registers
whose values are fixed by the launch (lane and thread ids, lane masks)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "movperm"
TYPES = ["pred", "b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]
SREGS = ["laneid", "tid.x", "ntid.x", "ctaid.x", "nctaid.x", "lanemask_eq", "lanemask_lt",
         "lanemask_le", "lanemask_gt", "lanemask_ge", "tid.y", "ntid.y", "ctaid.z", "nctaid.y"]


def cases():
    C = []
    for t in TYPES:
        C.append(case(F, f"mov.{t}", f"d:{t}", f"a:{t}"))
    C.append(case(F, "mov.b32", "d:b32", "a:b16*2", I.key("unary", "b16*2"), variant="pack",
                  asm="mov.b32 {d}, {a};"))
    C.append(case(F, "mov.b64", "d:b64", "a:b32*2", I.key("unary", "b32*2"), variant="pack",
                  asm="mov.b64 {d}, {a};"))
    C.append(case(F, "mov.b64", "d:b64", "a:b16*4", I.key("unary", "b16*4"), variant="pack4",
                  asm="mov.b64 {d}, {a};"))
    C.append(case(F, "mov.b32", "d:b16*2", "a:b32", variant="unpack", asm="mov.b32 {d}, {a};"))
    C.append(case(F, "mov.b64", "d:b32*2", "a:b64", variant="unpack", asm="mov.b64 {d}, {a};"))
    C.append(case(F, "mov.b64", "d:b16*4", "a:b64", variant="unpack4", asm="mov.b64 {d}, {a};"))
    C.append(case(F, "mov.b128", "d:b64*2", "a:b64*2", I.key("unary", "b64*2"), version="8.3",
                  decls="  .reg .b128 %t_q;",
                  asm="mov.b128 %t_q, {a};\nmov.b128 {d}, %t_q;"))
    for mode in ("", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"):
        sp = "prmt.b32" + (f".{mode}" if mode else "")
        C.append(case(F, sp, "d:b32", "a:b32 b:b32 c:b32"))
    for sr in SREGS:
        C.append(case(F, "mov.u32", "d:u32", "a:u32", variant=sr.replace(".", "_"),
                      asm=f"mov.u32 {{d}}, %{sr};"))
    return mark_ci(C)
