// corpus: min_arch=sm_80
// Warp-wide integer reductions in hardware (redux.sync, sm_80+):
// __reduce_add_sync / min / max / and / or / xor.

extern "C" __global__ void warp_redux(const int* __restrict__ in, int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned u = (unsigned)v;
    int s = __reduce_add_sync(0xffffffffu, v);
    int mn = __reduce_min_sync(0xffffffffu, v);
    int mx = __reduce_max_sync(0xffffffffu, v);
    unsigned a = __reduce_and_sync(0xffffffffu, u | 0x80000000u);
    unsigned o = __reduce_or_sync(0xffffffffu, u & 0xffu);
    unsigned x = __reduce_xor_sync(0xffffffffu, u);
    unsigned umx = __reduce_max_sync(0xffffffffu, u);
    if ((threadIdx.x & 31) == 0) {
        int w = i >> 5;
        out[7 * w + 0] = s;
        out[7 * w + 1] = mn;
        out[7 * w + 2] = mx;
        out[7 * w + 3] = (int)a;
        out[7 * w + 4] = (int)o;
        out[7 * w + 5] = (int)x;
        out[7 * w + 6] = (int)umx;
    }
}

// Partial-warp reduction under a ballot mask (only lanes with even keys).
extern "C" __global__ void warp_redux_masked(const int* __restrict__ in, int* __restrict__ out,
                                             int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 1;
    unsigned mask = __ballot_sync(0xffffffffu, (v & 1) == 0);
    if ((v & 1) == 0) {
        int s = __reduce_add_sync(mask, v);
        if (i < n)
            out[i] = s;
    } else if (i < n) {
        out[i] = -1;
    }
}
