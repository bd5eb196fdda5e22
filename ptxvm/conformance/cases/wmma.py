"""Warp-level wmma in every shape, type and layout sm_90 runs (PTX 7.8 forms).

* wmma.load.{a,b,c}: each warp loads its own tile of a random memory array, from global memory,
  from shared memory (staged from the array), or through a generic address, with the default
  stride and with a wider explicit one; the fragment registers are the outputs.
* wmma.store.d: random fragment registers stored to a zeroed array the same ways (shared memory is
  zeroed first and copied back whole, so gaps show).
* wmma.mma: fragments straight from registers (inputs "mma": moderate values in even warps, wide
  exponent spreads, subnormals, zeros, infinities, NaNs and exactly cancelling pairs in odd warps),
  every layout pair, .satfinite, the f64 rounding modes, .xor/.and.popc.
Tiles start on 256-byte boundaries; explicit strides keep rows 16-byte aligned.
"""
from __future__ import annotations

from ._helpers import case, mark_ci
from ..case import Memory
from .. import inputs as I

F = "wmma"
LOAD_LANES = 32      # one warp (a bit move: every element of the tile shows)
MMA_LANES = "64"     # one moderate warp, one adversarial warp
BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4,
        "b1": 1}
W3 = ("m16n16k16", "m32n8k16", "m8n32k16")


def mnk(shape: str) -> tuple[int, int, int]:
    i, j, k = shape.index("m"), shape.index("n"), shape.index("k")
    return int(shape[i + 1:j]), int(shape[j + 1:k]), int(shape[k + 1:])


def dims(shape: str, which: str) -> tuple[int, int]:
    m, n, k = mnk(shape)
    return {"a": (m, k), "b": (k, n), "c": (m, n), "d": (m, n)}[which]


