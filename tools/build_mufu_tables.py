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


def main(d: str) -> None:
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
    main(sys.argv[1])     # add --half-only to rebuild only mufu_half.npz and mufu_lg2.npz
