// A per-thread local array indexed dynamically (kept in .local): insertion sort of 16 values,
// then a data-dependent gather.
extern "C" __global__ void local_sort(const int *in, int *out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int a[16];
    for (int k = 0; k < 16; ++k) a[k] = in[t * 16 + k];
    for (int k = 1; k < 16; ++k) {
        int v = a[k], j = k - 1;
        while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; --j; }
        a[j + 1] = v;
    }
    int pick = a[(unsigned)in[t * 16] & 15];
    for (int k = 0; k < 16; ++k) out[t * 17 + k] = a[k];
    out[t * 17 + 16] = pick;
}
