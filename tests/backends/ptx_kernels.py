"""Small PTX kernels for the backend tests (hand-written, ISA 8.0, sm_90)."""

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"

# A .global counter, a .const scale and a by-value struct {u32 tag; pad; f32 x} (16 bytes, align 8):
# out = {tag, cscale * x, ++gcount}.
SYMBOLS = HEADER + r"""
.global .align 4 .u32 gcount = 5;
.const .align 4 .f32 cscale = 3.0;
.visible .entry k(.param .u64 out, .param .align 8 .b8 st[16])
{
  .reg .u32 %r<4>; .reg .f32 %f<3>; .reg .u64 %rd<2>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  ld.global.u32 %r1, [gcount]; add.u32 %r1, %r1, 1; st.global.u32 [gcount], %r1;
  ld.const.f32 %f1, [cscale]; ld.param.f32 %f2, [st+8]; mul.rn.f32 %f1, %f1, %f2;
  ld.param.u32 %r2, [st]; mov.b32 %r3, %f1;
  st.global.u32 [%rd1], %r2; st.global.u32 [%rd1+4], %r3; st.global.u32 [%rd1+8], %r1;
  ret;
}
"""

# printf("hi from %d\n", tid.x)
PRINTF = HEADER + r"""
.extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);
.global .align 1 .b8 fmt[12] = {104,105,32,102,114,111,109,32,37,100,10,0};
.visible .entry p()
{
  .local .align 8 .b8 buf[8]; .reg .u32 %r<3>; .reg .u64 %rd<5>;
  mov.u32 %r1, %tid.x; mov.u64 %rd1, buf; cvta.local.u64 %rd2, %rd1; st.local.u32 [%rd1], %r1;
  mov.u64 %rd3, fmt; cvta.global.u64 %rd4, %rd3;
  { .param .b64 a0; st.param.b64 [a0], %rd4; .param .b64 a1; st.param.b64 [a1], %rd2; .param .b32 rv;
    call.uni (rv), vprintf, (a0, a1); }
  ret;
}
"""

# out[ctaid.x] = {cluster_ctarank, cluster_nctarank}
CLUSTER = HEADER + r"""
.visible .entry c(.param .u64 out)
{
  .reg .u32 %r<4>; .reg .u64 %rd<4>;
  ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %ctaid.x; mov.u32 %r3, %cluster_nctarank;
  mul.wide.u32 %rd2, %r2, 8; add.u64 %rd3, %rd1, %rd2; st.global.v2.u32 [%rd3], {%r1, %r3};
  ret;
}
"""

# t: trap; bad: store to address 16
FAULTS = HEADER + r"""
.visible .entry t() { trap; }
.visible .entry bad(.param .u64 p) { .reg .u64 %rd<2>; mov.u64 %rd1, 16; st.global.u32 [%rd1], 1; ret; }
"""

# a[i] = a[i] * 2 + b[i] for i < n: `a` and `b` may be the same array
TWICE = HEADER + r"""
.visible .entry twice(.param .u64 a, .param .u64 b, .param .u32 n)
{
  .reg .pred %p; .reg .u32 %r<4>; .reg .u64 %rd<6>;
  mov.u32 %r1, %tid.x; ld.param.u32 %r2, [n]; setp.ge.u32 %p, %r1, %r2; @%p ret;
  ld.param.u64 %rd1, [a]; ld.param.u64 %rd2, [b]; mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd4, %rd1, %rd3; add.u64 %rd5, %rd2, %rd3;
  ld.global.u32 %r3, [%rd5]; ld.global.u32 %r2, [%rd4]; bar.sync 0;
  shl.b32 %r2, %r2, 1; add.u32 %r2, %r2, %r3; st.global.u32 [%rd4], %r2;
  ret;
}
"""

# 64 KiB of dynamic shared memory: out[i] = in[i] after a round trip through shared memory.
BIG_SHARED = HEADER + r"""
.extern .shared .align 16 .b8 smem[];
.visible .entry big(.param .u64 in, .param .u64 out)
{
  .reg .u32 %r<4>; .reg .u64 %rd<6>; .reg .f32 %f1;
  mov.u32 %r1, %tid.x; ld.param.u64 %rd1, [in]; ld.param.u64 %rd2, [out];
  mul.wide.u32 %rd3, %r1, 4; add.u64 %rd4, %rd1, %rd3; ld.global.f32 %f1, [%rd4];
  mov.u32 %r2, smem; mul.lo.u32 %r3, %r1, 64; add.u32 %r2, %r2, %r3;
  st.shared.f32 [%r2+60000], %f1; bar.sync 0; ld.shared.f32 %f1, [%r2+60000];
  add.u64 %rd5, %rd2, %rd3; st.global.f32 [%rd5], %f1;
  ret;
}
"""

# each thread squares its texel of a 2D u32 surface in place (x in bytes for suld.b/sust.b)
SURFACE_SQUARE = HEADER + r"""
.visible .entry square(.param .u64 s)
{
  .reg .b32 %x, %y, %v;
  .reg .b64 %h;
  ld.param.u64 %h, [s];
  mov.u32 %x, %tid.x;
  mov.u32 %y, %tid.y;
  shl.b32 %x, %x, 2;
  suld.b.2d.b32.trap {%v}, [%h, {%x, %y}];
  mul.lo.u32 %v, %v, %v;
  sust.b.2d.b32.trap [%h, {%x, %y}], {%v};
  ret;
}
"""
