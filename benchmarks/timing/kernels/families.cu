// The held-out timing families (issue 20): CUDA-samples-style kernels of many kinds, each
// launched at several sizes by families.py. Compiled here with nvcc 13.0 (`-arch=sm_90a -ptx`,
// benchmarks/timing/build.py) to families.ptx (committed) and, for the GPU, to a cubin.
// No kernel here is a copy of one in suite.cu: these are new code, timed and predicted as a user's.
#include <cuda_fp16.h>
#include <mma.h>
#include <cooperative_groups.h>
#include <cuda_pipeline.h>
namespace cg = cooperative_groups;

#define TID (blockIdx.x * blockDim.x + threadIdx.x)
#define GSTRIDE(i, n) for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); \
                               i += (long long)gridDim.x * blockDim.x)

// ================================================================== reductions (block 256)
// CUDA-samples "reduce0": interleaved addressing with a divergent modulo test.
extern "C" __global__ void red_interleaved_div(const float *in, float *out, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = TID;
    s[t] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (unsigned w = 1; w < blockDim.x; w *= 2) {
        if (t % (2 * w) == 0) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
// "reduce1": interleaved addressing, strided index (no divergence, bank conflicts).
extern "C" __global__ void red_interleaved_bank(const float *in, float *out, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = TID;
    s[t] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (unsigned w = 1; w < blockDim.x; w *= 2) {
        unsigned k = 2 * w * t;
        if (k < blockDim.x) s[k] += s[k + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
// "reduce2": sequential addressing.
extern "C" __global__ void red_sequential(const float *in, float *out, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = TID;
    s[t] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
// "reduce3": first add during the load (each block reduces 2 * blockDim elements).
extern "C" __global__ void red_first_add(const float *in, float *out, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 0; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
// "reduce4": first add plus the last warp unrolled without barriers.
__device__ void warp_reduce_volatile(volatile float *s, unsigned t) {
    s[t] += s[t + 32]; __syncwarp();
    s[t] += s[t + 16]; __syncwarp();
    s[t] += s[t + 8]; __syncwarp();
    s[t] += s[t + 4]; __syncwarp();
    s[t] += s[t + 2]; __syncwarp();
    s[t] += s[t + 1]; __syncwarp();
}
extern "C" __global__ void red_warp_unrolled(const float *in, float *out, int n) {
    __shared__ float s[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    float v = i < n ? in[i] : 0.f;
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned w = blockDim.x / 2; w > 32; w >>= 1) {
        if (t < w) s[t] += s[t + w];
        __syncthreads();
    }
    if (t < 32) warp_reduce_volatile(s, t);
    if (t == 0) out[blockIdx.x] = s[0];
}
// "reduce6"-like: many elements per thread (grid stride, float4 loads), shuffles, one atomic per block.
extern "C" __global__ void red_shfl_atomic(const float4 *in, float *out, int n4) {
    __shared__ float s[32];
    float acc = 0.f;
    GSTRIDE(i, n4) { float4 v = in[i]; acc += (v.x + v.y) + (v.z + v.w); }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < blockDim.x / 32 ? s[threadIdx.x] : 0.f;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0) atomicAdd(out, acc);
    }
}
// Every warp reduces by shuffles and adds its sum with one global atomic (one element per thread).
extern "C" __global__ void red_warp_atomic(const float *in, float *out, int n) {
    unsigned i = TID;
    float v = i < n ? in[i] : 0.f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
// Every thread adds into one of `slots` global words (atomics only; slots = 1 is the worst case).
extern "C" __global__ void red_atomic_slots(const float *in, float *out, int n, int slots) {
    unsigned i = TID;
    if (i < n) atomicAdd(out + (i % slots), in[i]);
}

// ================================================================== scans
// Hillis-Steele inclusive scan of 512 elements per block of 512 threads (double-buffered shared).
extern "C" __global__ void scan_hillis_steele(const float *in, float *out, float *sums, int n) {
    __shared__ float s[2][512];
    unsigned t = threadIdx.x, i = TID;
    int p = 0;
    s[0][t] = i < n ? in[i] : 0.f;
    __syncthreads();
    for (unsigned o = 1; o < blockDim.x; o <<= 1) {
        s[1 - p][t] = t >= o ? s[p][t] + s[p][t - o] : s[p][t];
        p = 1 - p;
        __syncthreads();
    }
    if (i < n) out[i] = s[p][t];
    if (t == blockDim.x - 1) sums[blockIdx.x] = s[p][t];
}
// Blelloch work-efficient exclusive scan of 1024 elements per block of 512 threads (bank conflicts).
extern "C" __global__ void scan_blelloch(const float *in, float *out, float *sums, int n) {
    __shared__ float s[1024];
    unsigned t = threadIdx.x, base = blockIdx.x * 1024;
    s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0.f;
    s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0.f;
    unsigned off = 1;
    for (unsigned d = 512; d > 0; d >>= 1) {
        __syncthreads();
        if (t < d) { unsigned a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1; s[b] += s[a]; }
        off <<= 1;
    }
    if (t == 0) { sums[blockIdx.x] = s[1023]; s[1023] = 0.f; }
    for (unsigned d = 1; d < 1024; d <<= 1) {
        off >>= 1;
        __syncthreads();
        if (t < d) {
            unsigned a = off * (2 * t + 1) - 1, b = off * (2 * t + 2) - 1;
            float x = s[a]; s[a] = s[b]; s[b] += x;
        }
    }
    __syncthreads();
    if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
    if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}
// Warp-shuffle block scan (inclusive), 4 elements per thread, block 256 (1024 elements per block).
extern "C" __global__ void scan_shfl(const float4 *in, float4 *out, float *sums, int n4) {
    __shared__ float ws[8];
    unsigned t = threadIdx.x, i = TID, lane = t & 31, w = t >> 5;
    float4 v = i < n4 ? in[i] : make_float4(0.f, 0.f, 0.f, 0.f);
    v.y += v.x; v.z += v.y; v.w += v.z;
    float x = v.w;
    for (int o = 1; o < 32; o <<= 1) { float y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
    if (lane == 31) ws[w] = x;
    __syncthreads();
    if (w == 0) {
        float y = lane < 8 ? ws[lane] : 0.f;
        for (int o = 1; o < 8; o <<= 1) { float z = __shfl_up_sync(0xffffffffu, y, o); if (lane >= o) y += z; }
        if (lane < 8) ws[lane] = y;
    }
    __syncthreads();
    float add = x - v.w + (w ? ws[w - 1] : 0.f);
    v.x += add; v.y += add; v.z += add; v.w += add;
    if (i < n4) out[i] = v;
    if (t == blockDim.x - 1) sums[blockIdx.x] = v.w;
}
// Segmented inclusive scan: head flags restart the sum; warp shuffles carry (value, flag) pairs.
extern "C" __global__ void scan_segmented(const float *in, const int *flags, float *out, int n) {
    unsigned i = TID, lane = threadIdx.x & 31;
    float x = i < n ? in[i] : 0.f;
    int f = i < n ? flags[i] : 1;
    for (int o = 1; o < 32; o <<= 1) {
        float y = __shfl_up_sync(0xffffffffu, x, o);
        int g = __shfl_up_sync(0xffffffffu, f, o);
        if (lane >= o && !f) { x += y; f |= g; }
    }
    if (i < n) out[i] = x;
}
// Segmented scan, sequential per thread over runs of 32 elements: the loop ends at a head flag,
// so the segment lengths change the control flow.
extern "C" __global__ void scan_segmented_seq(const float *in, const int *flags, float *out, int n) {
    long long b = (long long)TID * 32;
    if (b >= n) return;
    float acc = 0.f;
    for (int k = 0; k < 32 && b + k < n; k++) {
        if (flags[b + k]) acc = 0.f;
        acc += in[b + k];
        out[b + k] = acc;
    }
}

// ================================================================== histograms (256 bins)
extern "C" __global__ void hist_smem_atomic(const unsigned *data, unsigned *hist, int n4) {
    __shared__ unsigned h[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) h[b] = 0;
    __syncthreads();
    GSTRIDE(i, n4) {
        unsigned v = data[i];
        atomicAdd(&h[v & 255], 1u); atomicAdd(&h[(v >> 8) & 255], 1u);
        atomicAdd(&h[(v >> 16) & 255], 1u); atomicAdd(&h[v >> 24], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) if (h[b]) atomicAdd(&hist[b], h[b]);
}
extern "C" __global__ void hist_gmem_atomic(const unsigned *data, unsigned *hist, int n4) {
    GSTRIDE(i, n4) {
        unsigned v = data[i];
        atomicAdd(&hist[v & 255], 1u); atomicAdd(&hist[(v >> 8) & 255], 1u);
        atomicAdd(&hist[(v >> 16) & 255], 1u); atomicAdd(&hist[v >> 24], 1u);
    }
}
// One sub-histogram per warp in shared memory (8 x 256 words), merged at the end.
extern "C" __global__ void hist_warp_private(const unsigned *data, unsigned *hist, int n4) {
    __shared__ unsigned h[8][256];
    unsigned w = threadIdx.x >> 5;
    for (int b = threadIdx.x; b < 8 * 256; b += blockDim.x) (&h[0][0])[b] = 0;
    __syncthreads();
    GSTRIDE(i, n4) {
        unsigned v = data[i];
        atomicAdd(&h[w][v & 255], 1u); atomicAdd(&h[w][(v >> 8) & 255], 1u);
        atomicAdd(&h[w][(v >> 16) & 255], 1u); atomicAdd(&h[w][v >> 24], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x) {
        unsigned s = 0;
        for (int k = 0; k < 8; k++) s += h[k][b];
        if (s) atomicAdd(&hist[b], s);
    }
}

// ================================================================== transposes (n x n, n % 32 == 0; block 32 x 8)
extern "C" __global__ void tp_copy_tile(const float *in, float *out, int n) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = in[(y + j) * n + x];
}
extern "C" __global__ void tp_naive_rows(const float *in, float *out, int n) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[x * n + y + j] = in[(y + j) * n + x];
}
extern "C" __global__ void tp_naive_cols(const float *in, float *out, int n) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = in[x * n + y + j];
}
extern "C" __global__ void tp_smem_unpadded(const float *in, float *out, int n) {
    __shared__ float t[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void tp_smem_padded(const float *in, float *out, int n) {
    __shared__ float t[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) t[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * n + x] = t[threadIdx.x][threadIdx.y + j];
}
// XOR-swizzled shared tile (no padding, no conflicts).
extern "C" __global__ void tp_smem_swizzle(const float *in, float *out, int n) {
    __shared__ float t[32][32];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) { int r = threadIdx.y + j; t[r][threadIdx.x ^ r] = in[(y + j) * n + x]; }
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) { int c = threadIdx.y + j; out[(y + j) * n + x] = t[threadIdx.x][c ^ threadIdx.x]; }
}

// ================================================================== SGEMM (row-major, C = A B)
extern "C" __global__ void sg_naive(const float *A, const float *B, float *C, int M, int N, int K) {
    int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
}
// Naive with the thread index mapping swapped (uncoalesced B and C accesses).
extern "C" __global__ void sg_naive_swapped(const float *A, const float *B, float *C, int M, int N, int K) {
    int c = blockIdx.y * blockDim.y + threadIdx.y, r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N) return;
    float acc = 0.f;
    for (int k = 0; k < K; k++) acc += A[r * K + k] * B[k * N + c];
    C[r * N + c] = acc;
}
template <int T>
__device__ void sg_tiled_body(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float a[T][T], b[T][T];
    int tx = threadIdx.x, ty = threadIdx.y, r = blockIdx.y * T + ty, c = blockIdx.x * T + tx;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += T) {
        a[ty][tx] = A[r * K + k0 + tx];
        b[ty][tx] = B[(k0 + ty) * N + c];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; k++) acc += a[ty][k] * b[k][tx];
        __syncthreads();
    }
    C[r * N + c] = acc;
}
extern "C" __global__ void sg_tiled16(const float *A, const float *B, float *C, int M, int N, int K) {
    sg_tiled_body<16>(A, B, C, M, N, K);
}
extern "C" __global__ void sg_tiled32(const float *A, const float *B, float *C, int M, int N, int K) {
    sg_tiled_body<32>(A, B, C, M, N, K);
}
// Register-blocked: 64 x 64 tile per block of 256 threads, 4 x 4 outputs per thread, k-step 16.
extern "C" __global__ void sg_regblock(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[16][64 + 4], Bs[16][64];
    int t = threadIdx.x, tr = t / 16, tc = t % 16;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = t; e < 64 * 16; e += 256) {
            int r = e / 16, k = e % 16;
            As[k][r] = A[(row0 + r) * K + k0 + k];
            int kk = e / 64, c = e % 64;
            Bs[kk][c] = B[(k0 + kk) * N + col0 + c];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) { a[i] = As[k][tr * 4 + i]; b[i] = Bs[k][tc * 4 + i]; }
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) C[(row0 + tr * 4 + i) * N + col0 + tc * 4 + j] = acc[i][j];
}

// ================================================================== HGEMM with wmma (A row-major M x K, B col-major K x N)
using namespace nvcuda;
// One warp per 16 x 16 output tile, fragments straight from global memory. Block 128 (4 warps along N).
extern "C" __global__ void hg_wmma_global(const __half *A, const __half *B, float *C, int M, int N, int K) {
    int warp = threadIdx.x / 32;
    int tm = blockIdx.y, tn = blockIdx.x * 4 + warp;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
        wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + tm * 16 * N + tn * 16, c, N, wmma::mem_row_major);
}
// 64 x 64 block tile staged through shared memory (k-step 32), 4 warps each 32 x 32 (2 x 2 fragments).
extern "C" __global__ void hg_wmma_smem(const __half *A, const __half *B, float *C, int M, int N, int K) {
    __shared__ __half As[64][32 + 8], Bs[64][32 + 8];
    int t = threadIdx.x, warp = t / 32, wm = warp / 2, wn = warp % 2;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c[2][2];
    for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) wmma::fill_fragment(c[i][j], 0.f);
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int e = t; e < 64 * 4; e += 128) {  // 8 halves (16 B) per copy
            int r = e / 4, q = (e % 4) * 8;
            *(int4 *)&As[r][q] = *(const int4 *)&A[(row0 + r) * K + k0 + q];
            *(int4 *)&Bs[r][q] = *(const int4 *)&B[(col0 + r) * K + k0 + q];
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b[2];
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(a[i], &As[wm * 32 + i * 16][kk], 40);
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], &Bs[wn * 32 + j * 16][kk], 40);
            for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) wmma::mma_sync(c[i][j], a[i], b[j], c[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(C + (row0 + wm * 32 + i * 16) * N + col0 + wn * 32 + j * 16, c[i][j], N,
                                    wmma::mem_row_major);
}

// ================================================================== stencils
// 2-D Jacobi 5-point, one output per thread (block 32 x 8), n x n interior.
extern "C" __global__ void st_jacobi5(const float *in, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    int i = y * n + x;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - n] + in[i + n]);
}
// 3-D 7-point, each thread marches along z (block 32 x 8 in x, y).
extern "C" __global__ void st_3d7_march(const float *in, float *out, int n) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= n - 1 || y >= n - 1) return;
    long long p = (long long)n * n;
    for (int z = 1; z < n - 1; z++) {
        long long i = z * p + (long long)y * n + x;
        out[i] = 0.1f * (in[i] * 4.f + in[i - 1] + in[i + 1] + in[i - n] + in[i + n] + in[i - p] + in[i + p]);
    }
}
// 1-D radius-8 stencil through a shared tile with halo (block 256).
extern "C" __global__ void st_1d_r8_smem(const float *in, float *out, int n) {
    __shared__ float s[256 + 16];
    int g = TID, t = threadIdx.x;
    s[t + 8] = g < n ? in[g] : 0.f;
    if (t < 8) {
        s[t] = g >= 8 ? in[g - 8] : 0.f;
        s[t + 256 + 8] = g + 256 < n ? in[g + 256] : 0.f;
    }
    __syncthreads();
    if (g >= n) return;
    float acc = 0.f;
#pragma unroll
    for (int k = -8; k <= 8; k++) acc += s[t + 8 + k] * (1.f / 17.f);
    out[g] = acc;
}

