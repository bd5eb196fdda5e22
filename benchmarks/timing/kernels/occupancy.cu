// The shared-memory occupancy family (issue 20), apart from families.cu: ptxvm's engine lays out
// every module-scope .shared variable of a module for each CTA, so in families.ptx a kernel would
// carry the other kernels' shared arrays against the 227 KiB limit. Built like families.cu.
#define TID (blockIdx.x * blockDim.x + threadIdx.x)

// A latency-bound random gather (as occ_regs_* of families.cu, 4 accumulators) with dynamic shared
// memory that limits CTAs per SM (the launch's `shared`).
template <int NACC>
__device__ void occ_gather_body(const float *table, const int *idx, float *out, int n, int iters, int mask) {
    float acc[NACC];
#pragma unroll
    for (int k = 0; k < NACC; k++) acc[k] = k;
    int i = TID, p = idx[i % n];
    for (int it = 0; it < iters; it++) {
        float v = table[p & mask];
#pragma unroll
        for (int k = 0; k < NACC; k++) acc[k] = fmaf(acc[k], v, (float)k);
        p = p * 1664525 + 1013904223;
    }
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < NACC; k++) s += acc[k];
    out[i] = s;
}
extern "C" __global__ void occ_smem_gather(const float *table, const int *idx, float *out, int n, int iters, int mask) {
    extern __shared__ float pad[];
    if (threadIdx.x == 0) pad[0] = 0.f;
    occ_gather_body<4>(table, idx, out, n, iters, mask);
    if (threadIdx.x == 0 && out[TID] == 12345.f) out[TID] += pad[0];
}

