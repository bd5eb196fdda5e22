// Tensor-core GEMM with nvcuda::wmma: 16x16x16 tiles, half inputs, float
// accumulation.  One warp per 16x16 output tile; M, N, K multiples of 16.
// A is row-major MxK, B is column-major KxN, C/D row-major MxN.
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

extern "C" __global__ void wmma_gemm_f16_f32(const __half* __restrict__ A,
                                             const __half* __restrict__ B,
                                             const float* __restrict__ C,
                                             float* __restrict__ D, int M, int N, int K,
                                             float alpha, float beta)
{
    int warp_m = (blockIdx.y * blockDim.y + threadIdx.y);           // tile row
    int warp_n = (blockIdx.x * blockDim.x + threadIdx.x) / 32;      // tile col
    int row = warp_m * 16, col = warp_n * 16;
    if (row >= M || col >= N)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, c;
    wmma::fill_fragment(acc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + row * K + k, K);
        wmma::load_matrix_sync(b, B + col * K + k, K);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::load_matrix_sync(c, C + row * N + col, N, wmma::mem_row_major);
    for (int i = 0; i < c.num_elements; ++i)
        c.x[i] = alpha * acc.x[i] + beta * c.x[i];
    wmma::store_matrix_sync(D + row * N + col, c, N, wmma::mem_row_major);
}

// Single-tile helper with shared-memory staging and a half accumulator.
extern "C" __global__ void wmma_tile_f16_f16(const __half* __restrict__ A,
                                             const __half* __restrict__ B,
                                             __half* __restrict__ D)
{
    __shared__ __half sa[16 * 16], sb[16 * 16];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        sa[i] = A[blockIdx.x * 256 + i];
        sb[i] = B[blockIdx.x * 256 + i];
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
        wmma::fragment<wmma::accumulator, 16, 16, 16, __half> acc;
        wmma::fill_fragment(acc, __float2half(0.0f));
        wmma::load_matrix_sync(a, sa, 16);
        wmma::load_matrix_sync(b, sb, 16);
        wmma::mma_sync(acc, a, b, acc);
        wmma::store_matrix_sync(D + blockIdx.x * 256, acc, 16, wmma::mem_row_major);
    }
}
