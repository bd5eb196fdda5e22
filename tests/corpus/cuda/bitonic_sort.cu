// Bitonic sorting networks.
//  * bitonic_sort_block: each block sorts a 1024-key segment in shared memory
//    (512 threads, 2 keys per thread); the tail segment is padded with INT_MAX.
//  * bitonic_step_global: one compare-exchange step over a power-of-two sized
//    global array (the host loops over k and j).
#include <climits>

#define SEG 1024

extern "C" __global__ void bitonic_sort_block(int* __restrict__ data, int n)
{
    __shared__ int s[SEG];
    int base = blockIdx.x * SEG;
    for (int i = threadIdx.x; i < SEG; i += blockDim.x)
        s[i] = (base + i < n) ? data[base + i] : INT_MAX;
    __syncthreads();
    for (int k = 2; k <= SEG; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < SEG; i += blockDim.x) {
                int ixj = i ^ j;
                if (ixj > i) {
                    bool up = (i & k) == 0;
                    int a = s[i], b = s[ixj];
                    if ((a > b) == up) {
                        s[i] = b;
                        s[ixj] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    for (int i = threadIdx.x; i < SEG; i += blockDim.x)
        if (base + i < n)
            data[base + i] = s[i];
}

extern "C" __global__ void bitonic_step_global(float* __restrict__ data, int j, int k)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned ixj = i ^ j;
    if (ixj > i) {
        float a = data[i], b = data[ixj];
        bool up = (i & k) == 0;
        if ((up && a > b) || (!up && a < b)) {
            data[i] = b;
            data[ixj] = a;
        }
    }
}
