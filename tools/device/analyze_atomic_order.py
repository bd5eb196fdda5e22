#!/usr/bin/env python3
"""Read the colliding-atomics probe (tools/device/probe_atomic_order.py) and say, per experiment,
whether the GPU's results are a serialisation of single, individually rounded updates, and in
which order the lanes went.

    python3 tools/device/analyze_atomic_order.py tests/goldens/atomics/atomic_order.npz

(tests/goldens/atomics/atomic_order.npz keeps the first repeat of every experiment of the H200
recording; the other repeats gave the same picture.)

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
    """fn(old_bits, b_bits) -> new bits over arrays, as single atomic adds of type t round them."""
    from ptxvm.engine.memory import atomics

    comb = atomics.element_combiner("add", t, global_memory=(space == "global"))
    if t == "u32":
        return lambda o, b: (np.asarray(o, np.uint32) + np.asarray(b, np.uint32)).astype(np.uint32)
    view = {"f32": (np.uint32, np.float32), "f64": (np.uint64, np.float64)}.get(t)
    if view is not None:
        bits, fl = view
        return lambda o, b: np.asarray(comb.fn(np.asarray(o, bits).view(fl), np.asarray(b, bits).view(fl))).view(bits)
    dt = np.uint16 if t in ("f16", "bf16") else np.uint32
    return lambda o, b: np.asarray(comb.fn(np.asarray(o, dt), np.asarray(b, dt))).astype(dt)


def chain(init, olds, vals, add, final=None):
    """Whether the returned old values are a serialisation of single rounded adds, and the order
    when it is the only one (else an empty list); None if they are none.

    Each lane is an edge old -> add(old, b) between word values; a serialisation is a walk from
    the initial value that uses every edge once (an Eulerian trail), ending at the final value:
    it exists exactly when every value but the two ends has as many edges in as out, the start
    one more out, the end one more in, and the edges hang together."""
    olds = np.asarray(olds)
    new = np.asarray(add(olds, np.asarray(vals))).astype(olds.dtype)
    if final is None:  # the end of the walk: the value with one more edge in than out
        ins = dict(zip(*np.unique(new, return_counts=True)))
        outs = dict(zip(*np.unique(olds, return_counts=True)))
        ends = [v for v in set(ins) | set(outs) if ins.get(v, 0) - outs.get(v, 0) + (v == init) == 1]
        final = ends[0] if ends else init
    deg: dict = {}
    for v, c in zip(*np.unique(olds, return_counts=True)):
        deg[int(v)] = deg.get(int(v), 0) + int(c)
    for v, c in zip(*np.unique(new, return_counts=True)):
        deg[int(v)] = deg.get(int(v), 0) - int(c)
    deg[int(init)] = deg.get(int(init), 0) - 1
    deg[int(final)] = deg.get(int(final), 0) + 1
    if any(deg.values()):
        return None
    parent = {}

    def root(x):
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o, n in zip(olds.tolist(), new.tolist()):
        parent[root(o)] = root(n)
    if len({root(v) for v in olds.tolist()} | {root(int(init))}) != 1:
        return None
    if np.unique(olds).size != olds.size:
        return []
    nxt = {int(o): i for i, o in enumerate(olds.tolist())}
    order, cur = [], int(init)
    while cur in nxt and len(order) < olds.size:
        order.append(nxt.pop(cur))
        cur = int(new[order[-1]])
    return order


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
            if f"{name}.mem{r}" not in z.files:  # the repository keeps the first repeat only
                continue
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
                    if order:
                        desc.append(describe(lanes[np.asarray(order)], block))
                row["serialisable"] = ok
                if ok and desc:
                    row["lane_order"] = all(d["lane_order"] for d in desc)
                    row["ascending_within_warp"] = round(float(np.mean([d["ascending_within_warp"] for d in desc])), 3)
                    row["warp_switches"] = int(np.sum([d["warp_switches"] for d in desc]))
            else:
                cur = {}
                for i in range(vals.size):
                    w = i % nslot if space == "global" else (i // block) * nslot + (i % block) % nslot
                    cur[w] = int(add(np.array([cur.get(w, 0)]), vals[i:i + 1])[0])
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
