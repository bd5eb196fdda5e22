// Per-thread sequential walks (issue 20, helper l1cap): every thread reads (and/or writes) K
// consecutive 4-byte words of its own segment, so one warp-load touches 32 lines (one per lane,
// 4 B of each) and each line is used again by the next 31 loads of the same lane: whether it is
// still in the L1 then depends on how many warps walk their own lines at the same time (CTAs per
// SM) and how the SM interleaves them. Run by tools/device/timing_walk.py; modelled by
// benchmarks/timing/walk/predict.py; what it pins: docs/timing-model.md section 3.
//
// Thread t (global id) owns words [t*K, t*K + K). Kernels (suffix u1: `#pragma unroll 1`, one
// load of a warp in flight; u4: `#pragma unroll 4`, ptxas's usual unrolled loop):
//   walk_ld   sum of a[t*K + i]                      -> out[t]   (loads only, one stream)
//   walk_ld2  sum of a[t*K + i] + b[t*K + i]         -> out[t]   (two streams)
//   walk_ldst o[t*K + i] = a[t*K + i] * 2 + 1                    (load + uncoalesced store)
//   walk_st   o[t*K + i] = i                                     (uncoalesced stores only)
// cyc[blockIdx.x] = the CTA's clock64 cycles from the barrier before its walk to the barrier after.
#define WALK_PRE                                                            \
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; \
    __syncthreads();                                                       \
    long long t0 = clock64();
#define WALK_POST   \
    __syncthreads(); \
    if (threadIdx.x == 0) cyc[blockIdx.x] = clock64() - t0;

template <int U>
__device__ void walk_ld(const float *a, float *out, long long *cyc, int K) {
    WALK_PRE
    const float *p = a + t * K;
    float s = 0.f;
#pragma unroll U
    for (int i = 0; i < K; i++) s += p[i];
    out[t] = s;
    WALK_POST
}

template <int U>
__device__ void walk_ld2(const float *a, const float *b, float *out, long long *cyc, int K) {
    WALK_PRE
    const float *p = a + t * K, *q = b + t * K;
    float s = 0.f;
#pragma unroll U
    for (int i = 0; i < K; i++) s += p[i] + q[i];
    out[t] = s;
    WALK_POST
}

template <int U>
__device__ void walk_ldst(const float *a, float *o, long long *cyc, int K) {
    WALK_PRE
    const float *p = a + t * K;
    float *q = o + t * K;
#pragma unroll U
    for (int i = 0; i < K; i++) q[i] = p[i] * 2.f + 1.f;
    WALK_POST
}

template <int U>
__device__ void walk_st(float *o, long long *cyc, int K) {
    WALK_PRE
    float *q = o + t * K;
#pragma unroll U
    for (int i = 0; i < K; i++) q[i] = (float)i;
    WALK_POST
}

#define WALK_KERNELS(U)                                                                                      \
    extern "C" __global__ void walk_ld_u##U(const float *a, float *out, long long *cyc, int K) {              \
        walk_ld<U>(a, out, cyc, K);                                                                          \
    }                                                                                                        \
    extern "C" __global__ void walk_ld2_u##U(const float *a, const float *b, float *out, long long *cyc,     \
                                             int K) {                                                        \
        walk_ld2<U>(a, b, out, cyc, K);                                                                      \
    }                                                                                                        \
    extern "C" __global__ void walk_ldst_u##U(const float *a, float *o, long long *cyc, int K) {             \
        walk_ldst<U>(a, o, cyc, K);                                                                          \
    }                                                                                                        \
    extern "C" __global__ void walk_st_u##U(float *o, long long *cyc, int K) { walk_st<U>(o, cyc, K); }

WALK_KERNELS(1)
WALK_KERNELS(4)

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}
