// Asynchronous copies to shared memory: cooperative_groups::memcpy_async + cg::wait, and a
// two-stage cuda::pipeline (cp.async with commit/wait groups) over tiles of a row.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_async_rowsum(const float *in, float *out, int cols) {
    extern __shared__ float row[];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, row, in + blockIdx.x * cols, sizeof(float) * cols);
    cg::wait(block);
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c] * row[(c + 1) % cols];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

extern "C" __global__ void pipeline_tiles(const int *in, int *out, int tiles) {
    constexpr int T = 64;
    __shared__ int buf[2][T];
    auto pipe = cuda::make_pipeline();
    int acc = 0;
    const int *src = in + blockIdx.x * tiles * T;
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[0][threadIdx.x], src + threadIdx.x, sizeof(int), pipe);
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[(t + 1) & 1][threadIdx.x], src + (t + 1) * T + threadIdx.x, sizeof(int), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        __syncthreads();
        acc = acc * 3 + buf[t & 1][(threadIdx.x + t) % T];
        __syncthreads();
        pipe.consumer_release();
    }
    out[blockIdx.x * T + threadIdx.x] = acc;
}
