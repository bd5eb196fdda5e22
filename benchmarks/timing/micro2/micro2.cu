// Second set of timing microbenchmarks (issue 20): the mechanisms behind the model's failures on
// unseen kernels. Built with nvcc -arch=sm_90a (build.sh); run by tools/device/timing_micro2.py.
// Cycle counts from %clock64 in volatile asm; rates and launch costs from CUDA events.
typedef unsigned long long u64;
__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}
__device__ __forceinline__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }
__device__ __forceinline__ u64 gtime() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }

// ---------------------------------------------------------------- dependent-issue latencies
// One thread: a = op(a, b); b = op(b, a), 128 per iteration.
#define LAT(NAME, T, C, OP)                                                                   \
extern "C" __global__ void lat2_##NAME(T a, T b, int iters, long long *out, T *sink) {       \
    long long t0 = clk();                                                                    \
    for (int i = 0; i < iters; i++) {                                                        \
        _Pragma("unroll") for (int k = 0; k < 64; k++) {                                     \
            asm volatile(OP : "+" C(a) : C(b));                                              \
            asm volatile(OP : "+" C(b) : C(a));                                              \
        }                                                                                    \
    }                                                                                        \
    long long t1 = clk();                                                                    \
    out[0] = t1 - t0; out[1] = 128LL * iters;                                                \
    sink[0] = a + b;                                                                         \
}
LAT(xor, unsigned, "r", "xor.b32 %0, %0, %1;")
LAT(lop3, unsigned, "r", "lop3.b32 %0, %0, %1, %0, 0x96;")
LAT(shl, unsigned, "r", "{ .reg .b32 t; shl.b32 t, %0, 1; xor.b32 %0, t, %1; }")
LAT(selp, unsigned, "r", "{ .reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %1, %0, p; }")
LAT(mulwide, unsigned, "r", "{ .reg .b64 t; mul.wide.u32 t, %0, %1; cvt.u32.u64 %0, t; }")
LAT(popc, unsigned, "r", "{ .reg .b32 t; popc.b32 t, %0; add.u32 %0, t, %1; }")
LAT(divf, float, "f", "div.rn.f32 %0, %0, %1;")
LAT(sqrtf, float, "f", "{ .reg .f32 t; sqrt.rn.f32 t, %0; add.f32 %0, t, %1; }")
LAT(rcprn, float, "f", "{ .reg .f32 t; rcp.rn.f32 t, %0; add.f32 %0, t, %1; }")
LAT(urem, unsigned, "r", "rem.u32 %0, %0, %1;")
LAT(cvth, float, "f", "{ .reg .f16 h; cvt.rn.f16.f32 h, %0; cvt.f32.f16 %0, h; }")
LAT(cvtf64, float, "f", "{ .reg .f64 d; cvt.f64.f32 d, %0; cvt.rn.f32.f64 %0, d; }")
LAT(dmul, double, "d", "mul.f64 %0, %0, %1;")
LAT(fmin, float, "f", "min.f32 %0, %0, %1;")
LAT(shfl_idx, unsigned, "r", "shfl.sync.idx.b32 %0, %0, %1, 31, -1;")
// S2R: a dependent read of %tid.x (xor keeps it in the chain)
LAT(s2r, unsigned, "r", "{ .reg .b32 t; mov.u32 t, %%tid.x; xor.b32 t, t, %0; add.u32 %0, t, %1; }")

// ---------------------------------------------------------------- issue rate of one sub-partition
// `warps` warps per CTA, 1 CTA; each warp runs `chains` (1,2,4,8) independent FMA chains, 64 per
// chain per iteration, fully unrolled (no loop overhead inside the timed body that matters).
template <int K>
__device__ void fma_chains(float *x, float b, int iters) {
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 64; k++) {
#pragma unroll
            for (int c = 0; c < K; c++) asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x[c]) : "f"(b));
        }
    }
}
#define ISSUE(K)                                                                             \
extern "C" __global__ void issue_fma##K(float b, int iters, long long *out, float *sink) {   \
    float x[K];                                                                              \
    _Pragma("unroll") for (int c = 0; c < K; c++) x[c] = threadIdx.x + c;                    \
    __syncthreads();                                                                         \
    long long t0 = clk();                                                                    \
    fma_chains<K>(x, b, iters);                                                              \
    long long t1 = clk();                                                                    \
    if ((threadIdx.x & 31) == 0) { out[2 * (threadIdx.x >> 5)] = t1 - t0; out[2 * (threadIdx.x >> 5) + 1] = 64LL * K * iters; } \
    float s = 0; _Pragma("unroll") for (int c = 0; c < K; c++) s += x[c];                    \
    if (s == 12345.f) sink[0] = s;                                                           \
}
ISSUE(1) ISSUE(2) ISSUE(4) ISSUE(8)