def nregs(shape: str, which: str, t: str) -> int:
    if t == "f16" and which in "ab":
        return 8
    r, c = dims(shape, which)
    return max(1, r * c * BITS[t] // (32 * (64 if t == "f64" else 32)))


def reg_type(t: str) -> str:
    return "b64" if t == "f64" else "b32"


# (fragment, shapes, element types, layouts)
LOADS = [
    ("a", W3, ("f16", "bf16", "s8", "u8"), ("row", "col")), ("b", W3, ("f16", "bf16", "s8", "u8"), ("row", "col")),
    ("c", W3, ("f16", "f32", "s32"), ("row", "col")),
    ("a", ("m16n16k8",), ("tf32",), ("row", "col")), ("b", ("m16n16k8",), ("tf32",), ("row", "col")),
    ("c", ("m16n16k8",), ("f32",), ("row", "col")),
    ("a", ("m8n8k4",), ("f64",), ("row", "col")), ("b", ("m8n8k4",), ("f64",), ("row", "col")),
    ("c", ("m8n8k4",), ("f64",), ("row", "col")),
    ("a", ("m8n8k32",), ("s4", "u4"), ("row",)), ("b", ("m8n8k32",), ("s4", "u4"), ("col",)),
    ("c", ("m8n8k32",), ("s32",), ("row", "col")),
    ("a", ("m8n8k128",), ("b1",), ("row",)), ("b", ("m8n8k128",), ("b1",), ("col",)),
    ("c", ("m8n8k128",), ("s32",), ("row", "col")),
]
STORES = [(W3, ("f16", "f32", "s32")), (("m16n16k8",), ("f32",)), (("m8n8k4",), ("f64",)),
          (("m8n8k32", "m8n8k128"), ("s32",))]

REGION = 4096          # bytes of memory per warp (a tile with the widest stride fits)
DECLS = ("  .shared .align 256 .b8 sh_w[4096];\n  .reg .b32 %w<6>;\n  .reg .b64 %wd<4>;\n  .reg .pred %wp;")


def _row_bytes_default(shape, which, t, layout):
    r, c = dims(shape, which)
    return (c if layout == "row" else r) * BITS[t] // 8


def strides(shape, which, t, layout):
    """(variant name, stride in elements or None) to record: the default (when its rows are 16-byte
    aligned) and one wider explicit stride."""
    r, c = dims(shape, which)
    default = c if layout == "row" else r
    row_bytes = default * BITS[t] // 8
    wide_bytes = max(2 * row_bytes, 32)
    out = [("stride", wide_bytes * 8 // BITS[t])]
    if row_bytes % 16 == 0:
        out.insert(0, ("", None))
    return out


# the warp's region: %wd1 = global address, %w1 = its shared address (tid.x / 32 * REGION)
SETUP = ("shr.u32 %w0, %t_idx, 5;\nmul.wide.u32 %wd0, %w0, {region};\nadd.s64 %wd1, {{m}}, %wd0;\n"
         "mov.u32 %w1, %tid.x;\nshr.u32 %w1, %w1, 5;\nmul.lo.u32 %w1, %w1, {region};\nmov.u32 %w2, sh_w;\n"
         "add.u32 %w1, %w1, %w2;\nand.b32 %w3, %t_idx, 31;\n").format(region=REGION)


def _copy(to_shared: bool, label: str, zero: bool = False) -> str:
    """Each lane moves words lane, lane+32, ... of the warp's region between global and shared."""
    body = [f"mov.u32 %w4, %w3;\n{label}:", f"setp.ge.u32 %wp, %w4, {REGION // 4};", f"@%wp bra {label}_d;",
            "shl.b32 %w5, %w4, 2;", "cvt.u64.u32 %wd2, %w5;", "add.s64 %wd3, %wd1, %wd2;", "add.u32 %w5, %w5, %w1;"]
    if zero:
        body.append("st.shared.b32 [%w5], 0;")
    elif to_shared:
        body += ["ld.global.b32 %w2, [%wd3];", "st.shared.b32 [%w5], %w2;"]
    else:
        body += ["ld.shared.b32 %w2, [%w5];", "st.global.b32 [%wd3], %w2;"]
    body += ["add.u32 %w4, %w4, 32;", f"bra {label};", f"{label}_d:", "bar.warp.sync -1;"]
    return "\n".join(body) + "\n"


def _address(space: str) -> tuple[str, str, str]:
    """(state-space suffix, address register, code computing it) for global, shared, generic."""
    if space == "global":
        return ".global", "%wd1", ""
    if space == "shared":
        return ".shared", "%w1", ""
    return "", "%wd2", "cvta.global.u64 %wd2, %wd1;\n"


def load_case(which, shape, t, layout, space, variant, stride):
    ss, reg, code = _address(space)
    sp = f"wmma.load.{which}.sync.aligned.{layout}.{shape}{ss}.{t}"
    n = nregs(shape, which, t)
    body = SETUP + (_copy(True, "$L_cp") if space == "shared" else "") + code
    tail = f", {stride}" if stride is not None else ""
    body += f"{sp} {_br('d', n)}, [{reg}]{tail};\n"
    d = f"d:{reg_type(t)}*{n}" if n > 1 else f"d:{reg_type(t)}"
    name = "-".join(x for x in (space if space != "global" else "", variant) if x)
    return case(F, sp, d, "x:b32", I.key("lanes", "b32", arg=LOAD_LANES), variant=name,
                memory=(Memory("m", "b32", LOAD_LANES // 32 * REGION // 4),), decls=DECLS, asm=body,
                lanes_multiple=32, truncatable=False, block=LOAD_LANES)


def store_case(shape, t, layout, space, variant, stride):
    ss, reg, code = _address(space)
    sp = f"wmma.store.d.sync.aligned.{layout}.{shape}{ss}.{t}"
    n = nregs(shape, "d", t)
    body = SETUP + (_copy(True, "$L_z", zero=True) if space == "shared" else "") + code
    tail = f", {stride}" if stride is not None else ""
    body += f"{sp} [{reg}], {_br('a', n)}{tail};\n"
    if space == "shared":
        body += "bar.warp.sync -1;\n" + _copy(False, "$L_cb")
    a = f"{reg_type(t)}*{n}" if n > 1 else reg_type(t)
    name = "-".join(x for x in (space if space != "global" else "", variant) if x)
    return case(F, sp, "", f"a:{a}", I.key("mma", a, arg=LOAD_LANES), variant=name,
                memory=(Memory("m", "b32", LOAD_LANES // 32 * REGION // 4, "zero"),), decls=DECLS, asm=body,
                lanes_multiple=32, truncatable=False, block=LOAD_LANES)


def _vec(t, n):
    return f"{t}*{n}" if n > 1 else t


def _br(name, n):
    """A fragment operand in braces even when it is one register."""
    return "{{{%s}}}" % name if n == 1 else "{%s}" % name


# fragment register types for the "mma" input kind (the element type goes in the key's arg)
_ELT_REG = {"f16": "f16x2", "bf16": "bf16x2", "tf32": "f32", "f64": "f64", "f32": "f32", "s32": "s32"}


def mma_case(spelling, shape, at, bt, ct, dt, variant=""):
    na, nb, nc, nd = (nregs(shape, "a", at), nregs(shape, "b", bt), nregs(shape, "c", ct), nregs(shape, "d", dt))
    ta, tb = _ELT_REG.get(at, "b32"), _ELT_REG.get(bt, "b32")
    tc, td = {"f16": "f16x2", "f32": "f32", "s32": "s32", "f64": "f64"}[ct], \
        {"f16": "f16x2", "f32": "f32", "s32": "s32", "f64": "f64"}[dt]
    a, b, c, d = _vec(ta, na), _vec(tb, nb), _vec(tc, nc), _vec(td, nd)
    arg = MMA_LANES + ("/tf32/tf32" if at == "tf32" else "")
    return case(F, spelling, f"d:{d}", f"a:{a} b:{b} c:{c}", I.key("mma", a, b, c, arg=arg), variant=variant,
                lanes_multiple=32, asm=f"{spelling} {_br('d', nd)}, {_br('a', na)}, {_br('b', nb)}, {_br('c', nc)};")


LAYOUTS = [(x, y) for x in ("row", "col") for y in ("row", "col")]


def mma_cases():
    C = []
    for shape in W3:
        for dt in ("f16", "f32"):
            for ct in ("f16", "f32"):
                lays = LAYOUTS if (dt, ct) == ("f32", "f32") and shape == "m16n16k16" else [("row", "col")]
                for al, bl in lays:
                    sp = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.{dt}.{ct}"
                    C.append(mma_case(sp, shape, "f16", "f16", ct, dt))
        for al, bl in (LAYOUTS if shape == "m16n16k16" else [("row", "col")]):
            C.append(mma_case(f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.f32.bf16.bf16.f32", shape, "bf16", "bf16",
                              "f32", "f32"))
        for it in ("s8", "u8"):
            for al, bl in (LAYOUTS if (it, shape) == ("s8", "m16n16k16") else [("row", "col")]):
                for sat in ("", ".satfinite"):
                    sp = f"wmma.mma.sync.aligned.{al}.{bl}.{shape}.s32.{it}.{it}.s32{sat}"
                    C.append(mma_case(sp, shape, it, it, "s32", "s32"))
    for al, bl in LAYOUTS:
        C.append(mma_case(f"wmma.mma.sync.aligned.{al}.{bl}.m16n16k8.f32.tf32.tf32.f32", "m16n16k8", "tf32", "tf32",
                          "f32", "f32"))
        for rnd in ("", ".rn", ".rz", ".rm", ".rp"):
            if rnd and (al, bl) != ("row", "col"):
                continue
            C.append(mma_case(f"wmma.mma.sync.aligned.{al}.{bl}.m8n8k4{rnd}.f64.f64.f64.f64", "m8n8k4", "f64", "f64",
                              "f64", "f64"))
    for it in ("s4", "u4"):
        for sat in ("", ".satfinite"):
            C.append(mma_case(f"wmma.mma.sync.aligned.row.col.m8n8k32.s32.{it}.{it}.s32{sat}", "m8n8k32", it, it,
                              "s32", "s32"))
    for op in ("xor", "and"):
        C.append(mma_case(f"wmma.mma.{op}.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32", "m8n8k128", "b1", "b1",
                          "s32", "s32"))
    return C


def _spaces(shape, t, layout, first_stride):
    """Shared and generic addresses for a few types in one shape and layout (the address path does
    not depend on the tile), global for every form."""
    if first_stride and layout == "row" and shape in ("m16n16k16", "m8n8k4", "m8n8k128") and t in ("f16", "s32", "f64", "b1"):
        return ("global", "shared", "generic")
    return ("global",)


def _strides(shape, which, t, layout):
    """The wide explicit stride for every form; the default one for the first shape of each type."""
    s = strides(shape, which, t, layout)
    return s if shape in ("m16n16k16", "m16n16k8", "m8n8k4", "m8n8k32", "m8n8k128") else s[-1:]


def cases():
    C = []
    for which, shapes, types, layouts in LOADS:
        for shape in shapes:
            for t in types:
                if t in ("u8", "s32") and shape in W3[1:]:
                    continue  # the same bit moves as .s8 / .f32 in these shapes
                for layout in layouts:
                    for i, (variant, stride) in enumerate(_strides(shape, which, t, layout)):
                        for space in _spaces(shape, t, layout if which != "b" else "row", i == 0 and variant == ""):
                            C.append(load_case(which, shape, t, layout, space, variant, stride))
    for shapes, types in STORES:
        for shape in shapes:
            for t in types:
                for layout in ("row", "col"):
                    for i, (variant, stride) in enumerate(_strides(shape, "d", t, layout)):
                        for space in _spaces(shape, t, layout, i == 0 and variant == ""):
                            C.append(store_case(shape, t, layout, space, variant, stride))
    C += mma_cases()
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[0], c.modifiers[-1]))
