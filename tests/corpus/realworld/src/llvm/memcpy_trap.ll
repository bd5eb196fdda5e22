; llvm.memcpy / llvm.memset lowered to loads and stores, and llvm.trap on one thread when asked
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

declare void @llvm.memcpy.p1.p1.i64(ptr addrspace(1), ptr addrspace(1), i64, i1)
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
declare void @llvm.trap()
define ptx_kernel void @memcpy_trap(ptr addrspace(1) %dst, ptr addrspace(1) %src, i32 %bad) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %off = mul i64 %te, 72
  %d = getelementptr i8, ptr addrspace(1) %dst, i64 %off
  %s = getelementptr i8, ptr addrspace(1) %src, i64 %off
  call void @llvm.memcpy.p1.p1.i64(ptr addrspace(1) align 8 %d, ptr addrspace(1) align 8 %s, i64 64, i1 false)
  %d2 = getelementptr i8, ptr addrspace(1) %d, i64 64
  call void @llvm.memset.p1.i64(ptr addrspace(1) align 8 %d2, i8 -86, i64 8, i1 false)
  %c = icmp eq i32 %t, %bad
  br i1 %c, label %die, label %ok
die:
  call void @llvm.trap()
  unreachable
ok:
  ret void
}
