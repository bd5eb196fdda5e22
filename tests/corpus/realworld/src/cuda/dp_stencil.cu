// Double precision: a 2D 5-point Jacobi sweep with a grid-stride loop, plus a residual via
// warp shuffles of doubles and a double atomicAdd of exact (integer-valued) terms.
extern "C" __global__ void jacobi_step(const double *u, double *v, int nx, int ny, double *resid) {
    double local = 0.0;
    for (int idx = blockIdx.x * blockDim.x + threadIdx.x; idx < nx * ny; idx += gridDim.x * blockDim.x) {
        int x = idx % nx, y = idx / nx;
        if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) { v[idx] = u[idx]; continue; }
        double nv = 0.25 * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx]);
        v[idx] = nv;
        local += fabs(nv - u[idx]);
    }
    for (int o = 16; o > 0; o >>= 1) local += __shfl_down_sync(0xffffffffu, local, o);
    if ((threadIdx.x & 31) == 0) resid[blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32] = local;
}
