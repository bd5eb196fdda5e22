// Real recursion through non-inlined device functions: the PTX contains
// .func definitions that call themselves, with parameters passed through
// .param space (and a local-memory stack frame for the array-based one).

__device__ __noinline__ unsigned long long factorial(unsigned int n)
{
    if (n <= 1)
        return 1ULL;
    return (unsigned long long)n * factorial(n - 1);
}

__device__ __noinline__ int fibonacci(int n)
{
    if (n < 2)
        return n;
    return fibonacci(n - 1) + fibonacci(n - 2);
}

// Greatest common divisor, tail-recursive (may be turned into a loop).
__device__ __noinline__ unsigned gcd_rec(unsigned a, unsigned b)
{
    return b == 0 ? a : gcd_rec(b, a % b);
}

// Divide-and-conquer sum of a per-thread local array.
__device__ __noinline__ int range_sum(const int* v, int lo, int hi)
{
    if (hi - lo <= 1)
        return (hi > lo) ? v[lo] : 0;
    int mid = (lo + hi) / 2;
    return range_sum(v, lo, mid) + range_sum(v, mid, hi);
}

// n_in[i] is expected in [0, 20]; fibonacci gets n % 13 to keep the call tree
// small (fib(12) makes 465 calls).
extern "C" __global__ void recursion_kernel(const int* __restrict__ n_in,
                                            unsigned long long* __restrict__ fact_out,
                                            int* __restrict__ fib_out,
                                            unsigned* __restrict__ gcd_out,
                                            int* __restrict__ sum_out, int count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    int n = n_in[i];
    fact_out[i] = factorial((unsigned)min(n, 20));
    fib_out[i] = fibonacci(n % 13);
    gcd_out[i] = gcd_rec((unsigned)(n * 36 + 12), (unsigned)(i * 24 + 18));
    int local[12];
    for (int k = 0; k < 12; ++k)
        local[k] = n * k + i;
    sum_out[i] = range_sum(local, 0, (n % 12) + 1);
}