// ================================================================== SpMV (CSR)
extern "C" __global__ void spmv_csr_scalar(const int *rowptr, const int *cols, const float *vals, const float *x,
                                           float *y, int rows) {
    int r = TID;
    if (r >= rows) return;
    float acc = 0.f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; j++) acc += vals[j] * x[cols[j]];
    y[r] = acc;
}
extern "C" __global__ void spmv_csr_vector(const int *rowptr, const int *cols, const float *vals, const float *x,
                                           float *y, int rows) {
    int r = TID / 32, lane = threadIdx.x & 31;
    if (r >= rows) return;
    float acc = 0.f;
    for (int j = rowptr[r] + lane; j < rowptr[r + 1]; j += 32) acc += vals[j] * x[cols[j]];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) y[r] = acc;
}

// ================================================================== sorts
// Bitonic sort of 1024 keys per block of 512 threads in shared memory.
extern "C" __global__ void sort_bitonic_block(unsigned *keys) {
    __shared__ unsigned s[1024];
    unsigned t = threadIdx.x, base = blockIdx.x * 1024;
    s[t] = keys[base + t]; s[t + 512] = keys[base + t + 512];
    for (unsigned k = 2; k <= 1024; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            __syncthreads();
            unsigned i = 2 * t - (t & (j - 1)), l = i + j;
            bool up = (i & k) == 0;
            unsigned a = s[i], b = s[l];
            if ((a > b) == up) { s[i] = b; s[l] = a; }
        }
    __syncthreads();
    keys[base + t] = s[t]; keys[base + t + 512] = s[t + 512];
}
// One global step (k, j) of a bitonic sort network over n keys (one thread per pair).
extern "C" __global__ void sort_bitonic_step(unsigned *keys, int n, int k, int j) {
    unsigned t = TID;
    if (t >= n / 2) return;
    unsigned i = 2 * t - (t & (j - 1)), l = i + j;
    bool up = (i & k) == 0;
    unsigned a = keys[i], b = keys[l];
    if ((a > b) == up) { keys[i] = b; keys[l] = a; }
}
// Odd-even transposition sort of 256 keys per block of 128 threads (256 rounds, data-dependent swaps).
extern "C" __global__ void sort_oddeven_block(unsigned *keys) {
    __shared__ unsigned s[256];
    unsigned t = threadIdx.x, base = blockIdx.x * 256;
    s[2 * t] = keys[base + 2 * t]; s[2 * t + 1] = keys[base + 2 * t + 1];
    for (int r = 0; r < 256; r++) {
        __syncthreads();
        unsigned i = 2 * t + (r & 1);
        if (i + 1 < 256 && s[i] > s[i + 1]) { unsigned a = s[i]; s[i] = s[i + 1]; s[i + 1] = a; }
    }
    __syncthreads();
    keys[base + 2 * t] = s[2 * t]; keys[base + 2 * t + 1] = s[2 * t + 1];
}
// Radix-sort digit histogram pass: 4-bit digit at `shift`, per-block shared counts (16 bins).
extern "C" __global__ void sort_radix_hist(const unsigned *keys, unsigned *counts, int n, int shift) {
    __shared__ unsigned h[16];
    if (threadIdx.x < 16) h[threadIdx.x] = 0;
    __syncthreads();
    GSTRIDE(i, n) atomicAdd(&h[(keys[i] >> shift) & 15], 1u);
    __syncthreads();
    if (threadIdx.x < 16) counts[blockIdx.x * 16 + threadIdx.x] = h[threadIdx.x];
}

