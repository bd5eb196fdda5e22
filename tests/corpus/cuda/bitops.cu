// Integer and bit-manipulation intrinsics: popc, clz, ffs, brev, byte_perm,
// funnel shifts, mul24/mulhi/umul64hi, sad, hadd/rhadd, SIMD video
// intrinsics (__vadd4, __vabsdiffu4, __vcmpgeu2), and 32/64-bit division and
// remainder by run-time values.

extern "C" __global__ void bitops32(const unsigned* __restrict__ a, const unsigned* __restrict__ b,
                                    unsigned* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned x = a[i], y = b[i] | 1u;
    unsigned* o = out + 16 * i;
    o[0] = __popc(x) + (__clz(x) << 8) + (__ffs(x) << 16);
    o[1] = __brev(x);
    o[2] = __byte_perm(x, y, 0x5140);
    o[3] = __funnelshift_l(x, y, y & 31);
    o[4] = __funnelshift_rc(x, y, (x >> 3));
    o[5] = __umul24(x, y) ^ (unsigned)__mul24((int)x, (int)y);
    o[6] = __umulhi(x, y);
    o[7] = (unsigned)__mulhi((int)x, (int)y);
    o[8] = __usad(x & 0xffff, y & 0xffff, 7u);
    o[9] = __uhadd(x, y) ^ __urhadd(x, y);
    o[10] = __vadd4(x, y);
    o[11] = __vabsdiffu4(x, y);
    o[12] = __vcmpgeu2(x, y);
    o[13] = x / y;
    o[14] = x % y;
    o[15] = (unsigned)((int)x / (int)(y | 2u)) + (unsigned)((int)x % (int)(y | 2u));
}

extern "C" __global__ void bitops64(const unsigned long long* __restrict__ a,
                                    const unsigned long long* __restrict__ b,
                                    unsigned long long* __restrict__ out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long x = a[i], y = b[i] | 1ull;
    unsigned long long* o = out + 8 * i;
    o[0] = (unsigned long long)__popcll(x) | ((unsigned long long)__clzll(x) << 8) |
           ((unsigned long long)__ffsll((long long)x) << 16);
    o[1] = __brevll(x);
    o[2] = __umul64hi(x, y);
    o[3] = (unsigned long long)__mul64hi((long long)x, (long long)y);
    o[4] = x / y;
    o[5] = x % y;
    o[6] = (unsigned long long)((long long)x / (long long)(y | 2)) ;
    o[7] = (x << (y & 63)) | (x >> ((64 - (y & 63)) & 63));
}
