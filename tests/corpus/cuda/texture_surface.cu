// Texture and surface objects: bilinear sampling with tex2D<float4>,
// 1D fetches with tex1Dfetch, and writes through surf2Dwrite.

extern "C" __global__ void tex2d_sample(cudaTextureObject_t tex, float4* __restrict__ out,
                                        int width, int height, float du, float dv)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float u = (x + 0.5f) / width + du;
    float v = (y + 0.5f) / height + dv;
    out[y * width + x] = tex2D<float4>(tex, u, v);
}

extern "C" __global__ void tex1d_fetch_scale(cudaTextureObject_t tex, float* __restrict__ out,
                                             int n, float scale)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scale * tex1Dfetch<float>(tex, i);
}

// Blur a texture into a surface: 3x3 box filter using clamped texel reads.
extern "C" __global__ void tex_blur_to_surface(cudaTextureObject_t tex,
                                               cudaSurfaceObject_t surf, int width,
                                               int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            float4 t = tex2D<float4>(tex, x + dx + 0.5f, y + dy + 0.5f);
            acc.x += t.x; acc.y += t.y; acc.z += t.z; acc.w += t.w;
        }
    const float k = 1.0f / 9.0f;
    surf2Dwrite(make_float4(acc.x * k, acc.y * k, acc.z * k, acc.w * k), surf,
                x * (int)sizeof(float4), y);
}

extern "C" __global__ void surf_read_modify_write(cudaSurfaceObject_t surf, int width,
                                                  int height, float gain)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    float v = surf2Dread<float>(surf, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite(v * gain, surf, x * 4, y);
}
