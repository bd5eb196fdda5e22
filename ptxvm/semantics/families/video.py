"""Video instructions (PTX ISA 9.7.17): scalar vadd ... vset, vmad; SIMD vadd2/4 ... vset2/4.

Operand selectors are not modifiers: the engine (`engine/misc/video.py`) reads them from the
operands (`a.b1`, `d.h10`) and adds them to the Spec's values as `asel`, `bsel`, `dsel` (scalar
merge) or `mask` (SIMD), without the dot. The lane functions take (a, b) or (a, b, c).

Scalar forms (9.7.17.1): each source is a byte, half-word or the word of its register, sign- or
zero-extended by its type to 33 bits; the operation is exact (int64 here); `.sat` clamps to the
destination type's range, to its byte/half-word range when merging into d.b0 ... d.h1; then an
optional secondary operation with c (.add wraps to 32 bits, .min/.max compare with c taken by the
destination type) or the merge of the low byte/half-word into c's other bits.

SIMD forms (9.7.17.2): the elements of a and b are picked, by .asel/.bsel, from the half-words
(bytes) of the pair {b, a}, a holding the lower ones; default a.h10 / b.h32 (a.b3210 / b.b7654).
The element results (clamped with .sat) are merged into c under .mask (elements not in the mask
keep c's), or with .add summed, unclamped and in full precision, onto c.
"""
from __future__ import annotations

import numpy as np

from ..registry import semantic

U32 = np.int64(0xFFFFFFFF)
_SUB = {"b0": (0, 8), "b1": (8, 8), "b2": (16, 8), "b3": (24, 8), "h0": (0, 16), "h1": (16, 16)}
_RANGE = {(8, True): (-128, 127), (8, False): (0, 255), (16, True): (-32768, 32767), (16, False): (0, 65535),
          (32, True): (-(1 << 31), (1 << 31) - 1), (32, False): (0, (1 << 32) - 1)}


def _sel(spec, slot):
    v = spec.get(slot)
    return v.lstrip(".") if isinstance(v, str) else None


def part_select(x, signed: bool, sel) -> np.ndarray:
    """partSelectSignExtend: byte/half-word `sel` (or the word) of x, extended to int64."""
    u = np.asarray(x).astype(np.uint32).astype(np.int64)
    shift, bits = _SUB.get(sel, (0, 32))
    e = (u >> shift) & ((1 << bits) - 1)
    if signed:
        top = np.int64(1 << (bits - 1))
        e = (e ^ top) - top
    return e


def saturate(t, signed: bool, bits: int = 32):
    lo, hi = _RANGE[(bits, signed)]
    return np.clip(t, lo, hi)


def merge(dsel, t, c):
    """optMerge: the low byte/half-word of t into position `dsel` of c (uint32)."""
    shift, bits = _SUB[dsel]
    m = ((1 << bits) - 1) << shift
    tt = (np.asarray(t).astype(np.int64) << shift) & m
    return (tt | (np.asarray(c).astype(np.uint32).astype(np.int64) & (0xFFFFFFFF ^ m))).astype(np.uint32)


def _wrap34(t):
    """The 34-bit signed intermediate of the shifts: their .sat clamps it, not the exact value."""
    t = np.asarray(t) & ((1 << 34) - 1)
    return np.where(t >= (1 << 33), t - (1 << 34), t)


def _minmax_key(spec, tmp, exact, signed: bool):
    """What .min/.max compare with c (c taken by the destination type), as measured on the H200:
    vadd/vsub (and the shifts with .sat) compare their 32-bit result, sign-extended to 33 bits
    (as unsigned when d is .u32: a result with bit 31 set is then above every c); the others
    compare the exact result (a left shift's wrapped to 64 bits), where for a .u32 destination a
    negative one is above every c."""
    if spec.opcode in ("vadd", "vsub") or (spec.opcode in ("vshl", "vshr") and spec.flag("sat")):
        t32 = np.asarray(tmp).astype(np.int64) & U32
        if signed:
            return (t32 ^ 0x80000000) - 0x80000000
        return t32 + ((t32 >> 31) << 32)
    e = np.asarray(tmp if exact is None else exact)
    return e if signed else np.where(e < 0, 1 << 33, e)


