"""Tensor-core instruction throughput of the engine: matrix multiply-accumulate operations per
second (one operation = one warp-level mma / wmma.mma or one warpgroup wgmma.mma_async), and the
equivalent multiply-add rate (M*N*K per operation).

    python benchmarks/bench_mma.py [--quick]

Each form runs in a loop of register-only instructions (D fed back as C) over many warps, so the
figure is the cost of the instruction itself; the GEMM kernels of the corpus (ldmatrix + mma.sync,
nvcc wmma, Hopper wgmma) give the rate inside real programs.
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

import ptxvm

PTX = pathlib.Path(__file__).resolve().parents[1] / "tests" / "corpus" / "ptx"

# name, instruction (with {d} {a} {b} {c} [{e}]), a/b/c/d register counts, M*N*K, target
FORMS = [
    ("mma m16n8k16 f16->f32", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d}, {a}, {b}, {d}", 4, 2, 4, 16 * 8 * 16),
    ("mma m16n8k8 tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {d}, {a}, {b}, {d}", 4, 2, 4, 16 * 8 * 8),
    ("mma m16n8k32 s8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {d}, {a}, {b}, {d}", 4, 2, 4, 16 * 8 * 32),
    ("mma m16n8k32 e4m3", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {d}, {a}, {b}, {d}", 4, 2, 4, 16 * 8 * 32),
    ("mma m8n8k4 f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {d}, {a}, {b}, {d}", 1, 1, 2, 8 * 8 * 4),
    ("mma.sp m16n8k32 f16", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {d}, {a}, {b}, {d}, %e, 0",
     4, 4, 4, 16 * 8 * 32),
    ("wmma m16n16k16 f16", "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {d}, {a}, {b}, {d}", 8, 8, 8, 16 * 16 * 16),
]


def _regs(p, n, bits=32):
    return "{" + ", ".join(f"%{p}{i}" for i in range(n)) + "}"


def form_kernel(instr, na, nb, nd, f64=False):
    rb = 64 if f64 else 32
    init = [f"  mov.b{rb} %a{i}, {'0d3FF0000000000000' if f64 else '0x3C003C00'};" for i in range(na)]
    init += [f"  mov.b{rb} %b{i}, {'0d3FE0000000000000' if f64 else '0x3C003C00'};" for i in range(nb)]
    init += [f"  mov.b{rb} %d{i}, 0;" for i in range(nd)]
    body = instr.format(d=_regs("d", nd), a=_regs("a", na), b=_regs("b", nb))
    return f""".version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 reps)
{{
  .reg .b{rb} %a<{na}>, %b<{nb}>, %d<{nd}>;
  .reg .b32 %n, %e, %t;
  .reg .b64 %p, %o;
  .reg .pred %q;
{chr(10).join(init)}
  mov.b32 %e, 0x44444444;
  ld.param.u32 %n, [reps];
L:
  {body};
  sub.u32 %n, %n, 1;
  setp.ne.u32 %q, %n, 0;
  @%q bra L;
  ld.param.u64 %p, [out];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %o, %t, {rb // 8};
  add.s64 %p, %p, %o;
  st.global.b{rb} [%p], %d0;
  ret;
}}
"""


WGMMA = """.version 8.7
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 reps)
{
  .shared .align 1024 .b8 smem[16384];
  .reg .f32 %d<64>;
  .reg .b32 %n, %t, %s;
  .reg .b64 %p, %o, %ad, %bd;
  .reg .pred %q;
  mov.u32 %s, smem;
  shr.u32 %s, %s, 4;
  cvt.u64.u32 %ad, %s;
  or.b64 %ad, %ad, 0x4000000100000;
  add.s64 %bd, %ad, 128;
  ld.param.u32 %n, [reps];
L:
  wgmma.fence.sync.aligned;
  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {D}, %ad, %bd, 1, 1, 1, 0, 0;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  sub.u32 %n, %n, 1;
  setp.ne.u32 %q, %n, 0;
  @%q bra L;
  ld.param.u64 %p, [out];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %o, %t, 4;
  add.s64 %p, %p, %o;
  st.global.f32 [%p], %d0;
  ret;
}
""".replace("{D}", "{" + ", ".join(f"%d{i}" for i in range(64)) + "}")


def run(ptx, warps, reps, threads_per_block=128):
    """Seconds for `reps` iterations over `warps` warps (after a warm-up launch that lowers the PTX)."""
    mod = ptxvm.loads(ptx)
    out = np.zeros(warps * 32, np.float64)
    mod.kernel("k").launch((warps * 32 // threads_per_block, 1, 1), (threads_per_block, 1, 1), [out, np.uint32(1)])
    t = time.perf_counter()
    mod.kernel("k").launch((warps * 32 // threads_per_block, 1, 1), (threads_per_block, 1, 1), [out, np.uint32(reps)])
    return time.perf_counter() - t


def gemm(stem, kernel, grid, block, args):
    mod = ptxvm.load(PTX / stem)
    mod[kernel].launch(grid, block, [a.copy() if isinstance(a, np.ndarray) else a for a in args])  # warm-up
    t = time.perf_counter()
    mod[kernel].launch(grid, block, args)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller problems")
    quick = ap.parse_args().quick
    warps, reps = (64, 8) if quick else (256, 32)
    print(f"{'form':28s} {'ops/s':>12s} {'MAC/s':>12s}")
    for name, instr, na, nb, nd, mnk in FORMS:
        f64 = "f64" in name
        wall = run(form_kernel(instr, na, nb, nd, f64), warps, reps)
        ops = warps * reps
        print(f"{name:28s} {ops / wall:12,.0f} {ops * mnk / wall:12.3e}")
    wall = run(WGMMA, warps, reps)
    ops = warps // 4 * reps
    print(f"{'wgmma m64n128k16 f16 (smem)':28s} {ops / wall:12,.0f} {ops * 64 * 128 * 16 / wall:12.3e}")
    rng = np.random.default_rng(0)
    m = n = k = 64 if quick else 128
    A = rng.uniform(-1, 1, m * k).astype(np.float16)
    B = rng.uniform(-1, 1, n * k).astype(np.float16)
    C = rng.standard_normal(m * n).astype(np.float32)
    D = np.zeros(m * n, np.float32)
    cases = [
        ("GEMM ldmatrix+mma.sync", "mma_ldmatrix_gemm.sm_90.ptx", "mma_ldmatrix_gemm_f32", (m * n // 256 // 4, 1, 1),
         (128, 1, 1), [A, B, C, D, np.int32(m), np.int32(n), np.int32(k)], m * n * k // (16 * 8 * 16)),
        ("GEMM nvcc wmma", "wmma_gemm.sm_90.ptx", "wmma_gemm_f16_f32", (n // 16 // 4, m // 16, 1), (128, 1, 1),
         [A, B, C, D, np.int32(m), np.int32(n), np.int32(k), np.float32(1), np.float32(0.5)], m * n * k // 4096),
        ("GEMM wgmma (sm_90a)", "wgmma_gemm.sm_90a.ptx", "wgmma_gemm_f16_f32", (n // 64, m // 64, 1), (128, 1, 1),
         [A, B, D, np.int32(m), np.int32(n), np.int32(k)], m * n * k // (64 * 64 * 16)),
    ]
    for name, stem, kern, grid, block, args, ops in cases:
        wall = gemm(stem, kern, grid, block, args)
        print(f"{name:28s} {ops / wall:12,.0f} {m * n * k / wall:12.3e}   ({m}x{n}x{k}, {wall:.2f} s)")


if __name__ == "__main__":
    main()
