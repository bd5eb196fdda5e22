; dynamic shared memory (an extern [0 x i32]), addrspacecast to generic, atomics with syncscope block/device and orderings, a device-scope fence, %laneid/%nctaid
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

@dyn = external addrspace(3) global [0 x i32], align 16
declare i64 @llvm.nvvm.read.ptx.sreg.clock64()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
define ptx_kernel void @scoped(ptr addrspace(1) %cnt, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %nb = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %te = zext i32 %t to i64
  %sp = getelementptr i32, ptr addrspace(3) @dyn, i64 %te
  store i32 %lane, ptr addrspace(3) %sp
  %gen = addrspacecast ptr addrspace(3) %sp to ptr
  %r0 = atomicrmw add ptr %gen, i32 %bx syncscope("block") acq_rel
  call void @llvm.nvvm.barrier0()
  %r1 = atomicrmw add ptr addrspace(1) %cnt, i32 1 syncscope("device") monotonic
  fence syncscope("device") seq_cst
  %c1 = getelementptr i32, ptr addrspace(1) %cnt, i64 1
  %r2 = atomicrmw xchg ptr addrspace(1) %c1, i32 %nb syncscope("device") release
  %v = load i32, ptr addrspace(3) %sp
  %g = mul i32 %bx, 128
  %i = add i32 %g, %t
  %ie = zext i32 %i to i64
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %ie
  store i32 %v, ptr addrspace(1) %o
  ret void
}