def finish(spec, tmp, c, signed_d: bool, kind: str = "arith", signed_c=None, exact=None):
    """optSaturate, then optSecondaryOp or optMerge; the 32-bit result in the destination dtype.

    kind: "arith" (vadd ... vmax), "shift" (vshl, vshr) or "set" (vset: no saturation); exact: a left
    shift's 64-bit wrap when tmp is its 34-bit one. Where
    the H200 differs from the manual's pseudocode (docs/hardware-notes.md, "Video instructions"),
    this follows the GPU."""
    out = np.int32 if signed_d else np.uint32
    dsel = _sel(spec, "dsel")
    sat = kind != "set" and spec.flag("sat")
    if sat and dsel is not None and c is not None:
        shift, bits = _SUB[dsel]
        if dsel == "h1":  # measured: the merged half-word is 0
            return (np.asarray(c).astype(np.uint32) & np.uint32(0xFFFF)).astype(out)
        if spec.opcode == "vshl":  # measured: saturated to the 32-bit range, then its low bits merged
            tmp = saturate(_wrap34(tmp), signed_d)
        elif spec.opcode == "vshr":  # as the manual says
            tmp = saturate(tmp, signed_d, bits)
        else:  # measured: a negative result saturates to the maximum
            top = _RANGE[(bits, signed_d)][1]
            tmp = np.where(tmp < 0, top, np.minimum(tmp, top))
        return merge(dsel, tmp, c).astype(out)
    if sat:
        if kind == "shift":
            tmp = saturate(_wrap34(tmp), signed_d)
        elif signed_d:
            tmp = saturate(tmp, True)
        else:  # measured: unsigned .sat clamps negative results to 0 and wraps the others
            tmp = np.maximum(tmp, 0)
    op2 = spec.get("op2")
    if isinstance(op2, str) and c is not None:
        sc = signed_d if signed_c is None else signed_c
        if op2 == "add":
            tmp = tmp + part_select(c, sc, None)
        else:
            kt, kc = _minmax_key(spec, tmp, exact, sc), part_select(c, sc, None)
            take_t = (kt < kc) if op2 == "min" else (kt > kc)
            tmp = np.where(take_t, tmp, kc)
        return (np.asarray(tmp) & U32).astype(np.uint32).astype(out)
    if dsel is not None and c is not None:
        if kind == "set" and dsel == "h1":  # measured: vset merges 0 into the high half-word
            return (np.asarray(c).astype(np.uint32) & np.uint32(0xFFFF)).astype(out)
        return merge(dsel, tmp, c).astype(out)
    return (np.asarray(tmp) & U32).astype(np.uint32).astype(out)


def _signs(spec):
    t = spec.types
    return (t.get("atype", "u32") == "s32", t.get("btype", "u32") == "s32", t.get("dtype", "u32") == "s32")


def _scalar(op):
    def factory(spec):
        sa, sb, sd = _signs(spec)
        asel, bsel = _sel(spec, "asel"), _sel(spec, "bsel")

        def lanes(a, b, c=None):
            ta, tb = part_select(a, sa, asel), part_select(b, sb, bsel)
            return finish(spec, op(ta, tb), c, sd)

        return lanes

    return factory


_OPS = {
    "vadd": lambda x, y: x + y,
    "vsub": lambda x, y: x - y,
    "vabsdiff": lambda x, y: np.abs(x - y),
    "vmin": np.minimum,
    "vmax": np.maximum,
}
for _name, _op in _OPS.items():
    semantic(_name)(_scalar(_op))


def _shift(left: bool):
    def factory(spec):
        sa, _, sd = _signs(spec)
        asel, bsel = _sel(spec, "asel"), _sel(spec, "bsel")
        wrap = spec.get("mode") == "wrap"

        def lanes(a, b, c=None):
            ta = part_select(a, sa, asel)
            tb = part_select(b, False, bsel)  # the shift count is always unsigned
            tb = tb & 0x1F if wrap else np.minimum(tb, 32)
            if not left:
                return finish(spec, ta >> tb, c, sd, "shift")
            # the exact shift may need 65 bits; measured: .sat sees its 34-bit wrap, .min/.max its
            # 64-bit one
            t64 = (ta.astype(np.uint64) << tb.astype(np.uint64)).astype(np.int64)
            return finish(spec, _wrap34(t64), c, sd, "shift", exact=t64)

        return lanes

    return factory


semantic("vshl")(_shift(True))
semantic("vshr")(_shift(False))


@semantic("vset")
def vset(spec):
    sa, sb, _ = _signs(spec)
    asel, bsel = _sel(spec, "asel"), _sel(spec, "bsel")
    cmp = COMPARE[spec.get("cmp")]

    def lanes(a, b, c=None):
        t = cmp(part_select(a, sa, asel), part_select(b, sb, bsel)).astype(np.int64)
        return finish(spec, t, c, False, "set", signed_c=sa)  # measured: c is signed when a is

    return lanes


COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}


