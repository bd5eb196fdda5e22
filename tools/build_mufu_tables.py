#!/usr/bin/env python3
"""Build ptxvm/numerics/data/mufu_tables.npz from the measurements of tools/device/approx_probe.py.

    python tools/build_mufu_tables.py PROBE_OUTPUT_DIR

Each table is the H200's MUFU result over one binade (two for the square roots) of inputs,
stored as its difference from ptxvm.numerics.mufu.BASES (int8, lzma). The probe's windows hold
the hardware result as its distance from the float64 reference rounded to f32, which for these
inputs is BASES' own definition (IEEE-exact operations; exp2 is nowhere near an f32 tie).
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

from ptxvm.numerics import mufu  # noqa: E402


def _ordered(b):
    mag = (b & 0x7FFFFFFF).astype(np.int64)
    return np.where((b >> 31) != 0, -mag, mag)


def _unordered(o):
    return np.where(o < 0, (-o) | (1 << 31), o).astype(np.uint32)


def window(d, op, start, ref):
    z = np.load(os.path.join(d, f"win_{op}_{start:08x}.npz"))
    dd = z["d8"].astype(np.int64)
    hw = (_ordered(ref) + dd).astype(np.uint32)       # all results positive here
    hw[z["esc_idx"]] = z["esc_hw"]
    return hw


def half_tables(d: str) -> None:
    """MUFU.TANH.F16 / .BF16: the measured result for all 65536 inputs, kept as the (sparse)
    difference (in magnitude, the sign is tanh's) from tanh rounded to nearest
    (mufu.half_tanh_base)."""
    z = np.load(os.path.join(d, "half.npz"))
    out = {}
    for fmt in ("f16", "bf16"):
        hw = z[f"tanh_approx_{fmt}"].astype(np.uint16)
        base = mufu.half_tanh_base(fmt)
        assert ((hw ^ base) & 0x8000).max() == 0, "tanh keeps the sign"
        delta = (hw & 0x7FFF).astype(np.int64) - (base & 0x7FFF).astype(np.int64)
        idx = np.nonzero(delta)[0]
        assert np.abs(delta).max() < 128
        out[f"tanh_{fmt}_idx"] = idx.astype(np.uint16)
        out[f"tanh_{fmt}_delta"] = delta[idx].astype(np.int8)
        print("tanh", fmt, idx.size, "entries differ from RN")
    path = os.path.join(os.path.dirname(mufu.__file__), "data", "mufu_half.npz")
    np.savez_compressed(path, **out)
    print(path, os.path.getsize(path), "bytes")


def lg2_table(d: str) -> None:
    """MUFU.LG2 over [1, 2) (the table L of mufu.lg2) and over [0.5, 1) ("lg2w"), relative to
    log2 truncated to f32; entries far from it (near 1 the error is absolute, so thousands of
    ulps) are kept whole as escapes."""
    out = {}
    for name, start, x in (("lg2", 0x3F800000, mufu._x_1_2(23)), ("lg2w", 0x3F000000, mufu._x_1_2(23) / 2)):
        base = mufu.BASES[name]()
        z = np.load(os.path.join(d, f"win_lg2.approx.ftz.f32_{start:08x}.npz"))
        ref = np.log2(x).astype(np.float32).view(np.uint32)        # the probe's RN reference
        hw = _unordered(_ordered(ref) + z["d8"].astype(np.int64))
        hw[z["esc_idx"]] = z["esc_hw"]
        delta = _ordered(hw) - _ordered(base)
        # an entry whose base could round the other way under another libm's log2 (within 8
        # float64 ulps of an f32 boundary) is kept whole too, as is any sign change
        fragile = _fragile(name)
        far = (np.abs(delta) > 127) | fragile | ((hw ^ base) >> 31 != 0)
        esc = np.nonzero(far)[0]
        d8 = np.where(far, 0, hw.astype(np.int64) - base.astype(np.int64)).astype(np.int8)
        print(name, int(fragile.sum()), "fragile bases")
        out.update({name: mufu.encode_deltas(d8), f"{name}_esc_idx": esc.astype(np.uint32),
                    f"{name}_esc_bits": hw[esc]})
        print(name, esc.size, "escapes")
    path = os.path.join(os.path.dirname(mufu.__file__), "data", "mufu_lg2.npz")
    np.savez_compressed(path, **out)
    print(path, os.path.getsize(path), "bytes")


def _fragile(name: str) -> np.ndarray:
    x = mufu._x_1_2(23)
    v = np.log2(x) if name == "lg2" else np.log2(x) - 1.0 + 2.0 ** -24
    base = mufu._rz32_np(v)
    out = np.zeros(v.size, bool)
    lo, hi = v.copy(), v.copy()
    for _ in range(8):
        lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
    return (mufu._rz32_np(lo) != base) | (mufu._rz32_np(hi) != base) | out


def _fragile_rn(v: np.ndarray, base: np.ndarray) -> np.ndarray:
    """Entries whose base (float64 v rounded to f32) another libm could round the other way:
    within 8 float64 ulps of an f32 rounding boundary."""
    lo, hi = v.copy(), v.copy()
    for _ in range(8):
        lo, hi = np.nextafter(lo, -np.inf), np.nextafter(hi, np.inf)
    return (lo.astype(np.float32).view(np.uint32) != base) | (hi.astype(np.float32).view(np.uint32) != base)


def sincos_table(d: str) -> None:
    """MUFU.SIN / MUFU.COS: one 2**24-entry table over the half turn at 25 fraction bits (mufu.sin),
    from tools/device/probe_sincos_table.py's two tables (sin keys and cos keys a quarter turn on;
    they agree wherever both are measured and together cover every key), relative to
    sin(2 pi k / 2**25) rounded to f32; entries far from it or with a fragile base are escapes."""
    parts = []
    base = mufu.BASES["sin"]()
    for op in ("sin", "cos"):
        z = np.load(os.path.join(d, f"table_{op}_approx_ftz_f32_mag.npz"))
        hw = _unordered(_ordered(base) + z["d8"].astype(np.int64))
        hw[z["esc_idx"]] = z["esc_hw"]
        parts.append(hw)
    a, b = parts
    assert ((a == b) | (a == 0xFFFFFFFF) | (b == 0xFFFFFFFF)).all(), "sin and cos keys disagree"
    hw = np.where(a != 0xFFFFFFFF, a, b)
    assert (hw != 0xFFFFFFFF).all() and (hw >> 31 == 0).all()
    fragile = _fragile_rn(np.sin(2 * np.pi * np.arange(1 << 24, dtype=np.float64) / (1 << 25)), base)
    delta = hw.astype(np.int64) - base.astype(np.int64)
    far = (np.abs(delta) > 127) | fragile
    esc = np.nonzero(far)[0]
    print("sin", int(fragile.sum()), "fragile bases,", esc.size, "escapes")
    path = os.path.join(os.path.dirname(mufu.__file__), "data", "mufu_sincos.npz")
    np.savez_compressed(path, sin=mufu.encode_deltas(np.where(far, 0, delta)), sin_esc_idx=esc.astype(np.uint32),
                        sin_esc_bits=hw[esc])
    print(path, os.path.getsize(path), "bytes")


def tanh_table(d: str) -> None:
    """MUFU.TANH over 2**-8 <= |x| < 16: per binade, the result at the start of each run of
    2**s inputs that share it (tools/device/probe_tanh_table.py), one table after the other,
    relative to tanh rounded to f32 (mufu.tanh_base); far or fragile entries are escapes."""
    z = np.load(os.path.join(d, "tanh_table.npz"))
    runs = [mufu.TANH_RUNS[e] for e in mufu.TANH_BINADES]
    hw = []
    for e, s in zip(mufu.TANH_BINADES, runs):
        x = ((np.arange(0, 1 << 23, 1 << s, dtype=np.int64) + (e << 23)).astype(np.uint32)).view(np.float32)
        ref = np.tanh(x.astype(np.float64)).astype(np.float32).view(np.uint32)   # the probe's reference
        t = (ref.astype(np.int64) + z[f"d8_{e}"].astype(np.int64)).astype(np.uint32)
        t[z[f"esc_idx_{e}"]] = z[f"esc_hw_{e}"]
        hw.append(t)
    hw = np.concatenate(hw)
    base = mufu.tanh_base()
    fragile = _fragile_rn(np.tanh(mufu.tanh_inputs().astype(np.float64)), base)
    delta = hw.astype(np.int64) - base.astype(np.int64)
    far = (np.abs(delta) > 127) | fragile
    esc = np.nonzero(far)[0]
    print("tanh", hw.size, "entries,", int(fragile.sum()), "fragile bases,", esc.size, "escapes")
    path = os.path.join(os.path.dirname(mufu.__file__), "data", "mufu_tanh.npz")
    np.savez_compressed(path, tanh=mufu.encode_deltas(np.where(far, 0, delta)), tanh_esc_idx=esc.astype(np.uint32),
                        tanh_esc_bits=hw[esc])
    print(path, os.path.getsize(path), "bytes")


def main(d: str) -> None:
    if "--sincos-only" in sys.argv:
        sincos_table(d)
        return
    if "--tanh-only" in sys.argv:
        tanh_table(d)
        return
    half_tables(d)
    lg2_table(d)
    if "--half-only" in sys.argv:
        return
    out = {}
    f32 = lambda v: v.astype(np.float32).view(np.uint32)  # noqa: E731
    x12 = mufu._x_1_2(23)
    x14 = mufu._x_1_4(23)
    hw = {
        "rcp": window(d, "rcp.approx.ftz.f32", 0x3F800000, f32(1.0 / x12)),
        "rsq": window(d, "rsqrt.approx.ftz.f32", 0x3F800000, f32(1.0 / np.sqrt(x14))),
        "sqrt": window(d, "sqrt.approx.ftz.f32", 0x3F800000, f32(np.sqrt(x14))),
        # ex2 over [1, 2) is 2 * 2**frac: the table is that result halved
        "ex2": window(d, "ex2.approx.ftz.f32", 0x3F800000, f32(np.exp2(x12))) - np.uint32(1 << 23),
    }
    for name in ("rcp64h", "rsq64h"):
        op = "rcp.approx.ftz.f64" if name == "rcp64h" else "rsqrt.approx.ftz.f64"
        z = np.load(os.path.join(d, f"f64hi_{op}.npz"))
        assert int(z["win_start"]) == 0x3FF00000
        hw[name] = z["win_hi"][: (1 << 20) if name == "rcp64h" else (1 << 21)]
    for name, t in hw.items():
        delta = t.astype(np.int64) - mufu.BASES[name]().astype(np.int64)
        assert np.abs(delta).max() < 128, (name, np.abs(delta).max())
        vals, counts = np.unique(delta, return_counts=True)
        print(name, t.size, dict(zip(vals.tolist(), counts.tolist())))
        out[name] = mufu.encode_deltas(delta)
    path = os.path.join(os.path.dirname(mufu.__file__), "data", "mufu_tables.npz")
    np.savez(path, **out)
    print(path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main(sys.argv[1])     # --half-only: only mufu_half.npz and mufu_lg2.npz; --sincos-only / --tanh-only: that table
