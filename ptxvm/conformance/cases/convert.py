"""Conversions: cvt between every integer and float type with every rounding mode, ftz and sat;
the packed and narrow-float forms (f16x2/bf16x2 from f32, tf32, e4m3x2/e5m2x2 both ways);
cvt.pack.sat."""
from __future__ import annotations

from ._helpers import case, mark_ci
from .. import inputs as I

F = "convert"
INTS = ["u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
FRND = ["rn", "rz", "rm", "rp"]
IRND = ["rni", "rzi", "rmi", "rpi"]
WIDTH = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
# sources whose every bit pattern is tried for these destinations (exact or widely used)
# (one rounding mode each: the nearest-even one, or none)
EXHAUSTIVE = {("f16", "f32"), ("bf16", "f32"), ("f16", "bf16"), ("bf16", "f16"), ("f16", "s32"),
              ("bf16", "s32"), ("u16", "f16"), ("s16", "bf16")}
CVT_LANES = "2048"


def _mods(*parts):
    return ".".join(p for p in parts if p)


def _inp(d, a, rnd=""):
    if (a, d) in EXHAUSTIVE and rnd in ("", "rn", "rni"):
        return I.key("exh16", a)
    return I.key("cvt", a, arg=CVT_LANES)


def _range(t):
    w = int(t[1:])
    return (-(1 << (w - 1)), (1 << (w - 1)) - 1) if t[0] == "s" else (0, (1 << w) - 1)


def _sat_meaningful(d, a):
    """ptxas accepts .sat on an integer conversion only where it can clamp."""
    (alo, ahi), (dlo, dhi) = _range(a), _range(d)
    return alo < dlo or ahi > dhi


def _narrowing(d, a):
    if d == a:
        return False
    if {d, a} == {"f16", "bf16"}:
        return True
    return WIDTH[d] < WIDTH[a]


def cases():
    C = []
    # integer <-> integer
    for a in INTS:
        for d in INTS:
            C.append(case(F, f"cvt.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a)))
            if _sat_meaningful(d, a):
                C.append(case(F, f"cvt.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
    # integer -> float
    for a in INTS:
        for d in FLOATS:
            for r in FRND:
                # bf16 <-> 8-bit integers: ptxas wants the 8-bit operand in a .b8 register
                C.append(case(F, f"cvt.{r}.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r),
                              byte_regs=(d == "bf16" and a in ("u8", "s8"))))
        C.append(case(F, f"cvt.rn.sat.f32.{a}", "d:f32", f"a:{a}", _inp("f32", a)))
        C.append(case(F, f"cvt.rz.ftz.f32.{a}", "d:f32", f"a:{a}", _inp("f32", a)))
    # float -> integer (saturating by definition; .sat spelled out is sampled)
    for a in FLOATS:
        for d in INTS:
            for r in IRND:
                C.append(case(F, f"cvt.{r}.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r),
                              byte_regs=(a == "bf16" and d in ("u8", "s8"))))
                if a == "f32":
                    C.append(case(F, f"cvt.{r}.ftz.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r)))
            if a != "bf16":  # .sat is not accepted with bf16 (ptxas: illegal modifier)
                C.append(case(F, f"cvt.rzi.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
    # float -> float
    for a in FLOATS:
        for d in FLOATS:
            ftz = a == "f32" or d == "f32"
            if d == a:
                for r in IRND:
                    C.append(case(F, f"cvt.{r}.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r)))
                    if ftz:
                        C.append(case(F, f"cvt.{r}.ftz.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r)))
                if "bf16" not in (a, d):
                    C.append(case(F, f"cvt.rni.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
                if ftz:
                    C.append(case(F, f"cvt.ftz.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
                    C.append(case(F, f"cvt.ftz.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
                continue
            if _narrowing(d, a):
                for r in FRND:
                    C.append(case(F, f"cvt.{r}.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r)))
                    if ftz:
                        C.append(case(F, f"cvt.{r}.ftz.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, r)))
                if "bf16" not in (a, d):
                    C.append(case(F, f"cvt.rn.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
            else:
                C.append(case(F, f"cvt.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a)))
                if ftz:
                    C.append(case(F, f"cvt.ftz.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
                if "bf16" not in (a, d):
                    C.append(case(F, f"cvt.sat.{d}.{a}", f"d:{d}", f"a:{a}", _inp(d, a, "x")))
    # the newer f32 -> half forms
    for d in ("f16", "bf16"):
        for r in ("rn", "rz"):
            for relu in ("", "relu"):
                for sf in ("", "satfinite"):
                    if not relu and not sf:
                        continue
                    C.append(case(F, _mods("cvt", r, relu, sf, d, "f32"), f"d:{d}", "a:f32",
                                  I.key("cvt", "f32", arg=CVT_LANES), version="8.1" if sf else "7.8"))
        for r in ("rn", "rz"):
            for relu in ("", "relu"):
                for sf in ("", "satfinite"):
                    C.append(case(F, _mods("cvt", r, relu, sf, d + "x2", "f32"), f"d:{d}x2", "a:f32 b:f32",
                                  version="8.1" if sf else "7.8"))
    C.append(case(F, "cvt.rna.tf32.f32", "d:b32", "a:f32", I.key("cvt", "f32", arg=CVT_LANES)))
    C.append(case(F, "cvt.rna.satfinite.tf32.f32", "d:b32", "a:f32", I.key("cvt", "f32", arg=CVT_LANES), version="8.1"))
    for r in ("rn", "rz"):  # (.satfinite with rn/rz needs sm_100)
        C.append(case(F, _mods("cvt", r, "tf32", "f32"), "d:b32", "a:f32", I.key("cvt", "f32", arg=CVT_LANES),
                      version="7.8"))
    for f8 in ("e4m3x2", "e5m2x2"):
        for relu in ("", "relu"):
            C.append(case(F, _mods("cvt.rn.satfinite", relu, f8, "f32"), f"d:{f8}", "a:f32 b:f32"))
            C.append(case(F, _mods("cvt.rn.satfinite", relu, f8, "f16x2"), f"d:{f8}", "a:f16x2",
                          I.key("cvt", "f16x2")))
            C.append(case(F, _mods("cvt.rn", relu, "f16x2", f8), "d:f16x2", f"a:{f8}",
                          I.key("exh16", f8)))
    for d in ("u16", "s16"):
        C.append(case(F, f"cvt.pack.sat.{d}.s32", f"d:b32", "a:s32 b:s32"))
    for d in ("u8", "s8", "u4", "s4", "u2", "s2"):
        C.append(case(F, f"cvt.pack.sat.{d}.s32.b32", f"d:b32", "a:s32 b:s32 c:b32"))
    return mark_ci(C, key=lambda c: (c.modifiers[-2:]))
