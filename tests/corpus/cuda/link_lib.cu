// corpus: only_variants=sm_90-rdc
// Relocatable device code, linked with link_main.cu (and link_weak.cu) by tests/engine/test_link.py:
// definitions that another file declares extern: a function, variables in global and constant
// memory, an array the other file sees unsized; templates (a .weak function in each file that
// instantiates one), two of them with other bodies in link_weak.cu, and a static helper whose name clashes with one in
// link_main.cu.
template <typename T> __device__ __noinline__ T twice(T x) { return x + x; }
static __device__ __noinline__ int helper(int x) { return x * 3 + 1; }

__device__ float g_bias = 0.5f;
__constant__ float c_coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int g_counter;
__device__ int g_table[8] = {3, 1, 4, 1, 5, 9, 2, 6};

__device__ __noinline__ int scale_add(int a, int b) { return helper(a) * 2 + twice(b); }
// Template instantiations are .weak functions (nvcc ignores __attribute__((weak)): .visible).
template <typename T> __device__ __noinline__ T tweak(T x) { return x + 100; }
template <typename T> __device__ __noinline__ T pick(T x) { return x + 1000; }
template __device__ int tweak<int>(int);
template __device__ int pick<int>(int);

extern "C" __global__ void lib_fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = scale_add(i, g_table[i & 7]);
}
