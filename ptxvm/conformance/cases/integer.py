"""Integer arithmetic: add/sub (and .cc chains), mul/mad (hi, lo, wide), mul24/mad24, sad,
div/rem, abs/neg, min/max, popc/clz/bfind/fns/brev/bfe/bfi/szext/bmsk, dp4a/dp2a."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "integer"
INT = ["u16", "u32", "u64", "s16", "s32", "s64"]
WIDE = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}


def _bin(t):
    # 16-bit operands: every pair of 8-bit values (extended); wider: edges and random
    return I.key("pairs8", t, t) if t.endswith("16") else I.key("nary", t, t)


def cases():
    C = []
    for op in ("add", "sub"):
        for t in INT:
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t} b:{t}", _bin(t)))
        C.append(case(F, f"{op}.sat.s32", "d:s32", "a:s32 b:s32"))
    for t in ("u16x2", "s16x2"):
        C.append(case(F, f"add.{t}", f"d:{t}", f"a:{t} b:{t}", version="8.0"))
    # carry chains
    for t in ("u32", "s32", "u64", "s64"):
        C.append(case(F, f"add.cc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_out="add"))
        C.append(case(F, f"addc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_in="add",
                      inputs=I.key("nary", t, t, "pred")))
        C.append(case(F, f"addc.cc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_in="add", carry_out="add",
                      inputs=I.key("nary", t, t, "pred")))
        C.append(case(F, f"sub.cc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_out="sub"))
        C.append(case(F, f"subc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_in="sub",
                      inputs=I.key("nary", t, t, "pred")))
        C.append(case(F, f"subc.cc.{t}", f"d:{t}", f"a:{t} b:{t}", carry_in="sub", carry_out="sub",
                      inputs=I.key("nary", t, t, "pred")))
        for hl in ("lo", "hi"):
            C.append(case(F, f"mad.{hl}.cc.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}", carry_out="add"))
            C.append(case(F, f"madc.{hl}.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}", carry_in="add",
                          inputs=I.key("nary", t, t, t, "pred")))
            C.append(case(F, f"madc.{hl}.cc.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}", carry_in="add",
                          carry_out="add", inputs=I.key("nary", t, t, t, "pred")))
    # multiply
    for t in INT:
        for mode in ("lo", "hi"):
            C.append(case(F, f"mul.{mode}.{t}", f"d:{t}", f"a:{t} b:{t}", _bin(t)))
            C.append(case(F, f"mad.{mode}.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}"))
        if t in WIDE:
            w = WIDE[t]
            C.append(case(F, f"mul.wide.{t}", f"d:{w}", f"a:{t} b:{t}", _bin(t)))
            C.append(case(F, f"mad.wide.{t}", f"d:{w}", f"a:{t} b:{t} c:{w}"))
    C.append(case(F, "mad.hi.sat.s32", "d:s32", "a:s32 b:s32 c:s32"))
    for t in ("u32", "s32"):
        for mode in ("lo", "hi"):
            C.append(case(F, f"mul24.{mode}.{t}", f"d:{t}", f"a:{t} b:{t}"))
            C.append(case(F, f"mad24.{mode}.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}"))
    C.append(case(F, "mad24.hi.sat.s32", "d:s32", "a:s32 b:s32 c:s32"))
    for t in INT:
        C.append(case(F, f"sad.{t}", f"d:{t}", f"a:{t} b:{t} c:{t}"))
    # division: zero divisors are a separate case, recorded but undefined by the ISA
    for op in ("div", "rem"):
        for t in INT:
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t} b:{t}", I.key("divisor", t, t)))
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t} b:{t}", I.key("zero", t, t),
                          variant="by_zero",
                          undefined="integer division by zero: the ISA leaves the result unspecified"))
    for op in ("abs", "neg"):
        for t in ("s16", "s32", "s64"):
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t}"))
    for op in ("min", "max"):
        for t in INT + ["u16x2", "s16x2"]:
            C.append(case(F, f"{op}.{t}", f"d:{t}", f"a:{t} b:{t}", _bin(t),
                          version="8.0" if "x2" in t else "7.8"))
        for t in ("s32", "s16x2"):
            C.append(case(F, f"{op}.relu.{t}", f"d:{t}", f"a:{t} b:{t}", version="8.0"))
    for t in ("b32", "b64"):
        C.append(case(F, f"popc.{t}", "d:u32", f"a:{t}"))
        C.append(case(F, f"clz.{t}", "d:u32", f"a:{t}"))
        C.append(case(F, f"brev.{t}", f"d:{t}", f"a:{t}"))
        C.append(case(F, f"bfi.{t}", f"f:{t}", f"a:{t} b:{t} c:u32 d:u32",
                      I.key("bitfield", t, t, "u32", "u32")))
    for t in ("u32", "u64", "s32", "s64"):
        C.append(case(F, f"bfind.{t}", "d:u32", f"a:{t}"))
        C.append(case(F, f"bfind.shiftamt.{t}", "d:u32", f"a:{t}"))
        C.append(case(F, f"bfe.{t}", f"d:{t}", f"a:{t} b:u32 c:u32", I.key("bitfield", t, "u32", "u32")))
    C.append(case(F, "fns.b32", "d:b32", "a:b32 b:u32 c:s32", I.key("fns", "b32", "u32", "s32")))
    for mode in ("clamp", "wrap"):
        for t in ("u32", "s32"):
            C.append(case(F, f"szext.{mode}.{t}", f"d:{t}", f"a:{t} b:u32", I.key("shift", t, "u32"),
                          version="7.6"))
        C.append(case(F, f"bmsk.{mode}.b32", "d:b32", "a:b32 b:b32", I.key("bitfield", "b32", "b32"),
                      version="7.6"))
    for at in ("u32", "s32"):
        for bt in ("u32", "s32"):
            C.append(case(F, f"dp4a.{at}.{bt}", "d:u32" if at == bt == "u32" else "d:s32",
                          f"a:b32 b:b32 c:{'u32' if at == bt == 'u32' else 's32'}"))
            for mode in ("lo", "hi"):
                C.append(case(F, f"dp2a.{mode}.{at}.{bt}", "d:u32" if at == bt == "u32" else "d:s32",
                              f"a:b32 b:b32 c:{'u32' if at == bt == 'u32' else 's32'}"))
    return mark_ci(C)
