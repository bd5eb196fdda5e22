"""Sparse warp-level MMA (mma.sp, mma.sp::ordered_metadata) in every shape and type sm_90 runs,
with every sparsity selector the shape allows (selector 0 for .sp, all for ::ordered_metadata).
A, B, C are moderate random values; the metadata register of every lane holds well-formed
ordered patterns (ptxvm.conformance.inputs.k_spsmall), so whichever lanes the selector names,
the result is defined. Each warp is one independent product (32 lanes: one per case, keeping the golden small)."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I
from ...semantics.families.matrix import mma_sp_fragments, sparse_meta

F = "matrix_sp"
LANES = "32"

# (shape, atype, btype, (dtype, ctype) pairs)
FORMS = [
    ("m16n8k16", "f16", "f16", (("f32", "f32"), ("f16", "f16"))),
    ("m16n8k32", "f16", "f16", (("f32", "f32"), ("f16", "f16"))),
    ("m16n8k16", "bf16", "bf16", (("f32", "f32"),)),
    ("m16n8k32", "bf16", "bf16", (("f32", "f32"),)),
    ("m16n8k8", "tf32", "tf32", (("f32", "f32"),)),
    ("m16n8k16", "tf32", "tf32", (("f32", "f32"),)),
    ("m16n8k64", "e4m3", "e4m3", (("f32", "f32"),)),
    ("m16n8k64", "e4m3", "e5m2", (("f32", "f32"),)),
    ("m16n8k64", "e5m2", "e4m3", (("f32", "f32"),)),
    ("m16n8k64", "e5m2", "e5m2", (("f32", "f32"),)),
] + [(s, a, b, (("s32", "s32"),)) for s, ts in (("m16n8k32", ("s8", "u8")), ("m16n8k64", ("s8", "u8")),
                                                   ("m16n8k64", ("s4", "u4")), ("m16n8k128", ("s4", "u4")))
     for a in ts for b in ts]

_FRAG = {"f16": "f16x2", "bf16": "bf16x2", "tf32": "b32"}


def _vec(t, n):
    return f"{t}*{n}" if n > 1 else t


def _br(name, n):
    return "{{{%s}}}" % name if n == 1 else "{%s}" % name


def cases():
    C = []
    for shape, at, bt, dcs in FORMS:
        meta = sparse_meta(shape, at)
        for dt, ct in dcs:
            A, B, Cf, D = mma_sp_fragments(shape, at, bt, ct, dt)
            fa, fb = _FRAG.get(at, "b32"), _FRAG.get(bt, "b32")
            a, b = _vec(fa, A.nregs), _vec(fb, B.nregs)
            c = _vec({"f32": "f32", "f16": "f16x2", "s32": "s32"}[ct], Cf.nregs)
            d = _vec({"f32": "f32", "f16": "f16x2", "s32": "s32"}[dt], D.nregs)
            arg = LANES + ("/tf32" if at == "tf32" else "")
            key = I.key("spsmall", a, b, c, "b32", arg=arg)
            sats = ("", ".satfinite") if dt == "s32" else ("",)
            plain_int = at in ("s8", "s4") and bt == at
            for variant in ("sp", "sp::ordered_metadata"):
                if variant == "sp" and dt == "s32" and not plain_int:
                    continue
                sels = range(meta.selectors) if variant != "sp" else (0,)
                for sat in sats:
                    sp = f"mma.{variant}.sync.aligned.{shape}.row.col{sat}.{dt}.{at}.{bt}.{ct}"
                    for sel in sels:
                        asm = f"{sp} {_br('d', D.nregs)}, {_br('a', A.nregs)}, {_br('b', B.nregs)}, {_br('c', Cf.nregs)}, {{e}}, {sel};"
                        C.append(case(F, sp, f"d:{d}", f"a:{a} b:{b} c:{c} e:b32", key, variant=f"sel{sel}",
                                      lanes_multiple=32, version="8.7", asm=asm))
    return mark_ci(C, key=lambda c: (c.modifiers[0], c.modifiers[3], c.modifiers[-3]))
