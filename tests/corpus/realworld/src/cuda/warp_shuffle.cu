// Warp-level intrinsics: shuffles (down, xor, up, idx), ballot/popc, any/all, match, redux.
extern "C" __global__ void warp_ops(const int *in, int *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[i];
    int s = v;
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    int x = v;
    for (int o = 1; o < 32; o <<= 1) x = max(x, __shfl_xor_sync(0xffffffffu, x, o));
    int up = __shfl_up_sync(0xffffffffu, v, 3);
    int rot = __shfl_sync(0xffffffffu, v, (lane + 5) & 31);
    unsigned odd = __ballot_sync(0xffffffffu, v & 1);
    int any_neg = __any_sync(0xffffffffu, v < 0);
    int all_small = __all_sync(0xffffffffu, v < 1000);
    unsigned same = __match_any_sync(0xffffffffu, v & 7);
    int red = __reduce_add_sync(0xffffffffu, v);
    int redmin = __reduce_min_sync(0xffffffffu, v);
    int *o = out + i * 8;
    o[0] = lane == 0 ? s : -1;
    o[1] = x;
    o[2] = up;
    o[3] = rot;
    o[4] = __popc(odd) + (any_neg << 8) + (all_small << 9);
    o[5] = (int)same;
    o[6] = red;
    o[7] = redmin;
}

// A partial warp: only even lanes take part in a sub-warp shuffle.
extern "C" __global__ void warp_partial(const float *in, float *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    if ((threadIdx.x & 1) == 0) {
        unsigned mask = 0x55555555u;
        float t = v;
        for (int o = 2; o < 32; o <<= 1) t += __shfl_xor_sync(mask, t, o);
        out[i] = t;
    } else {
        out[i] = -v;
    }
}
