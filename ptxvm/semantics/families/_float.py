"""Helpers shared by the floating-point families (floating, half, approx, convert).

Reading a Spec: the ISA table names its slots `rnd` (add, fma ...), `frnd`/`irnd`/`frnd2`/`frnd3`
(cvt), `type`/`atype`/`abtype`/`dtype`; fixed tokens (`.f32`, `.rn` of `cvt.rn.satfinite...`,
`.approx`) may only show up in `spec.modifiers`. The helpers here look at the slots first, then
at every slot value, then at the written modifiers, so any of these spellings works. They run
once, in the factory; lane functions never see a string.

Bits and views: f32 registers arrive as float32 arrays and f64 as float64 arrays (dtypes.py), so
`bits32(x)` / `f32(bits)` are free views; arithmetic that NumPy rounds correctly (f32/f64 add,
sub, mul in RN, f64 div and sqrt in RN) runs on the views. Which NaN a result is belongs to
ptxvm.numerics.nans (one switch, measured on an sm_90 GPU): the fast paths hand their NaN lanes,
and only those, to the numerics function of the same instruction (`patch`); instructions numerics
does not implement use `canon32` / nans.nan_result. No float arithmetic touches a result after
its bits are final.
"""
from __future__ import annotations

import functools

import numpy as np

from ...numerics.formats import BF16, E4M3, E5M2, F16, F32, F64, TF32
from ...numerics.nans import nan_result
from ...numerics.rounding import Rounding
from ..registry import Spec

FORMATS = {"f16": F16, "bf16": BF16, "f32": F32, "f64": F64, "tf32": TF32,
           "e4m3": E4M3, "e5m2": E5M2}
HALF = {"f16": F16, "bf16": BF16, "f16x2": F16, "bf16x2": BF16}
INTS = {f"{p}{w}" for p in "us" for w in (8, 16, 32, 64)}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64", "tf32", "f16x2", "bf16x2", "f32x2",
               "e4m3", "e5m2", "e4m3x2", "e5m2x2", "e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2",
               "e4m3x4", "e5m2x4", "e2m1x4", "e2m3x4", "e3m2x4", "s2f6x2"}
TYPE_NAMES = FLOAT_TYPES | INTS | {f"b{w}" for w in (8, 16, 32, 64)} | {
    "u2", "s2", "u4", "s4", "u16x2", "s16x2"}

FLOAT_RND = {"rn": Rounding.RN, "rz": Rounding.RZ, "rm": Rounding.RM, "rp": Rounding.RP,
             "rna": Rounding.RNA}
INT_RND = {"rni": Rounding.RN, "rzi": Rounding.RZ, "rmi": Rounding.RM, "rpi": Rounding.RP}
RND_SLOTS = ("rnd", "frnd", "frnd2", "frnd3", "irnd", "mode")

S32 = np.uint32(0x80000000)
M32 = np.uint32(0x7FFFFFFF)
E32 = np.uint32(0x7F800000)
S64 = np.uint64(1 << 63)
M64 = np.uint64((1 << 63) - 1)
E64 = np.uint64(0x7FF0000000000000)
F32_ONE = np.float32(1.0)
F32_ZERO = np.float32(0.0)


# --------------------------------------------------------------------------- reading the Spec


def _words(spec: Spec):
    """Every string the instruction carries: named slot values, other values, flag keys (split
    at dots: `xorsign.abs` gives both words) and the written modifiers."""
    for v in spec.values.values():
        if isinstance(v, str):
            yield from v.lstrip(".").split(".")
    for k, v in spec.values.items():
        if v is True:
            yield from k.lstrip(".").split(".")
    for m in spec.modifiers:
        yield from m.lstrip(".").split(".")


def flag(spec: Spec, name: str) -> bool:
    """Whether the modifier `.name` was written (a flag slot, a group like `.xorsign.abs`, or a
    written modifier)."""
    return spec.flag(name) or name in _words(spec)


def word(spec: Spec, options, *slots: str):
    """The first of `options` the instruction carries (named slots first), else None."""
    for s in slots:
        v = spec.get(s)
        if isinstance(v, str) and v.lstrip(".") in options:
            return v.lstrip(".")
    for w in _words(spec):
        if w in options:
            return w
    return None


