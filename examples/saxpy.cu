// SAXPY / DAXPY: y = a*x + y, written with a grid-stride loop so that any
// grid size covers any n.

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x,
                                 float* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

extern "C" __global__ void daxpy(int n, double a, const double* __restrict__ x,
                                 double* __restrict__ y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

// Out-of-place variant with a strided read: z[i] = a*x[i*incx] + y[i]
extern "C" __global__ void saxpy_strided(int n, float a, const float* x, int incx,
                                         const float* y, float* z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        z[i] = fmaf(a, x[(long long)i * incx], y[i]);
}
