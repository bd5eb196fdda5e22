// Shared-memory tiled SGEMM with __restrict__ / __ldg and a register-blocked inner loop.
#define TILE 16
extern "C" __global__ void sgemm_tiled(int M, int N, int K, float alpha,
                                       const float *__restrict__ A, const float *__restrict__ B,
                                       float beta, float *__restrict__ C) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < M && k0 + threadIdx.x < K) ? __ldg(&A[row * K + k0 + threadIdx.x]) : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (col < N && k0 + threadIdx.y < K) ? __ldg(&B[(k0 + threadIdx.y) * N + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[threadIdx.y][k], Bs[k][threadIdx.x], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}
