// cub::BlockRadixSort: each block sorts a tile of 128 threads x 8 items.
// Keys only (unsigned), and key-value pairs (float keys, int values),
// with descending order for the pairs.  The tail tile is padded with the
// maximum (resp. minimum) key so that padding sorts to the end.
#include <cub/cub.cuh>
#include <cfloat>

#define RS_THREADS 128
#define RS_ITEMS 8
#define RS_TILE (RS_THREADS * RS_ITEMS)

extern "C" __global__ void cub_radix_sort_keys(const unsigned* __restrict__ in,
                                               unsigned* __restrict__ out, int n)
{
    using Sort = cub::BlockRadixSort<unsigned, RS_THREADS, RS_ITEMS>;
    using Load = cub::BlockLoad<unsigned, RS_THREADS, RS_ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
    using Store = cub::BlockStore<unsigned, RS_THREADS, RS_ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
    __shared__ union {
        typename Sort::TempStorage sort;
        typename Load::TempStorage load;
        typename Store::TempStorage store;
    } temp;
    int base = blockIdx.x * RS_TILE;
    int valid = min(RS_TILE, n - base);
    unsigned keys[RS_ITEMS];
    Load(temp.load).Load(in + base, keys, valid, 0xffffffffu);
    __syncthreads();
    Sort(temp.sort).Sort(keys);
    __syncthreads();
    Store(temp.store).Store(out + base, keys, valid);
}

extern "C" __global__ void cub_radix_sort_pairs_desc(const float* __restrict__ keys_in,
                                                     const int* __restrict__ vals_in,
                                                     float* __restrict__ keys_out,
                                                     int* __restrict__ vals_out, int n)
{
    using Sort = cub::BlockRadixSort<float, RS_THREADS, RS_ITEMS, int>;
    __shared__ typename Sort::TempStorage temp;
    int base = blockIdx.x * RS_TILE;
    float k[RS_ITEMS];
    int v[RS_ITEMS];
#pragma unroll
    for (int i = 0; i < RS_ITEMS; ++i) {
        int idx = base + threadIdx.x * RS_ITEMS + i;   // blocked arrangement
        k[i] = idx < n ? keys_in[idx] : -FLT_MAX;
        v[i] = idx < n ? vals_in[idx] : -1;
    }
    Sort(temp).SortDescendingBlockedToStriped(k, v);
#pragma unroll
    for (int i = 0; i < RS_ITEMS; ++i) {
        int idx = base + i * RS_THREADS + threadIdx.x;   // striped arrangement
        if (idx < n) {
            keys_out[idx] = k[i];
            vals_out[idx] = v[i];
        }
    }
}
