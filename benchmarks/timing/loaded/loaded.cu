// Memory latency under load (issue 20, helper lat20): how fast one SM gets the data of strided
// warp loads as the lines per request, the warps per SM and the loads in flight per warp grow.
// Run by tools/device/timing_loaded.py; what each point pins: docs/timing-model.md section 3.
//
// strided_k<K>: every warp does `iters` rounds of K independent 4-byte loads (default caching,
// LDG.E), then adds their values (all zero) into the next round's addresses, so exactly K loads
// of a warp are in flight at a time. Lane l of request r reads byte
//     ((r & (P-1)) * 32 + (r >> log2 P) * 32 * S + l * S + dep) & mask,   S = 1 << lstride,
// P = 1 << lphase phases (S / 32 for S >= 32, else 1): the phases of consecutive requests walk
// the sectors between the lanes, so a request touches min(32, S*32/32) sectors in
// ceil(32*S/128) lines (at most 32) and no sector is read twice before the address wraps at mask.
// Requests are numbered r = (round * K + j) * warps_in_grid + warp. out[blockIdx.x] = the CTA's
// clock64 cycles from before its first round to after its last (thread 0, after __syncthreads).
#include <cstdint>

template <int K>
__device__ void strided_body(const int *buf, long long *cyc, int *sink, int lstride, int lphase,
                             unsigned long long mask, int iters) {
    const unsigned lane = threadIdx.x & 31;
    const unsigned long long warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned long long nw = (gridDim.x * blockDim.x) >> 5;
    const unsigned long long pm = (1ull << lphase) - 1;
    const unsigned long long lane_off = (unsigned long long)lane << lstride;
    unsigned long long dep = 0;
    int acc = 0;
    __syncthreads();
    long long t0 = clock64();
    for (int it = 0; it < iters; it++) {
        int v[K];
#pragma unroll
        for (int j = 0; j < K; j++) {
            unsigned long long r = (unsigned long long)(it * K + j) * nw + warp;
            unsigned long long off = (((r & pm) << 5) + ((r >> lphase) << (5 + lstride)) + lane_off + dep) & mask;
            v[j] = buf[off >> 2];
        }
        int s = 0;
#pragma unroll
        for (int j = 0; j < K; j++) s += v[j];
        dep += (unsigned)s;
        acc += s;
    }
    __syncthreads();
    if (threadIdx.x == 0) cyc[blockIdx.x] = clock64() - t0;
    if (acc == 0x7fffffff) sink[blockIdx.x] = acc;
}

#define STRIDED(K) \
    extern "C" __global__ void strided_k##K(const int *buf, long long *cyc, int *sink, int lstride, int lphase, \
                                            unsigned long long mask, int iters) { \
        strided_body<K>(buf, cyc, sink, lstride, lphase, mask, iters); \
    }
STRIDED(1)
STRIDED(2)
STRIDED(4)
STRIDED(8)
STRIDED(16)

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}
