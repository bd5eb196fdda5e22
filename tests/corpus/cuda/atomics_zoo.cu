// Atomics of many kinds and types.  The inputs are integers (or exactly
// representable integer-valued floats/doubles) so that every final value is
// independent of the order in which threads perform their updates.
//
// Layout of the result buffers (all initialised by the kernel's caller):
//   i32[0..15] : add, sub, min, max, and, or, xor, count, exch slots 8..15 (int)
//   u32[0..69] : add, min, max, inc(wrap 1000), dec(wrap 1000), cas-count,
//                CAS slots 6..69
//   u64[0..5]  : add, min, max, and, or, xor                     (unsigned long long)
//   f32[0..3]  : add (integer-valued), max via CAS loop, exch slots 2..3 (float)
//   f64[0..1]  : add (integer-valued), min via CAS loop          (double)

__device__ float atomic_max_float(float* addr, float value)
{
    int* ia = reinterpret_cast<int*>(addr);
    int old = *ia, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= value)
            break;
        old = atomicCAS(ia, assumed, __float_as_int(value));
    } while (assumed != old);
    return __int_as_float(old);
}

__device__ double atomic_min_double(double* addr, double value)
{
    unsigned long long* ua = reinterpret_cast<unsigned long long*>(addr);
    unsigned long long old = *ua, assumed;
    do {
        assumed = old;
        if (__longlong_as_double(assumed) <= value)
            break;
        old = atomicCAS(ua, assumed, __double_as_longlong(value));
    } while (assumed != old);
    return __longlong_as_double(old);
}

extern "C" __global__ void atomics_zoo(const int* __restrict__ vals, int n,
                                       int* __restrict__ i32, unsigned* __restrict__ u32,
                                       unsigned long long* __restrict__ u64,
                                       float* __restrict__ f32, double* __restrict__ f64)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n)
        return;
    int v = vals[t];                       // expected in [-1000, 1000]
    unsigned u = (unsigned)(v + 1000);     // [0, 2000]
    unsigned long long w = ((unsigned long long)u << 32) | (unsigned)(t * 2654435761u);

    atomicAdd(&i32[0], v);
    atomicSub(&i32[1], v);
    atomicMin(&i32[2], v);
    atomicMax(&i32[3], v);
    atomicAnd(&i32[4], v | (int)0xF0F0F000);
    atomicOr(&i32[5], (v & 0x0F0F) << 4);
    atomicXor(&i32[6], v);
    atomicAdd(&i32[7], 1);
    atomicExch(&i32[8 + (t & 7)], t & 7);   // every writer of slot k writes k

    atomicAdd(&u32[0], u);
    atomicMin(&u32[1], u);
    atomicMax(&u32[2], u);
    atomicInc(&u32[3], 1000u);
    atomicDec(&u32[4], 1000u);
    // Each thread CASes a private slot from 0 to 1 and counts successes.
    if (atomicCAS(&u32[6 + (t % 64)], 0u, 1u) == 0u)
        atomicAdd(&u32[5], 1u);

    atomicAdd(&u64[0], (unsigned long long)u);
    atomicMin(&u64[1], w);
    atomicMax(&u64[2], w);
    atomicAnd(&u64[3], w | 0xFFFF0000FFFF0000ull);
    atomicOr(&u64[4], (unsigned long long)(v & 0x3F3) << 40);
    atomicXor(&u64[5], w);

    atomicAdd(&f32[0], (float)v);
    atomic_max_float(&f32[1], (float)v * 0.5f);
    (void)atomicExch(&f32[2 + (t & 1)], 1.0f);

    atomicAdd(&f64[0], (double)v);
    atomic_min_double(&f64[1], (double)v * 0.25);
}

// Scoped atomics: _block (.cta) and _system (.sys) variants, plus the
// unsigned short CAS available from sm_70.
extern "C" __global__ void atomics_scoped(int* __restrict__ block_counts,
                                          unsigned long long* __restrict__ total,
                                          unsigned short* __restrict__ flags16, int n)
{
    __shared__ int local;
    if (threadIdx.x == 0)
        local = 0;
    __syncthreads();
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < n) {
        atomicAdd_block(&local, 1);
        atomicAdd_system(total, (unsigned long long)t);
        atomicCAS(&flags16[t & 15], (unsigned short)0, (unsigned short)(1 + (t & 15)));
    }
    __syncthreads();
    if (threadIdx.x == 0)
        atomicExch(&block_counts[blockIdx.x], local);
}
