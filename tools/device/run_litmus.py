#!/usr/bin/env python3
"""Run the memory-model litmus tests of tests/memory_model/litmus.py on a GPU and record the
outcome histograms (and the proxy-fence kernels' results).

    python3 tools/device/run_litmus.py --out litmus_h200.json [--groups 64] [--launches 40]

Every test runs `launches` times with `groups` groups of instances (grid layout: roles * groups
CTAs of 256 threads, every CTA resident at once on an H200, so spinning CTAs see their writers);
the histogram counts each outcome over all instances of all launches, and says which outcomes the
model forbids. Needs CuPy and NumPy.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "memory_model"))

import litmus as L  # noqa: E402


def run_test(cp, t, groups: int, launches: int) -> dict:
    mod = cp.cuda.function.Module()
    mod.load(L.kernel_ptx(t).encode())
    fn = mod.get_function("litmus")
    grid, block, n = L.launch_shape(t, groups)
    words = n * L.LINE // 4
    x, y, z = (cp.zeros(words, cp.uint32) for _ in range(3))
    out = cp.zeros(n * 4, cp.uint32)
    total: dict = {}
    for _ in range(launches):
        for a in (x, y, z, out):
            a.fill(0)
        fn((grid, 1, 1), (block, 1, 1), (x, y, z, out, np.uint32(n)))
        cp.cuda.runtime.deviceSynchronize()
        for k, c in L.histogram(cp.asnumpy(out), n, t.slots).items():
            total[k] = total.get(k, 0) + c
    hist = {",".join(map(str, k)): c for k, c in sorted(total.items())}
    bad = {",".join(map(str, k)): c for k, c in total.items() if not t.allowed(k)}
    return {"test": t.name, "layout": t.layout, "instances": n * launches, "grid": grid, "block": block,
            "forbidden": t.forbidden, "histogram": hist, "forbidden_seen": bad, "note": t.note}


def run_proxy(cp, ctas: int = 64, launches: int = 20) -> list:
    mod = cp.cuda.function.Module()
    mod.load(L.PROXY.encode())
    rows = []
    want = L.proxy_store_expect(ctas)
    st = mod.get_function("proxy_bulk_store")
    for fence in (1, 0):
        wrong = 0
        for _ in range(launches):
            out = cp.zeros(ctas * 256, cp.uint32)
            st((ctas, 1, 1), (256, 1, 1), (out, np.uint32(fence)))
            cp.cuda.runtime.deviceSynchronize()
            wrong += int((cp.asnumpy(out) != want).sum())
        rows.append({"test": f"proxy_bulk_store.fence={fence}", "words": ctas * 256 * launches, "stale_words": wrong})
    ld = mod.get_function("proxy_bulk_load")
    src = cp.asarray(np.arange(ctas * 256, dtype=np.uint32) * 3 + 1)
    wrong = 0
    for _ in range(launches):
        out = cp.zeros(ctas * 256, cp.uint32)
        ld((ctas, 1, 1), (256, 1, 1), (src, out))
        cp.cuda.runtime.deviceSynchronize()
        wrong += int((out != src).sum())
    rows.append({"test": "proxy_bulk_load", "words": ctas * 256 * launches, "stale_words": wrong})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="litmus.json")
    ap.add_argument("--groups", type=int, default=32)
    ap.add_argument("--launches", type=int, default=40)
    ap.add_argument("--test", action="append", default=[])
    a = ap.parse_args(argv)
    import cupy as cp
    props = cp.cuda.runtime.getDeviceProperties(0)
    result = {"device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "groups": a.groups, "launches": a.launches, "tests": [], "proxy": []}
    for t in L.tests():
        if a.test and t.name not in a.test:
            continue
        try:
            r = run_test(cp, t, a.groups, a.launches)
        except Exception as e:  # noqa: BLE001
            r = {"test": t.name, "error": f"{type(e).__name__}: {e}"}
        print(json.dumps(r), flush=True)
        result["tests"].append(r)
        with open(a.out, "w") as f:  # after every test: a hang later keeps what was measured
            json.dump(result, f, indent=1)
    try:
        result["proxy"] = run_proxy(cp)
    except Exception as e:  # noqa: BLE001
        result["proxy"] = [{"error": f"{type(e).__name__}: {e}"}]
    print(json.dumps(result["proxy"]), flush=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
