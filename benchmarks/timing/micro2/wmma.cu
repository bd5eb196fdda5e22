// wmma.load / wmma.store memory time (issue 20, wmma20). Built with nvcc -arch=sm_90a (build.sh);
// run by tools/device/timing_wmma.py; the model's side: benchmarks/timing/wmma_model.py (the same
// kernels from wmma.ptx). Cycle counts from %clock64.
//
// What ptxas 13.0 makes of a wmma.load / store (cuobjdump -sass, sm_90a): from global memory a
// row-major f16 A (col-major B) tile is 4 LDG.E (each lane 2 halves), the transposed layouts 4
// LDG.E + 4 MOVM; an f32/s32 accumulator 4 LDG.E.64 (row) or 8 LDG.E (col); from shared memory
// f16 A/B tiles are one LDSM.16.M88.4 (MT88 for the transposed layouts), accumulators LDS.64 /
// LDS; stores the same with STG / STS.
typedef unsigned u32;
__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}
__device__ __forceinline__ u32 saddr(const void *p) { return (u32)__cvta_generic_to_shared(p); }

#define R8 "{%0,%1,%2,%3,%4,%5,%6,%7}"
#define O8(r) "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
#define I8(r) "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7])

// The instruction of each kind (K): 0 ld.global.v4.u32 (one per lane, reference), 1 wmma.load.a
// row f16 global, 2 .a col f16 global, 3 .c row s32 global, 4 .c col s32 global, 5 wmma.store.d
// row s32 global, 6 .d col s32 global; 10 ld.shared.v4.u32, 11 .a row f16 shared, 12 .a col f16
// shared, 13 .c row s32 shared, 14 .c col s32 shared, 15 .d row s32 shared. `p` is a generic
// address for the global kinds, a shared-window offset for the shared ones; `ld` the stride in
// elements. Returns a word that depends on every register loaded.
template <int K> __device__ __forceinline__ u32 access(const u32 *gp, u32 sp, int ld, u32 v) {
    u32 r[8] = {v, v, v, v, v, v, v, v};
    if (K == 0) {
        asm volatile("ld.global.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "l"(gp + 4 * (threadIdx.x & 31)) : "memory");
        return r[0] ^ r[1] ^ r[2] ^ r[3];
    }
    if (K == 10) {
        asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(sp + 16 * (threadIdx.x & 31)) : "memory");
        return r[0] ^ r[1] ^ r[2] ^ r[3];
    }
    if (K == 1) asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " R8 ", [%8], %9;" : O8(r) : "l"(gp), "r"(ld) : "memory");
    if (K == 2) asm volatile("wmma.load.a.sync.aligned.col.m16n16k16.global.f16 " R8 ", [%8], %9;" : O8(r) : "l"(gp), "r"(ld) : "memory");
    if (K == 3) asm volatile("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 " R8 ", [%8], %9;" : O8(r) : "l"(gp), "r"(ld) : "memory");
    if (K == 4) asm volatile("wmma.load.c.sync.aligned.col.m16n16k16.global.s32 " R8 ", [%8], %9;" : O8(r) : "l"(gp), "r"(ld) : "memory");
    if (K == 5) asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%0], " "{%1,%2,%3,%4,%5,%6,%7,%8}, %9;" :: "l"(gp), I8(r), "r"(ld) : "memory");
    if (K == 6) asm volatile("wmma.store.d.sync.aligned.col.m16n16k16.global.s32 [%0], " "{%1,%2,%3,%4,%5,%6,%7,%8}, %9;" :: "l"(gp), I8(r), "r"(ld) : "memory");
    if (K == 11) asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 " R8 ", [%8], %9;" : O8(r) : "r"(sp), "r"(ld) : "memory");
    if (K == 12) asm volatile("wmma.load.a.sync.aligned.col.m16n16k16.shared.f16 " R8 ", [%8], %9;" : O8(r) : "r"(sp), "r"(ld) : "memory");
    if (K == 13) asm volatile("wmma.load.c.sync.aligned.row.m16n16k16.shared.s32 " R8 ", [%8], %9;" : O8(r) : "r"(sp), "r"(ld) : "memory");
    if (K == 14) asm volatile("wmma.load.c.sync.aligned.col.m16n16k16.shared.s32 " R8 ", [%8], %9;" : O8(r) : "r"(sp), "r"(ld) : "memory");
    if (K == 15) asm volatile("wmma.store.d.sync.aligned.row.m16n16k16.shared.s32 [%0], " "{%1,%2,%3,%4,%5,%6,%7,%8}, %9;" :: "r"(sp), I8(r), "r"(ld) : "memory");
    if (K == 5 || K == 6 || K == 15) return v + 1;
    return r[0] ^ r[1] ^ r[2] ^ r[3] ^ r[4] ^ r[5] ^ r[6] ^ r[7];
}

