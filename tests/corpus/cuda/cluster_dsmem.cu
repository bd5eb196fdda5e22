// corpus: min_arch=sm_90
// Thread block clusters and distributed shared memory (sm_90):
// cooperative_groups::this_cluster(), cluster.sync(), map_shared_rank.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Each block of a 2-block cluster loads a tile, then reads its partner's tile
// through distributed shared memory and writes the elementwise sum.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
cluster_pair_sum(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float tile[256];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned rank = cluster.block_rank();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = gid < n ? in[gid] : 0.0f;
    cluster.sync();
    float* peer = cluster.map_shared_rank(tile, rank ^ 1u);
    float v = tile[threadIdx.x] + peer[threadIdx.x];
    cluster.sync();   // keep the peer's shared memory alive until all reads finish
    if (gid < n)
        out[gid] = v;
}

// Distributed histogram: a cluster of 4 blocks shares 4*64 bins; bin b lives in
// block (b / 64) of the cluster.  Each cluster writes its own histogram.
extern "C" __global__ void __cluster_dims__(4, 1, 1)
cluster_histogram(const int* __restrict__ in, int n, int* __restrict__ hist)
{
    __shared__ int bins[64];
    cg::cluster_group cluster = cg::this_cluster();
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        bins[b] = 0;
    cluster.sync();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (gid < n) {
        int b = ((in[gid] % 256) + 256) % 256;
        int* dst = cluster.map_shared_rank(bins, (unsigned)(b / 64));
        atomicAdd(&dst[b % 64], 1);
    }
    cluster.sync();
    unsigned cid = blockIdx.x / cluster.num_blocks();
    unsigned rank = cluster.block_rank();
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
        hist[cid * 256 + rank * 64 + b] = bins[b];
}

// Cluster geometry query (no __cluster_dims__: the cluster shape comes from
// the launch attributes; with a plain launch it is 1x1x1).
extern "C" __global__ void cluster_info(unsigned* __restrict__ out)
{
    cg::cluster_group cluster = cg::this_cluster();
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    dim3 d = cluster.dim_blocks();
    out[4 * gid + 0] = cluster.block_rank();
    out[4 * gid + 1] = cluster.num_blocks();
    out[4 * gid + 2] = cluster.thread_rank();
    out[4 * gid + 3] = d.x * 100 + d.y * 10 + d.z;
}
