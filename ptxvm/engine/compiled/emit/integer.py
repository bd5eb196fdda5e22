"""Integer, logic and shift emitters: add sub mul mad neg abs min max div rem, bfe, and or xor not,
shl shr (see the package's docstring for the exact forms)."""
from __future__ import annotations

from .common import BITS, INT_TYPES, Reject, numeric, one_type, only, signed, wrap

# --------------------------------------------------------------------------- integer


def int_binary(op):
    def emit(mods, srcs, dsts):
        t = one_type(mods, INT_TYPES)
        only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        return "int", [wrap(f"{a} {op} {b}", t)], []
    return emit


def _product(mods, srcs, t):
    """(expression, destination width) of the .lo / .wide / .hi product of a and b."""
    a, b = srcs[0].expr, srcs[1].expr
    mode = [x for x in mods if x in ("lo", "hi", "wide")]
    mode = mode[0] if mode else "lo"
    if mode == "lo":
        return wrap(f"{a} * {b}", t)
    if BITS[t] != 32:
        raise Reject  # 64-bit .hi / .wide need 128-bit products
    if mode == "wide":
        return f"u64({signed(a, t)} * {signed(b, t)})" if t.startswith("s") else f"({a} * {b})"
    if t.startswith("s"):
        return f"(u64(({signed(a, t)} * {signed(b, t)}) >> I(32)) & M32)"
    return f"(({a} * {b}) >> U(32))"


def int_mul(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES)
    only(mods, {t, "lo", "hi", "wide"})
    return "int", [_product(mods, srcs, t)], []


def int_mad(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES)
    only(mods, {t, "lo", "hi", "wide"})
    wide = "wide" in mods
    s = f"{_product(mods, srcs, t)} + {srcs[2].expr}"
    return "int", [f"({s})" if wide else wrap(s, t)], []


def int_neg(mods, srcs, dsts):
    t = one_type(mods, {"s32", "s64"})
    only(mods, {t})
    return "int", [wrap(f"U(0) - {srcs[0].expr}", t)], []


def int_abs(mods, srcs, dsts):
    t = one_type(mods, {"s32", "s64"})
    only(mods, {t})
    a = srcs[0].expr
    return "int", [wrap(f"(U(0) - {a}) if {signed(a, t)} < I(0) else {a}", t)], []


def int_minmax(pick_smaller):
    def emit(mods, srcs, dsts):
        t = one_type(mods, {"u32", "s32", "u64", "s64"})
        only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        less = f"{numeric(a, t)} < {numeric(b, t)}"
        return "int", [f"({a} if {less} else {b})" if pick_smaller else f"({b} if {less} else {a})"], []
    return emit


# --------------------------------------------------------------------------- logic and shifts


def logic(op, pred_op):
    def emit(mods, srcs, dsts):
        t = one_type(mods, {"b32", "b64", "pred"})
        only(mods, {t})
        a, b = srcs[0].expr, srcs[1].expr
        if t == "pred":
            return "logic", [f"({a} {pred_op} {b})"], []
        return "logic", [f"({a} {op} {b})"], []
    return emit


def logic_not(mods, srcs, dsts):
    t = one_type(mods, {"b32", "b64", "pred"})
    only(mods, {t})
    a = srcs[0].expr
    if t == "pred":
        return "logic", [f"(not {a})"], []
    return "logic", [f"({a} ^ {'M32' if BITS[t] == 32 else 'M64'})"], []


def shl(mods, srcs, dsts):
    t = one_type(mods, {"b32", "b64"})
    only(mods, {t})
    a, n, w = srcs[0].expr, srcs[1].expr, BITS[t]
    return "shift", [f"({wrap(f'{a} << {n}', t)} if {n} < U({w}) else U(0))"], []


def shr(mods, srcs, dsts):
    t = one_type(mods, INT_TYPES)
    only(mods, {t})
    a, n, w = srcs[0].expr, srcs[1].expr, BITS[t]
    if t.startswith("s"):  # arithmetic: a count >= the width fills with the sign
        return "shift", [wrap(f"u64({signed(a, t)} >> i64(min({n}, U({w - 1}))))", t)], []
    return "shift", [f"(({a} >> {n}) if {n} < U({w}) else U(0))"], []



# --------------------------------------------------------------------------- division and bit fields


def int_divrem(is_div):
    """div / rem on integers (semantics/families/integer.py): a zero divisor gives all ones; the
    signed forms truncate toward zero (the remainder takes the dividend's sign) and wrap."""
    def emit(mods, srcs, dsts):
        t = one_type(mods, INT_TYPES)
        only(mods, {t})
        a, b, w = srcs[0].expr, srcs[1].expr, BITS[t]
        ones = "M32" if w == 32 else "M64"
        if not t.startswith("s"):
            return "int", [f"({ones} if {b} == U(0) else ({a} {'//' if is_div else '%'} {b}))"], []
        lines = [f"da = {signed(a, t)}", f"db = {signed(b, t)}",
                 "ma = (U(0) - u64(da)) if da < I(0) else u64(da)",
                 "mb = (U(0) - u64(db)) if db < I(0) else u64(db)",
                 f"q = {ones}", "if mb != U(0):"]
        if is_div:
            lines += ["    q = ma // mb", "    if (da < I(0)) != (db < I(0)):", "        q = U(0) - q"]
        else:
            lines += ["    q = ma % mb", "    if da < I(0):", "        q = U(0) - q"]
        return "int", [wrap("q", t)], lines
    return emit


def bfe(mods, srcs, dsts):
    """bfe (semantics/families/bits.py): 32-bit forms take pos and len modulo 256, 64-bit ones
    whole; .s fills the bits past the field with its top bit (a[min(pos+len-1, msb)])."""
    t = one_type(mods, {"u32", "s32", "u64", "s64"})
    only(mods, {t})
    a, b, c, w = srcs[0].expr, srcs[1].expr, srcs[2].expr, BITS[t]
    if w == 32:
        lines = [f"pos = i64({b} & U(0xff))", f"ln = i64({c} & U(0xff))"]
    else:
        lines = [f"pos = i64({b})", f"ln = i64({c})"]
    lines += [f"ins = max(min(ln, I({w}) - pos), I(0))",
              f"fd = (({a} >> u64(pos)) if pos < I({w}) else U(0)) & low_mask(ins, {w})"]
    if t.startswith("u"):
        return "bits", ["fd"], lines
    lines += [f"top = min(max(pos + ln - I(1), I(0)), I({w - 1}))",
              f"if ln > I(0) and (({a} >> u64(top)) & U(1)) == U(1):",
              f"    fd = fd | (~low_mask(ins, {w}) & {'M32' if w == 32 else 'M64'})"]
    return "bits", ["fd"], lines
