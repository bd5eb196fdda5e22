// Image-style kernels on vector types: uchar4 RGBA to grayscale, a float4
// vectorised copy-scale with __ldg, int2/short2 packing, and a 2D 3x3 box
// blur with clamped borders on 8-bit data.

extern "C" __global__ void rgba_to_gray(const uchar4* __restrict__ rgba,
                                        unsigned char* __restrict__ gray, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    uchar4 p = rgba[y * width + x];
    float g = 0.299f * p.x + 0.587f * p.y + 0.114f * p.z;
    gray[y * width + x] = (unsigned char)min(255, __float2int_rn(g));
}

extern "C" __global__ void float4_scale(const float4* __restrict__ in, float4* __restrict__ out,
                                        float s, int n4)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = __ldg(&in[i]);
        out[i] = make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
    }
}

extern "C" __global__ void pack_short2(const int2* __restrict__ in, short2* __restrict__ out,
                                       int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int2 v = in[i];
        out[i] = make_short2((short)max(-32768, min(32767, v.x)),
                             (short)max(-32768, min(32767, v.y)));
    }
}

extern "C" __global__ void box_blur_u8(const unsigned char* __restrict__ in,
                                       unsigned char* __restrict__ out, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    int sum = 0;
    for (int dy = -1; dy <= 1; ++dy) {
        int yy = min(max(y + dy, 0), height - 1);
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = min(max(x + dx, 0), width - 1);
            sum += in[yy * width + xx];
        }
    }
    out[y * width + x] = (unsigned char)((sum + 4) / 9);
}
