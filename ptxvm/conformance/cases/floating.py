"""f32/f64 arithmetic: add/sub/mul/fma/mad in every rounding mode with ftz/sat, div/rcp/sqrt
(IEEE and approximate), rsqrt/sin/cos/lg2/ex2/tanh, abs/neg, min/max (NaN, xorsign.abs),
copysign."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "floating"
RND = ["rn", "rz", "rm", "rp"]
APPROX_LANES = "16384"


def _mods(*parts):
    return ".".join(p for p in parts if p)


def cases():
    C = []
    for op in ("add", "sub", "mul"):
        for rnd in [""] + RND:
            for ftz in ("", "ftz"):
                for sat in ("", "sat"):
                    C.append(case(F, _mods(op, rnd, ftz, sat, "f32"), "d:f32", "a:f32 b:f32"))
            C.append(case(F, _mods(op, rnd, "f64"), "d:f64", "a:f64 b:f64"))
    for rnd in RND:
        for ftz in ("", "ftz"):
            for sat in ("", "sat"):
                C.append(case(F, _mods("fma", rnd, ftz, sat, "f32"), "d:f32", "a:f32 b:f32 c:f32"))
        C.append(case(F, _mods("fma", rnd, "f64"), "d:f64", "a:f64 b:f64 c:f64"))
        C.append(case(F, _mods("mad", rnd, "f32"), "d:f32", "a:f32 b:f32 c:f32"))
        C.append(case(F, _mods("mad", rnd, "ftz", "sat", "f32"), "d:f32", "a:f32 b:f32 c:f32"))
        C.append(case(F, _mods("mad", rnd, "f64"), "d:f64", "a:f64 b:f64 c:f64"))
    for ftz in ("", "ftz"):
        # mad.f32 without a rounding mode is an sm_1x form: ptxas refuses it for sm_20 and later
        C.append(case(F, _mods("mad", ftz, "f32"), "d:f32", "a:f32 b:f32 c:f32",
                      expect_reject="mad.f32 needs a rounding modifier on sm_20 and later"))
        for mode in ["approx", "full"] + RND:
            C.append(case(F, _mods("div", mode, ftz, "f32"), "d:f32", "a:f32 b:f32"))
        for mode in ["approx"] + RND:
            C.append(case(F, _mods("rcp", mode, ftz, "f32"), "d:f32", "a:f32",
                          I.key("unary", "f32", arg=APPROX_LANES) if mode == "approx" else None))
            C.append(case(F, _mods("sqrt", mode, ftz, "f32"), "d:f32", "a:f32",
                          I.key("unary", "f32", arg=APPROX_LANES) if mode == "approx" else None))
        for op in ("rsqrt", "sin", "cos", "lg2", "ex2"):
            C.append(case(F, _mods(op, "approx", ftz, "f32"), "d:f32", "a:f32",
                          I.key("unary", "f32", arg=APPROX_LANES)))
        C.append(case(F, _mods("abs", ftz, "f32"), "d:f32", "a:f32"))
        C.append(case(F, _mods("neg", ftz, "f32"), "d:f32", "a:f32"))
    C.append(case(F, "tanh.approx.f32", "d:f32", "a:f32", I.key("unary", "f32", arg=APPROX_LANES)))
    for rnd in RND:
        C.append(case(F, _mods("div", rnd, "f64"), "d:f64", "a:f64 b:f64"))
        C.append(case(F, _mods("rcp", rnd, "f64"), "d:f64", "a:f64"))
        C.append(case(F, _mods("sqrt", rnd, "f64"), "d:f64", "a:f64"))
    C.append(case(F, "rcp.approx.ftz.f64", "d:f64", "a:f64", I.key("unary", "f64", arg=APPROX_LANES)))
    C.append(case(F, "rsqrt.approx.f64", "d:f64", "a:f64", I.key("unary", "f64", arg=APPROX_LANES)))
    C.append(case(F, "rsqrt.approx.ftz.f64", "d:f64", "a:f64", I.key("unary", "f64", arg=APPROX_LANES)))
    C.append(case(F, "abs.f64", "d:f64", "a:f64"))
    C.append(case(F, "neg.f64", "d:f64", "a:f64"))
    for op in ("min", "max"):
        for ftz in ("", "ftz"):
            for nan in ("", "NaN"):
                for xs in ("", "xorsign.abs"):
                    C.append(case(F, _mods(op, ftz, nan, xs, "f32"), "d:f32", "a:f32 b:f32",
                                  version="7.2" if xs else ("7.0" if nan else "7.8")))
        C.append(case(F, f"{op}.f64", "d:f64", "a:f64 b:f64"))
    for t in ("f32", "f64"):
        C.append(case(F, f"copysign.{t}", f"d:{t}", f"a:{t} b:{t}"))
    return mark_ci(C, key=lambda c: (c.opcode, c.modifiers[0] if c.modifiers[0] in ("approx", "full") else "", c.modifiers[-1]))
