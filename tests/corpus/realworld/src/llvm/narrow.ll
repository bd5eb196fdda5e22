; i8/i16 arithmetic in 16-bit registers (sdiv, ashr, umax), byte loads, bfloat multiply and add
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @narrow(ptr addrspace(1) %b, ptr addrspace(1) %s, ptr addrspace(1) %bf, ptr addrspace(1) %out, ptr addrspace(1) %bfo) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %pb = getelementptr i8, ptr addrspace(1) %b, i64 %te
  %x = load i8, ptr addrspace(1) %pb
  %ps = getelementptr i16, ptr addrspace(1) %s, i64 %te
  %y = load i16, ptr addrspace(1) %ps
  %xs = sext i8 %x to i16
  %m = mul i16 %xs, %y
  %q = sdiv i16 %m, 7
  %sh = ashr i16 %q, 2
  %mx = call i16 @llvm.umax.i16(i16 %sh, i16 %y)
  %r = zext i16 %mx to i32
  %x8 = lshr i8 %x, 3
  %x8e = zext i8 %x8 to i32
  %pk = shl i32 %x8e, 16
  %res = or i32 %r, %pk
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %res, ptr addrspace(1) %po
  %pbf = getelementptr bfloat, ptr addrspace(1) %bf, i64 %te
  %h = load bfloat, ptr addrspace(1) %pbf
  %h2 = fmul bfloat %h, %h
  %h3 = fadd bfloat %h2, 0xR3F80
  %pbo = getelementptr bfloat, ptr addrspace(1) %bfo, i64 %te
  store bfloat %h3, ptr addrspace(1) %pbo
  ret void
}
declare i16 @llvm.umax.i16(i16, i16)
