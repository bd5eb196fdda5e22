"""Is MUFU.SIN / MUFU.COS (sin/cos.approx.f32) a table over a 25-bit turn? Run on a GPU (CuPy),
over all 2^32 inputs:

  sin/cos: t = FMUL.RZ(x, 1/2pi) as ptxas emits it; key = floor(|t| * 2^25) mod 2^25 ("mag", sign
  applied after) or floor(t * 2^25) mod 2^25 ("twos"); the half turn flips the sign. Every input
  writes (result with that sign taken off) into a 2^24-entry table at its key; an input that finds
  another value there is a conflict (counted per binade of t). cos is keyed a quarter turn on.

Writes OUT/sincos_summary.json and, per table without conflicts, OUT/table_<op>_<variant>.npz
(results as ordered-integer differences from f32(sin(2 pi k / 2^25)), int8 with escapes).

    python3 tools/device/probe_sincos_table.py OUT
"""
import json
import os
import sys
import time

import numpy as np

C_TURN = 0x3E22F983  # 1/(2 pi) as f32: the FMUL.RZ constant of sin/cos.approx.f32
OPS = ["sin.approx.ftz.f32", "cos.approx.ftz.f32", "sin.approx.f32", "cos.approx.f32"]
VARIANTS = ["mag", "twos"]

SRC = r'''
extern "C" __global__ void table_%(k)s(unsigned base, unsigned n, unsigned* T, int variant, int is_cos,
                                         unsigned long long* conf, unsigned* example) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned xb = base + i, y;
  asm volatile("{ .reg .f32 a, d; mov.b32 a, %%1; %(ins)s d, a; mov.b32 %%0, d; }" : "=r"(y) : "r"(xb));
  float x = __uint_as_float(xb);
  float t = __fmul_rz(x, __uint_as_float(%(c)du));
  if (!isfinite(t)) return;
  unsigned long long k25;
  unsigned s = 0;
  const double P = 33554432.0;  // 2^25
  if (variant == 0) {
    double r = fmod(fabs((double)t) * P, P);
    k25 = (unsigned long long)floor(r);
    if (!is_cos && t < 0) s = 1;
    if (!is_cos && t == 0 && signbit(t)) s = 1;
  } else {
    double r = fmod((double)t * P, P);
    if (r < 0) r += P;
    k25 = (unsigned long long)floor(r);
    if (k25 >= (1ull << 25)) k25 -= (1ull << 25);
  }
  if (is_cos) k25 = (k25 + (1ull << 23)) & ((1ull << 25) - 1);
  s ^= (unsigned)(k25 >> 24);
  unsigned k = (unsigned)(k25 & ((1u << 24) - 1));
  unsigned v = y ^ (s << 31);
  unsigned old = atomicCAS(&T[k], 0xFFFFFFFFu, v);
  if (old != 0xFFFFFFFFu && old != v) {
    unsigned e = (__float_as_uint(t) >> 23) & 0xFF;
    unsigned long long c = atomicAdd(&conf[e], 1ull);
    if (c == 0) { example[3 * e] = xb; example[3 * e + 1] = y; example[3 * e + 2] = old; }
  }
}
'''

def ident(op):
    return op.replace(".", "_")


def main(out):
    import cupy as cp
    os.makedirs(out, exist_ok=True)
    src = "".join(SRC % {"k": ident(op), "ins": op, "c": C_TURN} for op in OPS)
    mod = cp.RawModule(code=src, options=("-std=c++17",))
    summary = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "ops": {}}
    chunk = 1 << 28
    t0 = time.time()
    tables = {}
    for op in OPS:
        f = mod.get_function("table_" + ident(op))
        for vi, variant in enumerate(VARIANTS):
            T = cp.full(1 << 24, 0xFFFFFFFF, cp.uint32)
            conf = cp.zeros(256, cp.uint64)
            ex = cp.zeros(3 * 256, cp.uint32)
            for c in range((1 << 32) // chunk):
                f(((chunk + 255) // 256,), (256,), (np.uint32(c * chunk), np.uint32(chunk), T, np.int32(vi),
                                                   np.int32("cos" in op), conf, ex))
            cp.cuda.runtime.deviceSynchronize()
            confh, exh = cp.asnumpy(conf), cp.asnumpy(ex)
            filled = int((T != 0xFFFFFFFF).sum())
            bad = {int(e): [int(confh[e]), hex(int(exh[3 * e])), hex(int(exh[3 * e + 1])), hex(int(exh[3 * e + 2]))]
                   for e in np.flatnonzero(confh)}
            summary["ops"][f"{op}/{variant}"] = {"filled": filled, "conflicts": int(confh.sum()), "by_binade": bad}
            print(op, variant, "filled", filled, "conflicts", int(confh.sum()), f"{time.time() - t0:.0f}s", flush=True)
            tables[(op, variant)] = T
    # sin vs cos tables (same keys a quarter turn apart?)
    for variant in VARIANTS:
        a, b = tables[("sin.approx.ftz.f32", variant)], tables[("cos.approx.ftz.f32", variant)]
        both = (a != 0xFFFFFFFF) & (b != 0xFFFFFFFF)
        summary[f"sin_vs_cos/{variant}"] = {"both": int(both.sum()), "differ": int((both & (a != b)).sum())}
    # save the conflict-free tables, as differences from f32(sin(2 pi k / 2^25))
    k = cp.arange(1 << 24, dtype=cp.float64)
    base = cp.sin(2 * cp.pi * k / (1 << 25)).astype(cp.float32).view(cp.uint32).astype(cp.int64)
    for (op, variant), T in tables.items():
        s = summary["ops"][f"{op}/{variant}"]
        if s["conflicts"] or "ftz" not in op:
            continue
        hw = T.astype(cp.int64)
        mag = hw & 0x7FFFFFFF
        o = cp.where((hw >> 31) & 1, -mag, mag)
        d = o - base
        esc = (cp.abs(d) > 127) | (T == 0xFFFFFFFF)
        ei = cp.nonzero(esc)[0]
        np.savez_compressed(os.path.join(out, f"table_{ident(op)}_{variant}.npz"),
                            d8=cp.asnumpy(cp.where(esc, -128, d).astype(cp.int8)),
                            esc_idx=cp.asnumpy(ei).astype(np.uint32), esc_hw=cp.asnumpy(T[ei]))
        s["escapes"] = int(ei.size)
    json.dump(summary, open(os.path.join(out, "sincos_summary.json"), "w"), indent=1)
    print(json.dumps(summary, indent=1)[:6000])
    print(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main(sys.argv[1])
