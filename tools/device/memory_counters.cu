// Crafted memory-access cases whose ncu counters check ptxvm.timing.memory on the GPU
// (tools/device/memory_counters.py builds and profiles this; one kernel launch per case).
//
//   memory_counters CASES.json
//
// writes the list of cases, in launch order, to CASES.json.
#include <cstdio>
#include <cstdint>
#include <string>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); return 1; } } while (0)

// ---- shared memory: one warp, lane l reads element (l * stride + offset) % N of a T array
template <typename T>
__global__ void shld(T* out, int stride, int offset, unsigned mask) {
    __shared__ int4 raw[2048];  // 32 KiB
    int* w = reinterpret_cast<int*>(raw);
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) w[i] = i;
    __syncthreads();
    const int n = 32768 / sizeof(T);
    int lane = threadIdx.x & 31;
    T v = T();
    if ((mask >> lane) & 1u) v = reinterpret_cast<const T*>(raw)[(lane * stride + offset) % n];
    out[threadIdx.x] = v;
}

// ---- global loads: one warp, lane l reads element l * stride + offset
template <typename T>
__global__ void gld(const T* in, T* out, long long stride, long long offset, unsigned mask) {
    int lane = threadIdx.x & 31;
    T v = T();
    if ((mask >> lane) & 1u) v = in[lane * stride + offset];
    out[threadIdx.x] = v;
}

// ---- cache operators: load a 16 KiB hot set (.ca), stream 1 MiB with OP, reload the hot set
#define STREAM_KERNEL(NAME, HOTQ, OPQ)                                                          \
__global__ void NAME(const float* hot, const float* stream, float* out, int n_stream) {        \
    float acc = 0.f, x;                                                                          \
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {                                     \
        asm volatile("ld.global" HOTQ ".f32 %0, [%1];" : "=f"(x) : "l"(hot + i)); acc += x; }  \
    __syncthreads();                                                                             \
    for (int i = threadIdx.x; i < n_stream; i += blockDim.x) {                                 \
        asm volatile("ld.global" OPQ ".f32 %0, [%1];" : "=f"(x) : "l"(stream + i)); acc += x; }\
    __syncthreads();                                                                             \
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {                                     \
        asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(x) : "l"(hot + i)); acc += x; }       \
    out[threadIdx.x] = acc;                                                                      \
}
STREAM_KERNEL(stream_ca, ".ca", ".ca")
STREAM_KERNEL(stream_cg, ".ca", ".cg")
STREAM_KERNEL(stream_cs, ".ca", ".cs")
STREAM_KERNEL(stream_lu, ".ca", ".lu")
STREAM_KERNEL(stream_cv, ".ca", ".cv")
STREAM_KERNEL(stream_l1_first, ".ca", ".L1::evict_first")
STREAM_KERNEL(stream_l1_noalloc, ".ca", ".L1::no_allocate")
STREAM_KERNEL(stream_hot_last, ".L1::evict_last", ".ca")

// ---- L2 fetch granularity / prefetch: each thread reads 4 B, one per 4 KiB
#define SPARSE_KERNEL(NAME, Q)                                                                  \
__global__ void NAME(const float* in, float* out) {                                            \
    long long i = (long long)(blockIdx.x * blockDim.x + threadIdx.x) * 1024;                   \
    float x; asm volatile("ld.global" Q ".f32 %0, [%1];" : "=f"(x) : "l"(in + i));             \
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;                                            \
}
SPARSE_KERNEL(sparse_plain, ".cg")
SPARSE_KERNEL(sparse_64, ".cg.L2::64B")
SPARSE_KERNEL(sparse_128, ".cg.L2::128B")
SPARSE_KERNEL(sparse_256, ".cg.L2::256B")

