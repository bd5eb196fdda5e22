"""Floating-point emitters: add sub mul fma min max neg abs on .f32 / .f64, ex2.approx.ftz.f32,
div.full.f32. A NaN result bails (its bits are the numerics policy's); so does an fma whose
float64 sum lies on a float32 rounding midpoint, and an .ftz result at the smallest normal."""
from __future__ import annotations

from .common import BAIL, FLOAT_TYPES, Reject, one_type, only



def _f32_result(lines, r, ftz, checked_tiny=False):
    """Bits of float32 `r`: a NaN bails; .ftz flushes a subnormal and bails at +-2^-126
    (whether the exact result was tiny is numerics' decision)."""
    lines += [f"if math.isnan({r}):", f"    {BAIL}", f"rb = f32b({r})"]
    if ftz:
        lines += ["if (rb & E32) == U(0):", "    rb = rb & S32",
                  "if (rb & M31) == MIN_NORMAL32:", f"    {BAIL}"]
    return "rb"


def float_arith(op):
    def emit(mods, srcs, dsts):
        t = one_type(mods, FLOAT_TYPES)
        only(mods, {t, "rn", "ftz"})
        a, b = srcs[0].expr, srcs[1].expr
        if t == "f64":
            if "ftz" in mods:
                raise Reject
            lines = [f"r = f64({a}) {op} f64({b})", "if math.isnan(r):", f"    {BAIL}"]
            return "float", ["f64b(r)"], lines
        ftz = "ftz" in mods
        if ftz:
            a, b = f"fz32({a})", f"fz32({b})"
        lines = [f"r = f32({a}) {op} f32({b})"]
        return "float", [_f32_result(lines, "r", ftz)], lines
    return emit


def fma(mods, srcs, dsts):
    t = one_type(mods, FLOAT_TYPES)
    only(mods, {t, "rn", "ftz"}, "rn")
    if t == "f64":
        if "ftz" in mods:
            raise Reject
        return _fma64(srcs)
    a, b, c = (s.expr for s in srcs)
    ftz = "ftz" in mods
    if ftz:
        a, b, c = f"fz32({a})", f"fz32({b})", f"fz32({c})"
    # the product is exact in float64; RN of the float64 sum, rounded again to float32, is RN of
    # the exact a*b + c unless it lies on a float32 midpoint or is tiny (floating.fma32_rn)
    lines = [f"p = F64(f32({a})) * F64(f32({b}))", f"s = p + F64(f32({c}))",
             "if (f64b(s) & LOW29) == MID29 or abs(s) < FMA32_TINY:", f"    {BAIL}",
             "r = F32(s)"]
    return "float", [_f32_result(lines, "r", ftz)], lines



# --------------------------------------------------------------------------- min, max, sign, fma.f64, ex2, div


def float_minmax(is_max):
    """min / max {.ftz}{.NaN} .f32 / .f64 (semantics/families/_float.minmax): -0 < +0, a NaN
    yields to the other operand, whose bits are returned; a NaN result bails."""
    def emit(mods, srcs, dsts):
        t = one_type(mods, FLOAT_TYPES)
        only(mods, {t, "ftz", "NaN"})
        if "ftz" in mods and t != "f32":
            raise Reject
        a, b = srcs[0].expr, srcs[1].expr
        if "ftz" in mods:
            a, b = f"fz32({a})", f"fz32({b})"
        to, sign = ("f32", "S32") if t == "f32" else ("f64", "U(0x8000000000000000)")
        lines = [f"ab = {a}", f"bb = {b}", f"x = {to}(ab)", f"y = {to}(bb)",
                 "xn = math.isnan(x)", "yn = math.isnan(y)",
                 "if xn or yn:" if "NaN" in mods else "if xn and yn:", f"    {BAIL}"]
        if is_max:
            lines.append(f"tt = x > y or (x == y and (ab & {sign}) == U(0))")
        else:
            lines.append(f"tt = x < y or (x == y and (ab & {sign}) != U(0))")
        lines.append("tt = (tt or yn) and not xn")
        return "float", ["(ab if tt else bb)"], lines
    return emit


def float_sign(flip):
    """neg / abs .f32 {.ftz} / .f64: the sign bit flipped / cleared (after .ftz); a NaN bails
    (its result is the numerics policy's)."""
    def emit(mods, srcs, dsts):
        t = one_type(mods, FLOAT_TYPES)
        only(mods, {t, "ftz"})
        a = srcs[0].expr
        if t == "f32":
            if "ftz" in mods:
                a = f"fz32({a})"
            lines = [f"ab = {a}", "if math.isnan(f32(ab)):", f"    {BAIL}"]
            return "float", ["(ab ^ S32)" if flip else "(ab & M31)"], lines
        if "ftz" in mods:
            raise Reject
        lines = [f"ab = {a}", "if math.isnan(f64(ab)):", f"    {BAIL}"]
        return "float", ["(ab ^ U(0x8000000000000000))" if flip else "(ab & U(0x7fffffffffffffff))"], lines
    return emit


def _fma64(srcs):
    """fma.rn.f64: LLVM's fma rounds once, as the hardware; a NaN result bails."""
    a, b, c = (s.expr for s in srcs)
    lines = [f"r = fma64(f64({a}), f64({b}), f64({c}))", "if math.isnan(r):", f"    {BAIL}"]
    return "float", ["f64b(r)"], lines


def ex2(mods, srcs, dsts):
    """ex2.approx.ftz.f32: MUFU.EX2 from its measured table (helpers.ex2_ftz); a NaN bails."""
    only(mods, {"approx", "ftz", "f32"}, "approx", "ftz", "f32")
    a = srcs[0].expr
    lines = [f"if math.isnan(f32({a})):", f"    {BAIL}"]
    return "float", [f"ex2_ftz({a}, S_table_ex2)"], lines


def float_div(mods, srcs, dsts):
    """div.full{.ftz}.f32 (helpers.div_full, MUFU.RCP's measured table); a NaN operand or result
    bails. div.rn and div.approx stay interpreted."""
    only(mods, {"full", "ftz", "f32"}, "full", "f32")
    a, b = srcs[0].expr, srcs[1].expr
    lines = [f"if math.isnan(f32({a})) or math.isnan(f32({b})):", f"    {BAIL}",
             f"r = div_full({a}, {b}, {'True' if 'ftz' in mods else 'False'}, S_table_rcp)",
             "if math.isnan(r):", f"    {BAIL}"]
    return "float", ["f32b(r)"], lines
