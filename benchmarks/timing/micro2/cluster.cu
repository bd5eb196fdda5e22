// Distributed shared memory (DSMEM) and cluster-barrier microbenchmarks (issue 20).
// Built by build.sh (nvcc 13.0, sm_90a cubin; PTX for the model in cluster.ptx), run on the H200 by
// tools/device/timing_cluster.py, compared with the model by benchmarks/timing/cluster_model.py.
//
// Every CTA takes `dyn` bytes of dynamic shared memory (the runner passes ~120 KB, so one CTA per
// SM and a cluster's CTAs on distinct SMs: each CTA records its %smid to show it). Every kernel
// writes per CTA: out[3 * cta] = cycles (clock64) of its timed part, out[3 * cta + 1] = %smid,
// out[3 * cta + 2] = a sink (so that nothing is optimized away).
//
//   chase<CL>(target, kind, steps, out): one thread of the cluster's rank-0 CTA follows a dependent
//     chain through the shared memory of CTA `target` (-1: its own through ld.shared::cta, else
//     the rank through mapa + .shared::cluster; target 0 is its own CTA through the cluster
//     window). kind 0: ld.shared::cluster.u32; kind 1: atom.shared::cluster.add.u32 of 0 (the old
//     value is the next offset). Cycles per step = cycles / steps.
//   stream<CL, VEC>(mode, op, iters, out): every thread of every CTA does `iters` x 4 independent
//     accesses of VEC x 4 bytes, a warp's 32 lanes on consecutive addresses (coalesced). mode 0:
//     own CTA through ld/st.shared::cta; 1: own CTA through mapa (.shared::cluster); 2: the next
//     rank ((rank + 1) % CL); 3: every CTA hits rank 0. op 0: ld, 1: st, 2: red.add.u32 (VEC 1).
//     Bytes per clock per SM = blockDim x 4 x iters x VEC x 4 / cycles.
//   bar<CL>(kind, rounds, out): every thread, `rounds` times: kind 0 barrier.cluster.arrive +
//     barrier.cluster.wait; 1 barrier.cluster.arrive.relaxed + wait; 2 bar.sync 0 (for comparison).
#include <cstdint>

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned mapa(unsigned a, unsigned r) {
    unsigned d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(r));
    return d;
}
__device__ __forceinline__ unsigned cl_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cl_sync() {
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
}
__device__ __forceinline__ unsigned ld_cta(unsigned a) {
    unsigned v;
    asm volatile("ld.shared::cta.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ unsigned ld_cl(unsigned a) {
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    return v;
}
__device__ __forceinline__ unsigned atom_cl(unsigned a) {
    unsigned v;
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], 0;" : "=r"(v) : "r"(a) : "memory");
    return v;
}

extern __shared__ unsigned dsm[];
#define CHASE_WORDS 4096

template <int CL>
__device__ void chase_body(int target, int kind, int steps, long long *out) {
    for (int i = threadIdx.x; i < CHASE_WORDS; i += blockDim.x) dsm[i] = ((i + 97) % CHASE_WORDS) * 4;
    cl_sync();
    long long cyc = 0;
    unsigned p = 0;
    if (cl_rank() == 0 && threadIdx.x == 0) {
        unsigned base = smem_u32(dsm);
        if (target < 0) {
            long long t0 = clock64();
            for (int s = 0; s < steps; s++) p = ld_cta(base + p);
            cyc = clock64() - t0;
        } else {
            unsigned rb = mapa(base, (unsigned)target);
            long long t0 = clock64();
            if (kind == 0)
                for (int s = 0; s < steps; s++) p = ld_cl(rb + p);
            else
                for (int s = 0; s < steps; s++) p = atom_cl(rb + p);
            cyc = clock64() - t0;
        }
    }
    cl_sync();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = cyc;
        out[3 * blockIdx.x + 1] = smid();
        out[3 * blockIdx.x + 2] = p;
    }
}

