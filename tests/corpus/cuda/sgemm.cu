// Single-precision GEMM, row-major: C = alpha * A(MxK) * B(KxN) + beta * C.
// A naive one-thread-per-output kernel, a 16x16 shared-memory tiled kernel,
// and a 64x64 tile kernel where each thread computes a 4x4 register block.
// All kernels handle M, N, K that are not multiples of the tile size.

extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha,
                                       const float* __restrict__ A,
                                       const float* __restrict__ B, float beta,
                                       float* __restrict__ C)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k)
            acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}

#define TS 16

// blockDim = (16, 16)
extern "C" __global__ void sgemm_tiled16(int M, int N, int K, float alpha,
                                         const float* __restrict__ A,
                                         const float* __restrict__ B, float beta,
                                         float* __restrict__ C)
{
    __shared__ float As[TS][TS];
    __shared__ float Bs[TS][TS];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty;
    int col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; ++k)
            acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N)
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

#define BM 64
#define BN 64
#define BK 8
#define TM 4
#define TN 4

// blockDim = (16, 16): 256 threads, each computing a 4x4 block of C.
extern "C" __global__ void __launch_bounds__(256)
sgemm_reg4x4(int M, int N, int K, float alpha, const float* __restrict__ A,
             const float* __restrict__ B, float beta, float* __restrict__ C)
{
    __shared__ float As[BK][BM];   // stored transposed: As[k][m]
    __shared__ float Bs[BK][BN];
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    int row0 = blockIdx.y * BM;
    int col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int t = 0; t < K; t += BK) {
        // 256 threads load 64x8 of A and 8x64 of B (2 elements each).
        for (int e = tid; e < BM * BK; e += 256) {
            int m = e / BK, k = e % BK;
            int gr = row0 + m, gk = t + k;
            As[k][m] = (gr < M && gk < K) ? A[gr * K + gk] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            int k = e / BN, nn = e % BN;
            int gk = t + k, gc = col0 + nn;
            Bs[k][nn] = (gk < K && gc < N) ? B[gk * N + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i)
                a[i] = As[k][threadIdx.y * TM + i];
#pragma unroll
            for (int j = 0; j < TN; ++j)
                b[j] = Bs[k][threadIdx.x * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j)
                    acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        int r = row0 + threadIdx.y * TM + i;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int c = col0 + threadIdx.x * TN + j;
            if (r < M && c < N)
                C[r * N + c] = alpha * acc[i][j] + beta * C[r * N + c];
        }
    }
}
