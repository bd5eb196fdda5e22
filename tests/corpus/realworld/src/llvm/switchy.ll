; a dense switch (jump table or compare tree, as the back end chooses) with a phi
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

define ptx_kernel void @switchy(ptr addrspace(1) %x, ptr addrspace(1) %out) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %te
  %v = load i32, ptr addrspace(1) %p
  switch i32 %v, label %def [ i32 0, label %c0  i32 1, label %c1  i32 2, label %c2  i32 3, label %c3  i32 4, label %c4  i32 5, label %c5  i32 6, label %c6  i32 7, label %c7 ]
c0: br label %j
c1: %a1 = mul i32 %v, 13
  br label %j
c2: %a2 = xor i32 %v, 255
  br label %j
c3: %a3 = shl i32 %v, 5
  br label %j
c4: %a4 = sub i32 1000, %v
  br label %j
c5: %a5 = add i32 %v, 77
  br label %j
c6: %a6 = or i32 %v, 4096
  br label %j
c7: %a7 = mul i32 %v, %v
  br label %j
def: br label %j
j:
  %r = phi i32 [11, %c0], [%a1, %c1], [%a2, %c2], [%a3, %c3], [%a4, %c4], [%a5, %c5], [%a6, %c6], [%a7, %c7], [-1, %def]
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %r, ptr addrspace(1) %o
  ret void
}