// ================================================================== latency-bound tiny grids
// Pointer chase through `next` for `steps` hops (each thread its own start).
extern "C" __global__ void tiny_chase(const int *next, int *out, int steps) {
    int p = TID;
    for (int s = 0; s < steps; s++) p = next[p];
    out[TID] = p;
}
// A dependent FMA chain per thread (ILP 1); the grid is tiny.
extern "C" __global__ void tiny_fma_chain(float *out, int iters, float b) {
    float a = threadIdx.x * 1e-3f;
    for (int i = 0; i < iters; i++) a = fmaf(a, b, 0.5f);
    out[TID] = a;
}
extern "C" __global__ void tiny_add(const float *x, float *y, int n) {
    int i = TID;
    if (i < n) y[i] += x[i];
}

// ================================================================== occupancy-limited launches
// A latency-bound random gather with NACC independent accumulators live across the loop:
// ptxas gives it more registers as NACC grows, so fewer warps fit per SM.
template <int NACC>
__device__ void occ_gather_body(const float *table, const int *idx, float *out, int n, int iters, int mask) {
    float acc[NACC];
#pragma unroll
    for (int k = 0; k < NACC; k++) acc[k] = k;
    int i = TID, p = idx[i % n];
    for (int it = 0; it < iters; it++) {
        float v = table[p & mask];
#pragma unroll
        for (int k = 0; k < NACC; k++) acc[k] = fmaf(acc[k], v, (float)k);
        p = p * 1664525 + 1013904223;
    }
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < NACC; k++) s += acc[k];
    out[i] = s;
}
extern "C" __global__ void occ_regs_8(const float *t, const int *idx, float *out, int n, int iters, int mask) {
    occ_gather_body<8>(t, idx, out, n, iters, mask);
}
extern "C" __global__ void occ_regs_48(const float *t, const int *idx, float *out, int n, int iters, int mask) {
    occ_gather_body<48>(t, idx, out, n, iters, mask);
}
extern "C" __global__ void occ_regs_112(const float *t, const int *idx, float *out, int n, int iters, int mask) {
    occ_gather_body<112>(t, idx, out, n, iters, mask);
}
extern "C" __global__ void occ_regs_200(const float *t, const int *idx, float *out, int n, int iters, int mask) {
    occ_gather_body<200>(t, idx, out, n, iters, mask);
}
// ================================================================== cp.async and bulk-copy (TMA engine) pipelines
// Each block streams `tiles` tiles of 1024 floats through shared memory with cp.async, two stages,
// and sums them (block 256; 4 floats per thread per tile).
extern "C" __global__ void pipe_cp_async(const float *in, float *out, int tiles) {
    __shared__ __align__(16) float s[2][1024];
    const float *src = in + (long long)blockIdx.x * tiles * 1024;
    int t = threadIdx.x;
    __pipeline_memcpy_async(&s[0][t * 4], src + t * 4, 16);
    __pipeline_commit();
    float acc = 0.f;
    for (int k = 0; k < tiles; k++) {
        if (k + 1 < tiles) __pipeline_memcpy_async(&s[(k + 1) & 1][t * 4], src + (k + 1) * 1024 + t * 4, 16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const float *b = s[k & 1];
        acc += b[t] + b[t + 256] + b[t + 512] + b[t + 768];
        __syncthreads();
    }
    out[TID] = acc;
}
// The same stream with plain loads (for the contrast).
extern "C" __global__ void pipe_plain(const float *in, float *out, int tiles) {
    const float *src = in + (long long)blockIdx.x * tiles * 1024;
    int t = threadIdx.x;
    float acc = 0.f;
    for (int k = 0; k < tiles; k++) {
        const float *b = src + k * 1024;
        acc += b[t] + b[t + 256] + b[t + 512] + b[t + 768];
    }
    out[TID] = acc;
}
// Bulk copies (cp.async.bulk, the TMA engine) of 8 KiB tiles into a 2-stage shared ring with
// mbarrier completion; thread 0 issues, all wait, all sum.
__device__ __forceinline__ void mbar_init(unsigned long long *bar, unsigned count) {
    unsigned a = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(a), "r"(count));
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, unsigned long long *bar) {
    unsigned d = (unsigned)__cvta_generic_to_shared(dst), b = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(d), "l"(src), "r"(bytes), "r"(b) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long *bar, unsigned phase) {
    unsigned b = (unsigned)__cvta_generic_to_shared(bar);
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(b), "r"(phase) : "memory");
}
extern "C" __global__ void pipe_bulk_tma(const float *in, float *out, int tiles) {
    __shared__ __align__(128) float s[2][2048];
    __shared__ __align__(8) unsigned long long bar[2];
    const float *src = in + (long long)blockIdx.x * tiles * 2048;
    int t = threadIdx.x;
    if (t == 0) { mbar_init(&bar[0], 1); mbar_init(&bar[1], 1); }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0) bulk_load(s[0], src, 8192, &bar[0]);
    float acc = 0.f;
    for (int k = 0; k < tiles; k++) {
        if (t == 0 && k + 1 < tiles) bulk_load(s[(k + 1) & 1], src + (k + 1) * 2048, 8192, &bar[(k + 1) & 1]);
        mbar_wait(&bar[k & 1], (k >> 1) & 1);
        const float *b = s[k & 1];
        for (int q = t; q < 2048; q += 256) acc += b[q];
        __syncthreads();
    }
    out[TID] = acc;
}

