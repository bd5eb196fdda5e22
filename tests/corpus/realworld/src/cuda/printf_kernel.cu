// Device printf of integers, floats, strings and pointers-as-ints, from a few threads.
#include <cstdio>

extern "C" __global__ void say_hello(const float *vals, int *count) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 8 == 0) {
        printf("block %d thread %d: %8.3f %e [%s] %x\n", blockIdx.x, threadIdx.x, vals[t],
               (double)vals[t] * 1e10, t & 1 ? "odd" : "even", t * 255);
        atomicAdd(count, 1);
    }
}
