; <4 x float> loads/stores (v4) and <2 x half> arithmetic (f16x2)
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @vec4half(ptr addrspace(1) %x, ptr addrspace(1) %h, ptr addrspace(1) %out, ptr addrspace(1) %hout) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr <4 x float>, ptr addrspace(1) %x, i64 %te
  %v = load <4 x float>, ptr addrspace(1) %p, align 16
  %s = fmul <4 x float> %v, <float 2.0, float 3.0, float 0.5, float -1.0>
  %q = getelementptr <4 x float>, ptr addrspace(1) %out, i64 %te
  store <4 x float> %s, ptr addrspace(1) %q, align 16
  %ph = getelementptr <2 x half>, ptr addrspace(1) %h, i64 %te
  %hv = load <2 x half>, ptr addrspace(1) %ph, align 4
  %hm = fmul <2 x half> %hv, %hv
  %ha = fadd <2 x half> %hm, <half 0xH3C00, half 0xH3C00>
  %qh = getelementptr <2 x half>, ptr addrspace(1) %hout, i64 %te
  store <2 x half> %ha, ptr addrspace(1) %qh, align 4
  ret void
}
