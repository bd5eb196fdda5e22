"""More numba-cuda: constant arrays, float16, complex numbers, compare-and-swap / exchange /
wrapping increment atomics, and numba.cuda.random's xoroshiro128+ generator."""
import numpy as np
from numba import cuda, float32, void
from numba.cuda.random import xoroshiro128p_normal_float32, xoroshiro128p_type, xoroshiro128p_uniform_float32

COEFFS = np.array([0.5, -1.25, 2.0, 0.125, -3.0, 1.0, 0.75, -0.5], np.float32)


def const_poly(x, out):
    c = cuda.const.array_like(COEFFS)
    i = cuda.grid(1)
    if i < x.size:
        acc = np.float32(0.0)
        for k in range(8):
            acc = acc * x[i] + c[k]
        out[i] = acc


def half_ops(a, b, out):
    i = cuda.grid(1)
    if i < a.size:
        x, y = a[i], b[i]
        out[i] = x * y + x - y / np.float16(4.0)


def complex_ops(z, w, out):
    i = cuda.grid(1)
    if i < z.size:
        out[i] = z[i] * w[i] + z[i].conjugate() / (w[i] + 2.0)


def atomic_misc(x, slots, inc):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.compare_and_swap(slots[0:1], 0, x[i])
        cuda.atomic.inc(inc, 0, np.uint32(99))
        cuda.atomic.dec(inc, 1, np.uint32(999))
        cuda.atomic.exch(slots, 1 + (x[i] & 3), 7)


def rng_fill(states, u, g):
    i = cuda.grid(1)
    if i < u.size:
        u[i] = xoroshiro128p_uniform_float32(states, i)
        g[i] = xoroshiro128p_normal_float32(states, i)


KERNELS = [
    dict(name="nb_const_array", fn=const_poly, sig="void(float32[:], float32[:])"),
    dict(name="nb_float16", fn=half_ops, sig="void(float16[:], float16[:], float16[:])"),
    dict(name="nb_complex", fn=complex_ops, sig="void(complex64[:], complex64[:], complex64[:])"),
    dict(name="nb_atomic_cas", fn=atomic_misc, sig="void(int32[:], int32[:], uint32[:])"),
    dict(name="nb_xoroshiro", fn=rng_fill,
         sig=void(xoroshiro128p_type[::1], float32[::1], float32[::1])),
]