// ---------------------------------------------------------------- latency: dependent chains
// One warp follows a chain of nodes of 16 KiB (4096 words): every word of a node holds
// next | next << 16 (next: the next node's index, < 65536), so any half of any register gives it.
// Each step loads the tile at the node's start with stride `ld` and goes on to the node that
// lane 0's first register names. out[0] cycles, out[1] steps, out[2] the last node (a sink).
__device__ __forceinline__ u32 sum8(const u32 *r) {
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}
template <int K> __device__ __forceinline__ void chase_first(const u32 *buf, int ld, int steps, long long *out) {
    u32 node = 0;
    long long t0 = clk();
    for (int k = 0; k < steps; k++) {
        u32 r[8];
        const u32 *p = buf + node * 4096u;
        if (K == 0) asm volatile("ld.global.u32 %0, [%1];" : "=r"(r[0]) : "l"(p) : "memory");
        if (K == 1) asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " R8 ", [%8], %9;" : O8(r) : "l"(p), "r"(ld) : "memory");
        if (K == 2) asm volatile("wmma.load.a.sync.aligned.col.m16n16k16.global.f16 " R8 ", [%8], %9;" : O8(r) : "l"(p), "r"(ld) : "memory");
        if (K == 3) asm volatile("wmma.load.c.sync.aligned.row.m16n16k16.global.s32 " R8 ", [%8], %9;" : O8(r) : "l"(p), "r"(ld) : "memory");
        if (K == 4) asm volatile("wmma.load.c.sync.aligned.col.m16n16k16.global.s32 " R8 ", [%8], %9;" : O8(r) : "l"(p), "r"(ld) : "memory");
        node = (K == 0 ? r[0] : sum8(r) >> 3) & 0xffffu;  // waits for every register
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = steps; out[2] = node; }
}
extern "C" __global__ void chase_ld(const u32 *b, int ld, int s, long long *o) { chase_first<0>(b, ld, s, o); }
extern "C" __global__ void chase_a_row(const u32 *b, int ld, int s, long long *o) { chase_first<1>(b, ld, s, o); }
extern "C" __global__ void chase_a_col(const u32 *b, int ld, int s, long long *o) { chase_first<2>(b, ld, s, o); }
extern "C" __global__ void chase_c_row(const u32 *b, int ld, int s, long long *o) { chase_first<3>(b, ld, s, o); }
extern "C" __global__ void chase_c_col(const u32 *b, int ld, int s, long long *o) { chase_first<4>(b, ld, s, o); }

// The same in shared memory: one warp, a 32 KiB buffer of 2 KiB nodes copied in from `buf`
// (words next | next << 16, next < 16).
template <int K> __device__ __forceinline__ void chase_shared(const u32 *buf, int ld, int steps, long long *out) {
    __shared__ __align__(128) u32 s[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = buf[i];
    __syncwarp();
    u32 node = 0;
    long long t0 = clk();
    for (int k = 0; k < steps; k++) {
        u32 r[8];
        u32 p = saddr(s) + node * 2048u;
        if (K == 10) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r[0]) : "r"(p) : "memory");
        if (K == 11) asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 " R8 ", [%8], %9;" : O8(r) : "r"(p), "r"(ld) : "memory");
        if (K == 13) asm volatile("wmma.load.c.sync.aligned.row.m16n16k16.shared.s32 " R8 ", [%8], %9;" : O8(r) : "r"(p), "r"(ld) : "memory");
        node = (K == 10 ? r[0] : sum8(r) >> 3) & 0xfu;
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = steps; out[2] = node; }
}
extern "C" __global__ void chase_lds(const u32 *b, int ld, int s, long long *o) { chase_shared<10>(b, ld, s, o); }
extern "C" __global__ void chase_a_row_s(const u32 *b, int ld, int s, long long *o) { chase_shared<11>(b, ld, s, o); }
extern "C" __global__ void chase_c_row_s(const u32 *b, int ld, int s, long long *o) { chase_shared<13>(b, ld, s, o); }

