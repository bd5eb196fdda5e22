// Global atomics in L2 (issue 20): which requests of a warp are combined, what one address, one
// line and many lines cost, and the round trip of an atom whose value is used. Built to a sm_90a
// cubin by build.sh; run by tools/device/timing_atomics.py (results/micro2_atomics_h200.json).
//
// Lane l of global warp w updates the byte address
//     base + (w % wmod) * wstride + (l % nd) * stride            when l < k
// `iters` times. `zmask` is 0 at run time: adding (threadIdx.x & zmask) words keeps ptxas from
// proving the address warp-uniform (it would turn a uniform-address integer add into one request
// of the warp's leader: VOTEU.ANY + POPC/REDUX + REDG). op:
//   0 red.global.add.u32                 4 atom.global.add.f32, each depending on the previous
//   1 atom.global.add.u32 (value summed)   (latency: the next address adds (value & zmask))
//   2 atom.global.add.u32, dependent      5 red.global.add.u32 on base + blockIdx.x * wstride: a
//   3 red.global.add.f32                    provably uniform address, aggregated by ptxas
// Each warp's lane 0 writes the %clock64 cycles of its loop to cyc[w] (when cyc is not null).
typedef unsigned long long u64;

__device__ __forceinline__ long long clk() { long long c; asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)); return c; }

extern "C" __global__ void gatom(char *base, int op, int k, int nd, int stride, int wmod, long long wstride,
                                 int iters, unsigned zmask, long long *cyc) {
    unsigned lane = threadIdx.x & 31;
    u64 w = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    char *p = base + (long long)(w % (u64)wmod) * wstride + (long long)(lane % (unsigned)nd) * stride
              + 4 * (threadIdx.x & zmask);
    unsigned acc = 0;
    float facc = 0.f;
    __syncwarp();
    long long t0 = clk();
    if (lane < (unsigned)k) {
        if (op == 0) {
            for (int i = 0; i < iters; i++) asm volatile("red.global.add.u32 [%0], 1;" :: "l"(p) : "memory");
        } else if (op == 1) {
            for (int i = 0; i < iters; i++) {
                unsigned v;
                asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(p) : "memory");
                acc += v;
            }
        } else if (op == 2) {
            for (int i = 0; i < iters; i++) {
                unsigned v;
                asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(p + 4 * (acc & zmask)) : "memory");
                acc = v;
            }
        } else if (op == 3) {
            for (int i = 0; i < iters; i++) asm volatile("red.global.add.f32 [%0], 1.0;" :: "l"(p) : "memory");
        } else if (op == 4) {
            for (int i = 0; i < iters; i++) {
                float v;
                asm volatile("atom.global.add.f32 %0, [%1], 1.0;" : "=f"(v) : "l"(p + 4 * (__float_as_uint(facc) & zmask)) : "memory");
                facc = v;
            }
        } else {
            char *q = base + (long long)blockIdx.x * wstride;
            for (int i = 0; i < iters; i++) asm volatile("red.global.add.u32 [%0], 1;" :: "l"(q) : "memory");
        }
    }
    __syncwarp();
    long long t1 = clk();
    if (acc == 0x7fffffffu || facc == -1.f) p[1] = 1;  // keeps the results live
    if (cyc != nullptr && lane == 0) cyc[w] = t1 - t0;
}
