// Kernels taking structs by value: the PTX parameters become aligned .b8
// arrays (e.g. ".param .align 8 .b8 name[24]").

struct AffineParams {
    float scale;
    float bias;
    int n;
    int stride;
};  // 16 bytes, align 4

struct __align__(16) Mat4 {
    float m[4][4];
};  // 64 bytes, align 16

struct Mixed {
    char tag;       // offset 0
    double weight;  // offset 8
    short delta;    // offset 16
    int count;      // offset 20
};  // 24 bytes, align 8

struct Range {
    int lo, hi;
};
struct Nested {
    Range r;
    float values[3];
    unsigned char flags;
};  // 24 bytes, align 4

extern "C" __global__ void struct_affine(AffineParams p, const float* __restrict__ in,
                                         float* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n)
        out[i] = in[i * p.stride] * p.scale + p.bias;
}

extern "C" __global__ void struct_mat4(Mat4 t, const float4* __restrict__ in,
                                       float4* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float4 v = in[i];
    float r[4];
#pragma unroll
    for (int k = 0; k < 4; ++k)
        r[k] = t.m[k][0] * v.x + t.m[k][1] * v.y + t.m[k][2] * v.z + t.m[k][3] * v.w;
    out[i] = make_float4(r[0], r[1], r[2], r[3]);
}

extern "C" __global__ void struct_mixed(Mixed m, double* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = m.weight * (i % m.count) + m.delta + (double)m.tag;
}

extern "C" __global__ void struct_nested(Nested s, const int* __restrict__ in,
                                         float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int v = in[i];
    int c = v < s.r.lo ? s.r.lo : (v > s.r.hi ? s.r.hi : v);
    float w = s.values[(s.flags & 1) ? 2 : (c & 1)];
    out[i] = c * w;
}
