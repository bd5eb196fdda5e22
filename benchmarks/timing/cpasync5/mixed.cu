// DRAM read latency under load, with and without concurrent writes, for plain loads against
// cp.async (issue 20, helper pipe20). Run by tools/device/timing_cpasync5.py; the model on the same
// PTX: benchmarks/timing/cpasync5/predict.py; what each point pins: docs/timing-model.md section 3.
//
// mixed_<mode>_k<K>_w<WW>: CTAs of 8 warps. Warps w >= writers are readers: `rounds` rounds of K
// independent requests of one warp each, then the values (all zero) go into the next round's
// addresses, so exactly K requests of a warp are in flight. mode ld4: ld.global.cg.u32 (128 B per
// request), ld16: ld.global.cg.v4.u32 (512 B); copy4 / copy16: the same, each value then stored
// (st.global, 4 / 16 B per lane) at the same offset of the write buffer; cp16: cp.async.cg 16 B per lane into shared memory +
// commit_group + wait_group 0 + ld.shared.v4 (512 B). Request r = (round * K + j) * readers_in_grid
// + reader reads bytes [r * 32 * bytes_per_lane, ...) & rmask: all readers sweep the buffer together
// (as a grid-stride copy does). Warps w < writers store WW bytes per lane (st.global, 8 stores per
// check) through the write buffer (& wmask) until every reader has finished (or, wstores > 0,
// for exactly wstores stores per lane). Each warp's lane 0
// writes its clock64 cycles (first round to last) to cyc[warp]; writers add their bytes to
// counts[1]. A reader's cycles / rounds = the latency of a round of K requests under that load.
#include <cstdint>

__device__ __forceinline__ unsigned saddr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

template <int MODE, int K, int WW>
__device__ void mixed_body(const char *rd, char *wr, unsigned long long rmask, unsigned long long wmask,
                           int rounds, int writers, int wstores, long long *cyc, unsigned long long *counts) {
    __shared__ __align__(16) uint4 s[8][K][32];
    const unsigned lane = threadIdx.x & 31, w = threadIdx.x >> 5, wpc = blockDim.x >> 5;
    const unsigned long long nreaders = (unsigned long long)gridDim.x * (wpc - writers);
    const unsigned long long nwriters = (unsigned long long)gridDim.x * writers;
    const unsigned long long gwarp = (unsigned long long)blockIdx.x * wpc + w;
    __syncthreads();
    long long t0 = clock64();
    if (w >= (unsigned)writers) {
        const unsigned long long reader = (unsigned long long)blockIdx.x * (wpc - writers) + (w - writers);
        constexpr unsigned BPL = MODE == 0 || MODE == 3 ? 4 : 16;
        unsigned dep = 0, acc = 0;
        for (int it = 0; it < rounds; it++) {
            unsigned v[K];
#pragma unroll
            for (int j = 0; j < K; j++) {
                unsigned long long r = (unsigned long long)(it * K + j) * nreaders + reader;
                const char *a = rd + (((r * 32 + lane) * BPL + dep) & rmask);
                if (MODE == 0 || MODE == 3) {
                    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v[j]) : "l"(a) : "memory");
                } else if (MODE == 1 || MODE == 4) {
                    unsigned x, y, z, q;
                    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(q) : "l"(a) : "memory");
                    v[j] = x + y + z + q;
                } else {
                    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(saddr(&s[w][j][lane])), "l"(a) : "memory");
                }
            }
            if (MODE == 2) {
                asm volatile("cp.async.commit_group;" ::: "memory");
                asm volatile("cp.async.wait_group 0;" ::: "memory");
#pragma unroll
                for (int j = 0; j < K; j++) {
                    unsigned x, y, z, q;
                    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(q) : "r"(saddr(&s[w][j][lane])) : "memory");
                    v[j] = x + y + z + q;
                }
            }
            if (MODE >= 3) {  // copies: each value stored where it came from, in the write buffer
#pragma unroll
                for (int j = 0; j < K; j++) {
                    unsigned long long r = (unsigned long long)(it * K + j) * nreaders + reader;
                    char *a = wr + (((r * 32 + lane) * BPL) & wmask);
                    if (MODE == 3)
                        asm volatile("st.global.u32 [%0], %1;" ::"l"(a), "r"(v[j]) : "memory");
                    else
                        asm volatile("st.global.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(a), "r"(v[j]) : "memory");
                }
            }
            unsigned t = 0;
#pragma unroll
            for (int j = 0; j < K; j++) t += v[j];
            dep += t;
            acc += t;
        }
        long long t1 = clock64();
        if (lane == 0) {
            cyc[gwarp] = t1 - t0;
            atomicAdd(&counts[0], 1ull);
        }
        if (acc == 0x7fffffffu) counts[2] = acc;
    } else {
        const unsigned long long writer = (unsigned long long)blockIdx.x * writers + w;
        unsigned long long n = 0;
        volatile unsigned long long *done = counts;
        // wstores > 0: exactly that many stores per lane (the model's replay of a measured run)
        while (wstores ? n < (unsigned long long)wstores : *done < nreaders && clock64() - t0 < 100000000ll) {
#pragma unroll
            for (int j = 0; j < 8; j++) {
                unsigned long long r = (n + j) * nwriters + writer;
                char *a = wr + ((r * 32 + lane) * WW & wmask);
                if (WW == 4)
                    asm volatile("st.global.u32 [%0], %1;" ::"l"(a), "r"((unsigned)r) : "memory");
                else
                    asm volatile("st.global.v4.u32 [%0], {%1,%1,%1,%1};" ::"l"(a), "r"((unsigned)r) : "memory");
            }
            n += 8;
        }
        long long t1 = clock64();
        if (lane == 0) {
            cyc[gwarp] = t1 - t0;
            atomicAdd(&counts[1], n * 32 * WW);
        }
    }
}

#define MIXED(MODE, NAME, K, WW)                                                                              \
    extern "C" __global__ void mixed_##NAME##_k##K##_w##WW(const char *rd, char *wr, unsigned long long rmask,  \
                                                           unsigned long long wmask, int rounds, int writers, \
                                                           int wstores, long long *cyc, unsigned long long *counts) {      \
        mixed_body<MODE, K, WW>(rd, wr, rmask, wmask, rounds, writers, wstores, cyc, counts);                 \
    }
#define MIXED_ALL(K, WW) MIXED(0, ld4, K, WW) MIXED(1, ld16, K, WW) MIXED(2, cp16, K, WW)
MIXED_ALL(1, 4)
MIXED_ALL(1, 16)
MIXED_ALL(2, 4)
MIXED_ALL(2, 16)
MIXED_ALL(4, 4)
MIXED_ALL(4, 16)
// copies (writers = 0): mode copy4 / copy16 load as ld4 / ld16 and store each value (4 or 16 B per lane)
MIXED(3, copy4, 1, 16)
MIXED(4, copy16, 1, 16)
MIXED(3, copy4, 4, 16)
MIXED(4, copy16, 4, 16)

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}
