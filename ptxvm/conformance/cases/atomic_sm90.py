"""The sm_90 atomics: 128-bit cas/exch (.b128, PTX 8.3), vector atomics and reductions on f32,
f16/bf16 and packed f16x2/bf16x2 (PTX 8.1, .global only), the half types on shared memory, and
atom.add.f32 on shared memory (which keeps subnormals, unlike .global).

One word (or vector) per lane (a permutation of the lanes) records both the returned old values
and the final memory; conflicting lanes are recorded only where the result does not depend on the
order (min/max, and adds of small integers)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I
from .. import types as T

F = "atomic_sm90"
LANES = 128   # one CTA of 128 threads: the shared-memory cases stage through one block
SLOTS = 8     # conflicting: 512 lanes on 8 vectors


def _addr(nbytes: int) -> str:
    return f"mul.wide.u32 %t_rd0, {{a}}, {nbytes};\nadd.s64 %t_rd1, {{m}}, %t_rd0;\n"


def _v(t: str, k: int) -> str:
    return t + (f"*{k}" if k > 1 else "")


def b128_cases():
    C = []
    q = "  .reg .b128 %t_q<3>;"
    for space in ("global", "shared"):
        for op in ("cas", "exch"):
            srcs = "a:u32 b:b64*2" + (" c:b64*2" if op == "cas" else "")
            key = I.key("perm", "u32", "b64*2", *(("b64*2",) if op == "cas" else ()), arg=LANES)
            operands = "%t_q1, %t_q2" if op == "cas" else "%t_q1"
            movs = "mov.b128 %t_q1, {b};\n" + ("mov.b128 %t_q2, {c};\n" if op == "cas" else "")
            if space == "global":
                body = _addr(16) + movs + f"atom.global.{op}.b128 %t_q0, [%t_rd1], {operands};\nmov.b128 {{d}}, %t_q0;"
                C.append(case(F, f"atom.global.{op}.b128", "d:b64*2", srcs, key, version="8.3",
                              memory=(Memory("m", "b64", 2 * LANES),), decls=q, asm=body))
            else:
                C.append(_shared_b128(op, srcs, key, movs, operands, q))
    # cas where the compare value matches in both halves, one half or neither (a % 4)
    hit = (_addr(16) + "cvt.u64.u32 %t_rd2, {a};\nshl.b64 %t_rd2, %t_rd2, 1;\n"
           "and.b32 %t_r3, {a}, 1;\ncvt.u64.u32 %t_rd3, %t_r3;\nadd.u64 %t_rd0, %t_rd2, %t_rd3;\n"
           "bfe.u32 %t_r3, {a}, 1, 1;\ncvt.u64.u32 %t_rd3, %t_r3;\nadd.u64 %t_rd3, %t_rd2, %t_rd3;\n"
           "add.u64 %t_rd3, %t_rd3, 1;\nmov.b128 %t_q1, {{%t_rd0, %t_rd3}};\nmov.b128 %t_q2, {c};\n"
           "atom.global.cas.b128 %t_q0, [%t_rd1], %t_q1, %t_q2;\nmov.b128 {d}, %t_q0;")
    C.append(case(F, "atom.global.cas.b128", "d:b64*2", "a:u32 c:b64*2", I.key("perm", "u32", "b64*2", arg=LANES),
                  variant="hit", version="8.3", memory=(Memory("m", "b64", 2 * LANES, "iota"),), decls=q, asm=hit))
    for spelling, v in (("atom.acq_rel.gpu.global.cas.b128", "8.3"), ("atom.relaxed.sys.global.exch.b128", "8.4"),
                        ("atom.release.cta.cas.b128", "8.3")):
        op = "cas" if ".cas." in spelling else "exch"
        srcs = "a:u32 b:b64*2" + (" c:b64*2" if op == "cas" else "")
        key = I.key("perm", "u32", "b64*2", *(("b64*2",) if op == "cas" else ()), arg=LANES)
        operands = "%t_q1, %t_q2" if op == "cas" else "%t_q1"
        movs = "mov.b128 %t_q1, {b};\n" + ("mov.b128 %t_q2, {c};\n" if op == "cas" else "")
        body = _addr(16) + movs + f"{spelling} %t_q0, [%t_rd1], {operands};\nmov.b128 {{d}}, %t_q0;"
        C.append(case(F, spelling, "d:b64*2", srcs, key, version=v, memory=(Memory("m", "b64", 2 * LANES),),
                      decls=q, asm=body))
    return C


def _shared_b128(op, srcs, key, movs, operands, q):
    """Each lane copies its 16 bytes into shared slot tid, the CTA syncs, each lane operates on
    its neighbour's slot (tid ^ 1), the CTA syncs, each lane copies slot tid back."""
    body = (_addr(16) + "mov.u32 %t_r0, sh_buf;\nmov.u32 %t_r1, %tid.x;\nmad.lo.u32 %t_r2, %t_r1, 16, %t_r0;\n"
            "ld.global.v2.b64 {{%t_rd2, %t_rd3}}, [%t_rd1];\nst.shared.v2.b64 [%t_r2], {{%t_rd2, %t_rd3}};\n"
            "bar.sync 0;\nxor.b32 %t_r3, %t_r1, 1;\nmad.lo.u32 %t_r3, %t_r3, 16, %t_r0;\n" + movs
            + f"atom.shared.{op}.b128 %t_q0, [%t_r3], {operands};\nmov.b128 {{d}}, %t_q0;\nbar.sync 0;\n"
            "ld.shared.v2.b64 {{%t_rd2, %t_rd3}}, [%t_r2];\nst.global.v2.b64 [%t_rd1], {{%t_rd2, %t_rd3}};")
    return case(F, f"atom.shared.{op}.b128", "d:b64*2", srcs, key, version="8.3", lanes_multiple=LANES,
                block=LANES, truncatable=False, memory=(Memory("m", "b64", 2 * LANES),),
                decls=q + f"\n  .shared .align 16 .b8 sh_buf[{16 * LANES}];", asm=body)


