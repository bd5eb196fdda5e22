#!/usr/bin/env python3
"""Run the constant-memory microbenchmarks (benchmarks/timing/constmem/const.cu) on the GPU.

    python3 tools/device/timing_const.py --cubin const.cubin --out RESULTS.json

Needs CuPy. Items (each in its own try block, the JSON rewritten after each):
  uchase   one warp, a ULDC pointer chase through c_tab: footprints 256 B (4-B stride, one line)
           to 64 KiB (64-B lines in random order); pass 1 (first touch in the launch) and pass 2,
           cycles per hop, with the L2 flushed (256 MiB memset) before the launch or not.
  dchase   the same with LDC and k = 1..32 distinct addresses per request (lane_step 4: words of
           one line; 64: k lines), and k = 1 over the footprints of uchase.
  tput     132 CTAs (one per SM) of W warps, 8 independent loads per iteration: LDC with k
           distinct addresses, ULDC; cycles per warp (max over the CTA's warps, median over CTAs).
  tput_miss  the same LDC throughput with lanes 132 or 512 bytes apart (k lines over up to 16 KiB:
           the 2 KiB first level misses, the 64 KiB second level serves); dchase_miss: LDC chase
           latency with k lines 512 B apart.
  stream_warps  the stream with 2, 4, 8, 16 warps in one CTA per SM.
  folded   dependent FFMA chains on c_coef[] operands against register operands, 1 and 32 warps.
  stream   const_broadcast's loop (ULDC + FADD, c_tab[(i * stride) & mask]) with 1 / 16 / 32 warps
           per SM, cold and warm: pass 1 and pass 2 cycles per warp; and the launch's CUDA-event time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results_file import ResultsFile, device_info  # noqa: E402

MIB = 1 << 20
TAB_WORDS = 16376
SMS = 132


class Bench:
    def __init__(self, cp, np, cubin):
        self.cp, self.np = cp, np
        self.mod = cp.RawModule(path=cubin)
        self.flush_buf = cp.zeros(256 * MIB, dtype=cp.uint8)
        self.out = cp.zeros(2 * SMS * 64, dtype=cp.int64)
        self.sink = cp.zeros(SMS * 2 * 1024, dtype=cp.float32)
        self.tab = self.mod.get_global("c_tab")
        self.coef = self.mod.get_global("c_coef")

    def f(self, name):
        return self.mod.get_function(name)

    def flush(self):
        self.cp.cuda.runtime.memsetAsync(self.flush_buf.data.ptr, 0, self.flush_buf.nbytes,
                                         self.cp.cuda.get_current_stream().ptr)

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def set_tab(self, words):
        w = self.np.zeros(TAB_WORDS, dtype=self.np.uint32)
        w[: len(words)] = words
        self.tab.copy_from_host(w.ctypes.data, w.nbytes)
        self.sync()


def chain_table(np, rng, nodes, k=1, lane_step=0):
    """c_tab words: node i holds the byte offset of node i+1 (cyclic, in the given order); copy m
    (m < k) of every node sits m * lane_step bytes further and holds the same value."""
    w = np.zeros(TAB_WORDS, dtype=np.uint32)
    written = {}
    for i, n in enumerate(nodes):
        nxt = nodes[(i + 1) % len(nodes)]
        for m in range(k):
            at = (n + m * lane_step) // 4
            if written.get(at, nxt) != nxt:
                raise ValueError("copies overlap")
            written[at] = nxt
            w[at] = nxt
    return w


def random_lines(rng, np, footprint, stride):
    n = footprint // stride
    order = [0] + list(1 + rng.permutation(n - 1)) if n > 1 else [0]
    return [int(x) * stride for x in order]


def chase(b, rng, kernel, nodes, args_after, reps=3):
    np = b.np
    n = len(nodes)
    s1, s2 = n, n * max(1, -(-2048 // n))
    res = {}
    for label, flush in (("cold", True), ("warm", False)):
        p1, p2 = [], []
        for _ in range(reps):
            kernel((1,), (32,), (np.uint32(nodes[0]), np.int32(s1), np.int32(s2), *args_after, b.out))
            if flush:
                b.flush()
            kernel((1,), (32,), (np.uint32(nodes[0]), np.int32(s1), np.int32(s2), *args_after, b.out))
            b.sync()
            o = b.out[:3].get()
            p1.append(int(o[0]) / s1)
            p2.append(int(o[1]) / s2)
        res[label] = {"pass1_cycles_per_hop": statistics.median(p1), "pass2_cycles_per_hop": statistics.median(p2)}
    res.update(hops1=s1, hops2=s2)
    return res


FOOTPRINTS = [(256, 4), (1024, 64), (2048, 64), (4096, 64), (8192, 64), (16384, 64), (32768, 64), (65472, 64)]


def m_uchase(b, rng):
    np = b.np
    out = []
    for fp, stride in FOOTPRINTS:
        nodes = random_lines(rng, np, fp, stride) if stride == 64 else list(range(0, fp, stride))
        b.set_tab(chain_table(np, rng, nodes))
        pt = {"footprint": fp, "stride": stride, "nodes": len(nodes), **chase(b, rng, b.f("uchase"), nodes, ())}
        print(pt, flush=True)
        out.append(pt)
    return out


def m_dchase(b, rng):
    np = b.np
    out = []
    pts = [(k, 4) for k in (1, 2, 4, 8, 16, 32)] + [(k, 64) for k in (2, 4, 8, 16, 32)]
    for k, step in pts:
        if step == 4:  # nodes 128 B apart in 1 KiB, random order; copies on the node's next words
            nodes = random_lines(rng, np, 1024, 128)
        else:  # nodes: the 16 words of line 0, random order; copy m in line m
            nodes = [0] + [int(x) * 4 for x in 1 + rng.permutation(15)]
        b.set_tab(chain_table(np, rng, nodes, k, step))
        pt = {"k": k, "lane_step": step, "nodes": len(nodes),
              **chase(b, rng, b.f("dchase"), nodes, (np.int32(k), np.int32(step), np.int32(0)))}
        print(pt, flush=True)
        out.append(pt)
    for fp, stride in FOOTPRINTS:
        nodes = random_lines(rng, np, fp, stride) if stride == 64 else list(range(0, fp, stride))
        b.set_tab(chain_table(np, rng, nodes))
        pt = {"k": 1, "lane_step": 0, "footprint": fp, "stride": stride, "nodes": len(nodes),
              **chase(b, rng, b.f("dchase"), nodes, (np.int32(1), np.int32(0), np.int32(0)))}
        print(pt, flush=True)
        out.append(pt)
    return out


def per_cta(b, warps, ctas=SMS, stride=1, field=0):
    o = b.out[: ctas * warps * stride].get().reshape(ctas, warps, stride)[:, :, field]
    return float(statistics.median(o.max(axis=1))), float(statistics.median(o.min(axis=1)))


def m_tput(b, rng):
    np = b.np
    b.set_tab(np.arange(TAB_WORDS, dtype=np.uint32) % 97)
    iters, mask = 256, 511
    out = []
    pts = [("ldc", w, k, 4) for w in (1, 8, 32) for k in (1, 2, 4, 8, 16, 32)]
    pts += [("ldc", w, k, 64) for w in (8, 32) for k in (4, 32)]
    pts += [("uldc", w, 0, 0) for w in (1, 4, 8, 16, 32)]
    for kind, w, k, step in pts:
        cyc = []
        for _ in range(3):
            if kind == "ldc":
                b.f("ldc_tput")((SMS,), (32 * w,), (np.int32(iters), np.int32(mask), np.int32(k), np.int32(step),
                                                     np.int32(0), b.out, b.sink))
            else:
                b.f("uldc_tput")((SMS,), (32 * w,), (np.int32(iters), np.int32(mask), b.out, b.sink))
            b.sync()
            cyc.append(per_cta(b, w))
        mx = statistics.median(c[0] for c in cyc)
        pt = {"kind": kind, "warps": w, "k": k, "lane_step": step, "iters": iters, "loads_per_warp": 8 * iters,
              "cycles_max_warp": mx, "cycles_min_warp": statistics.median(c[1] for c in cyc),
              "sm_cycles_per_warp_load": mx / (8 * iters * w)}
        print(pt, flush=True)
        out.append(pt)
    return out


def m_tput_miss(b, rng):
    np = b.np
    b.set_tab(np.arange(TAB_WORDS, dtype=np.uint32) % 97)
    iters, mask = 256, 511
    out = []
    for step in (132, 512):
        for w in (1, 8, 32):
            for k in (1, 2, 4, 8, 32):
                cyc = []
                for _ in range(3):
                    b.f("ldc_tput")((SMS,), (32 * w,), (np.int32(iters), np.int32(mask), np.int32(k), np.int32(step),
                                                         np.int32(0), b.out, b.sink))
                    b.sync()
                    cyc.append(per_cta(b, w))
                mx = statistics.median(c[0] for c in cyc)
                pt = {"kind": "ldc", "warps": w, "k": k, "lane_step": step, "iters": iters, "loads_per_warp": 8 * iters,
                      "cycles_max_warp": mx, "cycles_min_warp": statistics.median(c[1] for c in cyc),
                      "sm_cycles_per_warp_load": mx / (8 * iters * w)}
                print(pt, flush=True)
                out.append(pt)
    return out


def m_dchase_miss(b, rng):
    np = b.np
    out = []
    for k in (2, 4, 8, 32):
        nodes = [0] + [int(x) * 4 for x in 1 + rng.permutation(15)]
        b.set_tab(chain_table(np, rng, nodes, k, 512))
        pt = {"k": k, "lane_step": 512, "nodes": len(nodes),
              **chase(b, rng, b.f("dchase"), nodes, (np.int32(k), np.int32(512), np.int32(0)))}
        print(pt, flush=True)
        out.append(pt)
    return out


def m_folded(b, rng):
    np = b.np
    coef = np.array([0.5, 0.25, 0.75, 0.125, 0.3, 0.6, 0.9, 0.1], dtype=np.float32)
    b.coef.copy_from_host(coef.ctypes.data, coef.nbytes)
    iters = 1024
    out = []
    for kind in ("folded", "unfolded"):
        for w in (1, 32):
            cyc = []
            for _ in range(3):
                args = (np.int32(iters), b.out, b.sink) if kind == "folded" else (np.int32(iters), np.float32(1.0), b.out, b.sink)
                b.f(kind)((SMS,), (32 * w,), args)
                b.sync()
                cyc.append(per_cta(b, w)[0])
            mx = statistics.median(cyc)
            pt = {"kind": kind, "warps": w, "ffma_per_warp": 4 * iters, "cycles_max_warp": mx,
                  "cycles_per_ffma_per_warp": mx / (4 * iters)}
            print(pt, flush=True)
            out.append(pt)
    return out


def m_stream(b, rng, configs=None, launches=((SMS, 32), (2 * SMS, 256), (SMS, 1024))):
    cp, np = b.cp, b.np
    b.set_tab((np.arange(TAB_WORDS) % 17 * 0.125).astype(np.float32).view(np.uint32))
    iters = 512
    out = []
    spin = b.f("spin")
    for stride, mask in configs or ((7, 4095), (16, 4095), (1, 4095), (7, 511), (16, 16383 - 15)):
        for ctas, threads in launches:
            warps_per_cta = threads // 32
            args = (np.int32(iters), np.int32(stride), np.int32(mask), b.out, b.sink)
            pt = {"stride_words": stride, "mask": mask, "iters": iters, "ctas": ctas, "threads": threads}
            for label, flush in (("cold", True), ("warm", False)):
                p1, p2, ev = [], [], []
                for _ in range(5):
                    b.f("ustream")((ctas,), (threads,), args)
                    if flush:
                        b.flush()
                    spin((1,), (1,), (np.int64(40000),))
                    e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                    e0.record()
                    b.f("ustream")((ctas,), (threads,), args)
                    e1.record()
                    e1.synchronize()
                    ev.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
                    o = b.out[: 2 * ctas * warps_per_cta].get().reshape(ctas, warps_per_cta, 2)
                    p1.append(float(np.median(o[:, :, 0].max(axis=1))))
                    p2.append(float(np.median(o[:, :, 1].max(axis=1))))
                pt[label] = {"pass1_cycles": statistics.median(p1), "pass2_cycles": statistics.median(p2),
                             "event_us": statistics.median(ev)}
            print(pt, flush=True)
            out.append(pt)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cubin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="uchase,dchase,tput,folded,stream")
    a = ap.parse_args(argv)
    import cupy as cp
    import numpy as np
    b = Bench(cp, np, a.cubin)
    rng = np.random.default_rng(0)
    rf = ResultsFile(a.out, device_info(cp.cuda.runtime.getDeviceProperties(0)), cupy=cp.__version__,
                     source="benchmarks/timing/constmem/const.cu")
    only = a.only.split(",")
    for name, fn in (("uchase", m_uchase), ("dchase", m_dchase), ("tput", m_tput), ("folded", m_folded),
                     ("stream", m_stream), ("tput_miss", m_tput_miss), ("dchase_miss", m_dchase_miss),
                     ("stream_warps", lambda b, rng: m_stream(b, rng, ((7, 4095), (16, 4095), (1, 4095)),
                                                              ((SMS, 64), (SMS, 128), (SMS, 256), (SMS, 512))))):
        rf.item(name, lambda fn=fn: fn(b, rng), only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