// ---------------------------------------------------------------- throughput
// Every warp runs `iters` iterations of 4 independent accesses (tiles 4w .. 4w+3 of its region,
// tile t at byte offset (t * tile_bytes) % region_bytes), each result folded into an xor.
// Global: CTA c reads the `region_bytes` at byte c * cta_bytes of `buf` (cta_bytes 0: every CTA
// the same region, so a region beyond the L1 streams from L2). Shared: a 48 KiB static buffer, region_bytes <= 32 KiB. out[global warp] = that
// warp's %clock64 cycles from before its loop to after it.
template <int K> __device__ __forceinline__ void thr(const u32 *buf, int ld, int iters, u32 tile_bytes,
                                                    u32 region_bytes, u32 cta_bytes, long long *out, u32 *sink) {
    __shared__ __align__(128) u32 s[12288];
    if (K >= 10) {
        for (int i = threadIdx.x; i < 12288; i += blockDim.x) s[i] = i;
        __syncthreads();
    }
    u32 warp = threadIdx.x >> 5, gwarp = blockIdx.x * (blockDim.x >> 5) + warp;
    u32 off[4];
    for (int j = 0; j < 4; j++) off[j] = ((4 * warp + j) * tile_bytes) % region_bytes;
    u32 acc = 0;
    long long t0 = clk();
    for (int k = 0; k < iters; k++) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const u32 *gp = buf + (blockIdx.x * cta_bytes + off[j]) / 4;
            u32 sp = saddr(s) + off[j];
            acc ^= access<K>(gp, sp, ld, acc + j);
            off[j] += 4u * tile_bytes;
            if (off[j] >= region_bytes) off[j] -= region_bytes;
        }
    }
    long long t1 = clk();
    if ((threadIdx.x & 31) == 0) out[gwarp] = t1 - t0;
    if (acc == 0x12345678u) sink[0] = acc;
}
#define THR(name, K)                                                                                        \
    extern "C" __global__ void name(const u32 *b, int ld, int it, u32 tb, u32 rb, u32 cb, long long *o, u32 *sk) { \
        thr<K>(b, ld, it, tb, rb, cb, o, sk);                                                                         \
    }
THR(thr_ld_v4, 0)
THR(thr_a_row, 1)
THR(thr_a_col, 2)
THR(thr_c_row, 3)
THR(thr_c_col, 4)
THR(thr_st_row, 5)
THR(thr_st_col, 6)
THR(thr_lds_v4, 10)
THR(thr_a_row_s, 11)
THR(thr_a_col_s, 12)
THR(thr_c_row_s, 13)
THR(thr_c_col_s, 14)
THR(thr_st_row_s, 15)

// ---------------------------------------------------------------- a DRAM stream of A tiles
// A row-major f16 matrix `cols` halves wide; warp w loads the tiles of its 16-row strip left to
// right (`tiles` of them), 4 in flight. Timed with CUDA events.
extern "C" __global__ void stream_a_row(const u32 *buf, int cols, int tiles, u32 *sink) {
    u32 gwarp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned short *m = (const unsigned short *)buf + (size_t)gwarp * 16 * cols;
    u32 acc = 0;
    for (int t = 0; t < tiles; t += 4) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            u32 r[8];
            asm volatile("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " R8 ", [%8], %9;" : O8(r)
                         : "l"(m + 16 * (t + j)), "r"(cols) : "memory");
            acc ^= r[0] ^ r[1] ^ r[2] ^ r[3] ^ r[4] ^ r[5] ^ r[6] ^ r[7] ^ j;
        }
    }
    if (acc == 0x12345678u) sink[0] = acc;
}
// the same bytes with one ld.global.v4 per lane per 512-B tile (a warp reads its 16 rows' 32-B pieces)
extern "C" __global__ void stream_v4(const u32 *buf, int cols, int tiles, u32 *sink) {
    u32 gwarp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    const unsigned short *m = (const unsigned short *)buf + (size_t)gwarp * 16 * cols + (lane >> 1) * cols + (lane & 1) * 8;
    u32 acc = 0;
    for (int t = 0; t < tiles; t += 4) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint4 v = *(const uint4 *)(m + 16 * (t + j));
            acc ^= v.x ^ v.y ^ v.z ^ v.w ^ j;
        }
    }
    if (acc == 0x12345678u) sink[0] = acc;
}
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clk();
    while (clk() - t0 < cycles) {}
}

