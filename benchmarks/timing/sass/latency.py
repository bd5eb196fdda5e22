"""Dependent-issue latency and one warp's issue interval per SASS class (issue 20), for the H200.

Generates latency.ptx (next to this file; `python benchmarks/timing/sass/latency.py` rewrites it):
per item two kernels, `<name>_k4` and `<name>_k16`, in which ONE warp runs `iters` trips of a loop
whose body is 4 or 16 links of a dependent chain (`{x}` is the chain register, the other operands
are per-lane values loaded from global memory so that ptxas cannot fold them), timed with
%clock64 around the loop. Cycles per link = (k16 - k4) / (12 x iters): the loop's own cost cancels.
`ilp` items run 8 independent chains in the same way: one warp's cycles per instruction when
nothing depends (a pipe's per-warp issue interval, which ptxas writes into the stall counts).

tools/device/timing_sass_latency.py runs them on the GPU; tools/sass_forms.py --latency reads
the cubin's SASS to count the machine instructions per link (ptxas may fuse or split a link), and
benchmarks/timing/sass/latency_model.py profiles the same kernels with ptxvm.timing and prints
model against measured.
"""
from __future__ import annotations

import os

# (name, chain register class, PTX of one link, independent chains)
ITEMS = [
    ("ffma", "f", "fma.rn.f32 {x}, {x}, %f2, %f3;", 1),
    ("iadd", "r", "add.s32 {x}, {x}, %r9;", 1),
    ("lop3", "r", "lop3.b32 {x}, {x}, %r9, %r10, 0x96;", 1),
    ("shf", "r", "shl.b32 {x}, {x}, %r9;", 1),
    ("sel_iadd", "r", "selp.b32 {x}, {x}, %r9, %p1; add.s32 {x}, {x}, %r10;", 1),
    ("isetp_sel_iadd", "r", "setp.lt.u32 %p3, {x}, %r9; selp.b32 %r12, %r10, %r11, %p3; add.s32 {x}, {x}, %r12;", 1),
    ("imad", "r", "mad.lo.s32 {x}, {x}, %r9, %r10;", 1),
    ("imad_hi", "r", "mul.hi.u32 {x}, {x}, %r9;", 1),
    ("vimnmx_iadd", "r", "min.s32 {x}, {x}, %r9; add.s32 {x}, {x}, %r10;", 1),
    ("prmt", "r", "prmt.b32 {x}, {x}, %r9, 0x3276;", 1),
    ("imad_wide_u32", "rd", "cvt.u32.u64 %r12, {x}; mad.wide.u32 {x}, %r12, %r9, {x};", 1),
    ("imad_wide_s32", "rd", "cvt.u32.u64 %r12, {x}; mul.wide.s32 {x}, %r12, %r9;", 1),
    ("iadd64", "rd", "add.s64 {x}, {x}, %rd9;", 1),
    ("sel64_iadd64", "rd", "selp.b64 %rd13, {x}, %rd9, %p1; add.s64 {x}, {x}, %rd13;", 1),
    ("isetp64_sel64_iadd64", "rd", "setp.lt.u64 %p3, {x}, %rd9; selp.b64 %rd13, %rd9, 7, %p3; add.s64 {x}, {x}, %rd13;", 1),
    ("shl64", "rd", "shl.b64 {x}, {x}, %r9;", 1),
    ("popc", "r", "popc.b32 {x}, {x};", 1),
    ("clz_iadd", "r", "clz.b32 {x}, {x}; add.s32 {x}, {x}, %r9;", 1),
    ("i2f_fadd_f2i", "r", "cvt.rn.f32.s32 %f4, {x}; add.f32 %f4, %f4, %f2; cvt.rzi.s32.f32 {x}, %f4;", 1),
    ("f2f16_h2f_fadd", "f", "cvt.rn.f16.f32 %h2, {x}; cvt.f32.f16 {x}, %h2; add.f32 {x}, {x}, %f2;", 1),
    ("f2f64_dadd_f2f32", "f", "cvt.f64.f32 %fd4, {x}; add.f64 %fd4, %fd4, %fd2; cvt.rn.f32.f64 {x}, %fd4;", 1),
    ("hadd2", "r", "add.f16x2 {x}, {x}, %r9;", 1),
    ("hfma2", "r", "fma.rn.f16x2 {x}, {x}, %r9, %r10;", 1),
    ("dadd", "fd", "add.f64 {x}, {x}, %fd2;", 1),
    ("mufu_ex2", "f", "ex2.approx.ftz.f32 {x}, {x};", 1),
    ("sqrt_rn", "f", "sqrt.rn.f32 {x}, {x};", 1),
    ("rcp_rn", "f", "rcp.rn.f32 {x}, {x};", 1),
    ("div_rn", "f", "div.rn.f32 {x}, %f2, {x};", 1),
    ("ex2_full", "f", "ex2.approx.f32 {x}, {x};", 1),
    ("shfl_idx", "r", "shfl.sync.idx.b32 {x}, {x}, %r11, 31, -1;", 1),
    ("shfl_bfly", "r", "shfl.sync.bfly.b32 {x}, {x}, 1, 31, -1; add.s32 {x}, {x}, %r9;", 1),
    ("redux_add", "r", "redux.sync.add.u32 {x}, {x}, -1;", 1),
    ("dp4a", "r", "dp4a.u32.u32 {x}, {x}, %r9, %r10;", 1),
    # logic trees and rotates ptxas folds (LOP3 per 32-bit half, SHF.L.W for a rotate); each link
    # ends in an add, or ptxas would fold the whole trip's links into one LOP3 / one rotate
    ("xor3_add64", "rd", "xor.b64 %rd13, {x}, %rd9; xor.b64 %rd13, %rd13, %rd3; add.s64 {x}, %rd13, %rd9;", 1),
    ("chi_add64", "rd", "not.b64 %rd13, {x}; and.b64 %rd13, %rd13, %rd9; xor.b64 %rd13, %rd13, %rd3; add.s64 {x}, %rd13, %rd9;", 1),
    ("chi_add32", "r", "not.b32 %r12, {x}; and.b32 %r12, %r12, %r9; xor.b32 %r12, %r12, %r10; add.s32 {x}, %r12, %r9;", 1),
    ("rot_add64", "rd", "shl.b64 %rd13, {x}, 7; shr.b64 %rd14, {x}, 57; add.s64 %rd13, %rd13, %rd14; add.s64 {x}, %rd13, %rd9;", 1),
    ("chi_add64_ilp8", "rd", "not.b64 %rd13, {x}; and.b64 %rd13, %rd13, %rd9; xor.b64 %rd13, %rd13, %rd3; add.s64 {x}, %rd13, %rd9;", 8),
    ("iadd_ilp8", "r", "add.s32 {x}, {x}, %r9;", 8),
    ("lop3_ilp8", "r", "lop3.b32 {x}, {x}, %r9, %r10, 0x96;", 8),
    ("imad_ilp8", "r", "mad.lo.s32 {x}, {x}, %r9, %r10;", 8),
    ("ffma_ilp8", "f", "fma.rn.f32 {x}, {x}, %f2, %f3;", 8),
    ("imad_wide_ilp8", "rd", "cvt.u32.u64 %r12, {x}; mad.wide.u32 {x}, %r12, %r9, {x};", 8),
    ("iadd64_ilp8", "rd", "add.s64 {x}, {x}, %rd9;", 8),
    ("hfma2_ilp8", "r", "fma.rn.f16x2 {x}, {x}, %r9, %r10;", 8),
]
KS = (4, 16)
_CHAIN = {"r": ("%rc", "b32", "u32"), "rd": ("%rdc", "b64", "u64"), "f": ("%fc", "f32", "f32"),
          "fd": ("%fdc", "f64", "f64")}