// ================================================================== clusters (distributed shared memory)
// Each block fills its shared buffer, then sums its neighbour's buffer in the cluster (block 256).
template <int CL>
__device__ void cluster_ring_body(const float *in, float *out, int reps) {
    __shared__ float s[2048];
    cg::cluster_group cl = cg::this_cluster();
    int t = threadIdx.x;
    for (int q = t; q < 2048; q += 256) s[q] = in[(long long)blockIdx.x * 2048 + q];
    cl.sync();
    float *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % CL);
    float acc = 0.f;
    for (int r = 0; r < reps; r++)
        for (int q = t; q < 2048; q += 256) acc += peer[(q + r * 32) & 2047];
    cl.sync();
    out[TID] = acc;
}
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_ring2(const float *in, float *out, int reps) {
    cluster_ring_body<2>(in, out, reps);
}
extern "C" __global__ void __cluster_dims__(8, 1, 1) cluster_ring8(const float *in, float *out, int reps) {
    cluster_ring_body<8>(in, out, reps);
}
// The same reads from the block's own shared memory (no cluster), for the contrast.
extern "C" __global__ void cluster_local(const float *in, float *out, int reps) {
    __shared__ float s[2048];
    int t = threadIdx.x;
    for (int q = t; q < 2048; q += 256) s[q] = in[(long long)blockIdx.x * 2048 + q];
    __syncthreads();
    float acc = 0.f;
    for (int r = 0; r < reps; r++)
        for (int q = t; q < 2048; q += 256) acc += s[(q + r * 32) & 2047];
    out[TID] = acc;
}

