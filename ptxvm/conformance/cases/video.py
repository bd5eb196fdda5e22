"""Video instructions (ISA 9.7.17): scalar vadd/vsub/vabsdiff/vmin/vmax/vshl/vshr/vmad/vset with
byte/half-word selectors, .sat, the secondary operations and the d.dsel merge; SIMD vadd2/4 ...
vset2/4 with their element selectors, masks, .sat and the .add accumulation."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "video"
LANES = "256"  # random lanes beyond the edge cross products (about 1900 lanes a case)
TYPES = (("u32", "u32", "u32"), ("s32", "s32", "s32"), ("s32", "u32", "s32"), ("u32", "s32", "u32"))
# (d selector, a selector, b selector, with c) for the selector variants of the scalar forms
SCALAR_SELS = (("", "b0", "b3", False), ("", "b1", "h1", False), ("", "h0", "b2", False),
               ("", "h1", "h0", False), ("b0", "", "", True), ("b1", "b2", "b1", True),
               ("b2", "h1", "b0", True), ("b3", "b3", "h0", True), ("h0", "", "", True), ("h1", "h0", "b3", True))


def _sfx(s: str) -> str:
    return f".{s}" if s else ""


def _scalar(C, op, dt, at, bt, mode=""):
    base = f"{op}.{dt}.{at}.{bt}"
    shift = op in ("vshl", "vshr")
    m = f".{mode}" if mode else ""
    k2 = I.key("shift", at, bt, arg="32") if shift else I.key("nary", at, bt, arg=LANES)
    k3 = I.key("shift", at, bt, dt, arg="32") if shift else I.key("nary", at, bt, dt, arg=LANES)
    srcs2, srcs3 = f"a:{at} b:{bt}", f"a:{at} b:{bt} c:{dt}"
    full = (dt, at) in (("u32", "u32"), ("s32", "s32")) and (shift or at == bt)
    for sat in ("", ".sat"):
        C.append(case(F, f"{base}{sat}{m}", f"d:{dt}", srcs2, k2))
        for op2 in ("add", "min", "max") if full else ("add", "min")[len(sat) // 4:]:
            C.append(case(F, f"{base}{sat}{m}.{op2}", f"d:{dt}", srcs3, k3))
    if not full or (shift and (dt == "u32") != (mode == "clamp")):
        return
    for j, (ds, as_, bs, with_c) in enumerate(SCALAR_SELS[:6] if shift else SCALAR_SELS):
        sat = ".sat" if j % 2 else ""
        v = f"d{ds}_a{as_}_b{bs}"
        c = ", {c}" if with_c else ""
        asm = f"{base}{sat}{m} {{d}}{_sfx(ds)}, {{a}}{_sfx(as_)}, {{b}}{_sfx(bs)}{c};"
        C.append(case(F, f"{base}{sat}{m}", f"d:{dt}", srcs3 if with_c else srcs2,
                      k3 if with_c else k2, variant=v, asm=asm))
    asm = f"{base}.sat{m}.add {{d}}, {{a}}.b1, {{b}}.h1, {{c}};"
    C.append(case(F, f"{base}.sat{m}.add", f"d:{dt}", srcs3, k3, variant="a_b1_b_h1", asm=asm))


VMAD_TYPES = TYPES + (("s32", "s32", "u32"), ("s32", "u32", "u32"), ("u32", "s32", "s32"), ("u32", "u32", "s32"))
# operand negations (ptxas: either a xor b, or c; none with .po): (variant, a, b, c, modifiers)
VMAD_NEG = (("nega", "-{a}", "{b}", "{c}", ""), ("negb_h1", "{a}", "-{b}.h1", "{c}", ".sat"),
            ("negc", "{a}", "{b}", "-{c}", ".sat"), ("nega_b0_negc_shr7", "-{a}.b0", "{b}.b2", "{c}", ".shr7"),
            ("negab", "-{a}", "-{b}", "{c}", ""), ("negc_shr15", "{a}.h0", "{b}", "-{c}", ".shr15"))


def _vmad(C):
    for dt, at, bt in VMAD_TYPES[len(TYPES):]:  # the other type combinations: the plain forms
        base = f"vmad.{dt}.{at}.{bt}"
        k = I.key("nary", at, bt, dt, arg=LANES)
        for mods in ("", ".sat", ".po"):
            C.append(case(F, f"{base}{mods}", f"d:{dt}", f"a:{at} b:{bt} c:{dt}", k))
    for dt, at, bt in VMAD_TYPES:
        base = f"vmad.{dt}.{at}.{bt}"
        k = I.key("nary", at, bt, dt, arg=LANES)
        for v, a, b, c, mods in VMAD_NEG[:3] if (dt, at, bt) not in TYPES else VMAD_NEG:
            asm = f"{base}{mods} {{d}}, {a}, {b}, {c};"
            C.append(case(F, f"{base}{mods}", f"d:{dt}", f"a:{at} b:{bt} c:{dt}", k, variant=v, asm=asm))
    for dt, at, bt in TYPES:
        base = f"vmad.{dt}.{at}.{bt}"
        k = I.key("nary", at, bt, dt, arg=LANES)
        s = f"a:{at} b:{bt} c:{dt}"
        for po in ("", ".po"):
            for sat in ("", ".sat"):
                for scale in ("", ".shr7", ".shr15"):
                    C.append(case(F, f"{base}{po}{sat}{scale}", f"d:{dt}", s, k))
        for asel, bsel in (("b0", "b3"), ("h1", "b2"), ("h0", "h1")) if at == bt else ():
            for sat in ("", ".sat"):
                asm = f"{base}{sat}.shr7 {{d}}, {{a}}.{asel}, {{b}}.{bsel}, {{c}};"
                C.append(case(F, f"{base}{sat}.shr7", f"d:{dt}", s, k, variant=f"a{asel}_b{bsel}", asm=asm))


def _vset(C):
    for at, bt in (("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32")):
        base = f"vset.{at}.{bt}"
        k2, k3 = I.key("nary", at, bt, arg=LANES), I.key("nary", at, bt, "u32", arg=LANES)
        for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
            C.append(case(F, f"{base}.{cmp}", "d:u32", f"a:{at} b:{bt}", k2))
        for op2 in ("add", "min", "max"):
            C.append(case(F, f"{base}.lt.{op2}", "d:u32", f"a:{at} b:{bt} c:u32", k3))
        for ds, as_, bs, with_c in SCALAR_SELS[1:6] if at == bt else SCALAR_SELS[4:5]:
            c = ", {c}" if with_c else ""
            asm = f"{base}.ge {{d}}{_sfx(ds)}, {{a}}{_sfx(as_)}, {{b}}{_sfx(bs)}{c};"
            C.append(case(F, f"{base}.ge", "d:u32", f"a:{at} b:{bt}" + (" c:u32" if with_c else ""),
                          k3 if with_c else k2, variant=f"d{ds}_a{as_}_b{bs}", asm=asm))


SIMD_SELS = {"2": (("h0", "h10", "h32"), ("h1", "h01", "h23"), ("h10", "h33", "h02"), ("h10", "h21", "h30")),
             "4": (("b0", "b3210", "b7654"), ("b20", "b0123", "b4567"), ("b31", "b7531", "b6420"),
                   ("b3210", "b1155", "b0246"), ("b321", "b3333", "b7070"), ("b10", "b4321", "b5432"))}


def _simd(C):
    for n in ("2", "4"):
        for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"):
            for dt, at, bt in TYPES:
                base = f"{op}{n}.{dt}.{at}.{bt}"
                k = I.key("nary", at, bt, dt, arg=LANES)
                s = f"a:{at} b:{bt} c:{dt}"
                for mod in ("", ".sat", ".add"):
                    C.append(case(F, f"{base}{mod}", f"d:{dt}", s, k))
                if at != bt:
                    continue
                for j, (mask, asel, bsel) in enumerate(SIMD_SELS[n]):
                    mod = ("", ".sat", ".add")[(j + (dt == "s32")) % 3]
                    asm = f"{base}{mod} {{d}}.{mask}, {{a}}.{asel}, {{b}}.{bsel}, {{c}};"
                    C.append(case(F, f"{base}{mod}", f"d:{dt}", s, k, variant=f"{mask}_{asel}_{bsel}", asm=asm))
        for at, bt in (("u32", "u32"), ("s32", "s32"), ("u32", "s32"), ("s32", "u32")):
            base = f"vset{n}.{at}.{bt}"
            k = I.key("nary", at, bt, "u32", arg=LANES)
            s = f"a:{at} b:{bt} c:u32"
            for cmp in ("eq", "ne", "lt", "le", "gt", "ge"):
                C.append(case(F, f"{base}.{cmp}", "d:u32", s, k))
            for cmp in ("lt", "ge"):
                C.append(case(F, f"{base}.{cmp}.add", "d:u32", s, k))
            for mask, asel, bsel in SIMD_SELS[n][1:3] if at == bt else ():
                for mod in ("", ".add"):
                    asm = f"{base}.lt{mod} {{d}}.{mask}, {{a}}.{asel}, {{b}}.{bsel}, {{c}};"
                    C.append(case(F, f"{base}.lt{mod}", "d:u32", s, k, variant=f"{mask}_{asel}_{bsel}", asm=asm))


def _other_types(C):
    """The type combinations the main lists leave out: one case per form (plain and accumulating)."""
    for dt, at, bt in VMAD_TYPES[len(TYPES):]:
        k2, k3 = I.key("nary", at, bt, arg=LANES), I.key("nary", at, bt, dt, arg=LANES)
        for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
            base = f"{op}.{dt}.{at}.{bt}"
            C.append(case(F, base, f"d:{dt}", f"a:{at} b:{bt}", k2))
            C.append(case(F, f"{base}.sat.add", f"d:{dt}", f"a:{at} b:{bt} c:{dt}", k3))
        for n in ("2", "4"):
            for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"):
                base = f"{op}{n}.{dt}.{at}.{bt}"
                for mod in (".sat", ".add"):
                    C.append(case(F, f"{base}{mod}", f"d:{dt}", f"a:{at} b:{bt} c:{dt}", k3))


def cases():
    C = []
    for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
        for dt, at, bt in TYPES:
            _scalar(C, op, dt, at, bt)
    _other_types(C)
    for op in ("vshl", "vshr"):
        for dt, at in (("u32", "u32"), ("s32", "s32"), ("s32", "u32"), ("u32", "s32")):
            for mode in ("clamp", "wrap"):
                _scalar(C, op, dt, at, "u32", mode)
    _vmad(C)
    _vset(C)
    _simd(C)
    return mark_ci(C)
