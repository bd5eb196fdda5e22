"""Loads and stores: ld/st in every type under each of their forms (weak, volatile, relaxed,
acquire/release, non-coherent, mmio, ldu), cache and eviction hints, vectors, the shared, local
and generic spaces. Each lane loads (or stores) its own element of a memory array, in a scrambled
order given by an index input; sub-word loads keep their whole 16-bit register (sign extension)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I
from .. import types as T

F = "memory"
TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
         "f32", "f64"]
LANES = 1024
LD_FORMS = [
    ("ld.global.{t}", "7.8"), ("ld.volatile.global.{t}", "7.8"), ("ld.relaxed.gpu.global.{t}", "7.8"),
    ("ld.acquire.sys.global.{t}", "7.8"), ("ld.global.nc.{t}", "7.8"),
    ("ld.mmio.relaxed.sys.global.{t}", "8.2"), ("ldu.global.{t}", "7.8"),
]
ST_FORMS = [
    ("st.global.{t}", "7.8"), ("st.volatile.global.{t}", "7.8"), ("st.relaxed.gpu.global.{t}", "7.8"),
    ("st.release.sys.global.{t}", "7.8"), ("st.mmio.relaxed.sys.global.{t}", "8.2"),
]
HINTS_LD = ["ld.global.ca.b32", "ld.global.cg.b32", "ld.global.cs.b32", "ld.global.lu.b32",
            "ld.global.cv.b32", "ld.global.L1::evict_last.b32", "ld.global.L1::no_allocate.b32",
            "ld.global.L2::256B.b32", "ld.global.nc.L1::evict_first.b32",
            "ld.weak.global.b32", "ld.relaxed.cta.global.b32", "ld.acquire.gpu.global.b32",
            "ld.relaxed.cluster.global.b32"]
HINTS_ST = ["st.global.wb.b32", "st.global.cg.b32", "st.global.cs.b32", "st.global.wt.b32",
            "st.global.L1::evict_last.b32", "st.global.L1::no_allocate.b32", "st.weak.global.b32",
            "st.release.cta.global.b32", "st.relaxed.sys.global.b32"]
VECTORS = [("v2", "b32"), ("v4", "b32"), ("v2", "f32"), ("v4", "f32"), ("v2", "b64"), ("v2", "f64"),
           ("v4", "b16"), ("v2", "u8"), ("v4", "s8")]


def _addr(bytes_per_lane: int) -> str:
    return (f"mul.wide.u32 %t_rd0, {{a}}, {bytes_per_lane};\n"
            f"add.s64 %t_rd1, {{m}}, %t_rd0;")


def _shape(t: str):
    """(memory element type, elements per value, register-operand type, count) for a value type."""
    if t == "b128":
        return "b64", 2, "b64", 2
    return t, 1, t, 1


def ld_case(spelling: str, t: str, vec: int = 1, version: str = "7.8"):
    mt, per, rt, cnt = _shape(t)
    count = cnt * vec
    nbytes = T.type_bytes(mt) * per * vec
    mem = (Memory("m", mt, LANES * per * vec),)
    if t == "b128":
        if vec == 1:
            body = f"{spelling} %t_q, [%t_rd1];\nmov.b128 {{d}}, %t_q;"
        else:
            body = (f"{spelling} {{{{%t_q, %t_q2}}}}, [%t_rd1];\nmov.b128 {{{{%o_d0, %o_d1}}}}, %t_q;\n"
                    f"mov.b128 {{{{%o_d2, %o_d3}}}}, %t_q2;")
        decls = "  .reg .b128 %t_q, %t_q2;"
        version = max(version, "8.4" if ".sys" in spelling else "8.3")
    else:
        body = f"{spelling} {{d}}, [%t_rd1];"
        decls = ""
    d = f"d:{rt}" + (f"*{count}" if count > 1 else "")
    return case(F, spelling, d, "a:u32", I.key("perm", "u32", arg=LANES), memory=mem, decls=decls,
                asm=_addr(nbytes) + "\n" + body, version=version)


def st_case(spelling: str, t: str, vec: int = 1, version: str = "7.8"):
    mt, per, rt, cnt = _shape(t)
    count = cnt * vec
    nbytes = T.type_bytes(mt) * per * vec
    mem = (Memory("m", mt, LANES * per * vec),)
    b = f"b:{rt}" + (f"*{count}" if count > 1 else "")
    key = I.key("perm", "u32", rt + (f"*{count}" if count > 1 else ""), arg=LANES)
    if t == "b128":
        if vec == 1:
            body = f"mov.b128 %t_q, {{b}};\n{spelling} [%t_rd1], %t_q;"
        else:
            body = (f"mov.b128 %t_q, {{{{%o_b0, %o_b1}}}};\nmov.b128 %t_q2, {{{{%o_b2, %o_b3}}}};\n"
                    f"{spelling} [%t_rd1], {{{{%t_q, %t_q2}}}};")
        decls = "  .reg .b128 %t_q, %t_q2;"
        version = max(version, "8.4" if ".sys" in spelling else "8.3")
    else:
        body = f"{spelling} [%t_rd1], {{b}};"
        decls = ""
    return case(F, spelling, "", f"a:u32 {b}", key, memory=mem, decls=decls,
                asm=_addr(nbytes) + "\n" + body, version=version)


def shared_case(t: str):
    """Through shared memory: each lane stores its value, the CTA syncs, each lane loads its
    neighbour's (tid ^ 1)."""
    size = T.type_bytes(t)
    asm = (f"mov.u32 %t_r0, sh_buf;\nmov.u32 %t_r1, %tid.x;\nmad.lo.u32 %t_r2, %t_r1, {size}, %t_r0;\n"
           f"st.shared.{t} [%t_r2], {{b}};\nbar.sync 0;\nxor.b32 %t_r1, %t_r1, 1;\n"
           f"mad.lo.u32 %t_r2, %t_r1, {size}, %t_r0;\nld.shared.{t} {{d}}, [%t_r2];")
    return case(F, f"ld.shared.{t}", f"d:{t}", f"b:{t}", I.key("unary", t, arg=LANES),
                decls=f"  .shared .align 16 .b8 sh_buf[{size * 256}];", asm=asm, lanes_multiple=256,
                variant="via_st_shared")