// ---------------------------------------------------------------- check kernels: wmma HGEMMs
// C (f32, row-major M x N) = A (f16, row-major M x K) x B (f16, col-major K x N: n * K + k).
// Used to check the model on whole kernels (never to set a parameter). Timed with CUDA events
// around one launch behind a spin kernel, L2 flushed (cold) or as the previous launch left it.
#include <mma.h>
#include <cuda_fp16.h>
namespace wm = nvcuda::wmma;
// one warp per 16x16 tile of C, A and B tiles straight from global memory
extern "C" __global__ void wgemm_global(const half *A, const half *B, float *C, int M, int N, int K) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int tiles_n = N / 16, tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= M) return;
    wm::fragment<wm::matrix_a, 16, 16, 16, half, wm::row_major> a;
    wm::fragment<wm::matrix_b, 16, 16, 16, half, wm::col_major> b;
    wm::fragment<wm::accumulator, 16, 16, 16, float> c;
    wm::fill_fragment(c, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wm::load_matrix_sync(a, A + (size_t)tm * 16 * K + k0, K);
        wm::load_matrix_sync(b, B + (size_t)tn * 16 * K + k0, K);
        wm::mma_sync(c, a, b, c);
    }
    wm::store_matrix_sync(C + (size_t)tm * 16 * N + tn * 16, c, N, wm::mem_row_major);
}
// a CTA of 4 warps per 64x64 tile of C (each warp 32x32: 2x2 fragments); 64x32 tiles of A and B
// staged in shared memory with rows padded to 40 halves (80 B), K in steps of 32
extern "C" __global__ void wgemm_smem(const half *A, const half *B, float *C, int M, int N, int K) {
    __shared__ __align__(128) half As[64 * 40];
    __shared__ __align__(128) half Bs[64 * 40];
    int warp = threadIdx.x >> 5, wm_ = warp >> 1, wn = warp & 1;
    int m0 = blockIdx.y * 64, n0 = blockIdx.x * 64;
    wm::fragment<wm::matrix_a, 16, 16, 16, half, wm::row_major> a[2];
    wm::fragment<wm::matrix_b, 16, 16, 16, half, wm::col_major> b[2];
    wm::fragment<wm::accumulator, 16, 16, 16, float> c[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) wm::fill_fragment(c[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += 32) {
        for (int v = threadIdx.x; v < 256; v += blockDim.x) {  // 64 rows x 4 vectors of 8 halves
            int r = v >> 2, q = (v & 3) * 8;
            *(uint4 *)(As + r * 40 + q) = *(const uint4 *)(A + (size_t)(m0 + r) * K + k0 + q);
            *(uint4 *)(Bs + r * 40 + q) = *(const uint4 *)(B + (size_t)(n0 + r) * K + k0 + q);
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            for (int i = 0; i < 2; i++) wm::load_matrix_sync(a[i], As + (wm_ * 32 + i * 16) * 40 + kk, 40);
            for (int j = 0; j < 2; j++) wm::load_matrix_sync(b[j], Bs + (wn * 32 + j * 16) * 40 + kk, 40);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++) wm::mma_sync(c[i][j], a[i], b[j], c[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wm::store_matrix_sync(C + (size_t)(m0 + wm_ * 32 + i * 16) * N + n0 + wn * 32 + j * 16, c[i][j], N,
                                  wm::mem_row_major);
}
