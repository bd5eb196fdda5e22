// Inter-block producer/consumer through a flag in global memory.
// Block 0 is the producer: it writes a payload, __threadfence(), then sets
// the flag.  Every other block is a consumer: thread 0 spins on a volatile
// load of the flag, then the block reads the payload.
//
// Safe to run with few blocks (e.g. grid = 2..8, all co-resident on a GPU).
// On an engine that runs blocks one at a time in increasing blockIdx order it
// is also safe, because the producer is block 0.  The spin is bounded
// (max_spins) so a consumer that never sees the flag records -1 instead of
// hanging.

extern "C" __global__ void flag_producer_consumer(int* __restrict__ payload,
                                                  volatile int* flag,
                                                  int* __restrict__ result, int n,
                                                  int max_spins)
{
    __shared__ int seen;
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            payload[i] = i * 3 + 7;
        __threadfence();
        __syncthreads();
        if (threadIdx.x == 0) {
            *flag = 1;
            __threadfence();
        }
        return;
    }
    if (threadIdx.x == 0) {
        int spins = 0;
        while (*flag == 0 && spins < max_spins)
            ++spins;
        seen = (*flag != 0);
        __threadfence();
    }
    __syncthreads();
    if (!seen) {
        if (threadIdx.x == 0)
            result[blockIdx.x] = -1;
        return;
    }
    // Each consumer block sums the payload (volatile reads bypass L1).
    __shared__ int partial[256];
    const volatile int* vp = payload;
    int s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s += vp[i];
    partial[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        int t = 0;
        for (int k = 0; k < blockDim.x; ++k)
            t += partial[k];
        result[blockIdx.x] = t;
    }
}
