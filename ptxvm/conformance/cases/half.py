"""Half precision: f16/bf16 and their x2 packings: add/sub/mul/fma (ftz, sat, relu, oob),
neg/abs, min/max (NaN, xorsign.abs), ex2/tanh approximations, setp/set on halves.
Unary ops on scalar halves see every 16-bit pattern."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "half"
CMP = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]


def _m(*p):
    return ".".join(x for x in p if x)


def _un(t):
    return I.key("exh16", t) if t in ("f16", "bf16") else None


def cases():
    C = []
    for op in ("add", "sub", "mul"):
        for t in ("f16", "f16x2"):
            for rnd in ("", "rn"):
                for ftz in ("", "ftz"):
                    for sat in ("", "sat"):
                        C.append(case(F, _m(op, rnd, ftz, sat, t), f"d:{t}", f"a:{t} b:{t}"))
        for t in ("bf16", "bf16x2"):
            for rnd in ("", "rn"):
                C.append(case(F, _m(op, rnd, t), f"d:{t}", f"a:{t} b:{t}"))
    for t in ("f16", "f16x2"):
        for ftz in ("", "ftz"):
            for sat in ("", "sat"):
                C.append(case(F, _m("fma.rn", ftz, sat, t), f"d:{t}", f"a:{t} b:{t} c:{t}"))
            C.append(case(F, _m("fma.rn", ftz, "relu", t), f"d:{t}", f"a:{t} b:{t} c:{t}"))
    for t in ("bf16", "bf16x2"):
        for relu in ("", "relu"):
            C.append(case(F, _m("fma.rn", relu, t), f"d:{t}", f"a:{t} b:{t} c:{t}"))
    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        for relu in ("", "relu"):
            C.append(case(F, _m("fma.rn.oob", relu, t), f"d:{t}", f"a:{t} b:{t} c:{t}", version="8.1"))
    for op in ("neg", "abs"):
        for t in ("f16", "f16x2"):
            for ftz in ("", "ftz"):
                C.append(case(F, _m(op, ftz, t), f"d:{t}", f"a:{t}", _un(t)))
        for t in ("bf16", "bf16x2"):
            C.append(case(F, _m(op, t), f"d:{t}", f"a:{t}", _un(t)))
    for op in ("min", "max"):
        for t in ("f16", "f16x2", "bf16", "bf16x2"):
            for ftz in (("", "ftz") if t.startswith("f16") else ("",)):
                for nan in ("", "NaN"):
                    for xs in ("", "xorsign.abs"):
                        C.append(case(F, _m(op, ftz, nan, xs, t), f"d:{t}", f"a:{t} b:{t}"))
    for t in ("f16", "f16x2"):
        C.append(case(F, f"ex2.approx.{t}", f"d:{t}", f"a:{t}", _un(t)))
    for t in ("bf16", "bf16x2"):
        C.append(case(F, f"ex2.approx.ftz.{t}", f"d:{t}", f"a:{t}", _un(t)))
    for t in ("f16", "f16x2", "bf16", "bf16x2"):
        C.append(case(F, f"tanh.approx.{t}", f"d:{t}", f"a:{t}", _un(t)))
    for cmp in CMP:
        for ftz in ("", "ftz"):
            C.append(case(F, _m("setp", cmp, ftz, "f16"), "p:pred", "a:f16 b:f16"))
            C.append(case(F, _m("setp", cmp, ftz, "f16x2"), "p:pred q:pred", "a:f16x2 b:f16x2",
                          asm=_m("setp", cmp, ftz, "f16x2") + " {p}|{q}, {a}, {b};"))
        C.append(case(F, _m("setp", cmp, "bf16"), "p:pred", "a:bf16 b:bf16"))
        C.append(case(F, _m("setp", cmp, "bf16x2"), "p:pred q:pred", "a:bf16x2 b:bf16x2",
                      asm=_m("setp", cmp, "bf16x2") + " {p}|{q}, {a}, {b};"))
    for boolop in ("and", "or", "xor"):
        C.append(case(F, f"setp.lt.{boolop}.f16", "p:pred", "a:f16 b:f16 c:pred"))
        C.append(case(F, f"setp.gtu.{boolop}.bf16x2", "p:pred q:pred", "a:bf16x2 b:bf16x2 c:pred",
                      asm=f"setp.gtu.{boolop}.bf16x2 {{p}}|{{q}}, {{a}}, {{b}}, !{{c}};"))
    for cmp in ("lt", "equ", "nan"):
        C.append(case(F, f"set.{cmp}.f16.f32", "d:f16", "a:f32 b:f32"))
        C.append(case(F, f"set.{cmp}.bf16.f32", "d:bf16", "a:f32 b:f32"))
        C.append(case(F, f"set.{cmp}.u32.f16", "d:u32", "a:f16 b:f16"))
        C.append(case(F, f"set.{cmp}.s16.bf16", "d:s16", "a:bf16 b:bf16"))
        C.append(case(F, f"set.{cmp}.f16x2.f16x2", "d:f16x2", "a:f16x2 b:f16x2"))
        C.append(case(F, f"set.{cmp}.bf16x2.bf16x2", "d:bf16x2", "a:bf16x2 b:bf16x2"))
        C.append(case(F, f"set.{cmp}.u32.f16x2", "d:u32", "a:f16x2 b:f16x2"))
    return mark_ci(C)