// ---- cold streaming read: 32 MiB read once, float4 per thread
__global__ void cold_stream(const float4* in, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 acc = make_float4(0, 0, 0, 0);
    for (; i < n; i += gridDim.x * blockDim.x) {
        float4 v = in[i];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    if (acc.x == 12345.f) out[0] = acc;
}

// ---- L1 capacity under each carveout: read n floats twice (.ca) with `shared` bytes of
// dynamic shared memory allocated; second-pass L1 hits show what stayed
__global__ void l1cap(const float* in, float* out, int n, int has_shared) {
    extern __shared__ float dyn[];
    float acc = 0.f, x;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(x) : "l"(in + i)); acc += x; }
        __syncthreads();
    }
    if (threadIdx.x == 0 && has_shared) dyn[0] = acc;  // no dynamic shared: nothing to touch
    out[threadIdx.x] = acc;
}

// ---- stores: does a store keep (warm) or allocate (cold) an L1 line? 16 KiB per kernel
__global__ void st_warm(float* buf, float* out) {
    float acc = 0.f, x;
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {
        asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(x) : "l"(buf + i)); acc += x; }
    __syncthreads();
    for (int i = threadIdx.x; i < 4096; i += blockDim.x)
        asm volatile("st.global.f32 [%0], %1;" :: "l"(buf + i), "f"(acc) : "memory");
    __syncthreads();
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {
        asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(x) : "l"(buf + i)); acc += x; }
    out[threadIdx.x] = acc;
}
__global__ void st_cold(float* buf, float* out) {
    float acc = 1.f, x;
    for (int i = threadIdx.x; i < 4096; i += blockDim.x)
        asm volatile("st.global.f32 [%0], %1;" :: "l"(buf + i), "f"(acc) : "memory");
    __syncthreads();
    for (int i = threadIdx.x; i < 4096; i += blockDim.x) {
        asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(x) : "l"(buf + i)); acc += x; }
    out[threadIdx.x] = acc;
}

// ---- DRAM traffic of stores larger than L2: full lines, and 4 B per 32-B sector
__global__ void st_stream(float4* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = make_float4(1.f, 2.f, 3.f, 4.f);
}
__global__ void st_partial(float* out, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[(long long)i * 8] = 1.f;
}

// ---- partial-sector stores: when does the L2 read the rest of a sector it holds only part of?
// (at the write that allocates it, or when it leaves L2 unfinished). 8 MiB fits in L2, 128 does not.
__global__ void pst_one(float* out, long long n_sectors) {  // 4 B of each 32-B sector
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n_sectors; i += gridDim.x * blockDim.x)
        out[i * 8] = 1.f;
}
__global__ void pst_half(float4* out, long long n_sectors) {  // 16 B of each sector
    for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n_sectors; i += gridDim.x * blockDim.x)
        out[i * 2] = make_float4(1.f, 2.f, 3.f, 4.f);
}
// the 8 warps of a 256-thread CTA write word `warp` of the same 32 sectors: every sector is
// completed by 8 requests close in time (the column stores of a naive transpose)
__global__ void pst_by8(float* out, long long n_sectors) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long s = blockIdx.x * 32ll; s < n_sectors; s += gridDim.x * 32ll)
        out[(s + lane) * 8 + warp] = 1.f;
}
// word 0 of every sector first, then words 1-7: at 128 MiB the first pass's sectors leave L2
// unfinished before the second pass completes them
__global__ void pst_twopass(float* out, long long n_sectors) {
    long long t = blockIdx.x * blockDim.x + threadIdx.x, n = (long long)gridDim.x * blockDim.x;
    for (long long i = t; i < n_sectors; i += n) out[i * 8] = 1.f;
    for (long long i = t; i < n_sectors * 7; i += n) out[(i / 7) * 8 + 1 + i % 7] = 2.f;
}