// ================================================================== one-warp and few-warp FMA loops
extern "C" __global__ void warp_fma_ilp1(float *out, int iters, float b) {
    float a = threadIdx.x;
    for (int i = 0; i < iters; i++) a = fmaf(a, b, 1.f);
    out[TID] = a;
}
extern "C" __global__ void warp_fma_ilp4(float *out, int iters, float b) {
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    for (int i = 0; i < iters; i++) {
        a0 = fmaf(a0, b, 1.f); a1 = fmaf(a1, b, 1.f); a2 = fmaf(a2, b, 1.f); a3 = fmaf(a3, b, 1.f);
    }
    out[TID] = a0 + a1 + a2 + a3;
}

// ================================================================== divergent loops (data-dependent trip counts)
// Each thread iterates `count[i]` times: sorted counts make warps uniform, random ones diverge.
extern "C" __global__ void div_trip_loop(const int *count, float *out, int n) {
    int i = TID;
    if (i >= n) return;
    float a = 1.f;
    for (int k = 0; k < count[i]; k++) a = fmaf(a, 0.999f, 0.5f);
    out[i] = a;
}
// Two expensive paths chosen by a key bit: sorted keys keep warps on one path.
extern "C" __global__ void div_two_paths(const int *key, float *out, int n, int iters) {
    int i = TID;
    if (i >= n) return;
    float a = i * 1e-6f;
    if (key[i] & 1) { for (int k = 0; k < iters; k++) a = __sinf(a) + 1.f; }
    else { for (int k = 0; k < iters; k++) a = fmaf(a, 0.999f, 0.25f); }
    out[i] = a;
}

