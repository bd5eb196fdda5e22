// Math-library-heavy code: most single and double precision functions from
// the CUDA math library.  Each is inlined from libdevice, giving long PTX
// (especially with -G).

extern "C" __global__ void math_f32(const float* __restrict__ x, float* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];                // expected in (-4, 4)
    float a = fabsf(v) + 0.01f;
    float* o = out + 16 * i;
    o[0] = sinf(v);
    o[1] = cosf(v);
    o[2] = tanf(v * 0.3f);
    o[3] = expf(v);
    o[4] = logf(a);
    o[5] = powf(a, 1.7f);
    o[6] = erff(v);
    o[7] = erfcf(v);
    o[8] = sqrtf(a) + rsqrtf(a);
    o[9] = atan2f(v, 1.5f);
    o[10] = tanhf(v) + sinhf(v * 0.5f) + coshf(v * 0.5f);
    o[11] = log2f(a) + log10f(a) + log1pf(a);
    o[12] = exp2f(v) + expm1f(v * 0.1f);
    o[13] = cbrtf(v) + hypotf(v, 2.0f);
    o[14] = asinf(v * 0.2f) + acosf(v * 0.2f) + atanf(v);
    o[15] = lgammaf(a) + tgammaf(a * 0.5f + 0.5f) + fmodf(v, 0.7f) + remainderf(v, 0.7f);
}

extern "C" __global__ void math_f64(const double* __restrict__ x, double* __restrict__ out,
                                    int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    double v = x[i];
    double a = fabs(v) + 0.01;
    double* o = out + 12 * i;
    o[0] = sqrt(a);
    o[1] = exp(v);
    o[2] = log(a);
    o[3] = sin(v) + cos(v);
    o[4] = pow(a, 2.5);
    o[5] = erf(v) + erfc(v * 0.5);
    o[6] = tanh(v) + atan(v);
    o[7] = cbrt(v) + rsqrt(a);
    o[8] = log1p(a) + expm1(v * 0.1);
    o[9] = atan2(v, 0.75) + hypot(v, 3.0);
    o[10] = asinh(v) + acosh(a + 1.0) + atanh(v * 0.2);
    o[11] = floor(v * 3.3) + ceil(v * 1.1) + trunc(v) + round(v * 2.0) + fmod(v, 1.3);
}

// sincos, frexp/ldexp, nextafter, integer/float rounding conversions and
// fused/min/max/copysign family.
extern "C" __global__ void math_misc(const float* __restrict__ x, float* __restrict__ out,
                                     int* __restrict__ iout, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    float s, c;
    sincosf(v, &s, &c);
    int e;
    float m = frexpf(v, &e);
    out[6 * i + 0] = s * c;
    out[6 * i + 1] = ldexpf(m, e + 1);
    out[6 * i + 2] = nextafterf(v, 0.0f);
    out[6 * i + 3] = copysignf(fmaxf(fabsf(v), 0.5f), -v) + fminf(v, 0.0f);
    out[6 * i + 4] = fdimf(v, 0.25f) + truncf(v * 4.0f) + rintf(v * 3.0f);
    out[6 * i + 5] = normcdff(v) + erfinvf(v * 0.2f) + sinpif(v) + cospif(v);
    iout[3 * i + 0] = e;
    iout[3 * i + 1] = __float2int_rn(v * 100.0f) + lrintf(v * 10.0f);
    iout[3 * i + 2] = ilogbf(v) + (isnan(v) ? 1000 : 0) + (isinf(v * 1e38f) ? 100 : 0) + signbit(v);
}