VECTOR = ([("add", "v2", "f32"), ("add", "v4", "f32")]
          + [(op, v, t) for t in ("f16", "bf16") for op in ("add", "min", "max") for v in ("v2", "v4", "v8")]
          + [(op, v, t) for t in ("f16x2", "bf16x2") for op in ("add", "min", "max") for v in ("v2", "v4")])


def _vec_spelling(kind, op, v, t):
    noftz = "" if t == "f32" else ".noftz"
    return f"{kind}.global.{op}{noftz}.{v}.{t}"


def vector_cases():
    C = []
    for op, v, t in VECTOR:
        k = int(v[1:])
        nbytes = T.type_bytes(t) * k
        mem = (Memory("m", t, k * LANES),)
        sp = _vec_spelling("atom", op, v, t)
        C.append(case(F, sp, f"d:{_v(t, k)}", f"a:u32 b:{_v(t, k)}", I.key("perm", "u32", _v(t, k), arg=LANES),
                      memory=mem, version="8.1", asm=_addr(nbytes) + f"{sp} {{d}}, [%t_rd1], {{b}};"))
        if v in ("v4", "v8") or t == "f32":
            rs = _vec_spelling("red", op, v, t)
            C.append(case(F, rs, "", f"a:u32 b:{_v(t, k)}", I.key("perm", "u32", _v(t, k), arg=LANES),
                          memory=mem, version="8.1", asm=_addr(nbytes) + f"{rs} [%t_rd1], {{b}};"))
    # conflicting lanes, order-independent: min/max, and adds of small integers
    # (bf16 sums of these integers pass 256 and round: their value depends on the order of the warps)
    for op, v, t in (("add", "v4", "f32"), ("add", "v8", "f16"), ("max", "v8", "bf16"), ("max", "v2", "bf16x2"),
                     ("min", "v4", "f16x2")):
        k = int(v[1:])
        nbytes = T.type_bytes(t) * k
        sp = _vec_spelling("red", op, v, t)
        C.append(case(F, sp, "", f"a:u32 b:{_v(t, k)}", I.key("index", "u32", _v(t, k), arg=SLOTS),
                      variant="conflict", memory=(Memory("m", t, k * SLOTS, "small"),), version="8.1",
                      truncatable=False, asm=_addr(nbytes) + f"{sp} [%t_rd1], {{b}};"))
    # generic addressing of global memory
    C.append(case(F, "atom.add.v4.f32", "d:f32*4", "a:u32 b:f32*4", I.key("perm", "u32", "f32*4", arg=LANES),
                  memory=(Memory("m", "f32", 4 * LANES),), version="8.1",
                  asm=_addr(16) + "atom.add.v4.f32 {d}, [%t_rd1], {b};"))
    return C


