// corpus: only_variants=sm_90-rdc
// Relocatable device code that uses what link_lib.cu defines (extern functions and variables),
// has its own static helper of the same name, calls a function no file defines (only when asked
// to) and launches a kernel from the device (dynamic parallelism, which ptxvm does not support).
template <typename T> __device__ __noinline__ T twice(T x) { return x + x; }
static __device__ __noinline__ int helper(int x) { return x - 7; }

extern __device__ int scale_add(int a, int b);
template <typename T> __device__ T tweak(T x);  // instantiated by link_lib.cu (.weak) and
template <typename T> __device__ T pick(T x);   // link_weak.cu (tweak<int> strong, pick<int> .weak)
extern __device__ int missing_fn(int x);
extern __device__ float g_bias;
extern __constant__ float c_coeffs[4];
extern __device__ int g_counter;
extern __device__ int g_table[];

extern "C" __global__ void k_link(const int *a, const int *b, int *out, float *f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = scale_add(a[i], b[i]) + helper(a[i]) + twice(b[i]) + g_table[i & 7];
  f[i] = (float)a[i] * c_coeffs[i & 3] + g_bias;
  atomicAdd(&g_counter, 1);
}

extern "C" __global__ void k_weak(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tweak<int>(i) * 10000 + pick<int>(i);
}

extern "C" __global__ void k_maybe_missing(int *out, int flag) {
  int i = threadIdx.x;
  out[i] = flag ? missing_fn(i) : i + 1;
}

__global__ void child(int *out) { out[threadIdx.x] = 42; }

extern "C" __global__ void k_dynamic_parallelism(int *out, int flag) {
  if (flag) child<<<1, 4>>>(out);
  else out[threadIdx.x] = -1;
}
