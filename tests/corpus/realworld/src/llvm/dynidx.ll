; an <8 x i32> vector: load, reverse shuffle, extract and insert at a data-dependent index; a 4-byte load at a 1-byte-aligned address
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @dynidx(ptr addrspace(1) %x, ptr addrspace(1) %out, ptr addrspace(1) %src) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr <8 x i32>, ptr addrspace(1) %x, i64 %te
  %v = load <8 x i32>, ptr addrspace(1) %p, align 32
  %k = and i32 %t, 7
  %e = extractelement <8 x i32> %v, i32 %k
  %sw = shufflevector <8 x i32> %v, <8 x i32> poison, <8 x i32> <i32 7, i32 6, i32 5, i32 4, i32 3, i32 2, i32 1, i32 0>
  %w = insertelement <8 x i32> %sw, i32 %e, i32 %k
  %q = getelementptr <8 x i32>, ptr addrspace(1) %out, i64 %te
  store <8 x i32> %w, ptr addrspace(1) %q, align 32
  %ps = getelementptr i8, ptr addrspace(1) %src, i64 1
  %un = load i32, ptr addrspace(1) %ps, align 1
  %po = getelementptr i32, ptr addrspace(1) %out, i64 1024
  %pot = getelementptr i32, ptr addrspace(1) %po, i64 %te
  %mix = add i32 %un, %t
  store i32 %mix, ptr addrspace(1) %pot, align 4
  ret void
}
