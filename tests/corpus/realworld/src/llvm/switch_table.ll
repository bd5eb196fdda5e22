; a 16-case switch the optimizer turns into a lookup table (a .global initialized array, ld.global.nc)
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @sw16(ptr addrspace(1) %x, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %te
  %v = load i32, ptr addrspace(1) %p
  switch i32 %v, label %def [ i32 0, label %c0 i32 1, label %c1 i32 2, label %c2 i32 3, label %c3 i32 4, label %c4 i32 5, label %c5 i32 6, label %c6 i32 7, label %c7 i32 8, label %c8 i32 9, label %c9 i32 10, label %c10 i32 11, label %c11 i32 12, label %c12 i32 13, label %c13 i32 14, label %c14 i32 15, label %c15 ]
c0:
  %a0 = mul i32 %v, 3
  br label %j
c1:
  %a1 = mul i32 %v, 10
  br label %j
c2:
  %a2 = mul i32 %v, 17
  br label %j
c3:
  %a3 = mul i32 %v, 24
  br label %j
c4:
  %a4 = mul i32 %v, 31
  br label %j
c5:
  %a5 = mul i32 %v, 38
  br label %j
c6:
  %a6 = mul i32 %v, 45
  br label %j
c7:
  %a7 = mul i32 %v, 52
  br label %j
c8:
  %a8 = mul i32 %v, 59
  br label %j
c9:
  %a9 = mul i32 %v, 66
  br label %j
c10:
  %a10 = mul i32 %v, 73
  br label %j
c11:
  %a11 = mul i32 %v, 80
  br label %j
c12:
  %a12 = mul i32 %v, 87
  br label %j
c13:
  %a13 = mul i32 %v, 94
  br label %j
c14:
  %a14 = mul i32 %v, 101
  br label %j
c15:
  %a15 = mul i32 %v, 108
  br label %j
def: br label %j
j:
  %r = phi i32 [%a0, %c0], [%a1, %c1], [%a2, %c2], [%a3, %c3], [%a4, %c4], [%a5, %c5], [%a6, %c6], [%a7, %c7], [%a8, %c8], [%a9, %c9], [%a10, %c10], [%a11, %c11], [%a12, %c12], [%a13, %c13], [%a14, %c14], [%a15, %c15], [-1, %def]
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %r, ptr addrspace(1) %o
  ret void
}
