// All-pairs N-body acceleration with shared-memory tiling of float4
// positions (xyz + mass) and rsqrtf, plus a leapfrog integration step.

#define NB_TILE 128   // == blockDim.x

extern "C" __global__ void nbody_accel(const float4* __restrict__ pos, float3* __restrict__ acc,
                                       int n, float softening2)
{
    __shared__ float4 sh[NB_TILE];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 pi = i < n ? pos[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    float3 a = make_float3(0.f, 0.f, 0.f);
    for (int tile = 0; tile < n; tile += NB_TILE) {
        int j = tile + threadIdx.x;
        sh[threadIdx.x] = j < n ? pos[j] : make_float4(0.f, 0.f, 0.f, 0.f);
        __syncthreads();
        int lim = min(NB_TILE, n - tile);
        for (int k = 0; k < lim; ++k) {
            float4 pj = sh[k];
            float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            float d2 = dx * dx + dy * dy + dz * dz + softening2;
            float inv = rsqrtf(d2);
            float s = pj.w * inv * inv * inv;
            a.x += dx * s;
            a.y += dy * s;
            a.z += dz * s;
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = a;
}

extern "C" __global__ void nbody_integrate(float4* __restrict__ pos, float4* __restrict__ vel,
                                           const float3* __restrict__ acc, int n, float dt)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = vel[i];
    float3 a = acc[i];
    v.x += a.x * dt; v.y += a.y * dt; v.z += a.z * dt;
    float4 p = pos[i];
    p.x += v.x * dt; p.y += v.y * dt; p.z += v.z * dt;
    vel[i] = v;
    pos[i] = p;
}
