// Asynchronous copies (issue 20, async20): cp.async, cp.async.bulk (the TMA engine) and mbarrier
// waits against plain loads. Built with nvcc -arch=sm_90a (build.sh); run by
// tools/device/timing_async.py. Cycle counts from %clock64; bandwidths from CUDA events.
typedef unsigned long long u64;
__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) :: "memory");
    return t;
}
__device__ __forceinline__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(u64 *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(saddr(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_wait(u64 *bar, unsigned phase) {
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}"
                 ::"r"(saddr(bar)), "r"(phase) : "memory");
}
__device__ __forceinline__ void bulk_load(void *dst, const void *src, unsigned bytes, u64 *bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(saddr(bar)), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(saddr(dst)), "l"(src), "r"(bytes), "r"(saddr(bar)) : "memory");
}

// ---------------------------------------------------------------- latency: dependent chains
// chain[i] holds the element index of the next block (blocks of `block` floats); one thread
// follows it `steps` times. out[0] cycles, out[1] steps.
extern "C" __global__ void chase_ld(const int *chain, int steps, long long *out) {
    int i = 0;
    long long t0 = clk();
    for (int k = 0; k < steps; k++) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(i) : "l"(chain + i) : "memory");
    long long t1 = clk();
    out[0] = t1 - t0; out[1] = steps; out[2] = i;
}
// the same chain, each step a 16-B cp.async.cg into shared memory, wait_group 0, then ld.shared
extern "C" __global__ void chase_cpasync(const int *chain, int steps, long long *out) {
    __shared__ __align__(16) int s[4];
    int i = 0;
    long long t0 = clk();
    for (int k = 0; k < steps; k++) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr(s)), "l"(chain + i) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(i) : "r"(saddr(s)) : "memory");
    }
    long long t1 = clk();
    out[0] = t1 - t0; out[1] = steps; out[2] = i;
}
// the same chain with cp.async.bulk of `bytes` (16..16384) and an mbarrier wait
extern "C" __global__ void chase_bulk(const int *chain, int steps, int bytes, long long *out) {
    __shared__ __align__(128) int s[4096];
    __shared__ __align__(8) u64 bar;
    if (threadIdx.x) return;
    mbar_init(&bar, 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    int i = 0;
    long long t0 = clk();
    for (int k = 0; k < steps; k++) {
        bulk_load(s, chain + i, bytes, &bar);
        mbar_wait(&bar, k & 1);
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(i) : "r"(saddr(s)) : "memory");
    }
    long long t1 = clk();
    out[0] = t1 - t0; out[1] = steps; out[2] = i;
}

// ---------------------------------------------------------------- mbarrier round trips
// one CTA; every iteration all threads (all=1) or lane 0 of each warp (all=0) arrive, then all
// wait for the phase. out[0] cycles (thread 0), out[1] iterations.
extern "C" __global__ void mbar_roundtrip(int iters, int all, long long *out) {
    __shared__ __align__(8) u64 bar;
    int warps = blockDim.x / 32;
    if (threadIdx.x == 0) mbar_init(&bar, all ? blockDim.x : warps);
    __syncthreads();
    bool arrive = all || (threadIdx.x % 32) == 0;
    long long t0 = clk();
    for (int k = 0; k < iters; k++) {
        if (arrive) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(saddr(&bar)) : "memory");
        mbar_wait(&bar, k & 1);
    }
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = iters; }
}
// __syncthreads for comparison (same loop shape)
extern "C" __global__ void bar_roundtrip(int iters, long long *out) {
    long long t0 = clk();
    for (int k = 0; k < iters; k++) __syncthreads();
    long long t1 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = iters; }
}

// ---------------------------------------------------------------- streams: bandwidth per SM
// 256 threads, tiles of 4 KiB (16 B per thread); CTA b reads tiles b*region + (t % region),
// t < tiles. K stages in flight. out[gid] = sum (keeps the reads).
template <int K>
__device__ void stream_cpasync_body(const float4 *in, int region, int tiles, float *out) {
    __shared__ __align__(16) float4 s[K][256];
    int t = threadIdx.x;
    const float4 *base = in + (long long)blockIdx.x * region * 256;
    float acc = 0.f;
#pragma unroll
    for (int k = 0; k < K - 1; k++) {
        if (k < tiles)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr(&s[k][t])), "l"(base + (k % region) * 256 + t) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
    }
    for (int k = 0; k < tiles; k++) {
        int nk = k + K - 1;
        if (nk < tiles)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr(&s[nk % K][t])), "l"(base + (nk % region) * 256 + t) : "memory");
        asm volatile("cp.async.commit_group;" ::: "memory");
        asm volatile("cp.async.wait_group %0;" ::"n"(K - 1) : "memory");
        float4 v = s[k % K][t];   // each thread reads its own 16 B: no barrier needed
        acc += v.x + v.y + v.z + v.w;
    }
    out[blockIdx.x * 256 + t] = acc;
}
template <int K>
__device__ void stream_ld_body(const float4 *in, int region, int tiles, float *out) {
    int t = threadIdx.x;
    const float4 *base = in + (long long)blockIdx.x * region * 256;
    float acc = 0.f;
    for (int k = 0; k < tiles; k += K) {
        float4 v[K];
#pragma unroll
        for (int j = 0; j < K; j++) v[j] = __ldcg(base + ((k + j) % region) * 256 + t);
#pragma unroll
        for (int j = 0; j < K; j++) acc += v[j].x + v[j].y + v[j].z + v[j].w;
    }
    out[blockIdx.x * 256 + t] = acc;
}
// thread 0 issues one 8 KiB bulk copy per tile into a K-stage ring; all threads wait and sum
template <int K>
__device__ void stream_bulk_body(const float *in, int region, int tiles, float *out) {
    __shared__ __align__(128) float s[K][2048];
    __shared__ __align__(8) u64 bar[K];
    int t = threadIdx.x;
    const float *base = in + (long long)blockIdx.x * region * 2048;
    if (t == 0)
        for (int k = 0; k < K; k++) mbar_init(&bar[k], 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (t == 0)
        for (int k = 0; k < K - 1 && k < tiles; k++) bulk_load(s[k], base + (k % region) * 2048, 8192, &bar[k]);
    float acc = 0.f;
    for (int k = 0; k < tiles; k++) {
        int nk = k + K - 1;
        if (t == 0 && nk < tiles) bulk_load(s[nk % K], base + (nk % region) * 2048, 8192, &bar[nk % K]);
        mbar_wait(&bar[k % K], (k / K) & 1);
        for (int q = t; q < 2048; q += 256) acc += s[k % K][q];
        __syncthreads();
    }
    out[blockIdx.x * 256 + t] = acc;
}
#define STREAMS(K)                                                                                   \
extern "C" __global__ void stream_cpasync##K(const float4 *in, int region, int tiles, float *out) {  \
    stream_cpasync_body<K>(in, region, tiles, out);                                                  \
}                                                                                                    \
extern "C" __global__ void stream_ld##K(const float4 *in, int region, int tiles, float *out) {       \
    stream_ld_body<K>(in, region, tiles, out);                                                       \
}                                                                                                    \
extern "C" __global__ void stream_bulk##K(const float *in, int region, int tiles, float *out) {      \
    stream_bulk_body<K>(in, region, tiles, out);                                                     \
}
STREAMS(1)
STREAMS(2)
STREAMS(4)

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clk();
    while (clk() - t0 < cycles) {}
}
