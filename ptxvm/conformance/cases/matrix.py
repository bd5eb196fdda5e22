"""Warp-level matrix multiply-accumulate (mma.sync) in the shapes and types sm_90 runs, with
moderate random fragments (each warp one independent product); movmatrix."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "matrix"
LANES = "1024"

# (shape, layout, dtype, atype, btype, ctype, a regs, b regs, c regs, d regs, a/b fragment type)
MMA = [
    ("m16n8k16", "row.col", "f32", "f16", "f16", "f32", 4, 2, 4, 4, "f16x2"),
    ("m16n8k16", "row.col", "f16", "f16", "f16", "f16", 4, 2, 2, 2, "f16x2"),
    ("m16n8k8", "row.col", "f32", "f16", "f16", "f32", 2, 1, 4, 4, "f16x2"),
    ("m16n8k8", "row.col", "f16", "f16", "f16", "f16", 2, 1, 2, 2, "f16x2"),
    ("m16n8k16", "row.col", "f32", "bf16", "bf16", "f32", 4, 2, 4, 4, "bf16x2"),
    ("m16n8k8", "row.col", "f32", "bf16", "bf16", "f32", 2, 1, 4, 4, "bf16x2"),
    ("m16n8k8", "row.col", "f32", "tf32", "tf32", "f32", 4, 2, 4, 4, "f32"),
    ("m16n8k4", "row.col", "f32", "tf32", "tf32", "f32", 2, 1, 4, 4, "f32"),
    ("m8n8k4", "row.col", "f64", "f64", "f64", "f64", 1, 1, 2, 2, "f64"),
    ("m8n8k4", "row.col", "f32", "f16", "f16", "f32", 2, 2, 8, 8, "f16x2"),
    ("m16n8k32", "row.col", "s32", "s8", "s8", "s32", 4, 2, 4, 4, "b32"),
    ("m16n8k32", "row.col", "s32", "u8", "s8", "s32", 4, 2, 4, 4, "b32"),
    ("m16n8k16", "row.col", "s32", "s8", "s8", "s32", 2, 1, 4, 4, "b32"),
    ("m8n8k16", "row.col", "s32", "s8", "s8", "s32", 1, 1, 2, 2, "b32"),
    ("m16n8k64", "row.col", "s32", "s4", "s4", "s32", 4, 2, 4, 4, "b32"),
    ("m16n8k32", "row.col", "f32", "e4m3", "e4m3", "f32", 4, 2, 4, 4, "b32"),
    ("m16n8k32", "row.col", "f32", "e5m2", "e4m3", "f32", 4, 2, 4, 4, "b32"),
]


def _t(dt, n):
    base = {"f32": "f32", "f16": "f16x2", "f64": "f64", "s32": "s32"}[dt]
    return f"{base}*{n}" if n > 1 else base


def _br(name, n):
    """An operand in braces even when it is one register (mma wants vectors everywhere)."""
    return "{{{%s}}}" % name if n == 1 else "{%s}" % name


def cases():
    C = []
    for shape, layout, dt, at, bt, ct, na, nb, nc, nd, ft in MMA:
        sp = f"mma.sync.aligned.{shape}.{layout}.{dt}.{at}.{bt}.{ct}"
        a = f"{ft}*{na}" if na > 1 else ft
        b = f"{ft}*{nb}" if nb > 1 else ft
        c = _t(ct, nc)
        d = _t(dt, nd)
        version = "8.4" if at in ("e4m3", "e5m2") else "7.8"
        ops = f" {_br('d', nd)}, {_br('a', na)}, {_br('b', nb)}, {_br('c', nc)};"
        C.append(case(F, sp, f"d:{d}", f"a:{a} b:{b} c:{c}", I.key("small", a, b, c, arg=LANES),
                      lanes_multiple=32, version=version, asm=sp + ops))
        if dt == "s32":
            sat = sp.replace(f".{shape}.{layout}.", f".{shape}.{layout}.satfinite.")
            C.append(case(F, sat, f"d:{d}", f"a:{a} b:{b} c:{c}", I.key("small", a, b, c, arg=LANES),
                          lanes_multiple=32, version=version, asm=sat + ops))
    for op in ("and", "xor"):
        sp = f"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.{op}.popc"
        C.append(case(F, sp, "d:s32*4", "a:b32*4 b:b32*2 c:s32*4",
                      I.key("small", "b32*4", "b32*2", "s32*4", arg=LANES), lanes_multiple=32))
    C.append(case(F, "movmatrix.sync.aligned.m8n8.trans.b16", "d:b32", "a:b32",
                  I.key("small", "b32", arg=LANES), lanes_multiple=32))
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[2], c.modifiers[-3]))
