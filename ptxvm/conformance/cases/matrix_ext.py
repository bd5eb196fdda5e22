"""More warp-level matrix forms: the mma.sync types the "matrix" family leaves out (m8n8k4 with
mixed accumulators and every layout, fp8 with .f16 accumulators and every fp8 pairing, the
mixed-signedness integer forms), the main float forms again with adversarial fragments (inputs
"mma": wide exponent spreads, subnormals, zeros, infinities, NaNs and exactly cancelling pairs
in odd warps), and ldmatrix / stmatrix through shared memory.

ldmatrix: each warp stages 512 bytes of random data in shared memory (four 8x8 .b16 matrices,
16-byte rows), and lane l names row (13 l + 7) mod 32 of them, so rows are gathered out of order.
stmatrix: random registers stored to a zeroed 512-byte region at the same permuted row addresses;
each lane then reads back its 16 bytes of the region.
"""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I
from ...semantics.families.matrix import mma_fragments

F = "matrix_ext"
LANES = "64"

_REG = {"f16": "f16x2", "bf16": "bf16x2", "tf32": "f32", "f64": "f64"}
_ACC = {"f16": "f16x2", "f32": "f32", "s32": "s32", "f64": "f64"}


def _vec(t, n):
    return f"{t}*{n}" if n > 1 else t


def _br(name, n):
    return "{{{%s}}}" % name if n == 1 else "{%s}" % name


def mma_case(shape, layout, dt, at, bt, ct, kind="mma", sat="", variant=""):
    al, bl = layout.split(".")
    A, B, C, D = mma_fragments(shape, at, bt, ct, dt, al, bl)
    a, b = _vec(_REG.get(at, "b32"), A.nregs), _vec(_REG.get(bt, "b32"), B.nregs)
    c, d = _vec(_ACC[ct], C.nregs), _vec(_ACC[dt], D.nregs)
    sp = f"mma.sync.aligned.{shape}.{layout}{sat}.{dt}.{at}.{bt}.{ct}"
    fp8 = at in ("e4m3", "e5m2")
    arg = LANES + (f"/{at}/{bt}" if fp8 else "/tf32/tf32" if at == "tf32" else "")
    key = I.key(kind, a, b, c, arg=arg if kind == "mma" else LANES)
    version = "8.7" if fp8 and (dt == "f16" or shape == "m16n8k16") else "8.4" if fp8 else "7.8"
    asm = f"{sp} {_br('d', D.nregs)}, {_br('a', A.nregs)}, {_br('b', B.nregs)}, {_br('c', C.nregs)};"
    return case(F, sp, f"d:{d}", f"a:{a} b:{b} c:{c}", key, variant=variant, lanes_multiple=32,
                version=version, asm=asm)


# fp8 forms the matrix family records (random fragments)
MATRIX_FAMILY = {("m16n8k32", "f32", "e4m3", "e4m3"), ("m16n8k32", "f32", "e5m2", "e4m3")}


def mma_cases():
    C = []
    for layout in ("row.col", "col.row", "row.row", "col.col"):
        C.append(mma_case("m8n8k4", layout, "f32", "f16", "f16", "f16"))
        if layout != "row.col":
            C.append(mma_case("m8n8k4", layout, "f32", "f16", "f16", "f32"))
            C.append(mma_case("m8n8k4", layout, "f16", "f16", "f16", "f16"))
    C.append(mma_case("m8n8k4", "row.col", "f16", "f16", "f16", "f16"))
    for shape in ("m16n8k32", "m16n8k16"):
        for at in ("e4m3", "e5m2"):
            for bt in ("e4m3", "e5m2"):
                for acc in ("f16", "f32"):
                    if (shape, acc, at, bt) in MATRIX_FAMILY:
                        continue
                    C.append(mma_case(shape, "row.col", acc, at, bt, acc))
    for shapes, ts in ((("m8n8k16", "m16n8k16", "m16n8k32"), ("s8", "u8")),
                       (("m8n8k32", "m16n8k32", "m16n8k64"), ("s4", "u4"))):
        for shape in shapes:
            for at in ts:
                for bt in ts:
                    if at == bt == ts[0] or (at, bt) == ("u8", "s8"):
                        continue  # in the matrix family
                    for sat in ("", ".satfinite") if shape == shapes[-1] else ("",):
                        C.append(mma_case(shape, "row.col", "s32", at, bt, "s32", sat=sat))
    # the forms the matrix family records with moderate values, now with adversarial fragments
    for shape, dt, at, ct in (("m16n8k16", "f32", "f16", "f32"), ("m16n8k16", "f16", "f16", "f16"),
                              ("m16n8k8", "f32", "f16", "f32"), ("m16n8k16", "f32", "bf16", "f32"),
                              ("m16n8k8", "f32", "bf16", "f32"), ("m16n8k8", "f32", "tf32", "f32"),
                              ("m16n8k4", "f32", "tf32", "f32"), ("m8n8k4", "f64", "f64", "f64"),
                              ("m8n8k4", "f32", "f16", "f32"), ("m16n8k32", "f32", "e4m3", "f32"),
                              ("m16n8k32", "f32", "e5m2", "f32")):
        C.append(mma_case(shape, "row.col", dt, at, at, ct, variant="adversarial"))
    return C


