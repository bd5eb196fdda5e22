// Row-wise numerically stable softmax.
//  * softmax_rows_block: one block per row, shared-memory max and sum
//    reductions, works for any row length (strided over blockDim).
//  * softmax_rows_warp: one warp per row using shuffles (short rows).
#include <cfloat>

extern "C" __global__ void softmax_rows_block(const float* __restrict__ in,
                                              float* __restrict__ out, int rows, int cols)
{
    __shared__ float red[256];   // blockDim.x <= 256, power of two
    int row = blockIdx.x;
    if (row >= rows)
        return;
    const float* x = in + (long long)row * cols;
    float* y = out + (long long)row * cols;

    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, x[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float e = expf(x[c] - m);
        y[c] = e;
        sum += e;
    }
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        y[c] *= inv;
}

extern "C" __global__ void softmax_rows_warp(const float* __restrict__ in,
                                             float* __restrict__ out, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= rows)
        return;
    const float* x = in + (long long)warp * cols;
    float* y = out + (long long)warp * cols;
    float m = -FLT_MAX;
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, x[c]);
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32)
        s += expf(x[c] - m);
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32)
        y[c] = expf(x[c] - m) * inv;
}
