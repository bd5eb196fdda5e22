"""Hardware oracle: run PTX instructions on a real GPU and compare with
ptxvm.numerics.  Not collected by pytest (no test_ prefix).

    python tests/numerics/h100_oracle.py collect OUT.npz   # on the GPU (CuPy)
    python tests/numerics/h100_oracle.py compare OUT.npz   # anywhere
    python tests/numerics/h100_oracle.py goldens OUT.npz DST.npz [PER]

Each variant is one PTX instruction in inline asm, its operand register
kinds, an input generator and the ptxvm.numerics call it must match.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ptxvm.numerics import convert as C, half, ieee32, ieee64  # noqa: E402
from ptxvm.numerics.formats import to_float64  # noqa: E402
from ptxvm.numerics.formats import BF16, E4M3, E5M2, F16, F32, F64, TF32, FloatFormat  # noqa: E402
from ptxvm.numerics.rounding import Rounding  # noqa: E402

MODES = {"rn": Rounding.RN, "rz": Rounding.RZ, "rm": Rounding.RM, "rp": Rounding.RP,
         "rna": Rounding.RNA, "rni": Rounding.RN, "rzi": Rounding.RZ,
         "rmi": Rounding.RM, "rpi": Rounding.RP}

# register kind -> (C type of the variable, asm constraint, storage dtype, load, store)
REG = {
    "f": ("float", "f", np.uint32, "__uint_as_float({})", "__float_as_uint({})"),
    "d": ("double", "d", np.uint64, "__longlong_as_double((long long){})",
          "(unsigned long long)__double_as_longlong({})"),
    "h": ("unsigned short", "h", np.uint16, "{}", "{}"),
    "r": ("unsigned int", "r", np.uint32, "{}", "{}"),
    "l": ("unsigned long long", "l", np.uint64, "{}", "{}"),
}
CTYPE = {np.uint16: "unsigned short", np.uint32: "unsigned int", np.uint64: "unsigned long long"}


@dataclass
class Variant:
    ptx: str                      # instruction text without operands
    dst: str                      # register kind of d
    srcs: str                     # register kinds of the sources
    gens: list                    # one generator per source: (rng, n, prev) -> array
    ours: Callable                # ptxvm.numerics on the source arrays -> dst bits
    cmp_mask: int = 0             # compare only these low bits (0: all)
    notes: dict = field(default_factory=dict)

    @property
    def name(self):
        return self.ptx.replace(".", "_")


# ---------------------------------------------------------------- generators
def specials(f: FloatFormat):
    w, m = f.width, f.man_bits
    mags = [0, 1, 2, f.man_mask, f.man_mask + 1, 1 << m, f.bias << m, (f.bias << m) + 1,
            (f.bias << m) - 1, (f.bias << m) | (1 << (m - 1)), f.max_logical, f.max_logical - 1]
    if f.has_inf:
        mags += [f.inf_logical, f.inf_logical + 1, f.inf_logical | (1 << (m - 1)),
                 f.inf_logical | f.man_mask]
    else:
        mags += [f.exp_mask | f.man_mask]
    return np.array([(x | s) << f.pad_bits for x in mags for s in (0, 1 << (w - 1))],
                    dtype=np.uint64)


def structured(f: FloatFormat, rng, n, exp_lo=None, exp_hi=None, base=None, spread=None):
    w, m, eb = f.width, f.man_bits, f.exp_bits
    top = (1 << eb) - 1
    sign = rng.integers(0, 2, n).astype(np.uint64)
    if base is not None:
        be = ((base.astype(np.uint64) >> np.uint64(f.pad_bits + m)) & np.uint64(top)).astype(np.int64)
        e = np.clip(be + rng.integers(-spread, spread + 1, n), 0, top)
    else:
        e = rng.integers(0 if exp_lo is None else exp_lo, (top if exp_hi is None else exp_hi) + 1, n)
    frac = rng.integers(0, 1 << min(m, 62), n, dtype=np.uint64)
    if m > 62:
        frac = (frac << np.uint64(m - 62)) | rng.integers(0, 1 << (m - 62), n, dtype=np.uint64)
    k = rng.integers(0, m + 1, n).astype(np.uint64)
    frac = np.where(rng.random(n) < 0.5, frac & ~((np.uint64(1) << k) - np.uint64(1)), frac)
    bits = (sign << np.uint64(w - 1)) | (e.astype(np.uint64) << np.uint64(m)) | frac
    return bits << np.uint64(f.pad_bits)


def _grid(f: FloatFormat, k: int, arity: int):
    """Column k of the cross product of a reduced special list."""
    sp = specials(f)[::2] if arity > 1 else specials(f)
    if arity == 3:
        sp = sp[::2]
    idx = np.indices((len(sp),) * arity).reshape(arity, -1)[k]
    return sp[idx]


def _tiny_partner(f: FloatFormat, rng, prev, n):
    """Operands that put a*b (or a+b) right at the smallest normal, where
    flush-to-zero has to decide between before and after rounding."""
    a = prev[0][:n]
    x = C.cvt_float(a, f, F64).view(np.float64)
    with np.errstate(all="ignore"):
        t = np.where(rng.random(n) < 0.5, 2.0 ** (f.emin), -(2.0 ** f.emin))
        y = np.where(rng.random(n) < 0.5, t / x, t - x)
    y = np.where(np.isfinite(y), y, 1.0)
    yb = C.cvt_float(y.view(np.uint64), F64, f).astype(np.int64)
    return (yb + rng.integers(-3, 4, n)).astype(np.uint64)


def _boundaries(f: FloatFormat, dst: FloatFormat):
    """Values of f just around dst's smallest normal, smallest subnormal,
    largest finite and overflow threshold, and around ties there."""
    p = dst.precision
    anchors = [2.0 ** dst.emin, 2.0 ** (dst.emin - dst.man_bits), 2.0 ** (dst.emin - dst.man_bits - 1),
               float(to_float64(np.array([dst.max_finite]), dst)[0]),
               2.0 ** (dst.emax + 1) - 2.0 ** (dst.emax - p), 2.0 ** (dst.emax + 1)]
    vals = []
    for a in anchors:
        for k in range(1, min(f.precision, 60)):
            vals += [a * (1 - 2.0 ** -k), a * (1 + 2.0 ** -k)]
        vals += [a, a * (1 - 2.0 ** -(p + 1)), a * (1 + 2.0 ** -(p + 1))]
    x = np.array(vals + [-v for v in vals], dtype=np.float64)
    with np.errstate(all="ignore"):
        return C.cvt_float(x.view(np.uint64), F64, f, Rounding.RZ).astype(np.uint64)


def fgen(f: FloatFormat, near: FloatFormat | None = None, related: bool = True,
         ints: bool = False, grid: tuple | None = None):
    """Floats of f: specials, uniform bits, structured; optionally exponents
    near another format's range, related to the previous operand, or
    around integers (for cvt to integer); ``grid=(k, arity)`` starts with
    the cross product of special values."""
    def gen(rng, n, prev):
        parts = [_grid(f, *grid)] if grid else []
        parts.append(specials(f))
        if related and prev and f in (F32, F16, BF16):
            parts.append(_tiny_partner(f, rng, prev, n // 8))
        parts.append(rng.integers(0, 1 << min(f.width, 63), n // 8, dtype=np.uint64) << np.uint64(f.pad_bits))
        parts.append(structured(f, rng, n // 4))
        if near is not None:
            parts.append(_boundaries(f, near))
            lo = max(f.bias + near.emin - near.man_bits - 3, 0)
            hi = min(f.bias + near.emax + 2, (1 << f.exp_bits) - 1)
            parts.append(structured(f, rng, n // 2, lo, hi))
        if ints:
            parts.append(structured(f, rng, n // 2, f.bias - 2, min(f.bias + 66, (1 << f.exp_bits) - 2)))
        if related and prev:
            parts.append(structured(f, rng, n // 2, base=prev[0][: n // 2], spread=f.man_bits + 3))
            if len(prev) == 2:  # fma: c close to -(a*b)
                a = prev[0][: n // 4]
                b = prev[1][: n // 4]
                if f is F64:
                    with np.errstate(all="ignore"):
                        p = -(a.view(np.float64) * b.view(np.float64))
                    parts.append(p.view(np.uint64) ^ rng.integers(0, 4, len(a)).astype(np.uint64))
                else:
                    x = C.cvt_float(C.cvt_float(a, f, F64), F64, f) if f is not F32 else a
                    with np.errstate(all="ignore"):
                        p = -(C.cvt_float(a, f, F64).view(np.float64) * C.cvt_float(b, f, F64).view(np.float64))
                    pb = C.cvt_float(p.view(np.uint64), F64, f).astype(np.uint64)
                    parts.append(pb ^ rng.integers(0, 4, len(a)).astype(np.uint64))
                    del x
        out = np.concatenate(parts)
        out = np.resize(out, n) if len(out) < n else out[:n]
        return out.astype(f.dtype)
    return gen


def igen(dtype, reg_dtype):
    info = np.iinfo(dtype)
    bits = np.dtype(dtype).itemsize * 8

    def gen(rng, n, prev):
        edges = [info.min, info.max, 0, 1, -1, info.min + 1, info.max - 1]
        for k in (11, 12, 13, 24, 25, 53, 54, 62, 63):
            for d in (-1, 0, 1):
                edges += [(1 << k) + d, -(1 << k) + d, (1 << k) + (1 << (k - 11)) + d]
        edges = [e for e in edges if info.min <= e <= info.max]
        ks = rng.integers(1, bits + 1, n)
        r = rng.integers(0, 1 << 62, n, dtype=np.uint64) * np.uint64(4) + rng.integers(0, 4, n, dtype=np.uint64)
        r = r >> (np.uint64(64) - ks.astype(np.uint64))
        vals = r.astype(dtype)
        if info.min < 0:
            vals = np.where(rng.random(n) < 0.5, (-(r.astype(np.int64))).astype(dtype), vals)
        vals[: len(edges)] = np.array(edges, dtype=object).astype(dtype)
        # What the register holds: sign-extended source bits (upper bits of a
        # wider register are junk-filled for sub-word types to test masking).
        wide = vals.astype(np.int64 if info.min < 0 else np.uint64).astype(reg_dtype)
        return wide
    return gen


def _as(dtype):
    """Reinterpret register contents as the integer dtype the cvt reads."""
    def f(x):
        bits = np.dtype(dtype).itemsize * 8
        mask = (1 << bits) - 1
        return (x.astype(np.uint64) & np.uint64(mask)).astype(np.dtype(f"u{bits // 8}")).view(dtype)
    return f


def _int_out(dtype):
    """ptxvm int results as they sit in a 32- or 64-bit register (sign/zero extended)."""
    def f(v):
        v = np.asarray(v)
        if np.dtype(dtype).itemsize == 8:
            return v.view(np.uint64)
        return v.astype(np.int64 if np.iinfo(dtype).min < 0 else np.uint64).astype(np.uint32)
    return f


# ------------------------------------------------------------------ variants
def build() -> list[Variant]:
    V = []
    f32g, f64g = fgen(F32), fgen(F64)

    def grids(f, n):
        return [fgen(f, grid=(k, n)) for k in range(n)]
    for op, n in (("add", 2), ("sub", 2), ("mul", 2), ("fma", 3)):
        for rnd in ("rn", "rz", "rm", "rp"):
            for flags in ("", ".ftz", ".sat", ".ftz.sat"):
                ftz, sat = "ftz" in flags, "sat" in flags
                V.append(Variant(f"{op}.{rnd}{flags}.f32", "f", "f" * n, grids(F32, n),
                                 (lambda op, m, ftz, sat: lambda *a: getattr(ieee32, op)(*a, m, ftz=ftz, sat=sat))(op, MODES[rnd], ftz, sat)))
            V.append(Variant(f"{op}.{rnd}.f64", "d", "d" * n, grids(F64, n),
                             (lambda op, m: lambda *a: getattr(ieee64, op)(*a, m))(op, MODES[rnd])))
    for op, n in (("div", 2), ("sqrt", 1), ("rcp", 1)):
        for rnd in ("rn", "rz", "rm", "rp"):
            for flags in ("", ".ftz"):
                ftz = bool(flags)
                V.append(Variant(f"{op}.{rnd}{flags}.f32", "f", "f" * n, grids(F32, n),
                                 (lambda op, m, ftz: lambda *a: getattr(ieee32, op)(*a, m, ftz=ftz))(op, MODES[rnd], ftz)))
            V.append(Variant(f"{op}.{rnd}.f64", "d", "d" * n, [f64g] * n,
                             (lambda op, m: lambda *a: getattr(ieee64, op)(*a, m))(op, MODES[rnd])))
    # half precision
    for fmt, ty in ((F16, "f16"), (BF16, "bf16")):
        g = fgen(fmt)
        flag_sets = ("", ".ftz", ".sat", ".ftz.sat") if fmt is F16 else ("",)
        for op, n in (("add", 2), ("sub", 2), ("mul", 2), ("fma", 3)):
            fl = flag_sets + ((".relu", ".ftz.relu") if op == "fma" and fmt is F16 else
                              (".relu",) if op == "fma" else ())
            for flags in fl:
                kw = {k: (k in flags) for k in ("ftz", "sat", "relu")}
                V.append(Variant(f"{op}.rn{flags}.{ty}", "h", "h" * n, grids(fmt, n),
                                 (lambda op, fmt, kw: lambda *a: getattr(half, op)(*a, fmt, Rounding.RN, **kw))(op, fmt, kw)))
        x2 = lambda fmt: (lambda rng, n, prev: (fgen(fmt, related=False)(rng, n, None).astype(np.uint32) << np.uint32(16)) | fgen(fmt)(rng, n, prev[:1] and [((prev[0] >> np.uint32(16)).astype(fmt.dtype))]).astype(np.uint32))  # noqa: E731
        for op, n, flags in (("add", 2, ""), ("mul", 2, ""), ("fma", 3, ""), ("fma", 3, ".relu")):
            kw = {"relu": bool(flags)}
            V.append(Variant(f"{op}.rn{flags}.{ty}x2", "r", "r" * n, [x2(fmt)] * n,
                             (lambda op, fmt, kw: lambda *a: getattr(half, op + "_x2")(*a, fmt, Rounding.RN, **kw))(op, fmt, kw)))
    for flags in (".ftz", ".sat", ".ftz.sat"):
        kw = {k: (k in flags) for k in ("ftz", "sat")}
        for op, n in (("add", 2), ("mul", 2), ("fma", 3)):
            V.append(Variant(f"{op}.rn{flags}.f16x2", "r", "r" * n, [x2(F16)] * n,
                             (lambda op, kw: lambda *a: getattr(half, op + "_x2")(*a, F16, Rounding.RN, **kw))(op, kw)))
    for ty, fmt in (("f16x2", F16), ("bf16x2", BF16)):
        for rnd, flags in (("rn", ""), ("rz", ""), ("rn", ".relu"), ("rn", ".satfinite"),
                           ("rz", ".relu.satfinite")):
            kw = {k: (k in flags) for k in ("relu", "satfinite")}
            V.append(Variant(f"cvt.{rnd}{flags}.{ty}.f32", "r", "ff", [fgen(F32, fmt)] * 2,
                             (lambda fmt, m, kw: lambda a, b: C.f32x2_to_x2(a, b, fmt, m, **kw))(fmt, MODES[rnd], kw)))
    # float -> float conversions
    def cv(src, dst, mode, **kw):
        return lambda a: C.cvt_float(a, src, dst, mode, **kw)
    for rnd in ("rn", "rz", "rm", "rp"):
        V.append(Variant(f"cvt.{rnd}.f16.f32", "h", "f", [fgen(F32, F16)], cv(F32, F16, MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.bf16.f32", "h", "f", [fgen(F32, BF16)], cv(F32, BF16, MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.f32.f64", "f", "d", [fgen(F64, F32)], cv(F64, F32, MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.f16.f64", "h", "d", [fgen(F64, F16)], cv(F64, F16, MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.bf16.f64", "h", "d", [fgen(F64, BF16)], cv(F64, BF16, MODES[rnd])))
    for rnd in ("rn", "rz"):
        for flags in (".relu", ".satfinite", ".relu.satfinite"):
            kw = {k: (k in flags) for k in ("relu", "satfinite")}
            V.append(Variant(f"cvt.{rnd}{flags}.f16.f32", "h", "f", [fgen(F32, F16)], cv(F32, F16, MODES[rnd], **kw)))
            V.append(Variant(f"cvt.{rnd}{flags}.bf16.f32", "h", "f", [fgen(F32, BF16)], cv(F32, BF16, MODES[rnd], **kw)))
    V.append(Variant("cvt.rn.ftz.f16.f32", "h", "f", [fgen(F32, F16)], cv(F32, F16, Rounding.RN, ftz=True)))
    V.append(Variant("cvt.rn.sat.f16.f32", "h", "f", [fgen(F32, F16)], cv(F32, F16, Rounding.RN, sat=True)))
    V.append(Variant("cvt.rn.ftz.f32.f64", "f", "d", [fgen(F64, F32)], cv(F64, F32, Rounding.RN, ftz=True)))
    V.append(Variant("cvt.rz.sat.f32.f64", "f", "d", [fgen(F64, F32)], cv(F64, F32, Rounding.RZ, sat=True)))
    for mode, flags in (("rna", ""), ("rna", ".satfinite"), ("rn", ""), ("rz", ""), ("rn", ".relu"),
                        ("rz", ".relu"), ("rn", ".satfinite"), ("rn", ".satfinite.relu")):
        kw = {k: (k in flags) for k in ("relu", "satfinite")}
        V.append(Variant(f"cvt.{mode}{flags}.tf32.f32", "r", "f", [fgen(F32, TF32)], cv(F32, TF32, MODES[mode], **kw)))
    for ty, fmt in (("e4m3x2", E4M3), ("e5m2x2", E5M2)):
        for flags in ("", ".relu"):
            relu = bool(flags)
            V.append(Variant(f"cvt.rn.satfinite{flags}.{ty}.f32", "h", "ff", [fgen(F32, fmt)] * 2,
                             (lambda fmt, relu: lambda a, b: C.f32x2_to_x2(a, b, fmt, relu=relu))(fmt, relu)))
            pk = (lambda rng, n, prev: (fgen(F16, fmt)(rng, n, None).astype(np.uint32) << np.uint32(16))
                  | fgen(F16, fmt)(rng, n, None).astype(np.uint32))
            V.append(Variant(f"cvt.rn.satfinite{flags}.{ty}.f16x2", "h", "r", [pk],
                             (lambda fmt, relu: lambda a: C.x2_to_x2(a, F16, fmt, relu=relu))(fmt, relu)))
            V.append(Variant(f"cvt.rn{flags}.f16x2.{ty}", "r", "h",
                             [lambda rng, n, prev: rng.integers(0, 1 << 16, n).astype(np.uint16)],
                             (lambda fmt, relu: lambda a: C.x2_to_x2(a, fmt, F16, relu=relu))(fmt, relu)))
    for src, s, g in ((F16, "f16", fgen(F16)), (BF16, "bf16", fgen(BF16))):
        V.append(Variant(f"cvt.f32.{s}", "f", "h", [g], cv(src, F32, Rounding.RN)))
        V.append(Variant(f"cvt.f64.{s}", "d", "h", [g], cv(src, F64, Rounding.RN)))
    V.append(Variant("cvt.ftz.f32.f16", "f", "h", [fgen(F16)], cv(F16, F32, Rounding.RN, ftz=True)))
    V.append(Variant("cvt.f64.f32", "d", "f", [f32g], cv(F32, F64, Rounding.RN)))
    V.append(Variant("cvt.ftz.f64.f32", "d", "f", [f32g], cv(F32, F64, Rounding.RN, ftz=True)))
    V.append(Variant("cvt.rn.f16.bf16", "h", "h", [fgen(BF16, F16)], cv(BF16, F16, Rounding.RN)))
    V.append(Variant("cvt.rn.bf16.f16", "h", "h", [fgen(F16)], cv(F16, BF16, Rounding.RN)))
    for rnd in ("rni", "rzi", "rmi", "rpi"):
        V.append(Variant(f"cvt.{rnd}.f32.f32", "f", "f", [fgen(F32, ints=True)],
                         (lambda m: lambda a: C.round_to_integral(a, F32, m))(MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.ftz.f32.f32", "f", "f", [fgen(F32, ints=True)],
                         (lambda m: lambda a: C.round_to_integral(a, F32, m, ftz=True))(MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.f64.f64", "d", "d", [fgen(F64, ints=True)],
                         (lambda m: lambda a: C.round_to_integral(a, F64, m))(MODES[rnd])))
        V.append(Variant(f"cvt.{rnd}.f16.f16", "h", "h", [fgen(F16, ints=True)],
                         (lambda m: lambda a: C.round_to_integral(a, F16, m))(MODES[rnd])))
    # float -> int
    ITYPES = {"s8": np.int8, "u8": np.uint8, "s16": np.int16, "u16": np.uint16, "s32": np.int32,
              "u32": np.uint32, "s64": np.int64, "u64": np.uint64}
    for (src, s, reg) in ((F32, "f32", "f"), (F64, "f64", "d"), (F16, "f16", "h"), (BF16, "bf16", "h")):
        for rnd in ("rni", "rzi", "rmi", "rpi"):
            for it, dt in ITYPES.items():
                if src in (F16, BF16) and rnd in ("rmi", "rpi") and it not in ("s32", "u32"):
                    continue
                dreg = "l" if np.dtype(dt).itemsize == 8 else "r"
                V.append(Variant(f"cvt.{rnd}.{it}.{s}", dreg, reg, [fgen(src, ints=True)],
                                 (lambda src, dt, m: lambda a: _int_out(dt)(C.float_to_int(a, src, dt, m)))(src, dt, MODES[rnd])))
        if src is F32:
            V.append(Variant("cvt.rzi.ftz.s32.f32", "r", "f", [fgen(F32, ints=True)],
                             lambda a: _int_out(np.int32)(C.float_to_int(a, F32, np.int32, Rounding.RZ, ftz=True))))
            V.append(Variant("cvt.rpi.ftz.u32.f32", "r", "f", [fgen(F32, ints=True)],
                             lambda a: _int_out(np.uint32)(C.float_to_int(a, F32, np.uint32, Rounding.RP, ftz=True))))
    # int -> float
    for it in ("s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"):
        dt = ITYPES[it]
        sreg, sdt = ("l", np.uint64) if np.dtype(dt).itemsize == 8 else ("r", np.uint32)
        for dst, dn, dreg in ((F32, "f32", "f"), (F64, "f64", "d"), (F16, "f16", "h"), (BF16, "bf16", "h")):
            modes = ("rn", "rz", "rm", "rp") if it in ("s32", "u32", "s64", "u64") or dst is F16 else ("rn",)
            for rnd in modes:
                V.append(Variant(f"cvt.{rnd}.{dn}.{it}", dreg, sreg, [igen(dt, sdt)],
                                 (lambda dt, dst, m: lambda a: C.int_to_float(_as(dt)(a), dst, m))(dt, dst, MODES[rnd])))
    # int -> int
    for d_it in ITYPES:
        for s_it in ITYPES:
            ddt, sdt_ = ITYPES[d_it], ITYPES[s_it]
            sreg, sreg_dt = ("l", np.uint64) if np.dtype(sdt_).itemsize == 8 else ("r", np.uint32)
            dreg = "l" if np.dtype(ddt).itemsize == 8 else "r"
            for sat in ("", ".sat"):
                if sat and s_it == d_it:
                    continue
                V.append(Variant(f"cvt{sat}.{d_it}.{s_it}", dreg, sreg, [igen(sdt_, sreg_dt)],
                                 (lambda sdt_, ddt, sat: lambda a: _int_out(ddt)(C.int_to_int(_as(sdt_)(a), ddt, sat=sat)))(sdt_, ddt, bool(sat))))
    return V


# ------------------------------------------------------------------- kernels
def kernel_source(v: Variant) -> str:
    ins = []
    decl = []
    for i, k in enumerate(v.srcs):
        ctype, con, sdt, load, _ = REG[k]
        decl.append(f"const {CTYPE[sdt]}* __restrict__ a{i}")
        ins.append((f"x{i}", ctype, con, load.format(f"a{i}[i]")))
    dctype, dcon, ddt, _, store = REG[v.dst]
    ops = ", ".join(f"%{j}" for j in range(len(v.srcs) + 1))
    body = "\n    ".join(f"{ct} {nm} = {ld};" for nm, ct, _, ld in ins)
    inputs = ", ".join(f'"{con}"({nm})' for nm, _, con, _ in ins)
    return f"""
