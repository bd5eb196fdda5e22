// Matrix transpose: naive, and tiled through shared memory with a padded
// [32][33] tile to avoid bank conflicts.  Blocks are 32x8 threads, each
// thread moves 4 elements.  Arbitrary (non-multiple-of-32) sizes are handled.

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_naive(const float* __restrict__ in,
                                           float* __restrict__ out, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            out[(long long)x * rows + (y + j)] = in[(long long)(y + j) * cols + x];
}

extern "C" __global__ void transpose_tiled(const float* __restrict__ in,
                                           float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;   // transposed block offset
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(long long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Same pattern for 64-bit elements.
extern "C" __global__ void transpose_tiled_f64(const double* __restrict__ in,
                                               double* __restrict__ out, int rows, int cols)
{
    __shared__ double tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < cols && y + j < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[(long long)(y + j) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (x < rows && y + j < cols)
            out[(long long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
