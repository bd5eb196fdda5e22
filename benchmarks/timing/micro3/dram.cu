// DRAM access-pattern microbenchmarks (issue 20): how the H200's DRAM serves accesses that do
// not stream. Run by tools/device/timing_micro3.py; what each pins: docs/timing-model.md.
#include <cstdint>

// Pointer chase, `lanes` threads each following their own chain of 4-byte indices (one word per
// 128-B line). out[0] = cycles of the whole chase (second of two launches), out[1 + lane] = the end.
extern "C" __global__ void chase(const unsigned *next, long long *out, int steps) {
    unsigned p = threadIdx.x;
    __syncwarp();
    long long t0 = clock64();
    for (int s = 0; s < steps; s++) p = next[p];
    __syncwarp();
    long long t1 = clock64();
    if (threadIdx.x == 0) out[0] = t1 - t0;
    out[1 + threadIdx.x] = p;
}

// Random gather of G-byte granules (G = 4 * WORDS, aligned) from a table of `granules` granules;
// idx[i] picks the granule. Grid-stride over n gathers; each thread sums its granule's words.
template <int WORDS>
__device__ void gather_body(const unsigned *table, const unsigned *idx, unsigned *out, int n) {
    unsigned acc = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned *g = table + (size_t)idx[i] * WORDS;
        if (WORDS >= 4) {
#pragma unroll
            for (int w = 0; w < WORDS; w += 4) {
                uint4 v = *reinterpret_cast<const uint4 *>(g + w);
                acc += v.x ^ v.y ^ v.z ^ v.w;
            }
        } else {
            acc += g[0];
        }
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void gather4(const unsigned *t, const unsigned *i, unsigned *o, int n) { gather_body<1>(t, i, o, n); }
extern "C" __global__ void gather32(const unsigned *t, const unsigned *i, unsigned *o, int n) { gather_body<8>(t, i, o, n); }
extern "C" __global__ void gather64(const unsigned *t, const unsigned *i, unsigned *o, int n) { gather_body<16>(t, i, o, n); }
extern "C" __global__ void gather128(const unsigned *t, const unsigned *i, unsigned *o, int n) { gather_body<32>(t, i, o, n); }
extern "C" __global__ void gather512(const unsigned *t, const unsigned *i, unsigned *o, int n) { gather_body<128>(t, i, o, n); }

// Stream: each thread reads consecutive words (grid-stride), the control for gather's rates.
extern "C" __global__ void stream_read(const uint4 *in, unsigned *out, long long n4) {
    unsigned acc = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x) {
        uint4 v = in[i];
        acc += v.x ^ v.y ^ v.z ^ v.w;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}

// Stream of stores (grid-stride uint4), the write side of the cold-L2 items.
extern "C" __global__ void stream_write(uint4 *out, long long n4) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4; i += (long long)gridDim.x * blockDim.x)
        out[i] = make_uint4((unsigned)i, 1u, 2u, 3u);
}

// A launch's first memory accesses: one thread follows `hops` dependent loads (hops = 0: none)
// and stores the end; `lanes` threads of one warp each load one word `stride` bytes apart (one
// page each when stride is 2 MiB) and store their sum. Timed with CUDA events (cold / warm).
extern "C" __global__ void first_chase(const unsigned *next, unsigned *out, int hops) {
    unsigned p = 0;
    for (int s = 0; s < hops; s++) p = next[p];
    out[threadIdx.x] = p;
}
extern "C" __global__ void first_pages(const unsigned *base, unsigned *out, long long stride_words) {
    unsigned v = base[threadIdx.x * stride_words];
    out[threadIdx.x] = v;
}
