// Calibration microbenchmarks for ptxvm.timing (compiled here to micro.ptx; run on the GPU by
// tools/device/timing_micro.py). Every timed region is bracketed by %clock64 reads in volatile
// asm; the work in between is volatile asm too, so ptxas keeps it in order and cannot fold it.
// Results are written after the second clock read, so memory traffic does not disturb timing.
#include <cuda_fp16.h>

typedef unsigned long long u64;

__device__ __forceinline__ long long clk() {
    long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c) :: "memory");
    return c;
}
__device__ __forceinline__ u64 gtimer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) :: "memory");
    return t;
}

// ---------------------------------------------------------------- SM clock against globaltimer
extern "C" __global__ void clock_rate(long long spin, long long *out) {
    u64 t0 = gtimer();
    long long c0 = clk(), c = c0;
    while (c - c0 < spin) c = clk();
    u64 t1 = gtimer();
    out[0] = c - c0;
    out[1] = (long long)(t1 - t0);
}

// ---------------------------------------------------------------- pointer chases (one thread)
// Each element holds the absolute address of the next one (built by the host), so a step is one
// load whose address is the previous load's result: `warm` untimed steps, then `steps` timed.
#define CHASE(NAME, LD)                                                                      \
extern "C" __global__ void NAME(u64 start, int warm, int steps, long long *out) {            \
    u64 p = start;                                                                           \
    for (int i = 0; i < warm; i++) asm volatile(LD " %0, [%0];" : "+l"(p) :: "memory");      \
    long long t0 = clk();                                                                    \
    for (int i = 0; i < steps; i++) asm volatile(LD " %0, [%0];" : "+l"(p) :: "memory");     \
    long long t1 = clk();                                                                    \
    out[0] = t1 - t0;                                                                        \
    out[1] = (long long)p;                                                                   \
}
CHASE(chase_ca, "ld.global.ca.u64")
CHASE(chase_cg, "ld.global.cg.u64")

// Shared-memory chase: element i holds the shared address of element (i + stride) % n.
extern "C" __global__ void chase_shared(int n, int stride, int steps, long long *out) {
    extern __shared__ unsigned s[];
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = base + 4 * ((i + stride) % n);
    __syncthreads();
    if (threadIdx.x != 0) return;
    unsigned j = base;
    for (int i = 0; i < 64; i++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(j) :: "memory");
    long long t0 = clk();
    for (int i = 0; i < steps; i++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(j) :: "memory");
    long long t1 = clk();
    out[0] = t1 - t0;
    out[1] = j;
}

// Constant-memory chase over c_chain (filled by the host with byte offsets of the next element).
__constant__ unsigned c_chain[16384];
extern "C" __global__ void chase_const(unsigned start, int warm, int steps, long long *out) {
    unsigned j = start;
    const char *c = (const char *)c_chain;
    for (int i = 0; i < warm; i++) j = *(const unsigned *)(c + j);
    long long t0 = clk();
    for (int i = 0; i < steps; i++) j = *(const unsigned *)(c + j);
    long long t1 = clk();
    out[0] = t1 - t0;
    out[1] = j;
}

