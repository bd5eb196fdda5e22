// corpus: min_arch=sm_90
// Tensor-core GEMMs written with inline PTX: ldmatrix (x4, x4.trans) feeding mma.sync.m16n8k16,
// stmatrix for the f16 result. One warp per 16x16 output tile, K in steps of 16, operands staged
// through shared memory. M, N, K multiples of 16.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned smem_addr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned* r, const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned* r, const void* p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(smem_addr(p)));
}

// A row-major MxK, Bt = B^T row-major NxK (B column-major), C and D row-major MxN, f32 accumulation.
extern "C" __global__ void mma_ldmatrix_gemm_f32(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                                 const float* __restrict__ C, float* __restrict__ D,
                                                 int M, int N, int K)
{
    __shared__ __align__(16) __half sa[4][16 * 16];
    __shared__ __align__(16) __half sb[4][16 * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tile = blockIdx.x * 4 + warp, tiles_n = N / 16;
    int row0 = (tile / tiles_n) * 16, col0 = (tile % tiles_n) * 16;
    if (row0 >= M)
        return;
    int g = lane / 4, t = lane % 4;
    float acc[2][4];
    for (int j = 0; j < 2; ++j) {
        int c = col0 + 8 * j + 2 * t;
        acc[j][0] = C[(row0 + g) * N + c];
        acc[j][1] = C[(row0 + g) * N + c + 1];
        acc[j][2] = C[(row0 + g + 8) * N + c];
        acc[j][3] = C[(row0 + g + 8) * N + c + 1];
    }
    int mi = lane / 8, r = lane % 8;
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            sa[warp][i] = A[(row0 + i / 16) * K + k0 + i % 16];
            sb[warp][i] = Bt[(col0 + i / 16) * K + k0 + i % 16];
        }
        __syncwarp();
        unsigned a[4], b[4];
        ldmatrix_x4(a, &sa[warp][((mi % 2) * 8 + r) * 16 + (mi / 2) * 8]);  // rows 0-7/8-15, k 0-7/8-15
        ldmatrix_x4(b, &sb[warp][((mi / 2) * 8 + r) * 16 + (mi % 2) * 8]);  // n 0-7: k 0-7, 8-15; n 8-15
        for (int j = 0; j < 2; ++j)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                         "{%8, %9}, {%0, %1, %2, %3};"
                         : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
        __syncwarp();
    }
    for (int j = 0; j < 2; ++j) {
        int c = col0 + 8 * j + 2 * t;
        D[(row0 + g) * N + c] = acc[j][0];
        D[(row0 + g) * N + c + 1] = acc[j][1];
        D[(row0 + g + 8) * N + c] = acc[j][2];
        D[(row0 + g + 8) * N + c + 1] = acc[j][3];
    }
}

// A row-major MxK, B row-major KxN (ldmatrix .trans), f16 accumulation from zero, D row-major MxN
// written through stmatrix into shared memory and copied out.
extern "C" __global__ void mma_ldmatrix_gemm_f16(const __half* __restrict__ A, const __half* __restrict__ B,
                                                 __half* __restrict__ D, int M, int N, int K)
{
    __shared__ __align__(16) __half sa[4][16 * 16];
    __shared__ __align__(16) __half sb[4][16 * 16];
    __shared__ __align__(16) __half sd[4][16 * 16];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tile = blockIdx.x * 4 + warp, tiles_n = N / 16;
    int row0 = (tile / tiles_n) * 16, col0 = (tile % tiles_n) * 16;
    if (row0 >= M)
        return;
    unsigned acc[2][2] = {{0u, 0u}, {0u, 0u}};
    int mi = lane / 8, r = lane % 8;
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int i = lane; i < 256; i += 32) {
            sa[warp][i] = A[(row0 + i / 16) * K + k0 + i % 16];
            sb[warp][i] = B[(k0 + i / 16) * N + col0 + i % 16];
        }
        __syncwarp();
        unsigned a[4], b[4];
        ldmatrix_x4(a, &sa[warp][((mi % 2) * 8 + r) * 16 + (mi / 2) * 8]);
        ldmatrix_x4_trans(b, &sb[warp][((mi % 2) * 8 + r) * 16 + (mi / 2) * 8]);  // k 0-7/8-15 of n 0-7, then n 8-15
        for (int j = 0; j < 2; ++j)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
                         "{%0, %1};"
                         : "+r"(acc[j][0]), "+r"(acc[j][1])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * j]), "r"(b[2 * j + 1]));
        __syncwarp();
    }
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                 :: "r"(smem_addr(&sd[warp][((mi % 2) * 8 + r) * 16 + (mi / 2) * 8])),
                    "r"(acc[0][0]), "r"(acc[0][1]), "r"(acc[1][0]), "r"(acc[1][1]) : "memory");
    __syncwarp();
    for (int i = lane; i < 256; i += 32)
        D[(row0 + i / 16) * N + col0 + i % 16] = sd[warp][i];
}
