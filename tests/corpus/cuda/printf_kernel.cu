// Device-side printf (vprintf with a local-memory argument buffer).  Only a
// few threads print so the output stays short; every thread writes a value.
#include <cstdio>

extern "C" __global__ void printf_kernel(const float* __restrict__ in,
                                         int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i];
    out[i] = i * 2 + 1;
    if (threadIdx.x == 0)
        printf("block %d: first value %f (n=%d)\n", blockIdx.x, v, n);
    if (i == n - 1)
        printf("last thread %d of %d, %s, double %.3f, long %lld, char %c\n", i, n,
               "done", (double)v * 2.0, (long long)i << 33, 'x');
}
