// Templates: one kernel template instantiated for float, int and double (C++-mangled entries),
// with a functor parameter and a compile-time unroll count.
template <typename T>
struct Axpb {
    T a, b;
    __device__ T operator()(T x) const { return a * x + b; }
};

template <typename T, int UNROLL, typename F>
__global__ void transform(const T *in, T *out, int n, F f) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k)
        if (base + k < n) out[base + k] = f(in[base + k]);
}

template __global__ void transform<float, 4, Axpb<float>>(const float *, float *, int, Axpb<float>);
template __global__ void transform<int, 2, Axpb<int>>(const int *, int *, int, Axpb<int>);
template __global__ void transform<double, 1, Axpb<double>>(const double *, double *, int, Axpb<double>);
