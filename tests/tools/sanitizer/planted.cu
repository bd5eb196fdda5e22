// Planted-bug kernels for ptxvm's sanitizer, each with a clean twin (suffix _ok).
// Compiled: nvcc -arch=sm_90 -lineinfo -ptx planted.cu; run_planted.cu launches them on a GPU
// under compute-sanitizer (tools/device/record_sanitizer.sh records the goldens).
#include <cstdio>

extern "C" {

// ---- memcheck
__global__ void oob_write(int *out, int n) {
    int i = threadIdx.x;
    if (i <= n) out[i] = i;  // bug: <= lets thread n write one past the end
}
__global__ void oob_write_ok(int *out, int n) {
    int i = threadIdx.x;
    if (i < n) out[i] = i;
}
__global__ void oob_read(int *out, const int *in, int n) {
    int i = threadIdx.x;
    out[i] = in[i + n];  // bug: reads past the end of in for every thread
}
__global__ void oob_read_ok(int *out, const int *in, int n) {
    int i = threadIdx.x;
    out[i] = in[i];
}
__global__ void oob_shared(int *out, int off) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t;
    s[t + off] = t;  // bug: off puts this past the 128 bytes of s
    __syncthreads();
    out[t] = s[t];
}
__global__ void oob_shared_ok(int *out, int off) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t;
    s[(t + off) % 32] = t;
    __syncthreads();
    out[t] = s[t];
}
__global__ void misaligned(int *out, const char *in, int off) {
    int i = threadIdx.x;
    out[i] = *(const int *)(in + off + 4 * i);  // bug: off = 1 misaligns every load
}
__global__ void misaligned_ok(int *out, const char *in, int off) {
    int i = threadIdx.x;
    out[i] = *(const int *)(in + 4 * off + 4 * i);
}
__global__ void heap_leak(unsigned long long *out) {
    if (threadIdx.x == 0) {
        int *p = (int *)malloc(64);
        p[0] = 7;
        out[0] = (unsigned long long)p + p[0];  // bug: p is never freed
    }
}
__global__ void heap_leak_ok(unsigned long long *out) {
    if (threadIdx.x == 0) {
        int *p = (int *)malloc(64);
        p[0] = 7;
        out[0] = (unsigned long long)p + p[0];
        free(p);
    }
}
__global__ void double_free(unsigned long long *out) {
    if (threadIdx.x == 0) {
        int *p = (int *)malloc(16);
        out[0] = (unsigned long long)p;
        free(p);
        free(p);  // bug: second free
    }
}
__global__ void use_after_free(unsigned long long *out) {
    if (threadIdx.x == 0) {
        volatile int *p = (volatile int *)malloc(16);
        out[0] = (unsigned long long)p;
        free((void *)p);
        p[1] = 5;  // bug: write to freed heap memory
    }
}

// ---- racecheck (shared memory), 64 threads = 2 warps
__global__ void race_raw(int *out, const int *in) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    out[t] = s[63 - t];  // bug: no __syncthreads between the write and the read
}
__global__ void race_raw_ok(int *out, const int *in) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[63 - t];
}
__global__ void race_war(int *out, const int *in) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int v = s[63 - t];
    s[t] = v * 2;  // bug: thread 63-t may not have read s[t] yet
    __syncthreads();
    out[t] = s[t];
}
__global__ void race_war_ok(int *out, const int *in) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    int v = s[63 - t];
    __syncthreads();
    s[t] = v * 2;
    __syncthreads();
    out[t] = s[t];
}
__global__ void race_waw(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t % 32] = t;  // bug: threads t and t+32 write the same word
    __syncthreads();
    out[t] = s[t % 32];
}
__global__ void race_waw_ok(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32) s[t] = t;
    __syncthreads();
    out[t] = s[t % 32];
}
// beyond compute-sanitizer: a race on global memory between CTAs
__global__ void race_global(int *out) {
    out[0] = out[0] + (int)blockIdx.x;  // bug: every CTA reads and writes out[0]
}
__global__ void race_global_ok(int *out) {
    atomicAdd(out, (int)blockIdx.x);
}

// ---- initcheck
__global__ void uninit_global(int *out, const int *in) {
    int i = threadIdx.x;
    out[i] = in[i] + 1;  // bug: in comes from cudaMalloc and was never written
}
// beyond compute-sanitizer: shared memory read before any write
__global__ void uninit_shared(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 16) s[t] = t;
    __syncthreads();
    out[t] = s[t];  // bug: s[16..31] were never written
}
__global__ void uninit_shared_ok(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t;
    __syncthreads();
    out[t] = s[31 - t];
}

// ---- synccheck
__global__ void divergent_barrier(int *out) {
    int t = threadIdx.x;
    if (t < 16) {
        out[t] = t;
        __syncthreads();  // bug: only half of the warp reaches the barrier
    }
    out[t + 32] = t;
}
__global__ void divergent_barrier_ok(int *out) {
    int t = threadIdx.x;
    if (t < 16) out[t] = t;
    __syncthreads();
    out[t + 32] = t;
}
__global__ void shfl_bad_mask(int *out) {
    int t = threadIdx.x;
    int v = t;
    if (t < 16) v = __shfl_sync(0xffffffffu, v, 0);  // bug: lanes 16..31 never arrive
    out[t] = v;
}
__global__ void shfl_bad_mask_ok(int *out) {
    int t = threadIdx.x;
    int v = t;
    if (t < 16) v = __shfl_sync(0x0000ffffu, v, 0);
    out[t] = v;
}

}  // extern "C"