def rounding(spec: Spec):
    """(Rounding or None, integer?) from `.rn/.rz/.rm/.rp/.rna` or `.rni/.rzi/.rmi/.rpi`."""
    w = word(spec, FLOAT_RND.keys() | INT_RND.keys(), *RND_SLOTS)
    if w is None:
        return None, False
    return (INT_RND[w], True) if w in INT_RND else (FLOAT_RND[w], False)


def types_in(spec: Spec) -> list:
    """Every PTX type the instruction names, in order: type slots, other values, modifiers."""
    out = []
    for v in spec.types.values():
        if isinstance(v, str) and v not in out:
            out.append(v)
    for w in _words(spec):
        if w in TYPE_NAMES and w not in out:
            out.append(w)
    return out


def inst_type(spec: Spec) -> str:
    """The single instruction type (`spec.type`, else the one type written)."""
    try:
        return spec.type
    except KeyError:
        ts = types_in(spec)
        if not ts:
            raise KeyError(f"{spec.opcode}: no instruction type in {dict(spec.types)}") from None
        return ts[-1]


def unsupported(spec: Spec, why: str):
    mods = ".".join(m.lstrip(".") for m in spec.modifiers) or ".".join(types_in(spec))
    raise NotImplementedError(f"{spec.opcode}.{mods}: {why}")


# --------------------------------------------------------------------------- bit views


def bits32(x) -> np.ndarray:
    """Raw bits of f32 lanes (a free view; NumPy scalars become 0-d arrays)."""
    return np.asarray(x, dtype=np.float32).view(np.uint32)


def f32(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint32).view(np.float32)


def bits64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64).view(np.uint64)


def f64(bits) -> np.ndarray:
    return np.asarray(bits, dtype=np.uint64).view(np.float64)


def canon32(r) -> np.ndarray:
    """f32 result lanes with every NaN replaced by the canonical NaN (what f32 arithmetic gives
    on sm_90, numerics.nans); checked first, so NaN-free arrays pay one pass. For instructions
    that numerics also implements, use `patch` instead: numerics then decides the NaN."""
    r = np.asarray(r, dtype=np.float32)
    m = np.isnan(r)
    if not m.any():
        return r
    return nan_result(m, r.view(np.uint32), F32).view(np.float32)


def patch(out, mask, exact, ops):
    """`out` (raw bits) with the lanes in `mask` replaced by `exact(*ops)` computed on those
    lanes only. The fast paths use it for their NaN lanes, so that which NaN comes out (a policy
    of ptxvm.numerics.nans, measured on the GPU) is decided in one place, at a cost paid only
    when a NaN occurs."""
    mask = np.asarray(mask)
    if not mask.any():
        return out
    out = np.array(out, copy=True)
    sub = [np.broadcast_to(np.asarray(o), out.shape)[mask] for o in ops]
    out[mask] = exact(*sub)
    return out


def flush32(x) -> np.ndarray:
    """.ftz on f32 lanes: subnormals become a zero of the same sign (done on the bits, so other
    values, NaN payloads included, pass untouched)."""
    b = bits32(x)
    return np.where((b & E32) == 0, b & S32, b).view(np.float32)


def sat32(r) -> np.ndarray:
    """.sat on f32 lanes: clamp to [+0.0, 1.0]; NaN and -0.0 become +0.0."""
    r = np.asarray(r, dtype=np.float32)
    return np.where(r > 0, np.minimum(r, F32_ONE), F32_ZERO)


def quiet(fn):
    """Run a lane function with NumPy's floating-point warnings off: PTX arithmetic raises no
    exceptions (inf - inf is a NaN, 1/0 an infinity, an f64 -> f32 cast may overflow)."""
    @functools.wraps(fn)
    def lanes(*args):
        with np.errstate(all="ignore"):
            return fn(*args)
    return lanes


# --------------------------------------------------------------------------- round to odd