# ------------------------------------------------------------------------- ldmatrix / stmatrix

DECLS = "  .shared .align 16 .b8 sh_m[4096];\n  .reg .b32 %w<4>;\n  .reg .b64 %wd<2>;"
# %w0 = the warp's 512-byte region, %w1 = this lane's 16 bytes of it, %w2 = the row address it names
SETUP = ("mov.u32 %w0, %tid.x;\nshr.u32 %w0, %w0, 5;\nshl.b32 %w0, %w0, 9;\nmov.u32 %w3, sh_m;\n"
         "add.u32 %w0, %w0, %w3;\nand.b32 %w3, %t_idx, 31;\nshl.b32 %w1, %w3, 4;\nadd.u32 %w1, %w1, %w0;\n"
         "mad.lo.u32 %w3, %w3, 13, 7;\nand.b32 %w3, %w3, 31;\nshl.b32 %w3, %w3, 4;\nadd.u32 %w2, %w3, %w0;\n")


def _addr(ss: str) -> tuple[str, str]:
    """(code, address operand) for a state space suffix ('' is a generic address)."""
    if ss:
        return "", "%w2"
    return "cvt.u64.u32 %wd0, %w2;\ncvta.shared.u64 %wd1, %wd0;\n", "%wd1"


def ld_cases():
    C = []
    for num in ("x1", "x2", "x4"):
        n = int(num[1:])
        for trans in ("", ".trans"):
            for ss in ("", ".shared", ".shared::cta"):
                sp = f"ldmatrix.sync.aligned.m8n8.{num}{trans}{ss}.b16"
                code, reg = _addr(ss)
                body = (SETUP + "st.shared.v4.b32 [%w1], {s};\nbar.warp.sync -1;\n" + code
                        + f"{sp} {_br('d', n)}, [{reg}];\n")
                C.append(case(F, sp, f"d:{_vec('b32', n)}", "s:b32*4", I.key("mma", "b32*4", arg=LANES),
                              decls=DECLS, asm=body, lanes_multiple=32, version="7.8"))
    return C


def st_cases():
    C = []
    for num in ("x1", "x2", "x4"):
        n = int(num[1:])
        for trans in ("", ".trans"):
            for ss in ("", ".shared", ".shared::cta"):
                sp = f"stmatrix.sync.aligned.m8n8.{num}{trans}{ss}.b16"
                code, reg = _addr(ss)
                body = (SETUP + "st.shared.v4.b32 [%w1], {{0, 0, 0, 0}};\nbar.warp.sync -1;\n" + code
                        + f"{sp} [{reg}], {_br('r', n)};\nbar.warp.sync -1;\nld.shared.v4.b32 {{d}}, [%w1];\n")
                C.append(case(F, sp, "d:b32*4", f"r:{_vec('b32', n)}", I.key("mma", _vec("b32", n), arg=LANES),
                              decls=DECLS, asm=body, lanes_multiple=32, version="7.8"))
    return C


def cases():
    C = mma_cases() + ld_cases() + st_cases()
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[2], c.modifiers[-3]))
