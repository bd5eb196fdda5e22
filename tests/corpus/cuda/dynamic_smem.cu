// Dynamic shared memory (extern __shared__): the size comes from the launch.

// Reverse each block-sized segment through shared memory.
// dynamic smem = blockDim.x * sizeof(int)
extern "C" __global__ void dyn_reverse(int* __restrict__ data, int n)
{
    extern __shared__ int s[];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    int len = min((int)blockDim.x, n - base);
    if (t < len)
        s[t] = data[base + t];
    __syncthreads();
    if (t < len)
        data[base + t] = s[len - 1 - t];
}

// Several arrays carved out of one dynamic allocation.
// dynamic smem = blockDim.x * (sizeof(float) + sizeof(int)) + 16
extern "C" __global__ void dyn_multi_array(const float* __restrict__ x,
                                           const int* __restrict__ keys,
                                           float* __restrict__ out, int n)
{
    extern __shared__ __align__(16) unsigned char smem[];
    float* sx = reinterpret_cast<float*>(smem);
    int* sk = reinterpret_cast<int*>(smem + blockDim.x * sizeof(float));
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    sx[threadIdx.x] = gid < n ? x[gid] : 0.0f;
    sk[threadIdx.x] = gid < n ? keys[gid] : 0;
    __syncthreads();
    // out[i] = x of the element in this block whose index is keys[i] mod blockDim
    if (gid < n) {
        int j = ((sk[threadIdx.x] % (int)blockDim.x) + blockDim.x) % blockDim.x;
        out[gid] = sx[j] + (float)sk[j];
    }
}

// Dynamic smem together with a static __shared__ array.
// dynamic smem = blockDim.x * sizeof(double)
extern "C" __global__ void dyn_plus_static(const double* __restrict__ in,
                                           double* __restrict__ out, int n)
{
    extern __shared__ double dyn[];
    __shared__ double total;
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    dyn[threadIdx.x] = gid < n ? in[gid] : 0.0;
    if (threadIdx.x == 0)
        total = 0.0;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int k = 0; k < blockDim.x; ++k)
            t += dyn[k];
        total = t;
    }
    __syncthreads();
    if (gid < n)
        out[gid] = dyn[threadIdx.x] / (total == 0.0 ? 1.0 : total);
}
