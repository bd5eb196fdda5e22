// CUB block-wide collectives: BlockLoad/BlockStore, BlockReduce (sum and
// max), BlockScan (inclusive and exclusive) with 4 items per thread.
#include <cub/cub.cuh>

#define CUB_THREADS 128
#define CUB_ITEMS 4

extern "C" __global__ void cub_block_reduce(const float* __restrict__ in,
                                            float* __restrict__ block_sum,
                                            int* __restrict__ block_max_idx, int n)
{
    using Reduce = cub::BlockReduce<float, CUB_THREADS>;
    using ReduceI = cub::BlockReduce<int, CUB_THREADS, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
    __shared__ typename Reduce::TempStorage temp;
    __shared__ typename ReduceI::TempStorage tempi;
    int gid = blockIdx.x * CUB_THREADS + threadIdx.x;
    float v = gid < n ? in[gid] : 0.0f;
    int valid = min(CUB_THREADS, n - (int)(blockIdx.x * CUB_THREADS));
    float s = Reduce(temp).Sum(v, valid);
    int key = gid < n ? (int)(in[gid] * 1000.0f) : INT_MIN;
    int m = ReduceI(tempi).Reduce(key, cuda::maximum<int>{});
    if (threadIdx.x == 0) {
        block_sum[blockIdx.x] = s;
        block_max_idx[blockIdx.x] = m;
    }
}

extern "C" __global__ void cub_block_scan(const int* __restrict__ in,
                                          int* __restrict__ inclusive,
                                          int* __restrict__ exclusive, int n)
{
    using Load = cub::BlockLoad<int, CUB_THREADS, CUB_ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using Store = cub::BlockStore<int, CUB_THREADS, CUB_ITEMS, cub::BLOCK_STORE_TRANSPOSE>;
    using Scan = cub::BlockScan<int, CUB_THREADS>;
    __shared__ union {
        typename Load::TempStorage load;
        typename Store::TempStorage store;
        typename Scan::TempStorage scan;
    } temp;
    int base = blockIdx.x * CUB_THREADS * CUB_ITEMS;
    int valid = min(CUB_THREADS * CUB_ITEMS, n - base);
    int items[CUB_ITEMS];
    Load(temp.load).Load(in + base, items, valid, 0);
    __syncthreads();
    int inc[CUB_ITEMS], exc[CUB_ITEMS];
    Scan(temp.scan).InclusiveSum(items, inc);
    __syncthreads();
    Scan(temp.scan).ExclusiveSum(items, exc);
    __syncthreads();
    Store(temp.store).Store(inclusive + base, inc, valid);
    __syncthreads();
    Store(temp.store).Store(exclusive + base, exc, valid);
}
