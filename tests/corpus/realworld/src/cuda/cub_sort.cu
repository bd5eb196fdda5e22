// CUB block radix sort of (key, value) pairs: 128 threads x 4 items per block.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>

constexpr int THREADS = 128;
constexpr int ITEMS = 4;

extern "C" __global__ void cub_block_sort_pairs(const unsigned *keys_in, const int *vals_in,
                                                unsigned *keys_out, int *vals_out) {
    using Sort = cub::BlockRadixSort<unsigned, THREADS, ITEMS, int>;
    using LoadK = cub::BlockLoad<unsigned, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    using LoadV = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename LoadK::TempStorage loadk;
        typename LoadV::TempStorage loadv;
    } temp;
    unsigned k[ITEMS];
    int v[ITEMS];
    int off = blockIdx.x * THREADS * ITEMS;
    LoadK(temp.loadk).Load(keys_in + off, k);
    __syncthreads();
    LoadV(temp.loadv).Load(vals_in + off, v);
    __syncthreads();
    Sort(temp.sort).SortBlockedToStriped(k, v);
    cub::StoreDirectStriped<THREADS>(threadIdx.x, keys_out + off, k);
    cub::StoreDirectStriped<THREADS>(threadIdx.x, vals_out + off, v);
}
