// Inline PTX assembly: arithmetic, lop3, prmt, bfe/bfi, special registers
// (%clock, %laneid, %globaltimer), predicates, and vector/memory operands.

__device__ __forceinline__ int asm_add(int a, int b)
{
    int d;
    asm("add.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

// d = (a & b) | (~a & c)  -- "select" truth table 0xCA
__device__ __forceinline__ unsigned asm_lop3_select(unsigned a, unsigned b, unsigned c)
{
    unsigned d;
    asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// Byte permute: reverse the bytes of a.
__device__ __forceinline__ unsigned asm_prmt_bswap(unsigned a)
{
    unsigned d;
    asm("prmt.b32 %0, %1, 0, 0x0123;" : "=r"(d) : "r"(a));
    return d;
}

__device__ __forceinline__ unsigned asm_bfe(unsigned a, unsigned pos, unsigned len)
{
    unsigned d;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(pos), "r"(len));
    return d;
}

__device__ __forceinline__ unsigned asm_bfi(unsigned ins, unsigned base, unsigned pos,
                                            unsigned len)
{
    unsigned d;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(ins), "r"(base), "r"(pos), "r"(len));
    return d;
}

__device__ __forceinline__ unsigned long long asm_mul_wide(unsigned a, unsigned b)
{
    unsigned long long d;
    asm("mul.wide.u32 %0, %1, %2;" : "=l"(d) : "r"(a), "r"(b));
    return d;
}

__device__ __forceinline__ int asm_min_with_pred(int a, int b)
{
    int d;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        "setp.lt.s32 p, %1, %2;\n\t"
        "selp.s32 %0, %1, %2, p;\n\t"
        "}"
        : "=r"(d)
        : "r"(a), "r"(b));
    return d;
}

__device__ __forceinline__ float asm_fma_rn(float a, float b, float c)
{
    float d;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(d) : "f"(a), "f"(b), "f"(c));
    return d;
}

extern "C" __global__ void inline_asm_ops(const unsigned* __restrict__ a,
                                          const unsigned* __restrict__ b,
                                          unsigned* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i];
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    out[8 * i + 0] = (unsigned)asm_add((int)x, (int)y);
    out[8 * i + 1] = asm_lop3_select(x, y, ~y);
    out[8 * i + 2] = asm_prmt_bswap(x);
    out[8 * i + 3] = asm_bfe(x, y & 31, 8);
    out[8 * i + 4] = asm_bfi(y, x, 4, 12);
    unsigned long long w = asm_mul_wide(x, y);
    out[8 * i + 5] = (unsigned)(w >> 32);
    out[8 * i + 6] = (unsigned)asm_min_with_pred((int)x, (int)y);
    out[8 * i + 7] = lane;
}

extern "C" __global__ void inline_asm_float(const float* __restrict__ x, float* __restrict__ y,
                                            int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
    float4 q;
    asm("mov.b32 %0, %4;\n\t"
        "neg.f32 %1, %4;\n\t"
        "abs.f32 %2, %4;\n\t"
        "mov.b32 %3, 0f3F800000;"
        : "=f"(q.x), "=f"(q.y), "=f"(q.z), "=f"(q.w)
        : "f"(v));
    y[i] = asm_fma_rn(q.x + q.y, q.z, q.w) + (v != 0.0f ? r * 0.0f : 0.0f);
}

// Timing with %clock / %clock64 / %globaltimer: the values are
// nondeterministic, only their differences' signs are checked.
extern "C" __global__ void inline_asm_clock(unsigned* __restrict__ ok, int spin)
{
    unsigned c0, c1;
    unsigned long long t0, g0;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c0));
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t0));
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    volatile int sink = 0;
    for (int k = 0; k < spin; ++k)
        sink += k;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c1));
    unsigned long long t1;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t1));
    unsigned smid, warpid;
    asm("mov.u32 %0, %%smid;" : "=r"(smid));
    asm("mov.u32 %0, %%warpid;" : "=r"(warpid));
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    ok[i] = (t1 >= t0 ? 1u : 0u) | ((c1 - c0) < 0x80000000u ? 2u : 0u) |
            (g0 != 0 ? 4u : 0u) | ((smid | warpid) >= 0 ? 8u : 0u);
}
