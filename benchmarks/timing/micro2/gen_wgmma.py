#!/usr/bin/env python3
"""Write wgmma.ptx: warpgroup-MMA timing kernels (sm_90a) for tools/device/timing_micro2.py.

    python benchmarks/timing/micro2/gen_wgmma.py   (then build.sh)

Kernel wg_<type>_n<N>_k<per>: each warpgroup of the CTA zeroes nothing it reads from (the CTA
zeroes 16 KiB of shared memory once), then runs `iters` x { wgmma.fence; <per> x
wgmma.mma_async m64nNk(16|8) on the same accumulators; commit_group; wait_group 0 } between two
%clock64 reads. Thread 0 of each warpgroup writes (cycles, wgmma count). per=1 gives the
issue-to-completion latency of one wgmma; per=8 the pipelined rate.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TYPES = {"f16": ("f32.f16.f16", 16, ", 1, 1, 0, 0"), "tf32": ("f32.tf32.tf32", 8, ", 1, 1"),
         "bf16": ("f32.bf16.bf16", 16, ", 1, 1, 0, 0")}


def kernel(ty, n, per):
    dt, k, tail = TYPES[ty]
    nd = n // 2
    name = f"wg_{ty}_n{n}_k{per}"
    regs = ", ".join(f"%d{i}" for i in range(nd))
    L = [f".visible .entry {name}(.param .u32 p_iters, .param .u64 p_out)", "{",
         "  .shared .align 1024 .b8 smem[16384];",
         f"  .reg .f32 %d<{nd}>;", "  .reg .f32 %acc;",
         "  .reg .b64 %ad, %bd, %t0, %t1, %o, %x;", "  .reg .b32 %i, %n, %sb, %th, %wg, %a, %z;",
         "  .reg .pred %p, %sc;",
         "  mov.u32 %sb, smem;", "  mov.u32 %th, %tid.x;", "  mov.u32 %z, 0;",
         "  mov.u32 %i, %th;",
         "ZERO:", "  shl.b32 %a, %i, 2;", "  add.u32 %a, %a, %sb;", "  st.shared.u32 [%a], %z;",
         "  mov.u32 %n, %ntid.x;", "  add.u32 %i, %i, %n;", "  setp.lt.u32 %p, %i, 4096;", "  @%p bra ZERO;",
         "  fence.proxy.async.shared::cta;", "  bar.sync 0;",
         "  cvt.u64.u32 %ad, %sb;", "  shr.u64 %ad, %ad, 4;", "  and.b64 %ad, %ad, 16383;",
         "  or.b64 %ad, %ad, 68719476736;",  # SBO 16 (256 B) << 32
         "  or.b64 %ad, %ad, 524288;",  # LBO 8 (128 B) << 16
         "  add.s64 %bd, %ad, 256;",  # B 4 KiB further
         ]
    L += [f"  mov.f32 %d{i}, 0f00000000;" for i in range(nd)]
    L += ["  setp.ne.u32 %sc, %z, 1;", "  ld.param.u32 %n, [p_iters];", "  mov.u32 %i, 0;",
          "  bar.sync 0;", "  mov.u64 %t0, %clock64;", "LOOP:", "  wgmma.fence.sync.aligned;"]
    for _ in range(per):
        L.append(f"  wgmma.mma_async.sync.aligned.m64n{n}k{k}.{dt} {{{regs}}}, %ad, %bd, %sc{tail};")
    L += ["  wgmma.commit_group.sync.aligned;", "  wgmma.wait_group.sync.aligned 0;",
          "  add.u32 %i, %i, 1;", "  setp.lt.u32 %p, %i, %n;", "  @%p bra LOOP;",
          "  mov.u64 %t1, %clock64;",
          "  add.f32 %acc, %d0, %d1;",
          f"  add.f32 %acc, %acc, %d{nd - 1};",
          "  and.b32 %a, %th, 127;", "  setp.ne.u32 %p, %a, 0;", "  @%p bra DONE;",
          "  shr.u32 %wg, %th, 7;", "  mov.u32 %a, %nctaid.x;", "  mov.u32 %z, %ntid.x;", "  shr.u32 %z, %z, 7;",
          "  mov.u32 %a, %ctaid.x;", "  mad.lo.u32 %wg, %a, %z, %wg;",
          "  ld.param.u64 %o, [p_out];", "  cvta.to.global.u64 %o, %o;", "  mul.wide.u32 %x, %wg, 16;",
          "  add.s64 %o, %o, %x;", "  sub.s64 %t1, %t1, %t0;", "  st.global.u64 [%o], %t1;",
          f"  mul.wide.u32 %x, %n, {per};", "  st.global.u64 [%o+8], %x;",
          "  setp.eq.f32 %p, %acc, 0f461C4000;", "  @!%p bra DONE;", "  st.global.f32 [%o], %acc;",
          "DONE:", "  ret;", "}", ""]
    return "\n".join(L)


def main():
    out = [".version 8.0", ".target sm_90a", ".address_size 64", ""]
    for ty in ("f16", "tf32", "bf16"):
        for n in (64, 128, 256):
            for per in (1, 8):
                out.append(kernel(ty, n, per))
    with open(os.path.join(HERE, "wgmma.ptx"), "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
