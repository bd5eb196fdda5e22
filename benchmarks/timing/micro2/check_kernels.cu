// Diagnostic kernels in the style of the failures named in issue 20 (CUDA-samples-like).
extern "C" __global__ void reduce_tree(const float *in, float *out, unsigned n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float s = (i < n) ? in[i] : 0.f;
    if (i + blockDim.x < n) s += in[i + blockDim.x];
    sdata[tid] = s;
    __syncthreads();
    for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) sdata[tid] = s = s + sdata[tid + k];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void reduce_interleaved(const float *in, float *out, unsigned n) {
    extern __shared__ float sdata[];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    sdata[tid] = (i < n) ? in[i] : 0.f;
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
extern "C" __global__ void sgemm_naive(const float *A, const float *B, float *C, int n) {
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f;
    for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
}
#define TILE 16
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int n) {
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.f;
    for (int t = 0; t < n / TILE; ++t) {
        As[ty][tx] = A[row * n + t * TILE + tx];
        Bs[ty][tx] = B[(t * TILE + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}
extern "C" __global__ void hist_shared256(const unsigned char *data, unsigned n, unsigned *hist) {
    __shared__ unsigned h[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&hist[i], h[i]);
}
extern "C" __global__ void seg_scan(const float *in, const int *flags, float *out, unsigned n) {
    // warp-level segmented inclusive scan with shuffles, then block level through shared memory
    __shared__ float wsum[32];
    __shared__ int wflag[32];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    float v = i < n ? in[i] : 0.f;
    int f = i < n ? flags[i] : 1;
    for (int d = 1; d < 32; d <<= 1) {
        float u = __shfl_up_sync(0xffffffff, v, d);
        int g = __shfl_up_sync(0xffffffff, f, d);
        if (lane >= d) { if (!f) v += u; f |= g; }
    }
    if (lane == 31) { wsum[w] = v; wflag[w] = f; }
    __syncthreads();
    if (w == 0) {
        float s = lane < (blockDim.x >> 5) ? wsum[lane] : 0.f;
        int g = lane < (blockDim.x >> 5) ? wflag[lane] : 1;
        for (int d = 1; d < 32; d <<= 1) {
            float u = __shfl_up_sync(0xffffffff, s, d);
            int h = __shfl_up_sync(0xffffffff, g, d);
            if (lane >= d) { if (!g) s += u; g |= h; }
        }
        wsum[lane] = s; wflag[lane] = g;
    }
    __syncthreads();
    // add the previous warps' carry to the elements before this warp's first flag
    if (w > 0) {
        int seen = __ballot_sync(0xffffffff, f) & ((2u << lane) - 1);
        if (!seen) v += wsum[w - 1];
    }
    if (i < n) out[i] = v;
}
extern "C" __global__ void fma_warp(float *out, int iters) {
    float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    for (int i = 0; i < iters; ++i) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f); c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    out[threadIdx.x] = a + b + c + d;
}
extern "C" __global__ void loop_data(const int *counts, float *out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = 1.0f;
    for (int k = 0; k < counts[i]; ++k) x = x * 1.0001f + 0.5f;
    out[i] = x;
}
extern "C" __global__ void empty_kernel() {}
