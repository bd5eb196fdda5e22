"""Throughput of ptxvm.numerics on 1M-element registers (results per second).

    python benchmarks/bench_numerics.py [N]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ptxvm.numerics import convert, half, ieee32, ieee64, mufu  # noqa: E402
from ptxvm.semantics.families import approx  # noqa: E402
from ptxvm.numerics.formats import F16, F32  # noqa: E402
from ptxvm.numerics.rounding import Rounding  # noqa: E402


def _random_f32(rng, n):
    # Finite values over a wide but realistic exponent range.
    return (rng.standard_normal(n) * np.exp2(rng.integers(-60, 60, n))).astype(np.float32).view(np.uint32)


def _random_f64(rng, n):
    return (rng.standard_normal(n) * np.exp2(rng.integers(-300, 300, n))).view(np.uint64)


def _rate(fn, n, repeat=5):
    fn()  # warm-up
    best = min(_time(fn) for _ in range(repeat))
    return n / best, best


def _time(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(n: int = 1_000_000) -> None:
    rng = np.random.default_rng(0)
    a32, b32, c32 = (_random_f32(rng, n) for _ in range(3))
    a64, b64, c64 = (_random_f64(rng, n) for _ in range(3))
    h = [rng.integers(0, 0x7C00, n).astype(np.uint16) for _ in range(3)]
    cases = [
        ("f32 add.rz", lambda: ieee32.add(a32, b32, Rounding.RZ)),
        ("f32 add.rp", lambda: ieee32.add(a32, b32, Rounding.RP)),
        ("f32 add.rn", lambda: ieee32.add(a32, b32, Rounding.RN)),
        ("f32 fma.rn", lambda: ieee32.fma(a32, b32, c32, Rounding.RN)),
        ("f32 div.rn", lambda: ieee32.div(a32, b32, Rounding.RN)),
        ("f64 fma.rn", lambda: ieee64.fma(a64, b64, c64, Rounding.RN)),
        ("f64 fma.rz", lambda: ieee64.fma(a64, b64, c64, Rounding.RZ)),
        ("f64 add.rz", lambda: ieee64.add(a64, b64, Rounding.RZ)),
        ("f64 div.rp", lambda: ieee64.div(a64, b64, Rounding.RP)),
        ("f16 fma.rn", lambda: half.fma(h[0], h[1], h[2], F16)),
        ("cvt.rn.f16.f32", lambda: convert.f32_to_f16(a32)),
        ("cvt.rzi.s32.f32", lambda: convert.float_to_int(a32, F32, np.int32, Rounding.RZ)),
    ]
    # the approximate functions (MUFU models, numerics.mufu; tables built before timing)
    f32a, f32b = a32.view(np.float32), b32.view(np.float32)
    for op in mufu.F32_UNARY:
        mufu.F32_UNARY[op](a32[:16])
        cases.append((op, (lambda fn: lambda: fn(a32))(mufu.F32_UNARY[op])))
    cases += [
        ("div.approx.f32", lambda: approx.div_approx_f32(False)(f32a, f32b)),
        ("div.full.f32", lambda: approx.div_full_f32(False)(f32a, f32b)),
        ("rcp.approx.ftz.f64", lambda: approx.f64_hi_unary("rcp")(a64.view(np.float64))),
        ("rsqrt.approx.f64", lambda: approx.rsqrt_approx_f64()(np.abs(a64.view(np.float64)))),
        ("ex2.approx.f16", lambda: mufu.ex2_half(h[0], "f16")),
        ("tanh.approx.bf16", lambda: mufu.tanh_half(h[0], "bf16")),
    ]
    print(f"{n:,} elements, best of 5")
    for name, fn in cases:
        rate, sec = _rate(fn, n)
        print(f"  {name:<22} {rate / 1e6:8.1f} M results/s  ({sec * 1e3:7.1f} ms)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