// ---------------------------------------------------------------- bandwidths
extern "C" __global__ void bw_copy(const float4 *src, float4 *dst, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

// Read a small array (L2-resident) `reps` times; each block reads the whole array, starting at a
// block-dependent offset so that blocks do not march in lock-step.
extern "C" __global__ void bw_read(const float4 *src, long long n, int reps, float *sink) {
    float acc = 0.f;
    long long off = ((long long)blockIdx.x * 977) % n;
    for (int r = 0; r < reps; r++) {
        for (long long i = threadIdx.x; i < n; i += blockDim.x) {
            long long k = i + off; if (k >= n) k -= n;
            float4 v;
            asm volatile("ld.global.cg.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(src + k));
            acc += v.x + v.y + v.z + v.w;
        }
    }
    if (acc == 1234.5f) sink[0] = acc;
}

// Read-only and write-only streams (grid-stride, float4).
extern "C" __global__ void bw_readonly(const float4 *src, long long n, float *sink) {
    float acc = 0.f;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float4 v = src[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) sink[0] = acc;
}
extern "C" __global__ void bw_writeonly(float4 *dst, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}
// L1 bandwidth: each block re-reads its own `n4` float4 (L1-resident) `reps` times with .ca.
extern "C" __global__ void bw_l1(const float4 *src, int n4, int reps, long long *out, float *sink) {
    const float4 *p = src + (long long)blockIdx.x * n4;
    float acc = 0.f;
    for (int i = threadIdx.x; i < n4; i += blockDim.x) acc += __ldca(p + i).x;
    __syncthreads();
    long long t0 = clk();
    for (int r = 0; r < reps; r++)
        for (int i = threadIdx.x; i < n4; i += blockDim.x) {
            float4 v;  // n4 is a power of two; the index moves with r (no hoisting)
            asm volatile("ld.global.ca.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p + ((i + 32 * r) & (n4 - 1))));
            acc += v.x + v.y + v.z + v.w;
        }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 16LL * n4 * reps; }
    if (acc == 1234.5f) sink[0] = acc;
}

// Scattered sectors: thread i touches word (i * stride) mod n of a buffer (stride 32 words: one
// 32-B sector per lane, 32 sectors per request); grid-stride over `count` accesses.
extern "C" __global__ void scatter_read(const float *buf, long long n, int stride, long long count, float *sink) {
    float acc = 0.f;
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step)
        acc += __ldcg(buf + ((i * stride) & (n - 1)));
    if (acc == 1234.5f) sink[0] = acc;
}
extern "C" __global__ void scatter_write(float *buf, long long n, int stride, long long count) {
    long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step)
        buf[(i * stride) & (n - 1)] = (float)i;
}

// Shared-memory bandwidth: every thread reads float4 words from shared memory `reps` times.
extern "C" __global__ void bw_shared(int reps, long long *out, float *sink) {
    __shared__ float4 s[1024];
    s[threadIdx.x] = make_float4(threadIdx.x, 1, 2, 3);
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    float acc = 0.f;
    long long t0 = clk();
    for (int r = 0; r < reps; r++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            float4 v;
            // the index moves with r, so ptxas cannot hoist the loads out of the r loop
            unsigned addr = base + 16 * ((threadIdx.x + 32 * k + 256 * r) & 1023);
            asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];"
                         : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
            acc += v.x + v.y + v.z + v.w;
        }
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 0; }
    if (acc == 1234.5f) sink[0] = acc;
}

// ---------------------------------------------------------------- instruction latency / throughput
// LAT: one thread runs a dependent chain a = op(a, b); b = op(b, a) (each op needs the previous
// result, so nothing can overlap or fold). THR: every thread runs 8 independent chains; one block
// of 1024 threads per SM; cycles measured per block between two barriers.
#define CHAIN_LAT(NAME, T, C, OP)                                                            \
extern "C" __global__ void lat_##NAME(T a, T b, int iters, long long *out, T *sink) {        \
    long long t0 = clk();                                                                    \
    for (int i = 0; i < iters; i++) {                                                        \
        _Pragma("unroll") for (int k = 0; k < 64; k++) {                                     \
            asm volatile(OP : "+" C(a) : C(b));                                              \
            asm volatile(OP : "+" C(b) : C(a));                                              \
        }                                                                                    \
    }                                                                                        \
    long long t1 = clk();                                                                    \
    out[0] = t1 - t0;                                                                        \
    out[1] = 128LL * iters;                                                                  \
    sink[0] = a + b;                                                                         \
}                                                                                            \
extern "C" __global__ void thr_##NAME(T a, T b, int iters, long long *out, T *sink) {        \
    T x0 = a, x1 = a + b, x2 = b, x3 = a + a, x4 = b + b, x5 = a + b + b, x6 = b + a + a, x7 = a;\
    __syncthreads();                                                                         \
    long long t0 = clk();                                                                    \
    for (int i = 0; i < iters; i++) {                                                        \
        _Pragma("unroll") for (int k = 0; k < 8; k++) {                                      \
            asm volatile(OP : "+" C(x0) : C(b)); asm volatile(OP : "+" C(x1) : C(b));        \
            asm volatile(OP : "+" C(x2) : C(b)); asm volatile(OP : "+" C(x3) : C(b));        \
            asm volatile(OP : "+" C(x4) : C(b)); asm volatile(OP : "+" C(x5) : C(b));        \
            asm volatile(OP : "+" C(x6) : C(b)); asm volatile(OP : "+" C(x7) : C(b));        \
        }                                                                                    \
    }                                                                                        \
    __syncthreads();                                                                         \
    long long t1 = clk();                                                                    \
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 64LL * iters * blockDim.x; } \
    T s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;                                             \
    if (s == (T)12345) sink[0] = s;                                                          \
}

