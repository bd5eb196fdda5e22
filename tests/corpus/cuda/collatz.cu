// Heavily divergent loops: number of Collatz steps for each start value
// (each lane of a warp runs a different trip count), and a Mandelbrot-like
// escape-time loop with early exit.

extern "C" __global__ void collatz_steps(const unsigned long long* __restrict__ start,
                                         int* __restrict__ steps, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = start[i];
    int s = 0;
    while (x > 1 && s < 100000) {
        if (x & 1)
            x = 3 * x + 1;
        else
            x >>= 1;
        ++s;
    }
    steps[i] = s;
}

extern "C" __global__ void mandelbrot(int* __restrict__ iters, int width, int height,
                                      float x0, float y0, float dx, float dy, int max_iter)
{
    int px = blockIdx.x * blockDim.x + threadIdx.x;
    int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    float cr = x0 + px * dx, ci = y0 + py * dy;
    float zr = 0.0f, zi = 0.0f;
    int it = 0;
    for (; it < max_iter; ++it) {
        float zr2 = zr * zr, zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    iters[py * width + px] = it;
}
