// __half / __half2 / __nv_bfloat16 / __nv_bfloat162 arithmetic and conversions.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_math(const __half2 *a, const __half2 *b, __half2 *fma_out,
                                     __half *misc, float *widened, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i];
    fma_out[i] = __hfma2(x, y, __float2half2_rn(0.25f));
    __half lo = __low2half(x), hi = __high2half(y);
    misc[4 * i + 0] = __hmax(lo, hi);
    misc[4 * i + 1] = __hdiv(lo, __hadd(hi, __float2half(2.0f)));
    misc[4 * i + 2] = hsqrt(__habs(lo));
    misc[4 * i + 3] = __hmul_sat(lo, hi);
    widened[i] = __half2float(lo) * __half2float(hi) + __low2float(__h2div(x, y));
}

extern "C" __global__ void bf16_math(const float *a, const float *b, __nv_bfloat16 *out,
                                     float *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_bfloat16 x = __float2bfloat16(a[i]), y = __float2bfloat16_rz(b[i]);
    __nv_bfloat162 p = __floats2bfloat162_rn(a[i], b[i]);
    __nv_bfloat162 q = __hmul2(p, __halves2bfloat162(y, x));
    out[3 * i + 0] = __hfma(x, y, __float2bfloat16(1.0f));
    out[3 * i + 1] = __hmax(__low2bfloat16(q), __high2bfloat16(q));
    out[3 * i + 2] = hexp(x);
    back[i] = __bfloat162float(x) - __bfloat162float(y) + __high2float(q);
}
