; butterfly shuffles (llvm.nvvm.shfl.sync.bfly), a shared-memory array, bar.sync, a counted loop, atomicrmw add / umax
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

@sh = internal addrspace(3) global [256 x i32] undef, align 4
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
define ptx_kernel void @blocksum(ptr addrspace(1) %x, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %g = mul i32 %bx, 256
  %i = add i32 %g, %t
  %ie = zext i32 %i to i64
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %ie
  %v = load i32, ptr addrspace(1) %p
  %s1 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v, i32 16, i32 31)
  %v1 = add i32 %v, %s1
  %s2 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v1, i32 8, i32 31)
  %v2 = add i32 %v1, %s2
  %s3 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v2, i32 4, i32 31)
  %v3 = add i32 %v2, %s3
  %s4 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v3, i32 2, i32 31)
  %v4 = add i32 %v3, %s4
  %s5 = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %v4, i32 1, i32 31)
  %v5 = add i32 %v4, %s5
  %te = zext i32 %t to i64
  %sp = getelementptr [256 x i32], ptr addrspace(3) @sh, i64 0, i64 %te
  store i32 %v5, ptr addrspace(3) %sp
  call void @llvm.nvvm.barrier0()
  %z = icmp eq i32 %t, 0
  br i1 %z, label %sum, label %done
sum:
  %k = phi i32 [0, %entry], [%k1, %sum]
  %acc = phi i32 [0, %entry], [%acc1, %sum]
  %ke = zext i32 %k to i64
  %q = getelementptr [256 x i32], ptr addrspace(3) @sh, i64 0, i64 %ke
  %w = load i32, ptr addrspace(3) %q
  %acc1 = add i32 %acc, %w
  %k1 = add i32 %k, 32
  %more = icmp ult i32 %k1, 256
  br i1 %more, label %sum, label %fin
fin:
  %r = atomicrmw add ptr addrspace(1) %out, i32 %acc1 monotonic
  %bxe = zext i32 %bx to i64
  %o = getelementptr i32, ptr addrspace(1) %out, i64 1
  %r2 = atomicrmw umax ptr addrspace(1) %o, i32 %acc1 seq_cst
  br label %done
done:
  ret void
}
