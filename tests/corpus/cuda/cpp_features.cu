// C++ features in device code: templates instantiated for several types,
// lambdas, constexpr, a small class with operators (complex numbers),
// namespaces, and an extern "C" kernel per instantiation.
#include <cuda/std/cstdint>

namespace corpus {

template <typename T>
struct Complex {
    T re, im;
    __device__ constexpr Complex(T r = 0, T i = 0) : re(r), im(i) {}
    __device__ Complex operator+(const Complex& o) const { return {re + o.re, im + o.im}; }
    __device__ Complex operator*(const Complex& o) const
    {
        return {re * o.re - im * o.im, re * o.im + im * o.re};
    }
    __device__ T norm2() const { return re * re + im * im; }
};

template <typename T, int N>
__device__ T poly_eval(const T (&c)[N], T x)
{
    T acc = c[N - 1];
#pragma unroll
    for (int k = N - 2; k >= 0; --k)
        acc = acc * x + c[k];
    return acc;
}

template <typename T, typename F>
__device__ void transform(const T* in, T* out, int n, F f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = f(in[i], i);
}

constexpr int kDegree = 5;

}  // namespace corpus

extern "C" __global__ void cpp_complex_pow(const float2* __restrict__ z, float2* __restrict__ out,
                                           int n, int power)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    corpus::Complex<float> base(z[i].x, z[i].y), acc(1.0f, 0.0f);
    for (int k = 0; k < power; ++k)
        acc = acc * base;
    out[i] = make_float2(acc.re, acc.im + 0.0f * acc.norm2());
}

extern "C" __global__ void cpp_lambda_f32(const float* __restrict__ in, float* __restrict__ out,
                                          int n, float k)
{
    const float coeffs[corpus::kDegree] = {1.0f, -1.0f, 0.5f, -0.25f, 0.125f};
    corpus::transform(in, out, n, [=](float v, int i) {
        return corpus::poly_eval(coeffs, v) * k + (float)(i & 3);
    });
}

extern "C" __global__ void cpp_lambda_i64(const int64_t* __restrict__ in, int64_t* __restrict__ out,
                                          int n)
{
    corpus::transform(in, out, n, [](int64_t v, int i) -> int64_t {
        return (v * 6364136223846793005LL + 1442695040888963407LL) ^ (int64_t)i;
    });
}
