; an alloca indexed by data: a .local stack frame with volatile stores and loads
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @localarr(ptr addrspace(1) %x, ptr addrspace(1) %out) {
entry:
  %arr = alloca [16 x i32], align 4
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  br label %fill
fill:
  %k = phi i64 [0, %entry], [%k1, %fill]
  %q = getelementptr [16 x i32], ptr %arr, i64 0, i64 %k
  %kt = trunc i64 %k to i32
  %val = mul i32 %kt, %t
  store volatile i32 %val, ptr %q
  %k1 = add i64 %k, 1
  %c = icmp ult i64 %k1, 16
  br i1 %c, label %fill, label %use
use:
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %te
  %idx = load i32, ptr addrspace(1) %p
  %ie = and i32 %idx, 15
  %iee = zext i32 %ie to i64
  %g = getelementptr [16 x i32], ptr %arr, i64 0, i64 %iee
  %r = load volatile i32, ptr %g
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %r, ptr addrspace(1) %o
  ret void
}
