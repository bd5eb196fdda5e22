// Compute-bound loops of fused multiply-adds: Horner evaluation of a
// polynomial whose degree is a runtime argument, an unrolled fixed-degree
// variant, and a double-precision recurrence.

extern "C" __global__ void fma_horner(const float* __restrict__ x,
                                      const float* __restrict__ coeffs, int degree,
                                      float* __restrict__ y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float acc = coeffs[degree];
    for (int k = degree - 1; k >= 0; --k)
        acc = fmaf(acc, v, coeffs[k]);
    y[i] = acc;
}

extern "C" __global__ void fma_unrolled(const float* __restrict__ x, float* __restrict__ y,
                                        int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float a = x[i];
    float b = 0.5f * a;
    float c = 1.0f;
#pragma unroll 8
    for (int k = 0; k < iters; ++k) {
        c = fmaf(a, c, b);      // c = a*c + b
        c = fmaf(c, 0.25f, -0.125f);
    }
    y[i] = c;
}

extern "C" __global__ void fma_f64(const double* __restrict__ x, double* __restrict__ y,
                                   int n, int iters)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    double acc = 0.0;
    for (int k = 0; k < iters; ++k)
        acc = fma(acc, 0.5, v * (double)(k + 1));
    y[i] = acc;
}