CHAIN_LAT(fadd, float, "f", "add.f32 %0, %0, %1;")
CHAIN_LAT(fmul, float, "f", "mul.f32 %0, %0, %1;")
CHAIN_LAT(ffma, float, "f", "fma.rn.f32 %0, %0, %1, %0;")
CHAIN_LAT(iadd, unsigned, "r", "add.u32 %0, %0, %1;")
CHAIN_LAT(imul, unsigned, "r", "mul.lo.u32 %0, %0, %1;")
CHAIN_LAT(imad, unsigned, "r", "mad.lo.u32 %0, %0, %1, %0;")
CHAIN_LAT(dfma, double, "d", "fma.rn.f64 %0, %0, %1, %0;")
CHAIN_LAT(dadd, double, "d", "add.f64 %0, %0, %1;")
CHAIN_LAT(hfma2, unsigned, "r", "fma.rn.f16x2 %0, %0, %1, %0;")
CHAIN_LAT(ex2, float, "f", "{ .reg .f32 t; add.f32 t, %0, %1; ex2.approx.ftz.f32 %0, t; }")
CHAIN_LAT(rcp, float, "f", "{ .reg .f32 t; add.f32 t, %0, %1; rcp.approx.ftz.f32 %0, t; }")
CHAIN_LAT(sin, float, "f", "{ .reg .f32 t; add.f32 t, %0, %1; sin.approx.ftz.f32 %0, t; }")
CHAIN_LAT(cvt, float, "f", "{ .reg .s32 t; .reg .f32 u; cvt.rzi.s32.f32 t, %0; cvt.rn.f32.s32 u, t; add.f32 %0, u, %1; }")
CHAIN_LAT(shfl, unsigned, "r", "shfl.sync.bfly.b32 %0, %0, 1, 31, -1; add.u32 %0, %0, %1;")

// mma.sync m16n8k16 f16 inputs, f32 accumulators: LAT chains one accumulator set; THR keeps
// 4 independent accumulator sets per warp.
#define MMA(D, A, B) asm volatile(                                                           \
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};" \
    : "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])                                         \
    : "r"(A[0]), "r"(A[1]), "r"(A[2]), "r"(A[3]), "r"(B[0]), "r"(B[1]))
extern "C" __global__ void lat_mma(unsigned a, unsigned b, int iters, long long *out, float *sink) {
    unsigned A[4] = {a, b, a, b}, B[2] = {b, a};
    float d[4] = {0, 0, 0, 0};
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 32; k++) MMA(d, A, B);
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = 32LL * iters; }
    sink[threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}
extern "C" __global__ void thr_mma(unsigned a, unsigned b, int iters, long long *out, float *sink) {
    unsigned A[4] = {a, b, a, b}, B[2] = {b, a};
    float d0[4] = {0}, d1[4] = {0}, d2[4] = {0}, d3[4] = {0};
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 8; k++) { MMA(d0, A, B); MMA(d1, A, B); MMA(d2, A, B); MMA(d3, A, B); }
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 32LL * iters * (blockDim.x / 32); }
    float s = d0[0] + d1[1] + d2[2] + d3[3];
    if (s == 12345.f) sink[0] = s;
}

