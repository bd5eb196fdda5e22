// corpus: min_arch=sm_90
// cuda::barrier in shared memory (mbarrier instructions): split arrive/wait,
// producer/consumer phases, and bulk async copies completed through a
// barrier's transaction count (cp.async.bulk on sm_90).
#include <cuda/barrier>
#include <cuda/std/utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// Two-phase stencil: all threads write a value, arrive, do independent work,
// wait, then read neighbours.
extern "C" __global__ void mbarrier_split_phase(const float* __restrict__ in,
                                                float* __restrict__ out, int n)
{
    __shared__ float s[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = gid < n ? in[gid] : 0.0f;
    block_barrier::arrival_token tok = bar.arrive();
    float self = gid < n ? in[gid] * 0.5f : 0.0f;   // overlap with the barrier
    bar.wait(cuda::std::move(tok));
    int l = threadIdx.x == 0 ? 0 : threadIdx.x - 1;
    int r = threadIdx.x + 1 == blockDim.x ? threadIdx.x : threadIdx.x + 1;
    float v = 0.25f * s[l] + self + 0.25f * s[r];
    bar.arrive_and_wait();   // second phase of the same barrier
    if (gid < n)
        out[gid] = v;
}

// Producer warp fills a buffer, consumer warps wait on a barrier.
extern "C" __global__ void mbarrier_producer_consumer(const int* __restrict__ in,
                                                      int* __restrict__ out, int rounds)
{
    __shared__ int buf[32];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier full, empty;
    if (threadIdx.x == 0) {
        init(&full, blockDim.x);
        init(&empty, blockDim.x);
    }
    __syncthreads();
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int acc = 0;
    for (int r = 0; r < rounds; ++r) {
        if (warp == 0)
            buf[lane] = in[(blockIdx.x * rounds + r) * 32 + lane];
        full.arrive_and_wait();
        if (warp != 0)
            acc += buf[(lane + warp) % 32];
        empty.arrive_and_wait();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Bulk copy of a 16-byte aligned tile into shared memory, tracked by the
// barrier's transaction count.
extern "C" __global__ void mbarrier_bulk_copy(const float4* __restrict__ in,
                                              float4* __restrict__ out)
{
    __shared__ alignas(128) float4 tile[128];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ block_barrier bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0)
        cuda::memcpy_async(tile, in + blockIdx.x * 128, cuda::aligned_size_t<16>(sizeof(tile)),
                           bar);
    bar.arrive_and_wait();
    float4 v = tile[127 - threadIdx.x];
    out[blockIdx.x * 128 + threadIdx.x] = make_float4(v.x + 1.f, v.y + 1.f, v.z + 1.f, v.w + 1.f);
}
