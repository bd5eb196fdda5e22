"""numba-cuda kernels: elementwise, shared-memory reductions, local arrays, atomics, device
functions, math, print, 2D indexing."""
import math

from numba import cuda, float32, float64, int32, int64, uint32


def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = a * x[i] + y[i]


def block_sum(x, partial):
    s = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = x[i] if i < x.size else float32(0.0)
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]


def local_reverse_prefix(x, out):
    i = cuda.grid(1)
    if i >= out.shape[0]:
        return
    buf = cuda.local.array(8, int32)
    for k in range(8):
        buf[k] = x[i, 7 - k]
    for k in range(1, 8):
        buf[k] += buf[k - 1]
    for k in range(8):
        out[i, k] = buf[(k * 3 + x[i, 0]) & 7]


def atomic_hist(x, bins, extremes):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        cuda.atomic.add(bins, v & 31, 1)
        cuda.atomic.max(extremes, 0, v)
        cuda.atomic.min(extremes, 1, v)


@cuda.jit(device=True)
def clamp(v, lo, hi):
    return min(max(v, lo), hi)


@cuda.jit(device=True)
def smoothstep(e0, e1, v):
    t = clamp((v - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def device_calls(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = smoothstep(-1.0, 1.0, x[i]) + clamp(x[i], -0.5, 0.5)


def math_funcs(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.sin(v)
        out[i, 1] = math.exp(v)
        out[i, 2] = math.erf(v)
        out[i, 3] = math.log(abs(v) + 1.0)
        out[i, 4] = math.sqrt(abs(v))
        out[i, 5] = math.atan2(v, 1.5)
        out[i, 6] = math.tanh(v)
        out[i, 7] = math.pow(abs(v), 0.75)


def math_funcs64(x, out):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        out[i, 0] = math.cos(v)
        out[i, 1] = math.expm1(v)
        out[i, 2] = math.lgamma(abs(v) + 0.5)
        out[i, 3] = math.hypot(v, 3.0)


def print_values(x):
    i = cuda.grid(1)
    if i < x.size and i % 16 == 0:
        print("item", i, "value", x[i])


def matrix_rowsum_2d(m, out):
    r, c = cuda.grid(2)
    if r < m.shape[0] and c < m.shape[1]:
        cuda.atomic.add(out, r, m[r, c])


def warp_vote(x, out):
    i = cuda.grid(1)
    lane = cuda.laneid
    v = x[i]
    mask = cuda.activemask()
    ballot = cuda.ballot_sync(mask, v > 0)
    s = v
    off = 16
    while off > 0:
        s += cuda.shfl_down_sync(mask, s, off)
        off //= 2
    out[i, 0] = ballot
    out[i, 1] = s if lane == 0 else 0
    out[i, 2] = cuda.popc(ballot) + lane


KERNELS = [
    dict(name="nb_saxpy", fn=saxpy, sig="void(float32, float32[:], float32[:], float32[:])"),
    dict(name="nb_block_sum", fn=block_sum, sig="void(float32[:], float32[:])"),
    dict(name="nb_local_array", fn=local_reverse_prefix, sig="void(int32[:, :], int32[:, :])"),
    dict(name="nb_atomics", fn=atomic_hist, sig="void(int32[:], int32[:], int32[:])"),
    dict(name="nb_device_funcs", fn=device_calls, sig="void(float64[:], float64[:])"),
    dict(name="nb_math_f32", fn=math_funcs, sig="void(float32[:], float32[:, :])"),
    dict(name="nb_math_f64", fn=math_funcs64, sig="void(float64[:], float64[:, :])"),
    dict(name="nb_print", fn=print_values, sig="void(int64[:])"),
    dict(name="nb_rowsum_2d", fn=matrix_rowsum_2d, sig="void(int32[:, :], int32[:])"),
    dict(name="nb_warp_vote", fn=warp_vote, sig="void(int32[:], uint32[:, :])"),
]
