// Planted synchronization bugs beyond CTA barriers, each with a clean twin (CASE_ok): mbarrier
// arrive/wait, cp.async and bulk-copy completion, fences with a flag, and barriers that the warps
// of a block reach at different instructions. ptxvm's sanitizer runs planted_sync.ptx (nvcc 13.0
// -arch=sm_90 -lineinfo -ptx); run_planted_sync.cu launches the same kernels on a GPU for
// compute-sanitizer (tools/device/record_sanitizer.sh).
#include <cstdint>

__device__ __forceinline__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count) {
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint64_t *bar) {
    asm volatile("{ .reg .b64 st; mbarrier.arrive.shared.b64 st, [%0]; }" ::"r"(smem(bar)) : "memory");
}

__device__ __forceinline__ void mbar_arrive_tx(uint64_t *bar, unsigned bytes) {
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared.b64 st, [%0], %1; }" ::"r"(smem(bar)), "r"(bytes)
                 : "memory");
}

__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity) {
    asm volatile("{ .reg .pred done; WAIT%=: mbarrier.try_wait.parity.shared.b64 done, [%0], %1; @!done bra WAIT%=; }"
                 ::"r"(smem(bar)), "r"(parity) : "memory");
}

__device__ __forceinline__ void copy4(int *dst, const int *src) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem(dst)), "l"(src) : "memory");
}

__device__ __forceinline__ void copy_commit_wait() {
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

__device__ __forceinline__ void bulk_copy(void *dst, const void *src, unsigned bytes, uint64_t *bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem(dst)), "l"(src), "r"(bytes), "r"(smem(bar)) : "memory");
}

// warp 1 reads what warp 0 wrote and announced on an mbarrier, without waiting on it
extern "C" __global__ void mbar_race(int *out, const int *in) {
    __shared__ int buf[32];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0) mbar_init(&bar, 32);
    __syncthreads();
    if (t < 32) {
        buf[t] = in[t];
        mbar_arrive(&bar);
    } else {
        out[t] = buf[t - 32];
    }
}

extern "C" __global__ void mbar_race_ok(int *out, const int *in) {
    __shared__ int buf[32];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0) mbar_init(&bar, 32);
    __syncthreads();
    if (t < 32) {
        buf[t] = in[t];
        mbar_arrive(&bar);
    } else {
        mbar_wait(&bar, 0);
        out[t] = buf[t - 32];
    }
}

// each thread copies one int with cp.async and waits for it, then reads another warp's copy
// with no barrier after the other warp's wait
extern "C" __global__ void cp_async_race(int *out, const int *in) {
    __shared__ int buf[64];
    int t = threadIdx.x;
    copy4(&buf[t], in + t);
    copy_commit_wait();
    out[t] = buf[(t + 32) % 64];
}

extern "C" __global__ void cp_async_race_ok(int *out, const int *in) {
    __shared__ int buf[64];
    int t = threadIdx.x;
    copy4(&buf[t], in + t);
    copy_commit_wait();
    __syncthreads();
    out[t] = buf[(t + 32) % 64];
}

// each thread reads its own cp.async destination before the wait that completes the copy
extern "C" __global__ void cp_async_early(int *out, const int *in) {
    __shared__ int buf[64];
    int t = threadIdx.x;
    copy4(&buf[t], in + t);
    int early = buf[t];
    copy_commit_wait();
    out[t] = early + buf[t];
}

// thread 0 starts a bulk copy completing on an mbarrier; the CTA reads the data without waiting
extern "C" __global__ void bulk_race(int *out, const int *in) {
    __shared__ alignas(16) int buf[64];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        mbar_arrive_tx(&bar, sizeof(buf));
        bulk_copy(buf, in, sizeof(buf), &bar);
    }
    out[t] = buf[t];
    mbar_wait(&bar, 0);
}

extern "C" __global__ void bulk_race_ok(int *out, const int *in) {
    __shared__ alignas(16) int buf[64];
    __shared__ uint64_t bar;
    int t = threadIdx.x;
    if (t == 0) {
        mbar_init(&bar, 1);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (t == 0) {
        mbar_arrive_tx(&bar, sizeof(buf));
        bulk_copy(buf, in, sizeof(buf), &bar);
    }
    mbar_wait(&bar, 0);
    out[t] = buf[t];
}

// warp 0 publishes data through a flag in shared memory; the release fence is missing
extern "C" __global__ void fence_flag(int *out, const int *in) {
    __shared__ int buf[32];
    __shared__ int flag;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t < 32) {
        buf[t] = in[t];
        __syncwarp();
        if (t == 0) atomicExch(&flag, 1);
    } else {
        while (atomicAdd(&flag, 0) == 0) {
        }
        __threadfence_block();
        out[t] = buf[t - 32];
    }
}

extern "C" __global__ void fence_flag_ok(int *out, const int *in) {
    __shared__ int buf[32];
    __shared__ int flag;
    int t = threadIdx.x;
    if (t == 0) flag = 0;
    __syncthreads();
    if (t < 32) {
        buf[t] = in[t];
        __syncwarp();
        __threadfence_block();
        if (t == 0) atomicExch(&flag, 1);
    } else {
        while (atomicAdd(&flag, 0) == 0) {
        }
        __threadfence_block();
        out[t] = buf[t - 32];
    }
}

// the two warps of the block wait at two different __syncthreads
extern "C" __global__ void divergent_block(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t < 32) {
        s[t] += 1;
        __syncthreads();
        out[t] = s[63 - t];
    } else {
        __syncthreads();
        out[t] = s[63 - t] + 2;
    }
}

extern "C" __global__ void divergent_block_ok(int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = t;
    if (t < 32) s[t] += 1;
    __syncthreads();
    out[t] = s[63 - t] + (t < 32 ? 0 : 2);
}

// warp 1 leaves before the block's barrier that warp 0 waits at
extern "C" __global__ void exit_before_barrier(int *out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t >= 32) return;
    s[t] = t;
    __syncthreads();
    out[t] = s[31 - t];
}
