#!/usr/bin/env python3
"""Read the colliding-atomics probe (tools/device/probe_atomic_order.py) and say, per experiment,
whether the GPU's results are a serialisation of single, individually rounded updates, and in
which order the lanes went.

    python3 tools/device/analyze_atomic_order.py tests/goldens/atomics/atomic_order.npz

For a word updated by lanes with values b and returned old values o, the updates form a chain
init -> add(init, b[l0]) -> ... : the lane whose old value is the current word value goes next.
`chain()` rebuilds it (with a little backtracking where two lanes saw the same value) and
checks every step against ptxvm's round-to-nearest add of that type (f32 on global memory with
its subnormal flush). Red experiments have no old values; their final words are compared with
the result of lane order.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import probe_atomic_order as P  # noqa: E402


def adder(t: str, space: str):
    """fn(old_bits, b_bits) -> new bits, as one atomic add of type t rounds it."""
    from ptxvm.engine import atomics

    comb = atomics.element_combiner("add", t, global_memory=(space == "global"))
    view = {"f32": np.float32, "f64": np.float64}.get(t)
    if t == "u32":
        return lambda o, b: (np.uint32(o) + np.uint32(b)).astype(np.uint32)
    if view is not None:
        bits = np.uint32 if t == "f32" else np.uint64
        return lambda o, b: np.asarray(comb.fn(np.array([o], bits).view(view), np.array([b], bits).view(view))).view(bits)[0]
    dt = np.uint16 if t in ("f16", "bf16") else np.uint32
    return lambda o, b: np.asarray(comb.fn(np.array([o], dt), np.array([b], dt)))[0]


def chain(init, olds, vals, add, final=None, budget=200000):
    """The lane order of one word's updates, or None if the old values are no serialisation of
    single rounded adds. At a word value v every lane that saw v goes while the word holds v:
    first those whose add leaves v unchanged (in lane order: they commute), then one that
    changes it; the choice of that one is searched depth first (the value may come back to v)."""
    by_old: dict = {}
    for i, o in enumerate(olds):
        by_old.setdefault(int(o), []).append(i)
    used = np.zeros(len(olds), bool)
    steps = [0]

    def go(cur, order):
        steps[0] += 1
        if steps[0] > budget:
            return None
        if len(order) == len(olds):
            return order if final is None or cur == int(final) else None
        cands = [i for i in by_old.get(cur, []) if not used[i]]
        if not cands:
            return None
        same = [i for i in cands if int(add(olds[i], vals[i])) == cur]
        moving = [i for i in cands if i not in same]
        for i in same:
            used[i] = True
        if not moving:
            got = go(cur, order + same)
            if got is None:
                for i in same:
                    used[i] = False
            return got
        for m in moving:
            used[m] = True
            got = go(int(add(olds[m], vals[m])), order + same + [m])
            if got is not None:
                return got
            used[m] = False
        for i in same:
            used[i] = False
        return None

    sys.setrecursionlimit(max(10000, 4 * len(olds) + 100))
    return go(int(init), [])


def describe(order, block):
    """How the order relates to lanes: ascending within warps, warps contiguous."""
    o = np.asarray(order)
    warp = o // 32
    same = warp[1:] == warp[:-1]
    asc = (o[1:] > o[:-1])[same]
    switches = int((~same).sum())
    return {"ascending_within_warp": float(asc.mean()) if asc.size else 1.0,
            "warp_switches": switches, "warps": int(np.unique(warp).size),
            "lane_order": bool((np.diff(o) > 0).all())}


def analyze(npz_path: str) -> list:
    z = np.load(npz_path)
    rows = []
    for name, t, space, returns, grid, block, nslot, kind, repeats in P.experiments():
        if f"{name}.vals" not in z.files:
            continue
        vals = z[f"{name}.vals"]
        add = adder(t, space)
        for r in range(repeats):
            mem = z[f"{name}.mem{r}"]
            row = {"experiment": name, "repeat": r, "type": t, "space": space}
            if returns:
                olds = z[f"{name}.old{r}"]
                ok, desc = True, []
                words = [(w, np.flatnonzero(np.arange(vals.size) % nslot == w)) for w in range(nslot)] \
                    if space == "global" else \
                    [(c * nslot + w, np.flatnonzero((np.arange(vals.size) // block == c) & (np.arange(vals.size) % block % nslot == w)))
                     for c in range(grid) for w in range(nslot)]
                for word, lanes in words:
                    order = chain(0, olds[lanes], vals[lanes], add, mem[word])
                    if order is None:
                        ok = False
                        break
                    desc.append(describe(lanes[np.asarray(order)], block))
                row["serialisable"] = ok
                if ok:
                    row["lane_order"] = all(d["lane_order"] for d in desc)
                    row["ascending_within_warp"] = round(float(np.mean([d["ascending_within_warp"] for d in desc])), 3)
                    row["warp_switches"] = int(np.sum([d["warp_switches"] for d in desc]))
            else:
                cur = {}
                for i in range(vals.size):
                    w = i % nslot if space == "global" else (i // block) * nslot + (i % block) % nslot
                    cur[w] = int(add(cur.get(w, 0), vals[i]))
                row["final_equals_lane_order"] = all(int(mem[w]) == v for w, v in cur.items())
            rows.append(row)
    return rows


def main(argv=None) -> int:
    argv = argv if argv is not None else sys.argv[1:]
    for row in analyze(argv[0] if argv else os.path.join(ROOT, "tests", "goldens", "atomics", "atomic_order.npz")):
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
