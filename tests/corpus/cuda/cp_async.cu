// corpus: min_arch=sm_80
// Asynchronous global->shared copies (cp.async):
//  * __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior
//    with double buffering,
//  * cooperative_groups::memcpy_async + cg::wait,
//  * cuda::memcpy_async with a cuda::pipeline (thread scope).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>

namespace cg = cooperative_groups;

#define CPA_TILE 256   // == blockDim.x

// Each block walks over `tiles` consecutive tiles of its chunk, prefetching
// the next tile while scaling the current one.
extern "C" __global__ void cp_async_double_buffer(const float* __restrict__ in,
                                                  float* __restrict__ out, int tiles,
                                                  float scale)
{
    __shared__ float buf[2][CPA_TILE];
    const float* src = in + (size_t)blockIdx.x * tiles * CPA_TILE;
    float* dst = out + (size_t)blockIdx.x * tiles * CPA_TILE;
    __pipeline_memcpy_async(&buf[0][threadIdx.x], &src[threadIdx.x], sizeof(float));
    __pipeline_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles)
            __pipeline_memcpy_async(&buf[(t + 1) & 1][threadIdx.x],
                                    &src[(t + 1) * CPA_TILE + threadIdx.x], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        // neighbour access, so the whole tile must have landed
        float v = buf[t & 1][threadIdx.x] + buf[t & 1][(threadIdx.x + 1) % CPA_TILE];
        dst[t * CPA_TILE + threadIdx.x] = v * scale;
        __syncthreads();
    }
}

// 16-byte copies (cp.async.cg) of float4 data.
extern "C" __global__ void cp_async_16B(const float4* __restrict__ in, float4* __restrict__ out,
                                        int n)
{
    __shared__ float4 s[CPA_TILE];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n)
        __pipeline_memcpy_async(&s[threadIdx.x], &in[gid], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    int j = blockDim.x - 1 - threadIdx.x;
    int src = blockIdx.x * blockDim.x + j;
    if (gid < n && src < n) {
        float4 v = s[j];
        out[gid] = make_float4(v.w, v.z, v.y, v.x);
    }
}

extern "C" __global__ void cg_memcpy_async_sum(const int* __restrict__ in,
                                               int* __restrict__ out, int n)
{
    __shared__ int s[CPA_TILE];
    cg::thread_block block = cg::this_thread_block();
    int base = blockIdx.x * CPA_TILE;
    int count = min(CPA_TILE, n - base);
    cg::memcpy_async(block, s, in + base, sizeof(int) * count);
    cg::wait(block);
    if (threadIdx.x < count) {
        int acc = 0;
        for (int k = 0; k <= threadIdx.x; ++k)
            acc += s[k];
        out[base + threadIdx.x] = acc;   // inclusive prefix within the tile
    }
}

extern "C" __global__ void cuda_pipeline_copy(const double* __restrict__ in,
                                              double* __restrict__ out, int n)
{
    __shared__ double s[CPA_TILE];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    pipe.producer_acquire();
    if (gid < n)
        cuda::memcpy_async(&s[threadIdx.x], &in[gid], sizeof(double), pipe);
    pipe.producer_commit();
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    if (gid < n)
        out[gid] = s[threadIdx.x] * 2.0 + 1.0;
    pipe.consumer_release();
}
