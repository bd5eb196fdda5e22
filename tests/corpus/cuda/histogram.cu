// Histograms with privatised shared-memory bins and shared-memory atomics,
// merged into the global histogram with global atomics.

#define HIST_BINS 256

extern "C" __global__ void histogram256(const unsigned char* __restrict__ data, int n,
                                        unsigned int* __restrict__ hist)
{
    __shared__ unsigned int local[HIST_BINS];
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < HIST_BINS; b += blockDim.x) {
        unsigned int c = local[b];
        if (c)
            atomicAdd(&hist[b], c);
    }
}

// Float values binned into nbins equal-width bins over [lo, hi); values
// outside the range are clamped into the edge bins.  nbins <= 1024.
extern "C" __global__ void histogram_float(const float* __restrict__ x, int n, float lo,
                                           float hi, int nbins, int* __restrict__ hist)
{
    extern __shared__ int bins[];
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    float scale = nbins / (hi - lo);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int b = (int)floorf((x[i] - lo) * scale);
        b = min(max(b, 0), nbins - 1);
        atomicAdd(&bins[b], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < nbins; b += blockDim.x)
        atomicAdd(&hist[b], bins[b]);
}
