// Stencils with shared-memory halos: a 1D radius-3 stencil and a 2D
// 5-point Jacobi step over a (rows x cols) grid with fixed boundaries.

#define RADIUS 3
#define S1_BLOCK 256

extern "C" __global__ void stencil1d(const float* __restrict__ in, float* __restrict__ out,
                                     int n)
{
    __shared__ float tmp[S1_BLOCK + 2 * RADIUS];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int lid = threadIdx.x + RADIUS;
    tmp[lid] = gid < n ? in[gid] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = gid - RADIUS, right = gid + blockDim.x;
        tmp[lid - RADIUS] = left >= 0 && left < n ? in[left] : 0.0f;
        tmp[lid + blockDim.x] = right < n ? in[right] : 0.0f;
    }
    __syncthreads();
    if (gid < n) {
        float r = 0.0f;
#pragma unroll
        for (int k = -RADIUS; k <= RADIUS; ++k)
            r += tmp[lid + k] * (1.0f / (2 * RADIUS + 1));
        out[gid] = r;
    }
}

#define BX 16
#define BY 16

// blockDim = (16, 16)
extern "C" __global__ void jacobi2d(const float* __restrict__ u, float* __restrict__ unew,
                                    int rows, int cols)
{
    __shared__ float s[BY + 2][BX + 2];
    int x = blockIdx.x * BX + threadIdx.x;
    int y = blockIdx.y * BY + threadIdx.y;
    int lx = threadIdx.x + 1, ly = threadIdx.y + 1;
    bool inside = x < cols && y < rows;
    s[ly][lx] = inside ? u[y * cols + x] : 0.0f;
    if (threadIdx.x == 0)
        s[ly][0] = (x > 0 && y < rows) ? u[y * cols + x - 1] : 0.0f;
    if (threadIdx.x == BX - 1)
        s[ly][BX + 1] = (x + 1 < cols && y < rows) ? u[y * cols + x + 1] : 0.0f;
    if (threadIdx.y == 0)
        s[0][lx] = (y > 0 && x < cols) ? u[(y - 1) * cols + x] : 0.0f;
    if (threadIdx.y == BY - 1)
        s[BY + 1][lx] = (y + 1 < rows && x < cols) ? u[(y + 1) * cols + x] : 0.0f;
    __syncthreads();
    if (!inside)
        return;
    if (x == 0 || y == 0 || x == cols - 1 || y == rows - 1)
        unew[y * cols + x] = s[ly][lx];   // Dirichlet boundary: copy
    else
        unew[y * cols + x] = 0.25f * (s[ly][lx - 1] + s[ly][lx + 1] + s[ly - 1][lx] + s[ly + 1][lx]);
}