// Two pipes from one warp: 4 FMA chains and 4 integer (lop3) chains interleaved.
extern "C" __global__ void issue_mix(float b, unsigned u, int iters, long long *out, float *sink) {
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    unsigned y0 = threadIdx.x, y1 = y0 + 1, y2 = y0 + 2, y3 = y0 + 3;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 32; k++) {
            asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x0) : "f"(b));
            asm volatile("lop3.b32 %0, %0, %1, %0, 0x96;" : "+r"(y0) : "r"(u));
            asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x1) : "f"(b));
            asm volatile("lop3.b32 %0, %0, %1, %0, 0x96;" : "+r"(y1) : "r"(u));
            asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x2) : "f"(b));
            asm volatile("lop3.b32 %0, %0, %1, %0, 0x96;" : "+r"(y2) : "r"(u));
            asm volatile("fma.rn.f32 %0, %0, %1, %1;" : "+f"(x3) : "f"(b));
            asm volatile("lop3.b32 %0, %0, %1, %0, 0x96;" : "+r"(y3) : "r"(u));
        }
    }
    long long t1 = clk();
    if ((threadIdx.x & 31) == 0) { out[2 * (threadIdx.x >> 5)] = t1 - t0; out[2 * (threadIdx.x >> 5) + 1] = 256LL * iters; }
    if (x0 + x1 + x2 + x3 == 12345.f || (y0 ^ y1 ^ y2 ^ y3) == 12345u) sink[0] = 1;
}

// A compiled loop (no volatile asm): 4 independent FMA chains, nvcc unrolls it; what one warp
// spends per iteration when ptxas schedules loop counter, compare and branch itself.
extern "C" __global__ void loop_fma4(float *out, int iters, long long *cyc) {
    float a = threadIdx.x, b = a + 1, c = a + 2, d = a + 3;
    long long t0 = clk();
    for (int i = 0; i < iters; ++i) {
        a = fmaf(a, 0.999f, 0.5f); b = fmaf(b, 0.999f, 0.5f); c = fmaf(c, 0.999f, 0.5f); d = fmaf(d, 0.999f, 0.5f);
    }
    long long t1 = clk();
    out[threadIdx.x] = a + b + c + d;
    if (threadIdx.x == 0) { cyc[0] = t1 - t0; cyc[1] = iters; }
}
// The same with one chain (latency-bound loop).
extern "C" __global__ void loop_fma1(float *out, int iters, long long *cyc) {
    float a = threadIdx.x;
    long long t0 = clk();
    for (int i = 0; i < iters; ++i) a = fmaf(a, 0.999f, 0.5f);
    long long t1 = clk();
    out[threadIdx.x] = a;
    if (threadIdx.x == 0) { cyc[0] = t1 - t0; cyc[1] = iters; }
}

