"""Atomics and reductions on global and shared memory. With conflicting addresses (many lanes on
one word) only order-independent operations are recorded, and only the final memory (the values
each lane got back depend on the order). With one lane per word (a permutation), the returned
old values are recorded too."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I
from .. import types as T

F = "atomic"
SLOTS = 64     # conflicting: 2048 lanes on 64 words
LANES = 1024   # unique: one word per lane

CONFLICT = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("add", "f32"), ("add", "f64"),
            ("min", "u32"), ("min", "s32"), ("min", "u64"), ("min", "s64"), ("max", "u32"),
            ("max", "s32"), ("max", "u64"), ("max", "s64"), ("and", "b32"), ("or", "b32"),
            ("xor", "b32"), ("and", "b64"), ("or", "b64"), ("xor", "b64")]
UNIQUE = CONFLICT + [("exch", "b32"), ("exch", "b64"), ("inc", "u32"), ("dec", "u32"),
                     ("add.noftz", "f16"), ("add.noftz", "f16x2"), ("add.noftz", "bf16"),
                     ("add.noftz", "bf16x2")]


def _addr(size):
    return f"mul.wide.u32 %t_rd0, {{a}}, {size};\nadd.s64 %t_rd1, {{m}}, %t_rd0;\n"


def cases():
    C = []
    for op, t in CONFLICT:
        size = T.type_bytes(t)
        init = "small" if T.is_float(t) else "random"
        for kind in ("atom", "red"):
            body = (f"atom.global.{op}.{t} %t_junk, [%t_rd1], {{b}};" if kind == "atom"
                    else f"red.global.{op}.{t} [%t_rd1], {{b}};")
            C.append(case(F, f"{kind}.global.{op}.{t}", "", f"a:u32 b:{t}",
                          I.key("index", "u32", t, arg=SLOTS), variant="conflict",
                          memory=(Memory("m", t, SLOTS, init),), truncatable=False,
                          decls=f"  .reg .b{T.width(t)} %t_junk;", asm=_addr(size) + body))
    for op, t in UNIQUE:
        size = T.type_bytes(t)
        init = "random"
        C.append(case(F, f"atom.global.{op}.{t}", f"d:{t}", f"a:u32 b:{t}",
                      I.key("perm", "u32", t, arg=LANES), memory=(Memory("m", t, LANES, init),),
                      asm=_addr(size) + f"atom.global.{op}.{t} {{d}}, [%t_rd1], {{b}};",
                      version="7.8"))
    for t in ("b32", "b64", "b16"):
        size = T.type_bytes(t)
        C.append(case(F, f"atom.global.cas.{t}", f"d:{t}", f"a:u32 b:{t} c:{t}",
                      I.key("perm", "u32", t, t, arg=LANES), memory=(Memory("m", t, LANES, "random"),),
                      asm=_addr(size) + f"atom.global.cas.{t} {{d}}, [%t_rd1], {{b}}, {{c}};"))
    # cas where half the lanes compare equal: b = the current memory value
    C.append(case(F, "atom.global.cas.b32", "d:b32", "a:u32 c:b32", I.key("perm", "u32", "b32", arg=LANES),
                  variant="hit", memory=(Memory("m", "b32", LANES, "iota"),),
                  asm=_addr(4) + "and.b32 %t_r3, {a}, 1;\nadd.u32 %t_r3, {a}, %t_r3;\n"
                                 "atom.global.cas.b32 {d}, [%t_rd1], %t_r3, {c};"))
    # inc/dec wrap: per-lane bound b
    for op in ("inc", "dec"):
        C.append(case(F, f"atom.global.{op}.u32", "d:u32", "a:u32 b:u32", I.key("perm", "u32", "u32", arg=LANES),
                      variant="small_mem", memory=(Memory("m", "u32", LANES, "small"),),
                      asm=_addr(4) + f"atom.global.{op}.u32 {{d}}, [%t_rd1], {{b}};"))
    # semantics and scopes
    for sem in ("relaxed", "acquire", "release", "acq_rel"):
        for scope in ("cta", "gpu", "sys"):
            C.append(case(F, f"atom.{sem}.{scope}.global.add.u32", "d:u32", "a:u32 b:u32",
                          I.key("perm", "u32", "u32", arg=LANES), memory=(Memory("m", "u32", LANES),),
                          asm=_addr(4) + f"atom.{sem}.{scope}.global.add.u32 {{d}}, [%t_rd1], {{b}};"))
    # shared memory, conflicting within a CTA: memory = per-CTA totals copied out by thread 0..7
    for op, t in (("add", "u32"), ("min", "s32"), ("max", "u64"), ("xor", "b32"), ("add", "f32"),
                  ("and", "b64"), ("inc", "u32")):
        size = T.type_bytes(t)
        b = "{b}" if op != "inc" else "0xFFFFFFFF"
        body = (f"mov.u32 %t_r0, sh_buf;\nmov.u32 %t_r1, %tid.x;\nand.b32 %t_r2, %t_r1, 7;\n"
                f"mad.lo.u32 %t_r2, %t_r2, {size}, %t_r0;\nsetp.lt.u32 %t_q, %t_r1, 8;\n"
                f"@%t_q st.shared.b{T.width(t)} [%t_r2], 0;\nbar.sync 0;\n"
                f"atom.shared.{op}.{t} %t_junk, [%t_r2], {b};\nbar.sync 0;\n"
                f"@!%t_q bra $L_done;\nld.shared.b{T.width(t)} %t_junk, [%t_r2];\n"
                f"mov.u32 %t_r3, %ctaid.x;\nmad.lo.u32 %t_r3, %t_r3, 8, %t_r1;\n"
                f"mul.wide.u32 %t_rd0, %t_r3, {size};\nadd.s64 %t_rd1, {{m}}, %t_rd0;\n"
                f"st.global.b{T.width(t)} [%t_rd1], %t_junk;")
        C.append(case(F, f"atom.shared.{op}.{t}", "", f"b:{t}", I.key("ints", t, arg=2048),
                      variant="cta_conflict",
                      memory=(Memory("m", t, 8 * 8, "zero"),), truncatable=False, lanes_multiple=256,
                      decls=(f"  .reg .b{T.width(t)} %t_junk;\n  .reg .pred %t_q;\n"
                             f"  .shared .align 8 .b8 sh_buf[{8 * size}];"), asm=body))
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[0], c.modifiers[-1]))