template <int CL, int VEC>
__device__ void stream_body(int mode, int op, int iters, long long *out) {
    // 4 x blockDim x VEC words: each of the 4 accesses of an iteration has its own quarter
    const int words = 4 * blockDim.x * VEC;
    for (int i = threadIdx.x; i < words; i += blockDim.x) dsm[i] = i;
    cl_sync();
    unsigned me = cl_rank();
    unsigned tgt = mode == 2 ? (me + 1) % CL : (mode == 3 ? 0u : me);
    unsigned base = smem_u32(dsm);
    unsigned rb = mode == 0 ? base : mapa(base, tgt);
    unsigned off = threadIdx.x * 4 * VEC;
    unsigned q = blockDim.x * 4 * VEC;
    unsigned a0 = rb + off, a1 = a0 + q, a2 = a0 + 2 * q, a3 = a0 + 3 * q;
    unsigned acc = 0;
    __syncthreads();
    long long t0 = clock64();
    // no unrolling: 4 accesses in flight per thread, registers within 64 (1024 threads per CTA)
    if (op == 0) {
#pragma unroll 1
        for (int it = 0; it < iters; it++) {
            if (VEC == 1) {
                unsigned v0, v1, v2, v3;
                if (mode == 0) {
                    asm volatile("ld.shared::cta.u32 %0, [%4];\n\tld.shared::cta.u32 %1, [%5];\n\t"
                                 "ld.shared::cta.u32 %2, [%6];\n\tld.shared::cta.u32 %3, [%7];"
                                 : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
                } else {
                    asm volatile("ld.shared::cluster.u32 %0, [%4];\n\tld.shared::cluster.u32 %1, [%5];\n\t"
                                 "ld.shared::cluster.u32 %2, [%6];\n\tld.shared::cluster.u32 %3, [%7];"
                                 : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
                }
                acc += v0 ^ v1 ^ v2 ^ v3;
            } else {
                unsigned x[16];
                if (mode == 0) {
                    asm volatile("ld.shared::cta.v4.u32 {%0,%1,%2,%3}, [%16];\n\tld.shared::cta.v4.u32 {%4,%5,%6,%7}, [%17];\n\t"
                                 "ld.shared::cta.v4.u32 {%8,%9,%10,%11}, [%18];\n\tld.shared::cta.v4.u32 {%12,%13,%14,%15}, [%19];"
                                 : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]), "=r"(x[4]), "=r"(x[5]), "=r"(x[6]), "=r"(x[7]),
                                   "=r"(x[8]), "=r"(x[9]), "=r"(x[10]), "=r"(x[11]), "=r"(x[12]), "=r"(x[13]), "=r"(x[14]), "=r"(x[15])
                                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
                } else {
                    asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%16];\n\tld.shared::cluster.v4.u32 {%4,%5,%6,%7}, [%17];\n\t"
                                 "ld.shared::cluster.v4.u32 {%8,%9,%10,%11}, [%18];\n\tld.shared::cluster.v4.u32 {%12,%13,%14,%15}, [%19];"
                                 : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3]), "=r"(x[4]), "=r"(x[5]), "=r"(x[6]), "=r"(x[7]),
                                   "=r"(x[8]), "=r"(x[9]), "=r"(x[10]), "=r"(x[11]), "=r"(x[12]), "=r"(x[13]), "=r"(x[14]), "=r"(x[15])
                                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
                }
#pragma unroll
                for (int k = 0; k < 16; k++) acc += x[k];
            }
        }
    } else if (op == 1) {
#pragma unroll 1
        for (int it = 0; it < iters; it++) {
            unsigned v = it;
            if (VEC == 1) {
                if (mode == 0)
                    asm volatile("st.shared::cta.u32 [%0], %4;\n\tst.shared::cta.u32 [%1], %4;\n\t"
                                 "st.shared::cta.u32 [%2], %4;\n\tst.shared::cta.u32 [%3], %4;"
                                 :: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(v) : "memory");
                else
                    asm volatile("st.shared::cluster.u32 [%0], %4;\n\tst.shared::cluster.u32 [%1], %4;\n\t"
                                 "st.shared::cluster.u32 [%2], %4;\n\tst.shared::cluster.u32 [%3], %4;"
                                 :: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(v) : "memory");
            } else {
                if (mode == 0)
                    asm volatile("st.shared::cta.v4.u32 [%0], {%4,%4,%4,%4};\n\tst.shared::cta.v4.u32 [%1], {%4,%4,%4,%4};\n\t"
                                 "st.shared::cta.v4.u32 [%2], {%4,%4,%4,%4};\n\tst.shared::cta.v4.u32 [%3], {%4,%4,%4,%4};"
                                 :: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(v) : "memory");
                else
                    asm volatile("st.shared::cluster.v4.u32 [%0], {%4,%4,%4,%4};\n\tst.shared::cluster.v4.u32 [%1], {%4,%4,%4,%4};\n\t"
                                 "st.shared::cluster.v4.u32 [%2], {%4,%4,%4,%4};\n\tst.shared::cluster.v4.u32 [%3], {%4,%4,%4,%4};"
                                 :: "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(v) : "memory");
            }
        }
    } else {
#pragma unroll 1
        for (int it = 0; it < iters; it++) {
            if (mode == 0)
                asm volatile("red.shared::cta.add.u32 [%0], 1;\n\tred.shared::cta.add.u32 [%1], 1;\n\t"
                             "red.shared::cta.add.u32 [%2], 1;\n\tred.shared::cta.add.u32 [%3], 1;"
                             :: "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
            else
                asm volatile("red.shared::cluster.add.u32 [%0], 1;\n\tred.shared::cluster.add.u32 [%1], 1;\n\t"
                             "red.shared::cluster.add.u32 [%2], 1;\n\tred.shared::cluster.add.u32 [%3], 1;"
                             :: "r"(a0), "r"(a1), "r"(a2), "r"(a3) : "memory");
        }
    }
    __syncthreads();
    long long cyc = clock64() - t0;
    cl_sync();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = cyc;
        out[3 * blockIdx.x + 1] = smid();
    }
    if (acc == 0x12345678u) out[3 * blockIdx.x + 2] = acc;
}

