; a packed struct with pointers at unaligned offsets (LLVM writes them as byte-mask initializers,
; 0xFF00(generic(g))...) and a function called through an .alias (which LLVM declares first as a
; prototype); built by tools/build_realworld_corpus.py with LLVM's NVPTX back end
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

@table = addrspace(1) global [4 x i32] [i32 11, i32 22, i32 33, i32 44]
@packed = addrspace(1) global <{ i8, ptr, i16, ptr, i8 }>
    <{ i8 7, ptr addrspacecast (ptr addrspace(1) @table to ptr), i16 -3,
       ptr addrspacecast (ptr addrspace(1) getelementptr ([4 x i32], ptr addrspace(1) @table, i64 0, i64 2) to ptr),
       i8 9 }>

define i32 @mix(i32 %a, i32 %b) noinline {
  %m = mul i32 %a, 31
  %r = xor i32 %m, %b
  ret i32 %r
}
@mix_alias = alias i32 (i32, i32), ptr @mix

define ptx_kernel void @packed_alias(ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %te = zext i32 %t to i64
  %k = and i64 %te, 1
  ; the two pointers of the packed struct, read as stored (unaligned), then through them
  %p0 = load ptr, ptr addrspace(1) getelementptr inbounds (<{ i8, ptr, i16, ptr, i8 }>, ptr addrspace(1) @packed, i32 0, i32 1), align 1
  %p1 = load ptr, ptr addrspace(1) getelementptr inbounds (<{ i8, ptr, i16, ptr, i8 }>, ptr addrspace(1) @packed, i32 0, i32 3), align 1
  %kb = icmp ne i64 %k, 0
  %p = select i1 %kb, ptr %p1, ptr %p0
  %q = getelementptr i32, ptr %p, i64 %k
  %v = load i32, ptr %q
  %b0 = load i8, ptr addrspace(1) @packed, align 1
  %s = load i16, ptr addrspace(1) getelementptr inbounds (<{ i8, ptr, i16, ptr, i8 }>, ptr addrspace(1) @packed, i32 0, i32 2), align 1
  %b4 = load i8, ptr addrspace(1) getelementptr inbounds (<{ i8, ptr, i16, ptr, i8 }>, ptr addrspace(1) @packed, i32 0, i32 4), align 1
  %b0e = sext i8 %b0 to i32
  %se = sext i16 %s to i32
  %b4e = sext i8 %b4 to i32
  %sum0 = add i32 %v, %b0e
  %sum1 = add i32 %sum0, %se
  %sum2 = add i32 %sum1, %b4e
  %r = call i32 @mix_alias(i32 %sum2, i32 %t)
  %o = getelementptr i32, ptr addrspace(1) %out, i64 %te
  store i32 %r, ptr addrspace(1) %o
  ret void
}