def local_case(t: str):
    size = T.type_bytes(t)
    asm = (f"mov.u64 %t_rd0, loc_buf;\nst.local.{t} [%t_rd0+{size}], {{b}};\n"
           f"ld.local.{t} {{d}}, [%t_rd0+{size}];")
    return case(F, f"ld.local.{t}", f"d:{t}", f"b:{t}", I.key("unary", t, arg=LANES),
                decls=f"  .local .align 16 .b8 loc_buf[64];", asm=asm, variant="via_st_local")


def cases():
    C = []
    for t in TYPES:
        for form, v in LD_FORMS:
            if t == "b128" and "mmio" in form:
                continue
            C.append(ld_case(form.format(t=t), t, version=v))
        for form, v in ST_FORMS:
            if t == "b128" and "mmio" in form:
                continue
            C.append(st_case(form.format(t=t), t, version=v))
    for sp in HINTS_LD:
        C.append(ld_case(sp, "b32"))
    for sp in HINTS_ST:
        C.append(st_case(sp, "b32"))
    for vec, t in VECTORS:
        k = int(vec[1])
        C.append(ld_case(f"ld.global.{vec}.{t}", t, k))
        C.append(st_case(f"st.global.{vec}.{t}", t, k))
        if t != "b128":
            C.append(ld_case(f"ldu.global.{vec}.{t}", t, k))
    # generic addressing: cvta.global to a generic address, then ld / st without a space
    for t in ("b32", "s8", "f64"):
        mt, per, rt, cnt = _shape(t)
        nb = T.type_bytes(mt)
        C.append(case(F, f"ld.{t}", f"d:{rt}", "a:u32", I.key("perm", "u32", arg=LANES),
                      memory=(Memory("m", mt, LANES),), variant="generic",
                      asm=_addr(nb) + f"\ncvta.global.u64 %t_rd2, %t_rd1;\nld.{t} {{d}}, [%t_rd2];"))
        C.append(case(F, f"st.{t}", "", f"a:u32 b:{rt}", I.key("perm", "u32", rt, arg=LANES),
                      memory=(Memory("m", mt, LANES),), variant="generic",
                      asm=_addr(nb) + f"\ncvta.global.u64 %t_rd2, %t_rd1;\nst.{t} [%t_rd2], {{b}};"))
    for t in ("b8", "s16", "b32", "f64", "u64"):
        C.append(shared_case(t))
        C.append(local_case(t))
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[0], c.modifiers[-1]))
