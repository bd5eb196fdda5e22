// DRAM stream efficiency (issue 20, helper dram20b): read-only, write-only, copy and
// read-2-write-1 streams with 4, 8 and 16 bytes per lane, grid-stride over n elements
// (1056 CTAs x 256 threads, as the suite's copy_f32 / copy_f4), and one-element-per-thread
// copies. Run by tools/device/timing_streams.py (CUDA events, cold / clean / warm L2);
// benchmarks/timing/micro4/predict.py runs the model on the same PTX (streams.ptx).
#include <cstdint>

template <typename T> __device__ __forceinline__ unsigned fold(T v);
template <> __device__ __forceinline__ unsigned fold<unsigned>(unsigned v) { return v; }
template <> __device__ __forceinline__ unsigned fold<uint2>(uint2 v) { return v.x ^ v.y; }
template <> __device__ __forceinline__ unsigned fold<uint4>(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }
template <typename T> __device__ __forceinline__ T make(long long i);
template <> __device__ __forceinline__ unsigned make<unsigned>(long long i) { return (unsigned)i; }
template <> __device__ __forceinline__ uint2 make<uint2>(long long i) { return make_uint2((unsigned)i, 1u); }
template <> __device__ __forceinline__ uint4 make<uint4>(long long i) { return make_uint4((unsigned)i, 1u, 2u, 3u); }
__device__ __forceinline__ unsigned add(unsigned a, unsigned b) { return a + b; }
__device__ __forceinline__ uint2 add(uint2 a, uint2 b) { return make_uint2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ uint4 add(uint4 a, uint4 b) { return make_uint4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }

#define GS(i, n) for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < (n); i += (long long)gridDim.x * blockDim.x)

#define STREAMS(T, W)                                                                          \
extern "C" __global__ void rd##W(const T *in, unsigned *out, long long n) {                    \
    unsigned acc = 0;                                                                          \
    GS(i, n) acc ^= fold(in[i]);                                                               \
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;                                          \
}                                                                                              \
extern "C" __global__ void wr##W(T *out, long long n) { GS(i, n) out[i] = make<T>(i); }        \
extern "C" __global__ void cp##W(const T *in, T *out, long long n) { GS(i, n) out[i] = in[i]; } \
extern "C" __global__ void r2w##W(const T *a, const T *b, T *out, long long n) {               \
    GS(i, n) out[i] = add(a[i], b[i]);                                                         \
}                                                                                              \
extern "C" __global__ void cp##W##_once(const T *in, T *out, long long n) {                    \
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;                            \
    if (i < n) out[i] = in[i];                                                                 \
}

STREAMS(unsigned, 4)
STREAMS(uint2, 8)
STREAMS(uint4, 16)

extern "C" __global__ void spin(long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
}
