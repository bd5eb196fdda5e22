// FP8 conversions (__nv_fp8_e4m3 / e5m2, x2 packs, saturation) and libcu++ atomics
// (cuda::atomic_ref with device and block scopes, fetch ops and compare_exchange).
#include <cuda_fp8.h>
#include <cuda/atomic>

extern "C" __global__ void fp8_roundtrip(const float *in, unsigned char *e4, unsigned char *e5,
                                         float *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __nv_fp8_e4m3 a(in[i]);
    __nv_fp8_e5m2 b(in[i]);
    e4[i] = a.__x;
    e5[i] = b.__x;
    __nv_fp8x2_e4m3 pair(make_float2(in[i], -in[i] * 0.5f));
    float2 f = static_cast<float2>(pair);
    back[2 * i] = float(a) + float(b);
    back[2 * i + 1] = f.x * f.y;
}

extern "C" __global__ void atomic_ref_ops(const int *in, int n, int *dev_counters, int *block_out) {
    __shared__ int block_sum;
    if (threadIdx.x == 0) block_sum = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? in[i] : 0;
    cuda::atomic_ref<int, cuda::thread_scope_device> total(dev_counters[0]);
    cuda::atomic_ref<int, cuda::thread_scope_device> hi(dev_counters[1]);
    cuda::atomic_ref<int, cuda::thread_scope_block> bs(block_sum);
    total.fetch_add(v, cuda::std::memory_order_relaxed);
    hi.fetch_max(v);
    bs.fetch_add(v & 0xff);
    int seen = total.load(cuda::std::memory_order_relaxed);
    (void)seen;
    cuda::atomic_ref<int, cuda::thread_scope_device> flag(dev_counters[2]);
    int expected = 0;
    if (v > 0 && flag.compare_exchange_strong(expected, 1)) dev_counters[3] = 1;
    __syncthreads();
    if (threadIdx.x == 0) block_out[blockIdx.x] = bs.load();
}
