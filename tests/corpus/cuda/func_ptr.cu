// Indirect calls through a table of __device__ function pointers stored in
// global memory (initialised with function addresses), and a pointer passed
// through a helper.  The PTX contains call with a .callprototype.

typedef float (*unary_op)(float);
typedef int (*binary_iop)(int, int);

__device__ float op_square(float x) { return x * x; }
__device__ float op_negate(float x) { return -x; }
__device__ float op_half(float x) { return 0.5f * x; }
__device__ float op_cube_plus_one(float x) { return x * x * x + 1.0f; }

__device__ int iop_add(int a, int b) { return a + b; }
__device__ int iop_sub(int a, int b) { return a - b; }
__device__ int iop_mul(int a, int b) { return a * b; }
__device__ int iop_max(int a, int b) { return a > b ? a : b; }

__device__ unary_op d_unary_table[4] = {op_square, op_negate, op_half, op_cube_plus_one};
__device__ binary_iop d_binary_table[4] = {iop_add, iop_sub, iop_mul, iop_max};

__device__ __noinline__ float apply_twice(unary_op f, float x) { return f(f(x)); }

extern "C" __global__ void apply_unary_table(const float* __restrict__ in,
                                             const int* __restrict__ sel,
                                             float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unary_op f = d_unary_table[sel[i] & 3];
        out[i] = apply_twice(f, in[i]);
    }
}

extern "C" __global__ void apply_binary_table(const int* __restrict__ a,
                                              const int* __restrict__ b,
                                              const int* __restrict__ sel,
                                              int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = d_binary_table[sel[i] & 3](a[i], b[i]);
}
