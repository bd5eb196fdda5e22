// Atomics: an integer histogram, max/min/CAS/exchange/and/or, and float adds of exact values.
extern "C" __global__ void histogram(const unsigned char *data, int n, unsigned *bins) {
    __shared__ unsigned local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i] & 63], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

__device__ float atomic_max_float(float *addr, float v) {
    int *ia = (int *)addr;
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(ia, assumed, __float_as_int(v));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void atomic_mix(const int *in, int n, int *ints, float *floats,
                                      unsigned long long *wide) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    atomicMax(&ints[0], v);
    atomicMin(&ints[1], v);
    atomicAnd(&ints[2], v | 0x0f0f0000);
    atomicOr(&ints[3], v & 0x00ff00ff);
    atomicXor(&ints[4], v);
    atomicInc((unsigned *)&ints[5], 1000u);
    atomicAdd(&floats[0], (float)(v & 255));
    atomic_max_float(&floats[1], (float)v * 0.5f);
    atomicAdd(&wide[0], (unsigned long long)(unsigned)v);
    atomicMax(&wide[1], (unsigned long long)v * 3ull);
}
