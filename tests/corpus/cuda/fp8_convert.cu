// FP8 conversions (cuda_fp8.h): float -> e4m3 / e5m2 with saturation and
// back, paired conversions, and an fp8-quantised scale/dequantise pipeline.
// Native cvt instructions exist on sm_89+; older targets emulate in software.
#include <cuda_fp8.h>
#include <cuda_fp16.h>

extern "C" __global__ void fp8_roundtrip(const float* __restrict__ in,
                                         float* __restrict__ e4m3_out,
                                         float* __restrict__ e5m2_out,
                                         unsigned char* __restrict__ raw_e4m3, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = in[i];
    __nv_fp8_e4m3 a(v);
    __nv_fp8_e5m2 b(v);
    e4m3_out[i] = float(a);
    e5m2_out[i] = float(b);
    raw_e4m3[i] = a.__x;
}

extern "C" __global__ void fp8x2_pack(const float2* __restrict__ in,
                                      unsigned short* __restrict__ packed,
                                      float2* __restrict__ back, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_fp8x2_e4m3 p(in[i]);
    packed[i] = p.__x;
    back[i] = float2(p);
}

// Quantise with a per-tensor scale, then dequantise through half.
extern "C" __global__ void fp8_quant_dequant(const float* __restrict__ in, float scale,
                                             __nv_fp8_storage_t* __restrict__ q,
                                             float* __restrict__ deq, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    __nv_fp8_storage_t s = __nv_cvt_float_to_fp8(in[i] * scale, __NV_SATFINITE, __NV_E4M3);
    q[i] = s;
    __half_raw hr = __nv_cvt_fp8_to_halfraw(s, __NV_E4M3);
    deq[i] = __half2float(__half(hr)) / scale;
}