// ================================================================== memory: gathers and atomics
// out[i] = table[idx[i]]: the table's size against L1 (256 KB) and L2 (50 MB) decides the hit rates.
extern "C" __global__ void gather_idx(const float *table, const int *idx, float *out, int n) {
    GSTRIDE(i, n) out[i] = table[idx[i]];
}
// Global atomics on `slots` distinct words (contention sweep), `per` per thread.
extern "C" __global__ void atom_contention(unsigned *words, int slots, int per) {
    unsigned t = TID;
    for (int k = 0; k < per; k++) atomicAdd(&words[(t * 7919u + k) % slots], 1u);
}

// ================================================================== row-wise softmax / layernorm (one warp per row)
extern "C" __global__ void softmax_warp_row(const float *in, float *out, int rows, int cols) {
    int r = TID / 32, lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float *x = in + (long long)r * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.f;
    for (int c = lane; c < cols; c += 32) s += __expf(x[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float inv = 1.f / s;
    for (int c = lane; c < cols; c += 32) out[(long long)r * cols + c] = __expf(x[c] - m) * inv;
}
extern "C" __global__ void layernorm_warp_row(const float *in, float *out, int rows, int cols) {
    int r = TID / 32, lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float *x = in + (long long)r * cols;
    float s = 0.f, q = 0.f;
    for (int c = lane; c < cols; c += 32) { float v = x[c]; s += v; q += v * v; }
    for (int o = 16; o > 0; o >>= 1) { s += __shfl_xor_sync(0xffffffffu, s, o); q += __shfl_xor_sync(0xffffffffu, q, o); }
    float mean = s / cols, rstd = rsqrtf(q / cols - mean * mean + 1e-5f);
    for (int c = lane; c < cols; c += 32) out[(long long)r * cols + c] = (x[c] - mean) * rstd;
}