@semantic("vmad")
def vmad(spec):
    """(a*b) + c (+1 with .po), optionally shifted right by 7 or 15 and saturated.

    Measured on the H200 (docs/hardware-notes.md): a whole-word a or b, and c, are taken as
    signed whatever their type (a selected byte/half-word is extended by its type); the final
    result is signed when a or b is .s32. A signed result shifts arithmetically; an unsigned one
    shifts its 64-bit two's complement logically (so a negative sum turns large) but, unshifted,
    saturates a negative sum to 0. The product of two 33-bit values fits int64 here, since only
    selected parts are zero-extended."""
    sa, sb, _ = _signs(spec)
    asel, bsel = _sel(spec, "asel"), _sel(spec, "bsel")
    neg_ab = bool(spec.get("neg_a")) != bool(spec.get("neg_b"))
    neg_c = bool(spec.get("neg_c"))
    po = 1 if spec.flag("po") else 0
    signed_final = sa or sb or neg_ab or neg_c
    shift = {"shr7": 7, "shr15": 15}.get(spec.get("scale"), 0)
    sat = spec.flag("sat")
    out = np.int32 if signed_final else np.uint32

    def lanes(a, b, c):
        ta = part_select(a, sa if asel else True, asel)
        tb = part_select(b, sb if bsel else True, bsel)
        p = ta * tb
        tc = part_select(c, True, None)
        t = (-p if neg_ab else p) + (-tc if neg_c else tc) + po
        if shift and not signed_final:
            r = (t.astype(np.uint64) >> np.uint64(shift)).astype(object if sat else np.uint64)
            if sat:
                r = np.minimum(r, 0xFFFFFFFF).astype(np.int64)
            return (np.asarray(r).astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32).astype(out)
        r = t >> shift
        if sat:
            r = saturate(r, signed_final)
        return (r & U32).astype(np.uint32).astype(out)

    return lanes


# --------------------------------------------------------------------------- SIMD


def simd_elements(a, b, sel, n: int, signed: bool) -> list:
    """extractAndSignExt_n: the n elements picked by `sel` from the 2n half-words/bytes of {b, a}."""
    bits = 32 // n
    pool = (np.asarray(b).astype(np.uint32).astype(np.uint64) << np.uint64(32)) | \
        np.asarray(a).astype(np.uint32).astype(np.uint64)
    digits = sel[1:]
    out = []
    for i in range(n):
        k = int(digits[n - 1 - i])  # the last digit picks element 0
        e = ((pool >> np.uint64(k * bits)) & np.uint64((1 << bits) - 1)).astype(np.int64)
        if signed:
            top = np.int64(1 << (bits - 1))
            e = (e ^ top) - top
        out.append(e)
    return out


def _mask(spec, n):
    m = _sel(spec, "mask")
    if m is None:
        return set(range(n))
    return {int(d) for d in m[1:]}


_SIMD = {
    "vadd": lambda x, y: x + y,
    "vsub": lambda x, y: x - y,
    "vavrg": lambda x, y: np.where(x + y >= 0, (x + y + 1) >> 1, (x + y) >> 1),
    "vabsdiff": lambda x, y: np.abs(x - y),
    "vmin": np.minimum,
    "vmax": np.maximum,
}


def _simd(op, n: int, compare: bool = False):
    bits = 32 // n

    def factory(spec):
        sa, sb, sd = _signs(spec)
        if compare:
            sd = False
        asel = _sel(spec, "asel") or ("h10" if n == 2 else "b3210")
        bsel = _sel(spec, "bsel") or ("h32" if n == 2 else "b7654")
        mask = _mask(spec, n)
        acc = spec.flag("add")
        sat = spec.flag("sat") and not compare
        fn = COMPARE[spec.get("cmp")] if compare else op
        out = np.int32 if sd and not compare else np.uint32

        def lanes(a, b, c):
            va, vb = simd_elements(a, b, asel, n, sa), simd_elements(a, b, bsel, n, sb)
            cu = np.asarray(c).astype(np.uint32).astype(np.int64)
            t = [np.asarray(fn(x, y)).astype(np.int64) for x, y in zip(va, vb)]
            if sat:
                t = [saturate(x, sd, bits) for x in t]
            if acc:
                d = cu
                for i in range(n):
                    if i in mask:
                        d = d + t[i]
                return (d & U32).astype(np.uint32).astype(out)
            lane = (1 << bits) - 1
            d = np.zeros(np.broadcast(cu, *t).shape, dtype=np.int64)
            for i in range(n):
                part = t[i] if i in mask else (cu >> (i * bits))
                d = d | ((part & lane) << (i * bits))
            return d.astype(np.uint32).astype(out)

        return lanes

    return factory


for _n in (2, 4):
    for _name, _op in _SIMD.items():
        semantic(f"{_name}{_n}")(_simd(_op, _n))
    semantic(f"vset{_n}")(_simd(None, _n, compare=True))
