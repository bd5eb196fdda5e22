// Constant-memory microbenchmarks (issue 20, the constant cache hierarchy); build.sh -> const.cubin
// (sm_90a, for the GPU) and const.ptx (what the model runs). tools/device/timing_const.py runs them.
//
// c_tab (64 KiB less c_coef: the constant bank a module may use) holds pointer chains as byte offsets.
//   uchase   one warp, a chain through c_tab at a warp-uniform address: ptxas makes ULDC (uniform
//            datapath); pass 1 is the first touch after the launch, pass 2 the same chain again.
//   dchase   the same chain, but each lane adds (lane % k) * lane_step (plus zero * tid, which the
//            compiler cannot prove uniform): LDC with k distinct addresses per warp request.
//   ldc_tput / uldc_tput   W warps per SM, 8 independent loads per iteration (LDC with k distinct
//            addresses / ULDC), cycles per warp from %clock64: the constant port's throughput.
//   folded / unfolded      dependent FFMA chains whose multiplicands are c_coef[] (ptxas folds the
//            ld.const into the FFMA operand, c[0x3][imm]) or registers.
//   ustream  const_broadcast's loop (acc += c_tab[(i * stride) & mask], ULDC + FADD), two passes,
//            cycles per warp.
__constant__ float c_coef[8];  // first: at c[0x3][0x0]
__constant__ unsigned c_tab[16376];  // 65504 B: with c_coef the whole 64 KiB bank

__device__ __forceinline__ long long clk() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

extern "C" __global__ void spin(long long n) {
    long long t0 = clk();
    while (clk() - t0 < n) {}
}

extern "C" __global__ void uchase(unsigned start, int steps1, int steps2, long long *out) {
    const char *c = (const char *)c_tab;
    unsigned j = start;
    long long t0 = clk();
    for (int i = 0; i < steps1; i++) j = *(const unsigned *)(c + j);
    long long t1 = clk();
    for (int i = 0; i < steps2; i++) j = *(const unsigned *)(c + j);
    long long t2 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = t2 - t1; out[2] = j; }
}

extern "C" __global__ void dchase(unsigned start, int steps1, int steps2, int k, int lane_step, int zero, long long *out) {
    const char *c = (const char *)c_tab;
    unsigned off = (threadIdx.x & 31) % k * lane_step + zero * threadIdx.x;
    unsigned j = start;
    long long t0 = clk();
    for (int i = 0; i < steps1; i++) j = *(const unsigned *)(c + j + off);
    long long t1 = clk();
    for (int i = 0; i < steps2; i++) j = *(const unsigned *)(c + j + off);
    long long t2 = clk();
    if (threadIdx.x == 0) { out[0] = t1 - t0; out[1] = t2 - t1; out[2] = j; }
}

#define TPUT_BODY(OFF)                                                                  \
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f, a4 = 0.f, a5 = 0.f, a6 = 0.f, a7 = 0.f; \
    const char *c = (const char *)c_tab;                                                \
    __syncthreads();                                                                    \
    long long t0 = clk();                                                               \
    for (int i = 0; i < iters; i++) {                                                   \
        const char *b = c + ((i << 5) & mask) + (OFF);                                     \
        a0 += *(const float *)(b + 0); a1 += *(const float *)(b + 4);                   \
        a2 += *(const float *)(b + 8); a3 += *(const float *)(b + 12);                  \
        a4 += *(const float *)(b + 16); a5 += *(const float *)(b + 20);                 \
        a6 += *(const float *)(b + 24); a7 += *(const float *)(b + 28);                 \
    }                                                                                   \
    long long t1 = clk();                                                               \
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = t1 - t0; \
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;

extern "C" __global__ void ldc_tput(int iters, int mask, int k, int lane_step, int zero, long long *out, float *sink) {
    unsigned off = (threadIdx.x & 31) % k * lane_step + zero * threadIdx.x;
    TPUT_BODY(off)
}

extern "C" __global__ void uldc_tput(int iters, int mask, long long *out, float *sink) {
    TPUT_BODY(0)
}

extern "C" __global__ void folded(int iters, long long *out, float *sink) {
    float a = threadIdx.x * 1e-3f;
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        a = fmaf(a, c_coef[0], c_coef[1]); a = fmaf(a, c_coef[2], c_coef[3]);
        a = fmaf(a, c_coef[4], c_coef[5]); a = fmaf(a, c_coef[6], c_coef[7]);
    }
    long long t1 = clk();
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

extern "C" __global__ void unfolded(int iters, float x, long long *out, float *sink) {
    float k0 = x * 0.5f, k1 = x * 0.25f, k2 = x * 0.75f, k3 = x * 0.125f;
    float k4 = x * 0.3f, k5 = x * 0.6f, k6 = x * 0.9f, k7 = x * 0.1f;
    float a = threadIdx.x * 1e-3f;
    __syncthreads();
    long long t0 = clk();
    for (int i = 0; i < iters; i++) {
        a = fmaf(a, k0, k1); a = fmaf(a, k2, k3);
        a = fmaf(a, k4, k5); a = fmaf(a, k6, k7);
    }
    long long t1 = clk();
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) >> 5] = t1 - t0;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

extern "C" __global__ void ustream(int iters, int stride, int mask, long long *out, float *sink) {
    float acc = 0.f;
    long long t0 = clk();
    for (int i = 0; i < iters; i++) acc += __int_as_float(c_tab[(i * stride) & mask]);
    long long t1 = clk();
    for (int i = 0; i < iters; i++) acc += __int_as_float(c_tab[(i * stride) & mask]);
    long long t2 = clk();
    if ((threadIdx.x & 31) == 0) {
        int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
        out[2 * w] = t1 - t0;
        out[2 * w + 1] = t2 - t1;
    }
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
