"""Crafted PTX kernels for the timing model's mechanism tests (tests/timing/test_profile_*.py)."""
from __future__ import annotations

import ptxvm

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def load(body: str):
    return ptxvm.loads(HEADER + body)


def bank_kernel(loads: int = 64) -> str:
    """Every lane reads `loads` consecutive floats of shared memory starting at lane * stride
    words: stride 32 puts all 32 lanes in one bank (32-way conflict), 33 (the [32][33] padding)
    and 1 spread them over all banks."""
    body = [".visible .entry bank(.param .u64 out, .param .u32 stride)", "{",
            "  .reg .b32 %r<8>;", f"  .reg .f32 %f<{loads + 2}>;", "  .reg .b64 %rd<5>;",
            "  .shared .align 4 .b8 tile[8192];",
            "  mov.u32 %r1, %tid.x;", "  and.b32 %r2, %r1, 31;", "  ld.param.u32 %r3, [stride];",
            "  mul.lo.u32 %r4, %r2, %r3;", "  shl.b32 %r5, %r4, 2;", "  mov.u32 %r6, tile;", "  add.u32 %r7, %r6, %r5;"]
    for i in range(loads):
        body.append(f"  ld.shared.f32 %f{i + 1}, [%r7+{4 * i}];")
    body.append("  add.f32 %f0, %f1, %f2;")
    body += ["  ld.param.u64 %rd1, [out];", "  cvta.to.global.u64 %rd2, %rd1;", "  mul.wide.u32 %rd3, %r1, 4;",
             "  add.s64 %rd4, %rd2, %rd3;", "  st.global.f32 [%rd4], %f0;", "  ret;", "}"]
    return "\n".join(body) + "\n"


STRIDED = """
.visible .entry strided(.param .u64 in, .param .u64 out, .param .u32 stride)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  ld.param.u32 %r5, [stride];
  mul.lo.s32 %r6, %r4, %r5;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.param.u64 %rd5, [out];
  cvta.to.global.u64 %rd6, %rd5;
  mul.wide.s32 %rd7, %r4, 4;
  add.s64 %rd8, %rd6, %rd7;
  st.global.f32 [%rd8], %f1;
  ret;
}
"""


def hot_stream_kernel(stream_op: str) -> str:
    """Each iteration reads one float of a small hot table (.ca) and a float4 of a long stream
    (`stream_op`: "ca" or "cs"); the stream moves on by one CTA-width (4 KiB) per iteration."""
    return f"""
.visible .entry hot_stream(.param .u64 hot, .param .u64 stream, .param .u64 out, .param .u32 iters,
                           .param .u32 hotmask)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<14>;
  mov.u32 %r1, %tid.x;
  ld.param.u32 %r2, [iters];
  ld.param.u32 %r3, [hotmask];
  ld.param.u64 %rd1, [hot];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [stream];
  cvta.to.global.u64 %rd4, %rd3;
  mul.wide.u32 %rd5, %r1, 4;
  mul.wide.u32 %rd12, %r1, 16;
  add.s64 %rd6, %rd4, %rd12;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r4, 0;
LOOP:
  shl.b32 %r5, %r4, 8;
  add.u32 %r6, %r5, %r1;
  and.b32 %r7, %r6, %r3;
  mul.wide.u32 %rd7, %r7, 4;
  add.s64 %rd8, %rd2, %rd7;
  ld.global.ca.f32 %f2, [%rd8];
  ld.global.{stream_op}.v4.f32 {{%f3, %f4, %f5, %f6}}, [%rd6];
  add.f32 %f1, %f1, %f2;
  add.f32 %f1, %f1, %f3;
  add.s64 %rd6, %rd6, 4096;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p1, %r4, %r2;
  @%p1 bra LOOP;
  ld.param.u64 %rd9, [out];
  cvta.to.global.u64 %rd10, %rd9;
  add.s64 %rd11, %rd10, %rd5;
  st.global.f32 [%rd11], %f1;
  ret;
}}
"""


def fma_kernel(n: int, chains: int) -> str:
    """`n` FMAs per thread spread over `chains` independent accumulators (1: one dependent chain)."""
    body = [".visible .entry fmas(.param .u64 out)", "{", f"  .reg .f32 %f<{chains + 4}>;", "  .reg .b32 %r<2>;",
            "  .reg .b64 %rd<5>;", "  mov.f32 %f0, 0f3F800000;", "  mov.f32 %f1, 0f3F000000;"]
    for c in range(chains):
        body.append(f"  mov.f32 %f{c + 2}, 0f3F800000;")
    for i in range(n):
        c = i % chains
        body.append(f"  fma.rn.f32 %f{c + 2}, %f{c + 2}, %f1, %f0;")
    body += ["  mov.u32 %r1, %tid.x;", "  ld.param.u64 %rd1, [out];", "  cvta.to.global.u64 %rd2, %rd1;",
             "  mul.wide.u32 %rd3, %r1, 4;", "  add.s64 %rd4, %rd2, %rd3;", "  st.global.f32 [%rd4], %f2;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def load_compute_kernel(iters: int = 4, fmas: int = 40, accs: int = 8) -> str:
    """Per iteration: a global load that misses (a new 4 KiB region per iteration), then `fmas`
    FMAs over `accs` accumulators that all use the loaded value: the pattern where greedy-then-
    oldest scheduling staggers warps and hides the load latency better than round robin."""
    lines = [".visible .entry load_compute(.param .u64 in, .param .u64 out)", "{",
             "  .reg .b32 %r<4>;", f"  .reg .f32 %f<{accs + 4}>;", "  .reg .b64 %rd<8>;",
             "  mov.u32 %r1, %tid.x;", "  ld.param.u64 %rd1, [in];", "  cvta.to.global.u64 %rd2, %rd1;",
             "  mul.wide.u32 %rd3, %r1, 4;", "  add.s64 %rd4, %rd2, %rd3;", "  mov.f32 %f1, 0f3F000000;"]
    for a in range(accs):
        lines.append(f"  mov.f32 %f{a + 3}, 0f00000000;")
    for it in range(iters):
        lines.append(f"  ld.global.f32 %f2, [%rd4+{it * 4096 * 4}];")
        for i in range(fmas):
            a = i % accs
            lines.append(f"  fma.rn.f32 %f{a + 3}, %f{a + 3}, %f2, %f1;")
    lines += ["  ld.param.u64 %rd5, [out];", "  cvta.to.global.u64 %rd6, %rd5;", "  add.s64 %rd7, %rd6, %rd3;",
              f"  st.global.f32 [%rd7], %f3;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


HIST = """
.visible .entry hist(.param .u64 data, .param .u64 bins, .param .u32 private)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  ld.param.u64 %rd1, [data];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r5, [%rd4];
  and.b32 %r6, %r5, 255;
  ld.param.u32 %r7, [private];
  mul.lo.u32 %r8, %r2, %r7;
  shl.b32 %r9, %r8, 8;
  add.u32 %r10, %r9, %r6;
  ld.param.u64 %rd5, [bins];
  cvta.to.global.u64 %rd6, %rd5;
  mul.wide.u32 %rd7, %r10, 4;
  add.s64 %rd8, %rd6, %rd7;
  red.global.add.u32 [%rd8], 1;
  ret;
}
"""
