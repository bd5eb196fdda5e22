// Sparse matrix-vector product y = A*x with A in CSR format:
// scalar kernel (one thread per row) and vector kernel (one warp per row).

extern "C" __global__ void spmv_csr_scalar(int rows, const int* __restrict__ row_ptr,
                                           const int* __restrict__ col_idx,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float acc = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k)
        acc += vals[k] * __ldg(&x[col_idx[k]]);
    y[r] = acc;
}

extern "C" __global__ void spmv_csr_vector(int rows, const int* __restrict__ row_ptr,
                                           const int* __restrict__ col_idx,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (warp >= rows)
        return;
    int start = row_ptr[warp], end = row_ptr[warp + 1];
    float acc = 0.0f;
    for (int k = start + lane; k < end; k += 32)
        acc += vals[k] * x[col_idx[k]];
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0)
        y[warp] = acc;
}
