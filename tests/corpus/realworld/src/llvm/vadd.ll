; bounds-checked elementwise fma + maxnum (fma.rn, max.f32)
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @vadd(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bd = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %bx, %bd
  %i = add i32 %m, %t
  %ok = icmp slt i32 %i, %n
  br i1 %ok, label %body, label %done
body:
  %ie = sext i32 %i to i64
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %ie
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %ie
  %pc = getelementptr float, ptr addrspace(1) %c, i64 %ie
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %z = call float @llvm.fma.f32(float %x, float %y, float 1.0)
  %w = call float @llvm.maxnum.f32(float %z, float -2.0)
  store float %w, ptr addrspace(1) %pc
  br label %done
done:
  ret void
}
declare float @llvm.fma.f32(float, float, float)
declare float @llvm.maxnum.f32(float, float)
