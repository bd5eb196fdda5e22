// CUB warp and block collectives beyond scan/sort: WarpReduce, WarpScan (exclusive, custom op),
// BlockHistogram (sort-based) and BlockDiscontinuity.
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_discontinuity.cuh>

struct MaxAbs {
    __device__ int operator()(int a, int b) const { return abs(a) > abs(b) ? a : b; }
};

extern "C" __global__ void cub_warp_ops(const int *in, int *out) {
    using WR = cub::WarpReduce<int>;
    using WS = cub::WarpScan<int>;
    __shared__ typename WR::TempStorage wr[4];
    __shared__ typename WS::TempStorage ws[4];
    int warp = threadIdx.x / 32;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    int sum = WR(wr[warp]).Sum(v);
    int ex;
    WS(ws[warp]).ExclusiveScan(v, ex, 0, MaxAbs());
    int seg = WR(wr[warp]).HeadSegmentedSum(v, (threadIdx.x & 7) == 0);
    out[3 * i + 0] = (threadIdx.x & 31) == 0 ? sum : 0;
    out[3 * i + 1] = ex;
    out[3 * i + 2] = (threadIdx.x & 7) == 0 ? seg : 0;
}

extern "C" __global__ void cub_histogram_flags(const unsigned char *in, unsigned *hist, int *flags) {
    constexpr int THREADS = 128, ITEMS = 4, BINS = 32;
    using Hist = cub::BlockHistogram<unsigned char, THREADS, ITEMS, BINS, cub::BLOCK_HISTO_SORT>;
    using Disc = cub::BlockDiscontinuity<unsigned char, THREADS>;
    __shared__ typename Hist::TempStorage ht;
    __shared__ typename Disc::TempStorage dt;
    __shared__ unsigned bins[BINS];
    unsigned char items[ITEMS];
    int base = blockIdx.x * THREADS * ITEMS + threadIdx.x * ITEMS;
    for (int k = 0; k < ITEMS; ++k) items[k] = in[base + k] % BINS;
    Hist(ht).Histogram(items, bins);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += THREADS) hist[blockIdx.x * BINS + b] = bins[b];
    int head[ITEMS];
    Disc(dt).FlagHeads(head, items, cuda::std::not_equal_to<unsigned char>{});
    for (int k = 0; k < ITEMS; ++k) flags[base + k] = head[k];
}
