// __constant__ memory: statically initialised filter taps and polynomial
// coefficients (appear as initialised .const variables in the PTX), a
// constant struct, and one uninitialised constant array that a host would
// fill with cudaMemcpyToSymbol.

#define KRAD 4
__constant__ float c_taps[2 * KRAD + 1] = {0.02f, 0.05f, 0.09f, 0.12f, 0.44f,
                                           0.12f, 0.09f, 0.05f, 0.02f};
__constant__ double c_poly[6] = {1.0, -0.5, 0.25, -0.125, 0.0625, -0.03125};
__constant__ int c_lut[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

struct ConstCfg {
    float gain;
    int offset;
    short shift;
};
__constant__ ConstCfg c_cfg = {1.5f, -3, 2};

__constant__ float c_user[64];   // filled by the host (not used by the cases)

extern "C" __global__ void conv1d_const(const float* __restrict__ in, float* __restrict__ out,
                                        int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float acc = 0.0f;
#pragma unroll
    for (int k = -KRAD; k <= KRAD; ++k) {
        int j = min(max(i + k, 0), n - 1);   // clamp at the borders
        acc += c_taps[k + KRAD] * in[j];
    }
    out[i] = acc;
}

extern "C" __global__ void poly_const(const double* __restrict__ x, double* __restrict__ y,
                                      int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i], acc = 0.0;
    for (int k = 5; k >= 0; --k)
        acc = acc * v + c_poly[k];
    y[i] = acc;
}

extern "C" __global__ void popcount_lut_const(const unsigned* __restrict__ in,
                                              int* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = in[i];
    int c = 0;
    for (int k = 0; k < 8; ++k)
        c += c_lut[(v >> (4 * k)) & 15];   // dynamically indexed constant
    out[i] = ((c + c_cfg.offset) << c_cfg.shift) * (int)c_cfg.gain;
}

extern "C" __global__ void scale_user_const(float* __restrict__ data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        data[i] *= c_user[i & 63];
}
