"""Comparison and selection: setp (every comparison and type, with and without a boolean
combine), set, selp, slct, testp."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "compare"
ICMP = ["eq", "ne", "lt", "le", "gt", "ge"]
UCMP = ICMP + ["lo", "ls", "hi", "hs"]
FCMP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
ALL = ["b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f32", "f64"]


def cmps(t):
    if t.startswith("b"):
        return ["eq", "ne"]
    if t.startswith("u"):
        return UCMP
    if t.startswith("s"):
        return ICMP
    return FCMP


def cases():
    C = []
    for t in ALL:
        inp = I.key("pairs8", t, t) if t.endswith("16") else I.key("nary", t, t)
        for cmp in cmps(t):
            C.append(case(F, f"setp.{cmp}.{t}", "p:pred q:pred", f"a:{t} b:{t}", inp,
                          asm=f"setp.{cmp}.{t} {{p}}|{{q}}, {{a}}, {{b}};"))
            if t == "f32":
                C.append(case(F, f"setp.{cmp}.ftz.{t}", "p:pred q:pred", f"a:{t} b:{t}", inp,
                              asm=f"setp.{cmp}.ftz.{t} {{p}}|{{q}}, {{a}}, {{b}};"))
    # single destination, and the boolean-combining forms (c and !c)
    for t in ("s32", "u64", "f32", "f64"):
        C.append(case(F, f"setp.lt.{t}", "p:pred", f"a:{t} b:{t}", variant="single"))
        for boolop in ("and", "or", "xor"):
            for neg in ("", "!"):
                cmp = "lt" if t != "f64" else "ltu"
                C.append(case(F, f"setp.{cmp}.{boolop}.{t}", "p:pred q:pred", f"a:{t} b:{t} c:pred",
                              variant="notc" if neg else "",
                              asm=f"setp.{cmp}.{boolop}.{t} {{p}}|{{q}}, {{a}}, {{b}}, {neg}{{c}};"))
        C.append(case(F, f"setp.ge.and.ftz.f32" if t == "f32" else f"setp.ge.and.{t}",
                      "p:pred q:pred", f"a:{t} b:{t} c:pred", variant="ge",
                      asm=(f"setp.ge.and.ftz.f32" if t == "f32" else f"setp.ge.and.{t}")
                      + " {p}|{q}, {a}, {b}, {c};"))
    # set: every comparison into u32; other destination types and combines sampled
    for t in ALL:
        for cmp in cmps(t):
            C.append(case(F, f"set.{cmp}.u32.{t}", "d:u32", f"a:{t} b:{t}"))
        c2 = cmps(t)[2 if len(cmps(t)) > 2 else 0]
        for dt in ("s32", "f32"):
            C.append(case(F, f"set.{c2}.{dt}.{t}", f"d:{dt}", f"a:{t} b:{t}"))
    # every (dtype, stype) pair of set, plain and with a boolean combine (a sample of 1024 lanes)
    pairs = [(d, t) for d in ("u32", "s32", "f32", "f16", "bf16") for t in ALL + ["f16"]
             if (d, t) != ("f32", "f16")]  # (no set.f32.f16: ptxas refuses the pair)
    pairs += [(d, t) for d in ("u16", "s16") for t in ("f16", "bf16")]
    pairs += [(d, t) for d in ("f16x2", "u32", "s32") for t in ("f16x2",)]
    pairs += [(d, t) for d in ("bf16x2", "u32", "s32") for t in ("bf16x2",)]
    for d, t in pairs:
        c2 = cmps(t)[2 if len(cmps(t)) > 2 else 0]
        k3 = I.key("nary", t, t, "pred", arg=1024)
        if d in ("f16", "bf16", "u16", "s16", "f16x2", "bf16x2") or t in ("f16", "f16x2", "bf16", "bf16x2"):
            C.append(case(F, f"set.{c2}.{d}.{t}", f"d:{d}", f"a:{t} b:{t}", I.key("nary", t, t, arg=1024),
                          variant="pair"))
        C.append(case(F, f"set.{c2}.and.{d}.{t}", f"d:{d}", f"a:{t} b:{t} c:pred", k3, variant="pair"))
    for d in ("u32", "s32"):  # a boolean combine over scalar bf16 (the pairs above have f16 only)
        C.append(case(F, f"set.gtu.xor.{d}.bf16", f"d:{d}", "a:bf16 b:bf16 c:pred",
                      I.key("nary", "bf16", "bf16", "pred", arg=1024), variant="pair"))
    C.append(case(F, "setp.leu.or.bf16", "p:pred", "a:bf16 b:bf16 c:pred",
                  I.key("nary", "bf16", "bf16", "pred", arg=1024),
                  asm="setp.leu.or.bf16 {p}, {a}, {b}, !{c};"))
    for cmp in ("lt", "nan", "equ"):
        C.append(case(F, f"set.{cmp}.ftz.f32.f32", "d:f32", "a:f32 b:f32"))
        C.append(case(F, f"set.{cmp}.ftz.u32.f32", "d:u32", "a:f32 b:f32"))
    for boolop in ("and", "or", "xor"):
        C.append(case(F, f"set.gt.{boolop}.u32.s32", "d:u32", "a:s32 b:s32 c:pred"))
        C.append(case(F, f"set.neu.{boolop}.f32.f64", "d:f32", "a:f64 b:f64 c:pred", variant="notc",
                      asm=f"set.neu.{boolop}.f32.f64 {{d}}, {{a}}, {{b}}, !{{c}};"))
    for t in ALL:
        C.append(case(F, f"selp.{t}", f"d:{t}", f"a:{t} b:{t} c:pred"))
        C.append(case(F, f"slct.{t}.s32", f"d:{t}", f"a:{t} b:{t} c:s32"))
        C.append(case(F, f"slct.{t}.f32", f"d:{t}", f"a:{t} b:{t} c:f32"))
        C.append(case(F, f"slct.ftz.{t}.f32", f"d:{t}", f"a:{t} b:{t} c:f32"))
    for op in ("finite", "infinite", "number", "notanumber", "normal", "subnormal"):
        for t in ("f32", "f64"):
            C.append(case(F, f"testp.{op}.{t}", "p:pred", f"a:{t}"))
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[-1]))
