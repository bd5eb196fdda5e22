// Classic shared-memory tree reduction.  Each block reduces a grid-stride
// slice into shared memory, then thread 0 either writes a per-block partial
// sum (deterministic) or atomically adds it into a single global result.

#define RS_BLOCK 256

template <typename T>
__device__ T block_tree_sum(T v)
{
    __shared__ T sdata[RS_BLOCK];
    unsigned tid = threadIdx.x;
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    return sdata[0];
}

// Requires blockDim.x == 256 (power of two).
extern "C" __global__ void reduce_partial_f32(const float* __restrict__ in,
                                              float* __restrict__ partial, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    float s = block_tree_sum<float>(v);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = s;
}

extern "C" __global__ void reduce_atomic_f32(const float* __restrict__ in,
                                             float* __restrict__ out, int n)
{
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    float s = block_tree_sum<float>(v);
    if (threadIdx.x == 0)
        atomicAdd(out, s);
}

extern "C" __global__ void reduce_atomic_i32(const int* __restrict__ in,
                                             int* __restrict__ out, int n)
{
    int v = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        v += in[i];
    int s = block_tree_sum<int>(v);
    if (threadIdx.x == 0)
        atomicAdd(out, s);
}

// "Reduce #6" style: each thread first adds two elements while loading and
// the last warp is unrolled with volatile shared memory accesses.
extern "C" __global__ void reduce_unrolled_f32(const float* __restrict__ in,
                                               float* __restrict__ partial, unsigned n)
{
    __shared__ float sdata[RS_BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) {
        volatile float* vs = sdata;
        vs[tid] += vs[tid + 32];
        __syncwarp();
        vs[tid] += vs[tid + 16];
        __syncwarp();
        vs[tid] += vs[tid + 8];
        __syncwarp();
        vs[tid] += vs[tid + 4];
        __syncwarp();
        vs[tid] += vs[tid + 2];
        __syncwarp();
        vs[tid] += vs[tid + 1];
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}
