// Cooperative groups without grid synchronisation: thread_block,
// tiled_partition (static tiles of 32 and 8), cg::reduce, tile shuffles,
// coalesced_threads() inside divergent code and labeled_partition.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

namespace cg = cooperative_groups;

extern "C" __global__ void cg_tile_reduce(const float* __restrict__ in,
                                          float* __restrict__ out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = block.group_index().x * block.size() + block.thread_rank(); i < n;
         i += block.size() * gridDim.x)
        v += in[i];
    v = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0)
        warp_sums[warp.meta_group_rank()] = v;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        float w = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()]
                                                             : 0.0f;
        w = cg::reduce(warp, w, cg::plus<float>());
        if (warp.thread_rank() == 0)
            out[block.group_index().x] = w;   // per-block partial, deterministic
    }
}

// Sub-warp tiles of 8: every tile computes its max with explicit shuffles and
// an inclusive scan with cg::inclusive_scan.
extern "C" __global__ void cg_tile8_ops(const int* __restrict__ in, int* __restrict__ tile_max,
                                        int* __restrict__ scan_out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> tile = cg::tiled_partition<8>(block);
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int v = gid < n ? in[gid] : 0;
    int m = v;
    for (int off = tile.size() / 2; off > 0; off >>= 1)
        m = max(m, tile.shfl_down(m, off));
    m = tile.shfl(m, 0);
    int s = cg::inclusive_scan(tile, v, cg::plus<int>());
    if (gid < n) {
        scan_out[gid] = s;
        if (tile.thread_rank() == 0)
            tile_max[gid / 8] = m;
    }
}

// coalesced_threads(): only lanes with a positive value take part; the
// group elects a leader that does one atomicAdd for the whole group.
extern "C" __global__ void cg_coalesced_count(const int* __restrict__ in,
                                              int* __restrict__ positive_count,
                                              int* __restrict__ rank_out, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid >= n)
        return;
    rank_out[gid] = -1;
    if (in[gid] > 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        int base = 0;
        if (active.thread_rank() == 0)
            base = atomicAdd(positive_count, (int)active.size());
        (void)active.shfl(base, 0);
        rank_out[gid] = active.thread_rank();   // rank within the warp's active set
    }
}