// ---------------------------------------------------------------- shared memory
// Shared atomics: lane -> address (lane % ways) * spread words; 1 CTA of `blockDim` threads per
// SM; cycles per warp-atomic. spread 1: distinct addresses in distinct banks; spread 32: one bank.
extern "C" __global__ void atom_shared_ways(int ways, int spread, int iters, long long *out) {
    __shared__ unsigned s[32 * 32];
    for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned lane = threadIdx.x & 31;
    unsigned addr = base + 4 * (((lane % ways) * spread) % 1024);
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++) asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(addr) : "memory");
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 16LL * iters * (blockDim.x / 32); }
}
// The same with atom (value returned, dependent through it), one warp: latency under conflict.
extern "C" __global__ void atom_shared_ways_lat(int ways, int iters, long long *out) {
    __shared__ unsigned s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = 0;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned lane = threadIdx.x & 31, v = 0;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++)
            asm volatile("atom.shared.add.u32 %0, [%1], 1;" : "=r"(v) : "r"(base + 4 * (lane % ways) + (v & 0x80000000u ? 4 : 0)) : "memory");
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = 16LL * iters; }
    if (v == 7) out[2] = v;
}
// Histogram-like: each lane adds to a pseudo-random bin of `bins` (hash of thread and step).
extern "C" __global__ void atom_shared_hist(int bins, int iters, long long *out) {
    __shared__ unsigned s[4096];
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) s[i] = 0;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned h = threadIdx.x * 2654435761u + 12345u;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        h = h * 1664525u + 1013904223u;
        asm volatile("red.shared.add.u32 [%0], 1;" :: "r"(base + 4 * ((h >> 16) % bins)) : "memory");
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = (long long)iters * (blockDim.x / 32); }
}
// Shared loads: width 4/8/16 bytes, conflict-free, independent (throughput), 1 CTA per SM.
extern "C" __global__ void lds_width(int width, int iters, long long *out, float *sink) {
    __shared__ float4 s[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) s[i] = make_float4(0, 0, 0, 0);
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned lane = threadIdx.x & 31;
    float acc = 0;
    long long t0 = clk();
    if (width == 4) {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < 16; k++) { float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(base + 4 * lane + 128 * k)); acc += v; }
        }
    } else if (width == 8) {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < 16; k++) { float v, w; asm volatile("ld.shared.v2.f32 {%0,%1}, [%2];" : "=f"(v), "=f"(w) : "r"(base + 8 * lane + 256 * k)); acc += v + w; }
        }
    } else {
        for (int i = 0; i < iters; i++) {
#pragma unroll
            for (int k = 0; k < 16; k++) { float v, w, x, y; asm volatile("ld.shared.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v), "=f"(w), "=f"(x), "=f"(y) : "r"(base + 16 * lane + 512 * (k & 1))); acc += (v + w) + (x + y); }
        }
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 16LL * iters * (blockDim.x / 32); }
    if (acc == 12345.f) sink[0] = acc;
}
// Broadcast loads (every lane the same word, as As[ty][k] in a tiled GEMM) interleaved with FMAs.
extern "C" __global__ void lds_fma(int iters, long long *out, float *sink) {
    __shared__ float s[16 * 17];
    for (int i = threadIdx.x; i < 16 * 17; i += blockDim.x) s[i] = 1.0f;
    __syncthreads();
    unsigned base = (unsigned)__cvta_generic_to_shared(s);
    unsigned tx = threadIdx.x & 15;
    float acc = 0;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++) {
            float a, b;
            asm volatile("ld.shared.f32 %0, [%1];" : "=f"(a) : "r"(base + 4 * k));
            asm volatile("ld.shared.f32 %0, [%1];" : "=f"(b) : "r"(base + 4 * (16 * k + tx)));
            asm volatile("fma.rn.f32 %0, %1, %2, %0;" : "+f"(acc) : "f"(a), "f"(b));
        }
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 16LL * iters * (blockDim.x / 32); }
    if (acc == 12345.f) sink[0] = acc;
}

// ---------------------------------------------------------------- barriers, several CTAs per SM
extern "C" __global__ void barrier_multi(int iters, long long *out) {
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) asm volatile("bar.sync 0;" ::: "memory");
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = iters; }
}
// A reduction step pattern: bar.sync with a shared load+add+store by the first `active` threads.
extern "C" __global__ void barrier_tree(int iters, long long *out) {
    __shared__ float s[1024];
    s[threadIdx.x] = 1.0f;
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
            if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
            __syncthreads();
        }
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = iters; }
}

// ---------------------------------------------------------------- memory under load
// Every thread of the grid chases its own pointer chain (each element = index of the next),
// `steps` dependent loads; `lanes` threads per warp take part. Per-CTA cycles / steps = the
// latency seen under the load that all warps together make.
extern "C" __global__ void chase_load(const unsigned *next, int steps, int lanes, int cg, long long *out) {
    unsigned lane = threadIdx.x & 31;
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned p = (gid * 2654435761u) & 0x3fffffu;  // start somewhere in the first 4M entries
    __syncthreads();
    long long t0 = clk();
    if (lane < lanes) {
        if (cg) { for (int i = 0; i < steps; i++) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(p) : "l"(next + p)); }
        else { for (int i = 0; i < steps; i++) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(p) : "l"(next + p)); }
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = steps; }
    if (p == 0xffffffffu) out[0] = p;
}
// Streaming read with `unroll` independent float4 loads in flight per thread (grid-stride).
template <int U>
__device__ void stream_read_u(const float4 *src, long long n4, float *sink) {
    float acc = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    for (; i + (U - 1) * stride < n4; i += U * stride) {
        float4 v[U];
#pragma unroll
        for (int u = 0; u < U; u++) v[u] = __ldcs(src + i + u * stride);
#pragma unroll
        for (int u = 0; u < U; u++) acc += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += stride) { float4 v = __ldcs(src + i); acc += v.x + v.y + v.z + v.w; }
    if (acc == 12345.f) sink[0] = acc;
}
extern "C" __global__ void stream_read1(const float4 *s, long long n4, float *sink) { stream_read_u<1>(s, n4, sink); }
extern "C" __global__ void stream_read4(const float4 *s, long long n4, float *sink) { stream_read_u<4>(s, n4, sink); }

