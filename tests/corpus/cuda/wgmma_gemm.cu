// corpus: min_arch=sm_90
// corpus: skip_variants=sm_90,sm_90-G,sm_90-lineinfo,sm_90-fastmath,sm_90-rdc
// Hopper warpgroup GEMM with inline PTX (needs sm_90a): one warpgroup per 64x64 tile of
// D = A * B^T, A row-major MxK and Bt row-major NxK (both K-major), f16 inputs, f32 accumulators.
// Each K block of 64 is staged in shared memory in the 128-byte swizzled layout; four
// wgmma.mma_async m64n64k16 (descriptors advanced by 32 bytes inside the swizzle atom) run
// back to back before one commit_group / wait_group.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long sw128_desc(const void* p)
{
    unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((unsigned long long)(1024 >> 4) << 32)
           | (1ull << 62);
}

__device__ __forceinline__ int sw128_index(int r, int k)  // element (r, k) of a 64-element-wide tile
{
    return r * 64 + (((k / 8) ^ (r % 8)) * 8) + k % 8;
}

extern "C" __global__ void __launch_bounds__(128) wgmma_gemm_f16_f32(const __half* __restrict__ A,
                                                                    const __half* __restrict__ Bt,
                                                                    float* __restrict__ D, int M, int N, int K)
{
    __shared__ __align__(1024) __half sa[64 * 64];
    __shared__ __align__(1024) __half sb[64 * 64];
    int tid = threadIdx.x;
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    float d[32];
    for (int i = 0; i < 32; ++i)
        d[i] = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 64) {
        for (int i = tid; i < 64 * 64; i += 128) {
            int r = i / 64, k = i % 64;
            sa[sw128_index(r, k)] = A[(m0 + r) * K + k0 + k];
            sb[sw128_index(r, k)] = Bt[(n0 + r) * K + k0 + k];
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        __syncthreads();
        asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
        for (int kk = 0; kk < 4; ++kk) {
            unsigned long long da = sw128_desc(&sa[kk * 16]), db = sw128_desc(&sb[kk * 16]);
            int scale_d = (k0 > 0 || kk > 0) ? 1 : 0;
            asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
                         "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                         : "l"(da), "l"(db), "r"(scale_d));
        }
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        __syncthreads();
    }
    int w = tid / 32, lane = tid % 32, g = lane / 4, t = lane % 4;
    for (int i = 0; i < 32; ++i) {
        int row = m0 + 16 * w + g + 8 * ((i >> 1) & 1), col = n0 + 8 * (i >> 2) + 2 * t + (i & 1);
        D[row * N + col] = d[i];
    }
}
