// CUB block-wide primitives: an inclusive prefix sum and a block reduction (warp-scans variant).
#include <cub/block/block_scan.cuh>
#include <cub/block/block_reduce.cuh>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;

extern "C" __global__ void cub_block_scan(const int *in, int *out, int *totals) {
    using Scan = cub::BlockScan<int, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ typename Scan::TempStorage temp;
    int items[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
    for (int k = 0; k < ITEMS; ++k) items[k] = in[base + k];
    int total;
    Scan(temp).InclusiveSum(items, items, total);
    for (int k = 0; k < ITEMS; ++k) out[base + k] = items[k];
    if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

extern "C" __global__ void cub_block_reduce_max(const float *in, float *out) {
    using Reduce = cub::BlockReduce<float, THREADS>;
    __shared__ typename Reduce::TempStorage temp;
    float v = in[blockIdx.x * THREADS + threadIdx.x];
    float m = Reduce(temp).Reduce(v, cuda::maximum<float>{});
    if (threadIdx.x == 0) out[blockIdx.x] = m;
}
