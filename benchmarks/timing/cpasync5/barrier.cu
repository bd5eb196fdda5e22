// Streams from DRAM whose rounds end in a CTA barrier, against the same without (issue 20, helper
// pipe20): does a barrier after the data arrives cost more than its own cycles (a CTA waits for the
// slowest of its warps' requests), for plain loads and cp.async alike? Run by
// tools/device/timing_cpasync5.py (item `barrier`); the model: benchmarks/timing/cpasync5/predict.py.
//
// bstream_<mode>_k<K>_s<S>(rd, rmask, rounds, bar, cyc, counts): every warp streams `rounds`
// rounds of K requests of 512 B (16 B per lane; request r = (round * K + j) * warps_in_grid + warp,
// bytes [r * 512, ...) & rmask). S = 1: each round issues its K requests, waits for them (ld16:
// ld.global.cg.v4 and the values' use; cp16: cp.async.cg 16 B + commit + wait_group 0 +
// ld.shared.v4), then, bar = 1, __syncthreads. S = 2: the pipelined form of the timing suite's
// pipe_cp_async / pipe_plain: round k+1's requests are issued before round k's are waited for
// (cp16: wait_group 1 on a 2-stage shared ring; ld16: the next round's loads into registers
// before the current ones are used), then, bar = 1, __syncthreads before and after the use. Lane 0
// of each warp writes its clock64 cycles (first round to last) to cyc[warp]. Dynamic shared memory:
// blockDim.x * K * S * 16 bytes (cp16).
#include <cstdint>

__device__ __forceinline__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

template <int MODE>
__device__ __forceinline__ void issue(const char *a, uint4 *slot, uint4 &v) {
    if (MODE == 0)
        asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(a) : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr(slot)), "l"(a) : "memory");
}
template <int MODE>
__device__ __forceinline__ unsigned use(const uint4 *slot, const uint4 &v) {
    if (MODE == 0) return v.x + v.y + v.z + v.w;
    uint4 x;
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x.x), "=r"(x.y), "=r"(x.z), "=r"(x.w) : "r"(saddr(slot)) : "memory");
    return x.x + x.y + x.z + x.w;
}

template <int MODE, int K, int S>
__device__ void bstream_body(const char *rd, unsigned long long rmask, int rounds, int bar, long long *cyc,
                             unsigned long long *counts) {
    extern __shared__ uint4 ring[];  // [S][K][blockDim.x]
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long warp = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned long long nw = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
    const unsigned nt = blockDim.x;
    unsigned dep = 0, acc = 0;
    uint4 v[S][K];
    auto addr = [&](int it, int j) {
        unsigned long long r = (unsigned long long)(it * K + j) * nw + warp;
        return rd + (((r * 32 + lane) * 16 + dep) & rmask);
    };
    __syncthreads();
    long long t0 = clock64();
    if (S == 1) {
        for (int it = 0; it < rounds; it++) {
#pragma unroll
            for (int j = 0; j < K; j++) issue<MODE>(addr(it, j), &ring[j * nt + threadIdx.x], v[0][j]);
            if (MODE == 1) {
                asm volatile("cp.async.commit_group;" ::: "memory");
                asm volatile("cp.async.wait_group 0;" ::: "memory");
            }
            unsigned t = 0;
#pragma unroll
            for (int j = 0; j < K; j++) t += use<MODE>(&ring[j * nt + threadIdx.x], v[0][j]);
            if (bar) __syncthreads();
            dep += t;
            acc += t;
        }
    } else {
#pragma unroll
        for (int j = 0; j < K; j++) issue<MODE>(addr(0, j), &ring[j * nt + threadIdx.x], v[0][j]);
        if (MODE == 1) asm volatile("cp.async.commit_group;" ::: "memory");
        for (int it = 0; it < rounds; it += 2) {
#pragma unroll
            for (int h = 0; h < 2; h++) {  // h: the stage of round it + h (unrolled so the registers are fixed)
                if (it + h + 1 < rounds) {
#pragma unroll
                    for (int j = 0; j < K; j++)
                        issue<MODE>(addr(it + h + 1, j), &ring[((1 - h) * K + j) * nt + threadIdx.x], v[1 - h][j]);
                }
                if (MODE == 1) {
                    asm volatile("cp.async.commit_group;" ::: "memory");
                    asm volatile("cp.async.wait_group 1;" ::: "memory");
                }
                if (bar) __syncthreads();
                unsigned t = 0;
#pragma unroll
                for (int j = 0; j < K; j++) t += use<MODE>(&ring[(h * K + j) * nt + threadIdx.x], v[h][j]);
                if (bar) __syncthreads();
                acc += t;
            }
        }
    }
    long long t1 = clock64();
    if (lane == 0) {
        cyc[warp] = t1 - t0;
        atomicAdd(&counts[0], 1ull);
    }
    if (acc == 0x7fffffffu) counts[2] = acc + dep;
}

#define BSTREAM(MODE, NAME, K, S)                                                                             \
    extern "C" __global__ void bstream_##NAME##_k##K##_s##S(const char *rd, unsigned long long rmask,          \
                                                             int rounds, int bar, long long *cyc,              \
                                                             unsigned long long *counts) {                      \
        bstream_body<MODE, K, S>(rd, rmask, rounds, bar, cyc, counts);                                        \
    }
BSTREAM(0, ld16, 1, 1)
BSTREAM(1, cp16, 1, 1)
BSTREAM(0, ld16, 2, 1)
BSTREAM(1, cp16, 2, 1)
BSTREAM(0, ld16, 1, 2)
BSTREAM(1, cp16, 1, 2)
