; ctpop/ctlz/cttz/bswap/fshl/bitreverse, fptosi.sat, smin, llvm.maximum (max.NaN), udiv/srem by constants
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.cttz.i32(i32, i1)
declare i32 @llvm.bswap.i32(i32)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.bitreverse.i32(i32)
declare i32 @llvm.fptosi.sat.i32.f32(float)
declare i32 @llvm.smin.i32(i32, i32)
declare float @llvm.maximum.f32(float, float)
define ptx_kernel void @mix(ptr addrspace(1) %x, ptr addrspace(1) %f, ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %te
  %v = load i32, ptr addrspace(1) %p
  %pf = getelementptr float, ptr addrspace(1) %f, i64 %te
  %fv = load float, ptr addrspace(1) %pf
  %a = call i32 @llvm.ctpop.i32(i32 %v)
  %b = call i32 @llvm.ctlz.i32(i32 %v, i1 false)
  %c = call i32 @llvm.cttz.i32(i32 %v, i1 false)
  %d = call i32 @llvm.bswap.i32(i32 %v)
  %e = call i32 @llvm.fshl.i32(i32 %v, i32 %a, i32 %b)
  %g = call i32 @llvm.bitreverse.i32(i32 %v)
  %h = call i32 @llvm.fptosi.sat.i32.f32(float %fv)
  %m = call i32 @llvm.smin.i32(i32 %v, i32 %h)
  %fm = call float @llvm.maximum.f32(float %fv, float 0.5)
  %fmi = bitcast float %fm to i32
  %dv = udiv i32 %v, 7
  %rm = srem i32 %v, -13
  %base = mul i64 %te, 11
  %o0 = getelementptr i32, ptr addrspace(1) %out, i64 %base
  store i32 %a, ptr addrspace(1) %o0
  %o1 = getelementptr i32, ptr addrspace(1) %o0, i64 1
  store i32 %b, ptr addrspace(1) %o1
  %o2 = getelementptr i32, ptr addrspace(1) %o0, i64 2
  store i32 %c, ptr addrspace(1) %o2
  %o3 = getelementptr i32, ptr addrspace(1) %o0, i64 3
  store i32 %d, ptr addrspace(1) %o3
  %o4 = getelementptr i32, ptr addrspace(1) %o0, i64 4
  store i32 %e, ptr addrspace(1) %o4
  %o5 = getelementptr i32, ptr addrspace(1) %o0, i64 5
  store i32 %g, ptr addrspace(1) %o5
  %o6 = getelementptr i32, ptr addrspace(1) %o0, i64 6
  store i32 %h, ptr addrspace(1) %o6
  %o7 = getelementptr i32, ptr addrspace(1) %o0, i64 7
  store i32 %m, ptr addrspace(1) %o7
  %o8 = getelementptr i32, ptr addrspace(1) %o0, i64 8
  store i32 %fmi, ptr addrspace(1) %o8
  %o9 = getelementptr i32, ptr addrspace(1) %o0, i64 9
  store i32 %dv, ptr addrspace(1) %o9
  %o10 = getelementptr i32, ptr addrspace(1) %o0, i64 10
  store i32 %rm, ptr addrspace(1) %o10
  ret void
}
