#!/usr/bin/env python3
"""Distributed shared memory and cluster-barrier microbenchmarks (benchmarks/timing/micro2/cluster.cu)
on the GPU.

    python3 tools/device/timing_cluster.py --out RESULTS.json [--cubin cluster.cubin]

Needs CuPy. Every kernel is compiled with __cluster_dims__(CL) for CL = 2 / 4 / 8 / 16 (16 is a
non-portable size: the function attribute that allows it is set first). Each CTA takes ~120 KB of
dynamic shared memory, so one CTA per SM and a cluster's CTAs on distinct SMs (each CTA records
its %smid; `distinct_sms` says whether they were). Timings are clock64 cycles inside the kernel;
each figure is the difference of two run lengths (fixed costs cancel), median of 3 launches.
Items (each in its own try block, the JSON rewritten after each):
  chase:  one thread's dependent chain through shared memory: ld.shared::cta (target -1), the own
          CTA through the cluster window (target 0), another CTA (rank 1, rank CL-1); kind 0 ld,
          kind 1 atom.add of 0. Cycles per step.
  stream: 32 warps per CTA, 4 independent coalesced accesses per thread per iteration, 4 B or
          16 B per lane: own CTA (.shared::cta; mode 0), own through the cluster window (1), the
          next rank (2), every CTA onto rank 0 (3); ld / st / red.add. One cluster, or as many as
          fill the GPU. Bytes per clock per SM (the slowest CTA), and per target SM for mode 3.
  bar:    barrier.cluster.arrive + wait, arrive.relaxed + wait, bar.sync, one cluster of 1 / 8 /
          32 warps per CTA. Cycles per round.
"""
from __future__ import annotations

import argparse
import re
import statistics
import sys

from results_file import ResultsFile, device_info  # tools/device/, beside this file


ATTR_MAX_DYN_SHARED = 8  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
ATTR_NON_PORTABLE_CLUSTER = 14  # CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
CLUSTERS = (2, 4, 8, 16)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--cubin", default="cluster.cubin")
    ap.add_argument("--dyn", type=int, default=120 * 1024)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    mod = cp.RawModule(path=args.cubin)
    p = cp.cuda.runtime.getDeviceProperties(0)
    sms = p["multiProcessorCount"]
    results = ResultsFile(args.out, device_info(p), dyn_shared=args.dyn)
    out = cp.zeros(3 * 4096, dtype=cp.int64)
    funcs: dict = {}

    def set_attribute(f, attr, value):
        ptr = f.kernel.ptr if hasattr(f, "kernel") else f.ptr  # RawModule.get_function gives a RawKernel
        try:
            cp.cuda.driver.funcSetAttribute(ptr, attr, value)
        except AttributeError:  # not exported by this CuPy: the driver API through cuda-bindings
            from cuda.bindings import driver as drv

            err, = drv.cuFuncSetAttribute(drv.CUfunction(int(ptr)), drv.CUfunction_attribute(attr), value)
            if int(err) != 0:
                raise RuntimeError(f"cuFuncSetAttribute({attr}) failed: {err}")

    def func(name: str):
        f = funcs.get(name)
        if f is None:
            f = mod.get_function(name)
            if hasattr(f, "max_dynamic_shared_size_bytes"):
                f.max_dynamic_shared_size_bytes = args.dyn
            else:
                set_attribute(f, ATTR_MAX_DYN_SHARED, args.dyn)
            if name.endswith("16"):
                set_attribute(f, ATTR_NON_PORTABLE_CLUSTER, 1)
            funcs[name] = f
        return f

    def launch(name, grid, block, kargs):
        """Per CTA (cycles, smid) of one launch."""
        out.fill(0)
        func(name)((grid,), (block,), tuple(kargs) + (out,), shared_mem=args.dyn)
        cp.cuda.runtime.deviceSynchronize()
        h = out[: 3 * grid].get().reshape(grid, 3)
        return h[:, 0].astype(np.float64), h[:, 1]

    def per_unit(name, grid, block, mk, n1, n2, pick):
        """(figure per unit of n, distinct SMs per cluster) from run lengths n1 < n2, median of 3."""
        vals, distinct = [], True
        for _ in range(3):
            c1, _s = launch(name, grid, block, mk(n1))
            c2, s = launch(name, grid, block, mk(n2))
            vals.append((pick(c2) - pick(c1)) / (n2 - n1))
        cl = int(re.search(r"(\d+)$", name).group(1))
        for k in range(0, grid, cl):
            distinct &= len(set(s[k:k + cl].tolist())) == cl
        return statistics.median(vals), bool(distinct)

    item = results.item

    def guarded(rows, row, fn):
        try:
            row.update(fn())
        except Exception as e:  # one configuration that cannot launch (a cluster too large) stays recorded
            row["error"] = str(e)[-300:]
        rows.append(row)

    def m_chase():
        r = []
        for cl in CLUSTERS:
            for kind, targets in ((0, (-1, 0, 1, cl - 1)), (1, (0, 1))):
                for tgt in targets:
                    if tgt == cl - 1 and cl == 2:
                        continue

                    def run(cl=cl, kind=kind, tgt=tgt):
                        v, d = per_unit(f"chase{cl}", cl, 32,
                                        lambda n: (np.int32(tgt), np.int32(kind), np.int32(n)), 1024, 3072,
                                        lambda c: c[0])
                        return {"cycles_per_step": v, "distinct_sms": d}
                    guarded(r, {"cluster": cl, "kind": ("ld", "atom")[kind], "target": tgt}, run)
        return r

    def m_stream():
        r = []
        for cl in CLUSTERS:
            for vec in (1, 4):
                for op in ((0, 1, 2) if vec == 1 else (0, 1)):
                    for mode in (0, 1, 2, 3):
                        for full in (False, True):
                            grid = (sms // cl) * cl if full else cl
                            block = 1024

                            def run(cl=cl, vec=vec, op=op, mode=mode, grid=grid):
                                v, d = per_unit(f"stream{vec}_{cl}", grid, block,
                                                lambda n: (np.int32(mode), np.int32(op), np.int32(n)), 64, 192,
                                                lambda c: c.max())
                                per_iter_bytes = block * 4 * vec * 4
                                return {"cycles_per_iter": v, "bytes_per_clk_per_sm": per_iter_bytes / v,
                                        "distinct_sms": d}
                            guarded(r, {"cluster": cl, "vec": vec, "op": ("ld", "st", "red")[op], "mode": mode,
                                        "grid": grid, "block": block}, run)
        return r

    def m_bar():
        r = []
        for cl in CLUSTERS:
            for block in (32, 256, 1024):
                for kind in (0, 1, 2):
                    def run(cl=cl, block=block, kind=kind):
                        v, d = per_unit(f"bar{cl}", cl, block, lambda n: (np.int32(kind), np.int32(n)), 256, 768,
                                        lambda c: float(np.median(c)))
                        return {"cycles_per_round": v, "distinct_sms": d}
                    guarded(r, {"cluster": cl, "block": block,
                                "kind": ("arrive+wait", "arrive.relaxed+wait", "bar.sync")[kind]}, run)
        return r

    item("chase", m_chase)
    item("bar", m_bar)
    item("stream", m_stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
