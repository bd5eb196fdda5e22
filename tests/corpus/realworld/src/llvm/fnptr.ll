; indirect calls through a table of function pointers in an initialized .global (call prototypes)
; built by tools/build_realworld_corpus.py with LLVM's NVPTX back end (llvmlite)
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare void @llvm.nvvm.barrier0()

@vtable = internal addrspace(1) constant [3 x ptr] [ptr @f_add, ptr @f_mul, ptr @f_xor]
define internal i32 @f_add(i32 %a, i32 %b) noinline { %r = add i32 %a, %b
  ret i32 %r }
define internal i32 @f_mul(i32 %a, i32 %b) noinline { %r = mul i32 %a, %b
  ret i32 %r }
define internal i32 @f_xor(i32 %a, i32 %b) noinline { %r = xor i32 %a, %b
  ret i32 %r }
define ptx_kernel void @fnptr(ptr addrspace(1) %x, ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %p = getelementptr i32, ptr addrspace(1) %x, i64 %te
  %v = load i32, ptr addrspace(1) %p
  %k = urem i32 %t, 3
  %ke = zext i32 %k to i64
  %fp = getelementptr [3 x ptr], ptr addrspace(1) @vtable, i64 0, i64 %ke
  %f = load ptr, ptr addrspace(1) %fp
  %r = call i32 %f(i32 %v, i32 %t)
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %r, ptr addrspace(1) %o
  ret void
}
