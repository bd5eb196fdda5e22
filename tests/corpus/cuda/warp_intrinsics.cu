// Warp-level intrinsics: __syncwarp, __ballot_sync, __any_sync, __all_sync,
// __activemask, __match_any_sync / __match_all_sync, __shfl_sync variants,
// and bit tricks on the resulting masks (__popc, __ffs, __clz, __brev).

extern "C" __global__ void warp_vote(const int* __restrict__ in, unsigned* __restrict__ out,
                                     int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned ballot = __ballot_sync(0xffffffffu, v > 0);
    int any_neg = __any_sync(0xffffffffu, v < 0);
    int all_small = __all_sync(0xffffffffu, v < 100 && v > -100);
    int lane = threadIdx.x & 31;
    unsigned lower = ballot & ((1u << lane) - 1u);
    if (i < n) {
        out[4 * i + 0] = ballot;
        out[4 * i + 1] = (unsigned)__popc(lower);         // rank among positives
        out[4 * i + 2] = (unsigned)(any_neg | (all_small << 1));
        out[4 * i + 3] = (unsigned)(__ffs(ballot) + (__clz(ballot) << 8)) ^ __brev(ballot);
    }
}

// Divergent code: the active mask inside a branch, and warp-synchronous
// stage through shared memory with __syncwarp.
extern "C" __global__ void warp_activemask_syncwarp(const int* __restrict__ in,
                                                    unsigned* __restrict__ masks,
                                                    int* __restrict__ rotated, int n)
{
    __shared__ int stage[1024];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    unsigned m = 0;
    if (v & 1)
        m = __activemask();
    else
        m = ~__ballot_sync(__activemask(), 1) ;
    stage[threadIdx.x] = v;
    __syncwarp();
    int lane = threadIdx.x & 31;
    int src = (threadIdx.x & ~31) | ((lane + 1) & 31);
    int r = stage[src];
    __syncwarp();
    if (i < n) {
        masks[i] = m;
        rotated[i] = r;
    }
}

// Grouping lanes by key: __match_any_sync gives each lane the mask of lanes
// holding the same key; the leader of each group writes the group size.
extern "C" __global__ void warp_match(const int* __restrict__ keys,
                                      unsigned* __restrict__ peers, int* __restrict__ leader_count,
                                      int* __restrict__ all_same, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int k = i < n ? keys[i] : -1;
    unsigned mask = __match_any_sync(0xffffffffu, k);
    int pred;
    unsigned all = __match_all_sync(0xffffffffu, k >> 4, &pred);
    int lane = threadIdx.x & 31;
    bool leader = (__ffs(mask) - 1) == lane;
    if (i < n) {
        peers[i] = mask;
        leader_count[i] = leader ? __popc(mask) : 0;
        all_same[i] = pred ? (int)all : 0;
    }
}

// Shuffle variants with sub-warp widths.
extern "C" __global__ void warp_shuffles(const float* __restrict__ in, float* __restrict__ out,
                                         int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? in[i] : 0.0f;
    float bcast = __shfl_sync(0xffffffffu, v, 3, 8);     // lane 3 of each 8-group
    float up = __shfl_up_sync(0xffffffffu, v, 2, 16);
    float down = __shfl_down_sync(0xffffffffu, v, 5);
    float x = __shfl_xor_sync(0xffffffffu, v, 7, 32);
    double d = __shfl_sync(0xffffffffu, (double)v * 2.0, 31 - (threadIdx.x & 31));
    if (i < n)
        out[i] = bcast + 2.0f * up + 4.0f * down + 8.0f * x + (float)d;
}
