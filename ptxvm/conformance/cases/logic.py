"""Logic and shifts: and/or/xor/not/cnot, lop3 (a sample of truth tables), shl/shr, shf."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "logic"
LUTS = [0x00, 0xFF, 0x80, 0xFE, 0x96, 0xE8, 0xCA, 0xF0, 0xCC, 0xAA, 0x1E, 0x6A, 0x3C, 0x5A, 0x01,
        0x7F, 0xB4, 0x2D]


def cases():
    C = []
    for op in ("and", "or", "xor"):
        for t in ("pred", "b16", "b32", "b64"):
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t} b:{t}"))
    for t in ("pred", "b16", "b32", "b64"):
        C.append(case(F, f"not.{t}", f"d:{t}", f"a:{t}"))
    for t in ("b16", "b32", "b64"):
        C.append(case(F, f"cnot.{t}", f"d:{t}", f"a:{t}"))
    for lut in LUTS:
        C.append(case(F, "lop3.b32", "d:b32", "a:b32 b:b32 c:b32", variant=f"lut_0x{lut:02x}",
                      asm=f"lop3.b32 {{d}}, {{a}}, {{b}}, {{c}}, 0x{lut:02x};"))
    for boolop in ("or", "and"):
        for lut in (0x96, 0xE8, 0x00, 0x80):
            C.append(case(F, f"lop3.{boolop}.b32", "d:b32 p:pred", "a:b32 b:b32 c:b32 q:pred",
                          variant=f"lut_0x{lut:02x}", version="8.2",
                          asm=f"lop3.{boolop}.b32 {{d}}|{{p}}, {{a}}, {{b}}, {{c}}, 0x{lut:02x}, {{q}};"))
    for t in ("b16", "b32", "b64"):
        C.append(case(F, f"shl.{t}", f"d:{t}", f"a:{t} b:u32", I.key("shift", t, "u32")))
    for t in ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64"):
        C.append(case(F, f"shr.{t}", f"d:{t}", f"a:{t} b:u32", I.key("shift", t, "u32")))
    for d in ("l", "r"):
        for mode in ("clamp", "wrap"):
            C.append(case(F, f"shf.{d}.{mode}.b32", "d:b32", "a:b32 b:b32 c:u32",
                          I.key("funnel", "b32", "b32", "u32")))
    return mark_ci(C)