def sum_to_odd(x, y) -> np.ndarray:
    """x + y (float64, or float32, lanes) as an array holding its round-to-odd stand-in:
    RN(x + y), moved one ulp toward the exact sum when that is inexact and the last bit is even.
    Rounding the result once more to a format with at least 2 fewer bits of precision then gives
    exactly the correct rounding of x + y, in every mode (no double-rounding error). Built from
    TwoSum (exact under RN, no overflow for finite sums) with in-place steps: few temporaries."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    dt = np.result_type(x, y)
    s = np.add(x, y, out=np.empty(shape, dt))
    bb = np.subtract(s, x, out=np.empty(shape, dt))
    e = np.subtract(s, bb, out=np.empty(shape, dt))
    np.subtract(x, e, out=e)
    np.subtract(y, bb, out=bb)
    e += bb                                  # s + e == x + y exactly
    sb = s.view(np.int64 if dt == np.float64 else np.int32)
    fix = (sb & 1) == 0
    fix &= e != 0
    fix &= np.isfinite(s)
    if fix.any():
        sb += fix                            # one ulp away from zero ...
        fix &= np.signbit(e) != np.signbit(s)
        sb -= fix                            # ... or toward it, when the exact sum is smaller
        sb -= fix
    return s


# --------------------------------------------------------------------------- packed lanes


def f32x2(fn):
    """Lift an f32 lane function to .f32x2 (b64 registers): element i is bits [32i+31:32i]."""
    lo_mask = np.uint64(0xFFFFFFFF)

    def lanes(*regs):
        regs = [np.asarray(r, dtype=np.uint64) for r in regs]
        lo = fn(*((r & lo_mask).astype(np.uint32).view(np.float32) for r in regs))
        hi = fn(*((r >> np.uint64(32)).astype(np.uint32).view(np.float32) for r in regs))
        return (bits32(hi).astype(np.uint64) << np.uint64(32)) | bits32(lo).astype(np.uint64)
    return lanes


def halves(fn):
    """Lift a 16-bit lane function to a 32-bit x2 register (element 0 in bits [15:0])."""
    def lanes(*regs):
        regs = [np.asarray(r, dtype=np.uint32) for r in regs]
        lo = fn(*(r.astype(np.uint16) for r in regs))
        hi = fn(*((r >> np.uint32(16)).astype(np.uint16) for r in regs))
        return (np.asarray(hi).astype(np.uint32) << np.uint32(16)) | np.asarray(lo).astype(np.uint32)
    return lanes


# --------------------------------------------------------------------------- min / max


def minmax(is_max: bool, nan: bool, fmt, xs, bs, xorsign: bool = False, absolute: bool = False,
           nan_fn=None):
    """min/max over values `xs` (comparable float arrays, exact) with raw bits `bs`, as the ISA's
    Semantics block: NaN operands are skipped (both NaN -> NaN), or with `.NaN` any NaN gives the
    NaN; -0.0 < +0.0; the chosen operand's bits are returned untouched. `.xorsign.abs`: the result's
    sign is the XOR of the (first two) operands' signs, unless the result is NaN. `.abs`: the
    operands' magnitudes are compared. Three operands chain: min(min(a, b), c).
    NaN results: nan_fn(mask, bits, operand_bits), by default the canonical NaN of fmt.
    Returns the result bits (dtype of fmt)."""
    raw = [np.asarray(b).astype(fmt.dtype, copy=False) for b in bs]
    sign = np.asarray(fmt.sign_mask << fmt.pad_bits).astype(fmt.dtype)
    xs = [np.asarray(x) for x in xs]
    bs = [np.asarray(b).astype(fmt.dtype, copy=False) for b in bs]
    if xorsign:
        xsign = (bs[0] ^ bs[1]) & sign
    if xorsign or absolute:
        bs = [b & ~sign for b in bs]
        xs = [np.abs(x) for x in xs]
    x, b = xs[0], bs[0]
    any_nan = np.isnan(x)
    for y, c in zip(xs[1:], bs[1:]):
        xn, yn = np.isnan(x), np.isnan(y)
        if is_max:
            take_x = (x > y) | ((x == y) & ~np.signbit(x))
        else:
            take_x = (x < y) | ((x == y) & np.signbit(x))
        take_x = (take_x | yn) & ~xn          # a NaN operand yields to the other one
        x, b = np.where(take_x, x, y), np.where(take_x, b, c)
        any_nan = any_nan | yn
    bad = any_nan if nan else np.isnan(x)
    if xorsign:
        b = np.where(bad, b, (b & ~sign) | xsign)
    if bad.any():
        b = nan_fn(bad, b, raw) if nan_fn is not None else nan_result(bad, b, fmt)
    return b
