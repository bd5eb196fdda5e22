// Element-wise vector addition in three element types.
// The canonical first CUDA kernel: one thread per element with a tail guard.

extern "C" __global__ void vector_add_f32(const float* __restrict__ a,
                                          const float* __restrict__ b,
                                          float* __restrict__ c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" __global__ void vector_add_i32(const int* a, const int* b, int* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// 64-bit element count and 64-bit index arithmetic.
extern "C" __global__ void vector_add_f64(const double* a, const double* b, double* c,
                                          long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}
