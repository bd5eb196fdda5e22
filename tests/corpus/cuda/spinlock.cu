// A spin lock per block built from atomicCAS / atomicExch.  Every thread of
// the block increments a shared counter (held in global memory) while holding
// the lock.  The acquire loop is written so that the thread which wins the CAS
// does its critical section *inside* the winning branch: this is deadlock-free
// both with independent thread scheduling (sm_70+) and with lock-step warps.
//
// Expected result: counters[b] == blockDim.x * iters for every block b, and
// order[...] holds a permutation of 0..blockDim.x*iters-1 per block.

__device__ __forceinline__ bool try_lock(int* lock)
{
    return atomicCAS(lock, 0, 1) == 0;
}

__device__ __forceinline__ void unlock(int* lock)
{
    __threadfence();
    atomicExch(lock, 0);
}

extern "C" __global__ void spinlock_counter(int* __restrict__ locks,
                                            int* __restrict__ counters,
                                            int* __restrict__ order, int iters)
{
    int* lock = &locks[blockIdx.x];
    volatile int* counter = &counters[blockIdx.x];
    for (int it = 0; it < iters; ++it) {
        bool done = false;
        while (!done) {
            if (try_lock(lock)) {
                int c = *counter;        // non-atomic read-modify-write,
                *counter = c + 1;        // protected by the lock
                order[blockIdx.x * blockDim.x * iters + c] = threadIdx.x;
                unlock(lock);
                done = true;
            }
        }
    }
}

// Same with a global lock shared by all blocks and a 64-bit accumulator.
extern "C" __global__ void spinlock_global_sum(int* __restrict__ lock,
                                               unsigned long long* __restrict__ total,
                                               const unsigned* __restrict__ values, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = values[i];
    bool done = false;
    while (!done) {
        if (atomicCAS(lock, 0, 1) == 0) {
            volatile unsigned long long* t = total;
            *t = *t + v;
            __threadfence();
            atomicExch(lock, 0);
            done = true;
        }
    }
}
