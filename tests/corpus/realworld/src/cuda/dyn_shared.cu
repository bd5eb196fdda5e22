// Dynamic shared memory (extern __shared__): a tiled transpose and a 1D stencil with halo.
extern __shared__ float smem[];

extern "C" __global__ void transpose_dyn(const float *in, float *out, int rows, int cols, int tile) {
    float *t = smem;  // tile x (tile + 1)
    int x = blockIdx.x * tile + threadIdx.x, y = blockIdx.y * tile + threadIdx.y;
    if (x < cols && y < rows) t[threadIdx.y * (tile + 1) + threadIdx.x] = in[y * cols + x];
    __syncthreads();
    x = blockIdx.y * tile + threadIdx.x;
    y = blockIdx.x * tile + threadIdx.y;
    if (x < rows && y < cols) out[y * rows + x] = t[threadIdx.x * (tile + 1) + threadIdx.y];
}

extern "C" __global__ void stencil_dyn(const float *in, float *out, int n, int radius) {
    float *s = smem;  // blockDim.x + 2 * radius
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + radius;
    s[l] = g < n ? in[g] : 0.0f;
    if (threadIdx.x < radius) {
        int left = g - radius, right = g + blockDim.x;
        s[l - radius] = left >= 0 ? in[left] : 0.0f;
        s[l + blockDim.x] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (g < n) {
        float acc = 0.0f;
        for (int k = -radius; k <= radius; ++k) acc += s[l + k] * (1.0f / (1 + k * k));
        out[g] = acc;
    }
}
