// Per-thread arrays with dynamic indexing, which live in local memory
// (.local): insertion sort of a small window (median filter) and a
// per-thread lookup table built at run time.

#define WIN 9

extern "C" __global__ void median_filter9(const float* __restrict__ in, float* __restrict__ out,
                                          int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float w[WIN];
    for (int k = 0; k < WIN; ++k) {
        int j = min(max(i + k - WIN / 2, 0), n - 1);
        w[k] = in[j];
    }
    for (int a = 1; a < WIN; ++a) {   // insertion sort
        float key = w[a];
        int b = a - 1;
        while (b >= 0 && w[b] > key) {
            w[b + 1] = w[b];
            --b;
        }
        w[b + 1] = key;
    }
    out[i] = w[WIN / 2];
}

extern "C" __global__ void local_table(const int* __restrict__ idx, int* __restrict__ out, int n,
                                       int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int table[32];
    unsigned s = (unsigned)(seed + i);
    for (int k = 0; k < 32; ++k) {
        s = s * 1664525u + 1013904223u;
        table[k] = (int)(s >> 8);
    }
    int acc = 0;
    int j = idx[i];
    for (int k = 0; k < 8; ++k) {
        j = (j * 7 + k) & 31;
        acc ^= table[j];
        table[(j + 1) & 31] += acc;
    }
    out[i] = acc;
}
