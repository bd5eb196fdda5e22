#include <climits>

// Warp-shuffle reductions: __shfl_down_sync within each warp, warp results
// staged in shared memory, reduced by warp 0, block result atomically added.

__inline__ __device__ float warp_sum_f32(float v)
{
    for (int off = warpSize / 2; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

__inline__ __device__ int warp_max_i32(int v)
{
    for (int off = 16; off > 0; off >>= 1)
        v = max(v, __shfl_down_sync(0xffffffffu, v, off));
    return v;
}

extern "C" __global__ void reduce_shfl_sum_f32(const float* __restrict__ in,
                                               float* __restrict__ out, int n)
{
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31;
    int wid = threadIdx.x >> 5;
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    v = warp_sum_f32(v);
    if (lane == 0)
        warp_sums[wid] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) >> 5;
    if (wid == 0) {
        v = (lane < nwarps) ? warp_sums[lane] : 0.0f;
        v = warp_sum_f32(v);
        if (lane == 0)
            atomicAdd(out, v);
    }
}

extern "C" __global__ void reduce_shfl_max_i32(const int* __restrict__ in,
                                               int* __restrict__ out, int n)
{
    __shared__ int warp_max[32];
    int lane = threadIdx.x & 31;
    int wid = threadIdx.x >> 5;
    int v = INT_MIN;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v = max(v, in[i]);
    v = warp_max_i32(v);
    if (lane == 0)
        warp_max[wid] = v;
    __syncthreads();
    int nwarps = (blockDim.x + 31) >> 5;
    if (wid == 0) {
        v = (lane < nwarps) ? warp_max[lane] : INT_MIN;
        v = warp_max_i32(v);
        if (lane == 0)
            atomicMax(out, v);
    }
}

// Butterfly (xor) all-reduce: every lane ends with the warp total, written
// per warp (deterministic output).
extern "C" __global__ void warp_allreduce_xor_f32(const float* __restrict__ in,
                                                  float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (i < n) ? in[i] : 0.0f;
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    if (i < n)
        out[i] = v;
}