template <int CL>
__device__ void bar_body(int kind, int rounds, long long *out) {
    cl_sync();
    long long t0 = clock64();
    if (kind == 0) {
        for (int r = 0; r < rounds; r++) asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    } else if (kind == 1) {
        for (int r = 0; r < rounds; r++)
            asm volatile("barrier.cluster.arrive.relaxed;\n\tbarrier.cluster.wait;" ::: "memory");
    } else {
        for (int r = 0; r < rounds; r++) asm volatile("bar.sync 0;" ::: "memory");
    }
    long long cyc = clock64() - t0;
    cl_sync();
    if (threadIdx.x == 0) {
        out[3 * blockIdx.x] = cyc;
        out[3 * blockIdx.x + 1] = smid();
    }
}

#define CLUSTER_KERNELS(CL)                                                                                   \
    extern "C" __global__ void __cluster_dims__(CL, 1, 1) chase##CL(int target, int kind, int steps,         \
                                                                      long long *out) {                       \
        chase_body<CL>(target, kind, steps, out);                                                            \
    }                                                                                                         \
    extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(1024, 1) stream1_##CL(int mode, int op, int iters,          \
                                                                         long long *out) {                    \
        stream_body<CL, 1>(mode, op, iters, out);                                                            \
    }                                                                                                         \
    extern "C" __global__ void __cluster_dims__(CL, 1, 1) __launch_bounds__(1024, 1) stream4_##CL(int mode, int op, int iters,          \
                                                                         long long *out) {                    \
        stream_body<CL, 4>(mode, op, iters, out);                                                            \
    }                                                                                                         \
    extern "C" __global__ void __cluster_dims__(CL, 1, 1) bar##CL(int kind, int rounds, long long *out) {    \
        bar_body<CL>(kind, rounds, out);                                                                     \
    }

CLUSTER_KERNELS(2)
CLUSTER_KERNELS(4)
CLUSTER_KERNELS(8)
CLUSTER_KERNELS(16)
