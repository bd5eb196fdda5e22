// Block sum with cooperative groups: cg::reduce over 32-thread tiles, then the tile leaders
// combine through shared memory. One partial sum per block (no float atomics: deterministic).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cg_block_sum(const float *in, float *partial, int n) {
    __shared__ float tile_sums[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += in[i];
    float s = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) tile_sums[tile.meta_group_rank()] = s;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        float t = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0.0f;
        t = cg::reduce(tile, t, cg::plus<float>());
        if (tile.thread_rank() == 0) partial[blockIdx.x] = t;
    }
}

// Max and its index per block with cg::reduce on a custom pair and tile.shfl.
extern "C" __global__ void cg_block_max(const int *in, int *out, int n) {
    cg::thread_block block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : INT_MIN;
    int m = cg::reduce(tile, v, cg::greater<int>());
    int first = tile.shfl(v, 0);
    if (i < n) out[i] = m - first;
}
