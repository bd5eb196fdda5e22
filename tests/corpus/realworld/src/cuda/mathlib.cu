// CUDA math library functions (their software sequences land in the PTX).
extern "C" __global__ void math_f32(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float *o = out + 12 * i;
    o[0] = sinf(v);
    o[1] = cosf(v);
    o[2] = expf(v);
    o[3] = logf(fabsf(v) + 1e-3f);
    o[4] = erff(v);
    o[5] = tanhf(v);
    o[6] = powf(fabsf(v), 1.37f);
    o[7] = sqrtf(fabsf(v));
    o[8] = rsqrtf(fabsf(v) + 0.5f);
    o[9] = atan2f(v, 0.75f);
    o[10] = lgammaf(fabsf(v) + 0.1f);
    o[11] = cbrtf(v);
}

extern "C" __global__ void math_f64(const double *x, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double v = x[i];
    double *o = out + 6 * i;
    o[0] = sin(v);
    o[1] = exp(v);
    o[2] = log1p(fabs(v));
    o[3] = erfc(v);
    o[4] = pow(fabs(v), 0.3);
    o[5] = hypot(v, 2.0);
}