// ---- L2 eviction priorities: all SMs load a 4 MiB hot set, stream 128 MiB, reload the hot
// set (L1 not allocated), phases separated by a grid barrier (one CTA per SM, all resident)
__device__ void grid_sync(unsigned* bar, unsigned target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(bar, 1u);
        for (long long spin = 0; atomicAdd(bar, 0u) < target && spin < (1ll << 26); ++spin) {}
        __threadfence();
    }
    __syncthreads();
}
#define L2HOT_KERNEL(NAME, HOTPOL, STREAMPOL, STREAMLD)                                      \
__global__ void NAME(const float* hot, int n_hot, const float* stream, int n_stream,            \
                     float* out, unsigned* bar) {                                               \
    float acc = 0.f, x;                                                                          \
    unsigned long long hp, sp;                                                                   \
    asm volatile("createpolicy.fractional.L2::" HOTPOL ".b64 %0, 1.0;" : "=l"(hp));             \
    asm volatile("createpolicy.fractional.L2::" STREAMPOL ".b64 %0, 1.0;" : "=l"(sp));          \
    int tid = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;               \
    for (int i = tid; i < n_hot; i += nt) {                                                     \
        asm volatile("ld.global.cg.L2::cache_hint.f32 %0, [%1], %2;"                            \
                     : "=f"(x) : "l"(hot + i), "l"(hp)); acc += x; }                              \
    grid_sync(bar, gridDim.x);                                                                   \
    for (int i = tid; i < n_stream; i += nt) {                                                  \
        asm volatile(STREAMLD : "=f"(x) : "l"(stream + i), "l"(sp)); acc += x; }                 \
    grid_sync(bar, 2 * gridDim.x);                                                               \
    for (int i = tid; i < n_hot; i += nt) {                                                     \
        asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(x) : "l"(hot + i)); acc += x; }       \
    out[tid] = acc;                                                                              \
}
#define HINTED "ld.global.cg.L2::cache_hint.f32 %0, [%1], %2;"
L2HOT_KERNEL(l2hot_normal, "evict_normal", "evict_normal", HINTED)
L2HOT_KERNEL(l2hot_last, "evict_last", "evict_normal", HINTED)
L2HOT_KERNEL(l2hot_first, "evict_normal", "evict_first", HINTED)
L2HOT_KERNEL(l2hot_cs, "evict_normal", "evict_normal", "ld.global.cs.f32 %0, [%1]; // %2")

static FILE* cases;
static int n_cases = 0;
static void note(const char* kind, int size, long long stride, long long offset, unsigned mask,
                 const char* name) {
    fprintf(cases, "%s{\"kind\": \"%s\", \"size\": %d, \"stride\": %lld, \"offset\": %lld, "
            "\"mask\": %u, \"name\": \"%s\"}\n", n_cases++ ? "," : "", kind, size, stride, offset,
            mask, name);
    fflush(cases);  // a run the profiler stops part-way still names the cases it recorded
}

template <typename T>
static int run_shared(void* out, int stride, int offset, unsigned mask) {
    shld<T><<<1, 32>>>(static_cast<T*>(out), stride, offset, mask);
    CHECK(cudaDeviceSynchronize());
    note("shared", sizeof(T), stride, offset, mask, "shld");
    return 0;
}

template <typename T>
static int run_global(const void* in, void* out, long long stride, long long offset, unsigned mask) {
    gld<T><<<1, 32>>>(static_cast<const T*>(in), static_cast<T*>(out), stride, offset, mask);
    CHECK(cudaDeviceSynchronize());
    note("global", sizeof(T), stride, offset, mask, "gld");
    return 0;
}

struct SharedCase { int size, stride, offset; unsigned mask; };
struct GlobalCase { int size; long long stride, offset; unsigned mask; };

