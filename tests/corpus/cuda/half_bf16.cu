// Half and bfloat16 arithmetic: paired __half2 math, conversions, and
// __nv_bfloat16 / __nv_bfloat162 operations (native on sm_80+, emulated
// through float on older targets).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

// y = a*x + y on half2 pairs, n2 = number of half2 elements.
extern "C" __global__ void haxpy_half2(int n2, __half2 a, const __half2* __restrict__ x,
                                       __half2* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2)
        y[i] = __hfma2(a, x[i], y[i]);
}

extern "C" __global__ void half_ops(const float* __restrict__ in, float* __restrict__ out,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __half h = __float2half_rn(in[i]);
    __half2 p = __halves2half2(h, __float2half(1.5f));
    p = __hmul2(p, p);                           // (h*h, 2.25)
    p = __hadd2(p, __float2half2_rn(0.25f));
    __half m = __hmax(__low2half(p), __high2half(p));
    __half r = hsqrt(__habs(__hsub(m, h)));
    bool lt = __hlt(h, __float2half(0.0f));
    out[2 * i] = __half2float(r) + (lt ? 1.0f : 0.0f);
    out[2 * i + 1] = __half2float(h2exp(p).x) + __half2float(__hneg(__high2half(p)));
}

extern "C" __global__ void bf16_ops(const float* __restrict__ a, const float* __restrict__ b,
                                    float* __restrict__ out, __nv_bfloat16* __restrict__ packed,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_bfloat16 x = __float2bfloat16(a[i]);
    __nv_bfloat16 y = __float2bfloat16_rz(b[i]);
    __nv_bfloat16 s = __hadd(x, y);
    __nv_bfloat16 p = __hmul(x, y);
#if __CUDA_ARCH__ >= 800
    __nv_bfloat16 f = __hfma(x, y, s);
#else
    __nv_bfloat16 f = __float2bfloat16(__bfloat162float(x) * __bfloat162float(y) + __bfloat162float(s));
#endif
    __nv_bfloat162 v2 = __halves2bfloat162(s, p);
    v2 = __hmul2(v2, __float2bfloat162_rn(0.5f));
    out[3 * i] = __bfloat162float(f);
    out[3 * i + 1] = __low2float(v2);
    out[3 * i + 2] = __high2float(v2) + (__hgt(x, y) ? 1.0f : 0.0f);
    packed[i] = __hmax(x, y);
}

// Dot product with half2 loads and float accumulation, per-block partial.
extern "C" __global__ void half2_dot(const __half2* __restrict__ x,
                                     const __half2* __restrict__ y,
                                     float* __restrict__ partial, int n2)
{
    __shared__ float red[256];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
        float2 p = __half22float2(__hmul2(x[i], y[i]));
        acc += p.x + p.y;
    }
    red[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        partial[blockIdx.x] = red[0];
}
