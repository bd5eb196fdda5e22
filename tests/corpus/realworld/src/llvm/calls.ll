; a noinline i128 multiply-high function (.func call), uitofp/fptoui of i64, cmpxchg
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define internal i64 @mulhi(i64 %a, i64 %b) noinline {
  %aw = zext i64 %a to i128
  %bw = zext i64 %b to i128
  %p = mul i128 %aw, %bw
  %h = lshr i128 %p, 64
  %r = trunc i128 %h to i64
  ret i64 %r
}
define ptx_kernel void @calls(ptr addrspace(1) %x, ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr i64, ptr addrspace(1) %x, i64 %te
  %v = load i64, ptr addrspace(1) %p
  %r = call i64 @mulhi(i64 %v, i64 -7046029254386353131)
  %f = uitofp i64 %v to double
  %fi = fptoui double %f to i64
  %x2 = xor i64 %r, %fi
  %o = getelementptr i64, ptr addrspace(1) %out, i64 %te
  store i64 %x2, ptr addrspace(1) %o
  %pa = getelementptr i64, ptr addrspace(1) %out, i64 64
  %old = cmpxchg ptr addrspace(1) %pa, i64 0, i64 %v acq_rel monotonic
  ret void
}
