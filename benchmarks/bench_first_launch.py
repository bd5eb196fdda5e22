"""The first launch of one kernel of a module with many (NVIDIA Warp's modules hold every kernel's
forward and backward code): load, first launch, second launch, wall seconds.

    python benchmarks/bench_first_launch.py [--kernels 22] [--length 3000] [--tables 100]

The module is generated: `--kernels` entries, each a chain of `--length` integer and floating-point
instructions over a few registers, launched on one thread, and `--tables` initialized `.global .b8` tables of 20000 bytes (Warp's FFT
modules carry MBs of them). Only the launched kernel is lowered (engine/lower.py lower_reachable),
so the first launch costs its own lowering, not the module's; the tables are written once, in one
vectorized store each (engine/core/initializers.py).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import ptxvm


def module_text(kernels: int, length: int, tables: int = 0) -> str:
    ops = ["add.s32 %r1, %r1, %r2;", "mul.lo.s32 %r2, %r2, 3;", "xor.b32 %r3, %r3, %r1;",
           "fma.rn.f32 %f1, %f1, %f2, %f3;", "add.f32 %f2, %f2, %f1;", "shl.b32 %r4, %r3, 2;"]
    parts = [".version 8.0\n.target sm_90\n.address_size 64\n"]
    for t in range(tables):
        parts.append(f".global .align 1 .b8 table_{t}[20000] = {{{', '.join(str((t * 13 + i * 7) % 256) for i in range(20000))}}};\n")
    for k in range(kernels):
        body = "\n".join("  " + ops[(i + k) % len(ops)] for i in range(length))
        parts.append(f""".visible .entry k{k}(.param .u64 out)
{{
  .reg .b32 %r<5>; .reg .f32 %f<4>; .reg .b64 %rd<2>;
  mov.u32 %r1, {k}; mov.u32 %r2, 1; mov.u32 %r3, 7; mov.f32 %f1, 1.0; mov.f32 %f2, 0.5; mov.f32 %f3, 0.25;
{body}
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r3;
  ret;
}}
""")
    return "".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", type=int, default=22)
    ap.add_argument("--length", type=int, default=3000)
    ap.add_argument("--tables", type=int, default=100)
    a = ap.parse_args()
    text = module_text(a.kernels, a.length, a.tables)
    t = time.perf_counter()
    m = ptxvm.loads(text, "many_kernels.ptx")
    load = time.perf_counter() - t
    out = np.zeros(1, np.uint32)
    t = time.perf_counter()
    m["k0"][1, 1](out)
    first = time.perf_counter() - t
    t = time.perf_counter()
    m["k0"][1, 1](out)
    second = time.perf_counter() - t
    t = time.perf_counter()
    m.program  # noqa: B018  (every function lowered)
    rest = time.perf_counter() - t
    print(f"{a.kernels} kernels x {a.length} instructions, {a.tables} tables of 20000 bytes: load {load:.2f} s, first launch {first:.2f} s, "
          f"second {second:.3f} s; lowering the other {a.kernels - 1} kernels {rest:.2f} s")


if __name__ == "__main__":
    main()