int main(int argc, char** argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s CASES.json [l2hot]\n", argv[0]); return 2; }
    const bool l2hot_only = argc > 2 && std::string(argv[2]) == "l2hot";
    const bool partial_only = argc > 2 && std::string(argv[2]) == "partial";
    setvbuf(stderr, nullptr, _IONBF, 0);
    cases = fopen(argv[1], "w");
    if (!cases) return 2;
    fprintf(cases, "[\n");
    const size_t big = 64 << 20;
    char *in, *out;
    CHECK(cudaMalloc(&in, big));
    CHECK(cudaMalloc(&out, big));
    CHECK(cudaMemset(in, 1, big));

    const unsigned ALL = 0xffffffffu;
    float* fout = reinterpret_cast<float*>(out);
    if (partial_only) {
        char* buf;
        CHECK(cudaMalloc(&buf, 128 << 20));
        CHECK(cudaMemset(buf, 0, 128 << 20));
        CHECK(cudaDeviceSynchronize());
        for (long long mib : {8ll, 128ll}) {
            long long n = (mib << 20) / 32;
#define RUN_PST(K, T) K<<<264, 256>>>(reinterpret_cast<T*>(buf), n); CHECK(cudaDeviceSynchronize()); \
            note("partial", (int)mib, 32, 0, ALL, #K);
            RUN_PST(pst_one, float) RUN_PST(pst_half, float4) RUN_PST(pst_by8, float) RUN_PST(pst_twopass, float)
        }
        CHECK(cudaFree(buf));
        fprintf(cases, "]\n");
        fclose(cases);
        return 0;
    }
    if (!l2hot_only) {
    const SharedCase sh[] = {
        {4, 0, 0, ALL}, {4, 1, 0, ALL}, {4, 2, 0, ALL}, {4, 4, 0, ALL}, {4, 8, 0, ALL},
        {4, 16, 0, ALL}, {4, 32, 0, ALL}, {4, 33, 0, ALL}, {4, 64, 0, ALL}, {4, 1, 7, ALL},
        {4, 32, 0, 0x0000ffffu}, {4, 32, 0, 0x55555555u}, {4, 17, 3, ALL},
        {1, 1, 0, ALL}, {1, 4, 0, ALL}, {1, 128, 0, ALL}, {2, 1, 0, ALL}, {2, 2, 0, ALL}, {2, 64, 0, ALL},
        {8, 0, 0, ALL}, {8, 1, 0, ALL}, {8, 2, 0, ALL}, {8, 4, 0, ALL}, {8, 16, 0, ALL},
        {8, 17, 0, ALL}, {8, 32, 0, ALL}, {8, 1, 0, 0x0000ffffu}, {8, 1, 0, 0xffff0000u},
        {8, 16, 0, 0x00ff00ffu},
        {16, 0, 0, ALL}, {16, 1, 0, ALL}, {16, 2, 0, ALL}, {16, 8, 0, ALL}, {16, 9, 0, ALL},
        {16, 32, 0, ALL}, {16, 1, 0, 0x000000ffu}, {16, 4, 0, 0x0f0f0f0fu},
    };
    for (const SharedCase& c : sh) {
        int r = c.size == 1 ? run_shared<uint8_t>(out, c.stride, c.offset, c.mask)
              : c.size == 2 ? run_shared<uint16_t>(out, c.stride, c.offset, c.mask)
              : c.size == 4 ? run_shared<int>(out, c.stride, c.offset, c.mask)
              : c.size == 8 ? run_shared<int2>(out, c.stride, c.offset, c.mask)
              : run_shared<int4>(out, c.stride, c.offset, c.mask);
        if (r) return r;
    }
    const GlobalCase gl[] = {
        {4, 1, 0, ALL}, {4, 1, 1, ALL}, {4, 1, 31, ALL}, {4, 2, 0, ALL}, {4, 8, 0, ALL},
        {4, 32, 0, ALL}, {4, 0, 0, ALL}, {4, 1, 0, 0x0000ffffu}, {4, -1, 31, ALL},
        {4, 1024, 0, ALL}, {1, 1, 0, ALL}, {2, 1, 0, ALL}, {2, 1, 60, ALL},
        {8, 1, 0, ALL}, {8, 1, 1, ALL}, {8, 4, 0, ALL}, {16, 1, 0, ALL}, {16, 1, 1, ALL},
        {16, 2, 0, ALL}, {16, 8, 0, ALL}, {16, 1, 0, 0x0000000fu},
    };
    for (const GlobalCase& c : gl) {
        int r = c.size == 1 ? run_global<uint8_t>(in, out, c.stride, c.offset, c.mask)
              : c.size == 2 ? run_global<uint16_t>(in, out, c.stride, c.offset, c.mask)
              : c.size == 4 ? run_global<int>(in, out, c.stride, c.offset, c.mask)
              : c.size == 8 ? run_global<int2>(in, out, c.stride, c.offset, c.mask)
              : run_global<int4>(in, out, c.stride, c.offset, c.mask);
        if (r) return r;
    }
    const float* hot = reinterpret_cast<const float*>(in);
    const float* stream = reinterpret_cast<const float*>(in + (1 << 20));
    const int n_stream = (1 << 20) / 4;
#define RUN_STREAM(K) K<<<1, 1024>>>(hot, stream, fout, n_stream); CHECK(cudaDeviceSynchronize()); \
    note("stream", 4, 1, 0, ALL, #K);
    RUN_STREAM(stream_ca) RUN_STREAM(stream_cg) RUN_STREAM(stream_cs) RUN_STREAM(stream_lu)
    RUN_STREAM(stream_cv) RUN_STREAM(stream_l1_first) RUN_STREAM(stream_l1_noalloc)
    RUN_STREAM(stream_hot_last)
#define RUN_SPARSE(K) K<<<64, 256>>>(reinterpret_cast<const float*>(in), fout); \
    CHECK(cudaDeviceSynchronize()); note("sparse", 4, 1024, 0, ALL, #K);
    RUN_SPARSE(sparse_plain) RUN_SPARSE(sparse_64) RUN_SPARSE(sparse_128) RUN_SPARSE(sparse_256)
    cold_stream<<<264, 1024>>>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out),
                               (32 << 20) / 16);
    CHECK(cudaDeviceSynchronize());
    note("cold", 16, 1, 0, ALL, "cold_stream");
    CHECK(cudaFuncSetAttribute(l1cap, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    const int shared_kib[] = {0, 32, 100, 200};
    const int set_kib[] = {16, 24, 32, 64, 96, 112, 128, 160, 176, 192, 208, 224};
    for (int sh_kib : shared_kib)
        for (int kib : set_kib) {
            l1cap<<<1, 1024, sh_kib * 1024>>>(reinterpret_cast<const float*>(in), fout, kib * 256, sh_kib);
            CHECK(cudaDeviceSynchronize());
            note("l1cap", kib * 1024, sh_kib * 1024, 0, ALL, "l1cap");
        }
    st_warm<<<1, 1024>>>(reinterpret_cast<float*>(out + (4 << 20)), fout);
    CHECK(cudaDeviceSynchronize());
    note("storeload", 4, 1, 0, ALL, "st_warm");
    st_cold<<<1, 1024>>>(reinterpret_cast<float*>(out + (8 << 20)), fout);
    CHECK(cudaDeviceSynchronize());
    note("storeload", 4, 1, 0, ALL, "st_cold");
    char* big_out;
    CHECK(cudaMalloc(&big_out, 128 << 20));
    st_stream<<<264, 1024>>>(reinterpret_cast<float4*>(big_out), (128 << 20) / 16);
    CHECK(cudaDeviceSynchronize());
    note("storestream", 16, 1, 0, ALL, "st_stream");
    st_partial<<<264, 1024>>>(reinterpret_cast<float*>(big_out), (128 << 20) / 32);
    CHECK(cudaDeviceSynchronize());
    note("storestream", 4, 8, 0, ALL, "st_partial");
    CHECK(cudaFree(big_out));
    fprintf(cases, "]\n");
    fclose(cases);
    return 0;
    }
    int n_sm = 0;
    CHECK(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, 0));
    unsigned* bar;
    CHECK(cudaMalloc(&bar, sizeof(unsigned)));
    char* l2buf;
    CHECK(cudaMalloc(&l2buf, 136 << 20));
    CHECK(cudaMemset(l2buf, 0, 136 << 20));
    const float* l2hot = reinterpret_cast<const float*>(l2buf);
    const float* l2stream = reinterpret_cast<const float*>(l2buf + (8 << 20));
#define RUN_L2HOT(K) CHECK(cudaMemset(bar, 0, sizeof(unsigned)));                                \
    K<<<n_sm, 1024>>>(l2hot, (4 << 20) / 4, l2stream, (128 << 20) / 4, fout, bar);             \
    CHECK(cudaDeviceSynchronize()); note("l2hot", 4, 4 << 20, 128 << 20, ALL, #K);
    RUN_L2HOT(l2hot_normal) RUN_L2HOT(l2hot_last) RUN_L2HOT(l2hot_first) RUN_L2HOT(l2hot_cs)
    fprintf(cases, "]\n");
    fclose(cases);
    return 0;
}