extern "C" __global__ void k({", ".join(decl)}, {CTYPE[ddt]}* __restrict__ d, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    {body}
    {dctype} y;
    asm volatile("{v.ptx} {ops};" : "={dcon}"(y) : {inputs});
    d[i] = {store.format("y")};
}}
"""


def generate_inputs(v: Variant, n: int, seed: int):
    rng = np.random.default_rng(seed)
    prev = []
    for g in v.gens:
        prev.append(g(rng, n, prev))
    return prev


def collect(out_path: str, n: int = 2048) -> None:
    import cupy as cp
    results = {}
    failed = []
    for idx, v in enumerate(build()):
        ins = generate_inputs(v, n, idx)
        try:
            mod = cp.RawModule(code=kernel_source(v), options=("-arch=sm_90",))
            k = mod.get_function("k")
        except Exception as e:  # an instruction form the toolchain rejects
            failed.append(f"{v.ptx}: {str(e).splitlines()[-1][:160] if str(e) else type(e).__name__}")
            continue
        dev = [cp.asarray(x) for x in ins]
        ddt = REG[v.dst][2]
        out = cp.zeros(n, dtype=ddt)
        k(((n + 255) // 256,), (256,), (*dev, out, np.int32(n)))
        cp.cuda.runtime.deviceSynchronize()
        results[v.name] = np.stack([x.astype(np.uint64) for x in ins] + [out.get().astype(np.uint64)])
    np.savez_compressed(out_path, **results)
    print(f"collected {len(results)} variants; {len(failed)} rejected")
    for f in failed:
        print("  rejected:", f)


def compare(path: str, show: int = 4, only: str | None = None) -> dict:
    data = np.load(path)
    byname = {v.name: v for v in build()}
    summary = {}
    for name in data.files:
        if only and only not in name:
            continue
        v = byname.get(name)
        if v is None:
            continue
        arr = data[name]
        ins = [arr[i].astype(REG[k][2]) for i, k in enumerate(v.srcs)]
        hw = arr[-1]
        ours = np.asarray(v.ours(*ins)).astype(np.uint64)
        bad = np.nonzero(ours != hw)[0]
        summary[name] = len(bad)
        if len(bad):
            print(f"{v.ptx}: {len(bad)}/{len(hw)} differ")
            for i in bad[:show]:
                print("   ", " ".join(f"{int(x[i]):#x}" for x in ins), "hw", f"{int(hw[i]):#x}",
                      "ours", f"{int(ours[i]):#x}")
    ok = sum(1 for c in summary.values() if c == 0)
    print(f"{ok}/{len(summary)} variants match bit for bit")
    return summary


_EDGE_FORMATS = {"f": (F32,), "d": (F64,), "h": (F16, BF16)}


def _edge_rows(v: Variant, out: np.ndarray) -> np.ndarray:
    """Rows whose hardware result is zero, the smallest normal, the largest
    finite, infinite or NaN: where flush, overflow and NaN rules show."""
    mask = np.zeros(len(out), bool)
    for f in _EDGE_FORMATS.get(v.dst, ()):
        mag = out & np.uint64(f.sign_mask - 1)
        mask |= (mag == 0) | (mag == np.uint64(1 << f.man_bits)) | (mag >= np.uint64(f.max_logical))
    return np.nonzero(mask)[0]


def goldens(path: str, dst: str, per: int = 160) -> None:
    """Keep a sample per variant for the regression test: the first rows
    (special values), edge results, and random others."""
    data = np.load(path)
    byname = {v.name: v for v in build()}
    keep = {}
    rng = np.random.default_rng(0)
    for name in data.files:
        arr = data[name]
        n = arr.shape[1]
        head = np.arange(min(per * 3 // 10, n))
        edges = np.setdiff1d(_edge_rows(byname[name], arr[-1]), head)
        edges = rng.choice(edges, size=min(len(edges), per * 4 // 10), replace=False)
        rest = np.setdiff1d(np.arange(n), np.concatenate([head, edges]))
        rand = rng.choice(rest, size=min(per - len(head) - len(edges), len(rest)), replace=False)
        keep[name] = arr[:, np.sort(np.concatenate([head, edges, rand]).astype(np.int64))]
    np.savez_compressed(dst, **keep)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "collect":
        collect(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 2048)
    elif cmd == "compare":
        compare(sys.argv[2], only=sys.argv[3] if len(sys.argv) > 3 else None)
    elif cmd == "goldens":
        goldens(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 160)
    elif cmd == "source":
        v = [v for v in build() if v.ptx == sys.argv[2]][0]
        print(kernel_source(v))
