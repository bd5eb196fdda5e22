// Inclusive prefix sums within a block:
//  * Hillis-Steele with double-buffered shared memory (O(n log n) work),
//  * a warp-shuffle scan (__shfl_up_sync) combined across warps,
//  * a kernel that adds scanned block sums back (the second pass of a
//    multi-block scan).

extern "C" __global__ void scan_hillis_steele(const float* __restrict__ in,
                                              float* __restrict__ out,
                                              float* __restrict__ block_sums, int n)
{
    extern __shared__ float buf[];   // 2 * blockDim.x floats
    int tid = threadIdx.x;
    int gid = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;
    buf[pout * blockDim.x + tid] = (gid < n) ? in[gid] : 0.0f;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        float v = buf[pin * blockDim.x + tid];
        if (tid >= offset)
            v += buf[pin * blockDim.x + tid - offset];
        buf[pout * blockDim.x + tid] = v;
        __syncthreads();
    }
    float r = buf[pout * blockDim.x + tid];
    if (gid < n)
        out[gid] = r;
    if (block_sums && tid == blockDim.x - 1)
        block_sums[blockIdx.x] = r;
}

__device__ __forceinline__ int warp_inclusive_scan(int v)
{
    int lane = threadIdx.x & 31;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        int t = __shfl_up_sync(0xffffffffu, v, off);
        if (lane >= off)
            v += t;
    }
    return v;
}

// Integer scan: result is exact and order independent. blockDim.x % 32 == 0.
extern "C" __global__ void scan_warp_shfl(const int* __restrict__ in, int* __restrict__ out,
                                          int* __restrict__ block_sums, int n)
{
    __shared__ int warp_totals[32];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    int v = (gid < n) ? in[gid] : 0;
    v = warp_inclusive_scan(v);
    if (lane == 31)
        warp_totals[wid] = v;
    __syncthreads();
    if (wid == 0) {
        int nw = blockDim.x >> 5;
        int t = (lane < nw) ? warp_totals[lane] : 0;
        t = warp_inclusive_scan(t);
        if (lane < nw)
            warp_totals[lane] = t;
    }
    __syncthreads();
    if (wid > 0)
        v += warp_totals[wid - 1];
    if (gid < n)
        out[gid] = v;
    if (block_sums && threadIdx.x == blockDim.x - 1)
        block_sums[blockIdx.x] = v;
}

// Second pass: out[i] += scanned_sums[block - 1] for every block but the first.
extern "C" __global__ void scan_add_block_offsets(int* __restrict__ out,
                                                  const int* __restrict__ scanned_sums, int n)
{
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && gid < n)
        out[gid] += scanned_sums[blockIdx.x - 1];
}