// ---------------------------------------------------------------- control flow and barriers
// Divergence: lanes split into `ways` groups by lane % ways; each group runs 64 dependent fadds.
extern "C" __global__ void diverge(int ways, int iters, long long *out, float *sink) {
    float a = threadIdx.x, b = 1.0001f;
    int lane = threadIdx.x & 31;
    int my = lane % ways;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        for (int w = 0; w < ways; w++) {
            if (my == w) {
#pragma unroll
                for (int k = 0; k < 32; k++) { asm volatile("add.f32 %0, %0, %1;" : "+f"(a) : "f"(b)); }
            }
        }
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = iters; }
    sink[threadIdx.x] = a;
}

// Uniform taken branches: a loop whose body is one predicated branch around an add.
extern "C" __global__ void branch_cost(int iters, int flag, long long *out, float *sink) {
    float a = 0.f;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        asm volatile("{ .reg .pred p; setp.ne.s32 p, %1, 0; @p bra.uni L_SKIP%=; add.f32 %0, %0, 1.0; L_SKIP%=: }"
                     : "+f"(a) : "r"(flag + i - i));
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = iters; }
    sink[threadIdx.x] = a;
}

extern "C" __global__ void barrier_cost(int iters, long long *out) {
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) asm volatile("bar.sync 0;" ::: "memory");
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = iters; }
}

// ---------------------------------------------------------------- shared bank conflicts
// Each lane reads word lane * ways (+ the loaded value, which is 0): an n-way conflict for n =
// ways. The loads are dependent, so with one warp this is latency; with 32 warps, throughput.
extern "C" __global__ void bank_conflict(int ways, int iters, long long *out) {
    __shared__ unsigned s[32 * 33];
    for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned lane = threadIdx.x & 31;
    unsigned off = (lane * ways) % (32 * 32), v = 0;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++)
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + 4 * (off + v)) : "memory");
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = 16LL * iters; }
    if (v == 777) out[2] = v;
}

// ---------------------------------------------------------------- atomics
// Latency: one thread, each atomic's address depends on the previous one's result (always 0 offset).
extern "C" __global__ void atom_lat_global(unsigned *a, int iters, long long *out) {
    unsigned v = 0;
    long long t0 = clk();
    for (int i = 0; i < iters; i++)
        asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(a + (v & 0x80000000u ? 1 : 0)) : "memory");
    long long t1 = clk();
    out[0] = t1 - t0; out[1] = iters; out[2] = v;
}
extern "C" __global__ void atom_lat_shared(int iters, long long *out) {
    __shared__ unsigned s[2];
    s[0] = 0; s[1] = 0;
    unsigned base = (unsigned)__cvta_generic_to_shared(s), v = 0;
    long long t0 = clk();
    for (int i = 0; i < iters; i++)
        asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(v) : "r"(base + (v & 0x80000000u ? 4 : 0)) : "memory");
    long long t1 = clk();
    out[0] = t1 - t0; out[1] = iters; out[2] = v;
}
// Throughput (timed by events): mode 0 = every thread on one address, 1 = distinct addresses
// (one per thread, coalesced), 2 = shared memory, one address per block, 3 = shared, distinct.
extern "C" __global__ void atom_thr(unsigned *a, int mode, int iters) {
    __shared__ unsigned s[1024];
    s[threadIdx.x] = 0;
    __syncthreads();
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iters; i++) {
        if (mode == 0) atomicAdd(a, 1u);
        else if (mode == 1) atomicAdd(a + tid, 1u);
        else if (mode == 2) atomicAdd(s, 1u);
        else atomicAdd(s + threadIdx.x, 1u);
    }
    __syncthreads();
    if (mode >= 2 && threadIdx.x == 0) a[blockIdx.x] = s[0];
}