def kernel(name: str, cls: str, link: str, chains: int, k: int) -> str:
    prefix, rtype, st = _CHAIN[cls]
    xs = [f"{prefix}{j}" for j in range(chains)]
    body = []
    for _ in range(k):
        for x in xs:
            # the chain's temporaries (%r12, %f4, %h2, %fd4, %p3) are per chain only in the 1-chain
            # items; the ilp items' links use none that another chain reads before writing
            body.append("\t" + link.replace("{x}", x))
    init = "\n".join(f"\tld.global.{st} {x}, [%rd4+{64 + 8 * j}];" for j, x in enumerate(xs))
    keep = "\n".join(f"\tst.global.{st} [%rd5+{16 + 8 * j}], {x};" for j, x in enumerate(xs))
    return f""".visible .entry {name}_k{k}(.param .u64 out, .param .u64 in, .param .u32 iters)
{{
	.reg .b32 %r<16>;
	.reg .b64 %rd<16>;
	.reg .pred %p<8>;
	.reg .f32 %f<8>;
	.reg .f64 %fd<8>;
	.reg .b16 %h<4>;
	.reg .{rtype} {prefix}<{chains}>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [in];
	ld.param.u32 %r1, [iters];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r2, %tid.x;
	mul.wide.u32 %rd3, %r2, 256;
	add.s64 %rd4, %rd2, %rd3;
	add.s64 %rd5, %rd1, %rd3;
	ld.global.u32 %r9, [%rd4];
	ld.global.u32 %r10, [%rd4+4];
	ld.global.u32 %r11, [%rd4+8];
	ld.global.u32 %r13, [%rd4+12];
	ld.global.u32 %r14, [%rd4+16];
	setp.ne.u32 %p1, %r13, 0;
	setp.ne.u32 %p2, %r14, 0;
	ld.global.u64 %rd9, [%rd4+24];
	ld.global.f32 %f2, [%rd4+32];
	ld.global.f32 %f3, [%rd4+36];
	ld.global.f64 %fd2, [%rd4+40];
{init}
	bar.sync 0;
	mov.u64 %rd10, %clock64;
$Lloop:
	.pragma "nounroll";
{chr(10).join(body)}
	sub.s32 %r1, %r1, 1;
	setp.ne.s32 %p7, %r1, 0;
	@%p7 bra $Lloop;
	mov.u64 %rd11, %clock64;
	sub.s64 %rd12, %rd11, %rd10;
	st.global.u64 [%rd5], %rd12;
{keep}
	ret;
}}
"""


def generate() -> str:
    out = ["//", "// Generated by benchmarks/timing/sass/latency.py: dependent-issue latency per SASS class.", "//",
           ".version 8.5", ".target sm_90a", ".address_size 64", ""]
    for name, cls, link, chains in ITEMS:
        for k in KS:
            out.append(kernel(name, cls, link, chains, k))
    return "\n".join(out)


PTX_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "latency.ptx")

if __name__ == "__main__":
    with open(PTX_PATH, "w") as fh:
        fh.write(generate())
    print(f"wrote {PTX_PATH} ({len(ITEMS)} items)")