def shared_scalar_cases():
    """Scalar half-type and f32 adds on shared memory, one slot per lane (tid ^ 1)."""
    C = []
    for spelling, t in (("atom.shared.add.f32", "f32"), ("atom.shared.add.noftz.f16", "f16"),
                        ("atom.shared.add.noftz.bf16", "bf16"), ("atom.shared.add.noftz.f16x2", "f16x2"),
                        ("atom.shared.add.noftz.bf16x2", "bf16x2"), ("atom.shared.add.f64", "f64"),
                        ("atom.relaxed.cluster.shared::cluster.add.u32", "u32")):
        size = T.type_bytes(t)
        w = T.width(t)
        body = (_addr(size) + f"mov.u32 %t_r0, sh_buf;\nmov.u32 %t_r1, %tid.x;\nmad.lo.u32 %t_r2, %t_r1, {size}, %t_r0;\n"
                f"ld.global.b{w} %t_v, [%t_rd1];\nst.shared.b{w} [%t_r2], %t_v;\nbar.sync 0;\n"
                f"xor.b32 %t_r3, %t_r1, 1;\nmad.lo.u32 %t_r3, %t_r3, {size}, %t_r0;\n"
                f"{spelling} {{d}}, [%t_r3], {{b}};\nbar.sync 0;\n"
                f"ld.shared.b{w} %t_v, [%t_r2];\nst.global.b{w} [%t_rd1], %t_v;")
        version = "7.8" if "bf16" in t or "cluster" in spelling else "7.8"
        C.append(case(F, spelling, f"d:{t}", f"a:u32 b:{t}", I.key("perm", "u32", t, arg=LANES), version=version,
                      lanes_multiple=LANES, block=LANES, truncatable=False, memory=(Memory("m", t, LANES),),
                      decls=f"  .reg .b{w} %t_v;\n  .shared .align 16 .b8 sh_buf[{LANES * size}];", asm=body))
    # global scalar half types not in the atomic family: red forms
    for t in ("f16", "bf16", "f16x2", "bf16x2"):
        sp = f"red.global.add.noftz.{t}"
        C.append(case(F, sp, "", f"a:u32 b:{t}", I.key("perm", "u32", t, arg=LANES), version="7.8",
                      memory=(Memory("m", t, LANES),), asm=_addr(T.type_bytes(t)) + f"{sp} [%t_rd1], {{b}};"))
    return C


def swapped_cases():
    """The special values (NaN, inf, subnormals) in memory instead of in the operand: each lane
    stores its b into its word, then adds the word's original random value (which NaN comes back
    when both or only the memory side is NaN)."""
    C = []
    for spelling, t in (("atom.global.add.f64", "f64"), ("atom.global.add.f32", "f32"),
                        ("atom.shared.add.f32", "f32"), ("atom.global.add.noftz.f16", "f16"),
                        ("atom.global.add.noftz.bf16x2", "bf16x2")):
        size, w = T.type_bytes(t), T.width(t)
        if "shared" in spelling:
            body = (_addr(size) + f"mov.u32 %t_r0, sh_buf;\nmov.u32 %t_r1, %tid.x;\nmad.lo.u32 %t_r2, %t_r1, {size}, %t_r0;\n"
                    f"ld.global.b{w} %t_v, [%t_rd1];\nst.shared.b{w} [%t_r2], {{b}};\n"
                    f"{spelling} {{d}}, [%t_r2], %t_v;\nld.shared.b{w} %t_v, [%t_r2];\nst.global.b{w} [%t_rd1], %t_v;")
            decls = f"  .reg .b{w} %t_v;\n  .shared .align 16 .b8 sh_buf[{LANES * size}];"
        else:
            body = (_addr(size) + f"ld.global.b{w} %t_v, [%t_rd1];\nst.global.b{w} [%t_rd1], {{b}};\n"
                    f"{spelling} {{d}}, [%t_rd1], %t_v;")
            decls = f"  .reg .b{w} %t_v;"
        C.append(case(F, spelling, f"d:{t}", f"a:u32 b:{t}", I.key("perm", "u32", t, arg=LANES), variant="special_in_memory",
                      memory=(Memory("m", t, LANES),), decls=decls, asm=body, version="7.8",
                      lanes_multiple=LANES if "shared" in spelling else 1, block=LANES,
                      truncatable="shared" not in spelling))
    return C


def cases():
    C = b128_cases() + vector_cases() + shared_scalar_cases() + swapped_cases()
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[-1], c.modifiers[-2]))