// ---------------------------------------------------------------- global atomics
// mode 0: all on one address; 1: one address per warp (lanes same); 2: coalesced (per thread);
// 3: pseudo-random over `bins` addresses; 4: red (no return) on one address.
extern "C" __global__ void atom_global(unsigned *a, int mode, int bins, int iters) {
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned h = tid * 2654435761u + 7u;
    unsigned acc = 0;
    for (int i = 0; i < iters; i++) {
        if (mode == 0) acc += atomicAdd(a, 1u);
        else if (mode == 1) acc += atomicAdd(a + 32 * (tid >> 5), 1u);
        else if (mode == 2) acc += atomicAdd(a + tid, 1u);
        else if (mode == 3) { h = h * 1664525u + 1013904223u; acc += atomicAdd(a + (h >> 8) % bins, 1u); }
        else asm volatile("red.global.add.u32 [%0], 1;" :: "l"(a) : "memory");
    }
    if (acc == 0xdeadbeefu) a[1] = acc;
}

// ---------------------------------------------------------------- launch, waves, tail
extern "C" __global__ void empty() {}
extern "C" __global__ void spin(long long cycles) {
    long long t0 = clk();
    while (clk() - t0 < cycles) {}
}
// Each CTA spins `cycles`; thread 0 records SM, start and end (globaltimer) of its CTA.
extern "C" __global__ void cta_spin(long long cycles, u64 *rec) {
    u64 g0 = gtime();
    long long t0 = clk();
    while (clk() - t0 < cycles) {}
    __syncthreads();
    if (threadIdx.x == 0) { rec[3 * blockIdx.x] = smid(); rec[3 * blockIdx.x + 1] = g0; rec[3 * blockIdx.x + 2] = gtime(); }
}
// One load and one store per thread: the smallest memory kernel.
extern "C" __global__ void tiny_copy(const float *a, float *b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = a[i];
}

// ---------------------------------------------------------------- second call (issue 20)
// Integer pipes: 8 chains per thread, x_i = op(x_i, x_{i+1}) (no two steps can be folded).
#define INT_THR(NAME, OP)                                                                     \
extern "C" __global__ void ithr_##NAME(unsigned seed, int iters, long long *out, unsigned *sink) { \
    unsigned x0 = threadIdx.x ^ seed, x1 = x0 * 3u, x2 = x0 * 5u, x3 = x0 * 7u, x4 = x0 * 11u, x5 = x0 * 13u, x6 = x0 * 17u, x7 = x0 * 19u; \
    __syncthreads();                                                                          \
    long long t0 = clk();                                                                     \
    for (int i = 0; i < iters; i++) {                                                         \
        _Pragma("unroll") for (int k = 0; k < 8; k++) {                                       \
            asm volatile(OP : "+r"(x0) : "r"(x1)); asm volatile(OP : "+r"(x1) : "r"(x2));     \
            asm volatile(OP : "+r"(x2) : "r"(x3)); asm volatile(OP : "+r"(x3) : "r"(x4));     \
            asm volatile(OP : "+r"(x4) : "r"(x5)); asm volatile(OP : "+r"(x5) : "r"(x6));     \
            asm volatile(OP : "+r"(x6) : "r"(x7)); asm volatile(OP : "+r"(x7) : "r"(x0));     \
        }                                                                                     \
    }                                                                                         \
    __syncthreads();                                                                          \
    long long t1 = clk();                                                                     \
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 64LL * iters * (blockDim.x / 32); } \
    unsigned s = x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5 ^ x6 ^ x7;                                       \
    if (s == 0x12345678u) sink[0] = s;                                                        \
}
INT_THR(iadd, "add.u32 %0, %0, %1;")
INT_THR(lop3, "lop3.b32 %0, %0, %1, 0x0f0f0f0f, 0x6a;")
INT_THR(shf, "shf.l.wrap.b32 %0, %0, %1, 5;")
INT_THR(imad, "mad.lo.u32 %0, %0, %1, 7;")
INT_THR(setpsel, "{ .reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %1, %0, p; }")

// L1 hits with `lines` distinct 128-B lines per warp request; dependent through the loaded 0.
extern "C" __global__ void l1_lines(const unsigned *buf, int lines, int iters, long long *out) {
    unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const unsigned *p = buf + ((lane % lines) * 32 + lane / lines + (w & 7) * 32 * 32);
    unsigned v = 0, acc = 0;
    for (int i = 0; i < 4; i++) { asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); acc += v; }
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < 16; k++) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p + v) : "memory");
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = 16LL * iters; }
    if (v + acc == 777u) out[1] = v;
}
// Stores: every lane writes its own 128-B line (`lines` lines per warp request), L2-resident.
extern "C" __global__ void store_lines(unsigned *buf, int lines, int iters, long long mask, long long *out) {
    unsigned lane = threadIdx.x & 31;
    unsigned long long gw = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        unsigned long long idx = ((gw * iters + i) * 32 * 32 + (lane % lines) * 32 + lane / lines) & mask;
        buf[idx] = i;
    }
    __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = t1 - t0; out[2 * blockIdx.x + 1] = iters; }
}
