"""Golden files: what a case needs to run (its PTX, inputs, launch shape) and what the GPU gave.

Per family, `tests/goldens/conformance/<family>.npz` (np.savez_compressed) holds

    ptx|<case id>            the PTX text that ran (uint8)
    in|<input key>|<i>       source operand i of an input set, shared by the cases naming it
    mem0|<signature>         initial contents of memory arrays (type:length:init, shared)
    out|<case id>|<name>     each destination, as the GPU left it
    mem|<case id>|<name>     each memory array, as the GPU left it (absent when unchanged: the
                             meta's mem_unchanged lists those)
    res0|<signature>|<k>     level k of a texture's or surface's initial contents (resources.py)
    res|<case id>|<name>     a surface as the GPU left it (absent when unchanged: res_unchanged)

and `<family>.meta.json` the device, toolchain and date, and per case its PTX hash, input key,
lane count, launch shape and status. Goldens are written by tools/device/record.py only.

NumPy only: the recorder imports this on the GPU machine.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from . import inputs as I
from . import resources as R
from . import types as T
from . import values as V
from .case import Case, Operand, effective_version

FORMAT = 1
SENTINEL = 0xA5  # every output byte before the launch: unwritten outputs show


def ptx_sha(ptx: str) -> str:
    return hashlib.sha256(ptx.encode()).hexdigest()


def grid_for(lanes: int, block: int) -> int:
    return max(1, -(-lanes // block))


def memory_sig(m) -> str:
    """Memory arrays with the same signature start with the same contents (stored once)."""
    return f"{m.type}:{m.length}:{m.init}"


def memory_init(case: Case) -> dict[str, np.ndarray]:
    out = {}
    for m in case.memory:
        rng = V.rng_for("memory", memory_sig(m))
        dt = T.storage_dtype(m.type)
        if m.init == "zero":
            a = np.zeros(m.length, dt)
        elif m.init == "iota":
            a = np.arange(m.length).astype(dt)
        elif m.init == "small":
            a = V.small_ints(m.type, m.length, rng)
        else:
            a = V.random(m.type, m.length, rng)
        out[m.name] = a
    return out


@dataclass
class Launch:
    """Everything one run of a case needs, as host arrays (the order of the kernel's params)."""

    case_id: str
    ptx: str
    kernel: str
    lanes: int
    block: int
    srcs: list            # [(name, array)]
    dsts: list            # [(name, array filled with SENTINEL)]
    mems: list            # [(name, array)]
    tmaps: list = field(default_factory=list)  # [TensorMapArg.spec()]: maps over memory arrays
    res: list = field(default_factory=list)    # [(resources.Resource, [initial level arrays])]

    @property
    def grid(self) -> int:
        return grid_for(self.lanes, self.block)

    def args(self, handles=()) -> list:
        """The kernel's arguments; a tensor map stands as its spec (a dict): the runner encodes it
        over its memory array's device copy (see tensor_map_slots). `handles`: one per resource (the
runner makes the texture and surface objects)."""
        return ([a for _, a in self.srcs] + [a for _, a in self.dsts] + [a for _, a in self.mems]
                + [dict(t) for t in self.tmaps] + list(handles) + [np.uint32(self.lanes)])

    def tensor_map_slots(self) -> list:
        """(argument index of the map, argument index of its memory array, spec) per tensor map."""
        base = len(self.srcs) + len(self.dsts)
        names = [n for n, _ in self.mems]
        first = base + len(self.mems)
        return [(first + i, base + names.index(t["memory"]), t) for i, t in enumerate(self.tmaps)]

    def truncated(self, lanes: int) -> "Launch":
        """The same launch over only the first `lanes` lanes."""
        if lanes >= self.lanes:
            return self

        def cut(arrs, per_lane_counts):
            return [(n, a[: lanes * k].copy()) for (n, a), k in zip(arrs, per_lane_counts)]

        sk = [a.size // self.lanes for _, a in self.srcs]
        dk = [a.size // self.lanes for _, a in self.dsts]
        return Launch(self.case_id, self.ptx, self.kernel, lanes, self.block,
                      cut(self.srcs, sk), cut(self.dsts, dk), [(n, a.copy()) for n, a in self.mems], self.tmaps,
                      res=[(r, [a.copy() for a in lv]) for r, lv in self.res])


def launch_for_case(case: Case) -> Launch:
    """Build the launch from the case definition (the recorder's view)."""
    cols = I.make(case.inputs)
    srcs_ops = case.source_operands()
    if len(cols) != len(srcs_ops):
        raise ValueError(f"{case.id}: input set {case.inputs} has {len(cols)} arrays, "
                         f"the case {len(srcs_ops)} sources")
    lanes = I.lanes(case.inputs)
    srcs = []
    for o, c in zip(srcs_ops, cols):
        if c.dtype != o.array_dtype("in") or c.size != lanes * o.count:
            raise ValueError(f"{case.id}: operand {o.name} wants {o.count}x{o.array_dtype('in')}, "
                             f"input set gives {c.size}x{c.dtype}")
        srcs.append((o.name, c))
    dsts = []
    for o in case.dest_operands():
        dt = o.array_dtype("out", case.byte_regs)
        a = np.full(lanes * o.count * dt.itemsize, SENTINEL, np.uint8).view(dt)
        dsts.append((o.name, a))
    mems = list(memory_init(case).items())
    return Launch(case.id, case.ptx(), case.kernel_name(), lanes, case.block, srcs, dsts, mems,
                  [t.spec() for t in case.tmaps], res=[(r, R.initial(r)) for r in case.resources])


def case_meta(case: Case) -> dict:
    return {
        "instruction": case.instruction,
        "opcode": case.opcode,
        "modifiers": list(case.modifiers),
        "version": effective_version(case.version),
        "target": case.target,
        "inputs": case.inputs,
        "lanes": I.lanes(case.inputs),
        "block": case.block,
        "truncatable": case.truncatable,
        "lanes_multiple": case.lanes_multiple,
        "ci": case.ci,
        "undefined": case.undefined,
        "expect_reject": case.expect_reject,
        "expect_fault": case.expect_fault,
        "srcs": [[o.name, o.type, o.count] for o in case.source_operands()],
        "dsts": [[o.name, o.type, o.count] for o in case.dest_operands()],
        "memory": [[m.name, m.type, m.length, m.init, memory_sig(m)] for m in case.memory],
        **({"tmaps": [t.spec() for t in case.tmaps]} if case.tmaps else {}),
        **({"resources": [r.to_meta() for r in case.resources]} if case.resources else {}),
        "kernel": case.kernel_name(),
    }


# ------------------------------------------------------------------------------ reading back

@dataclass
class GoldenCase:
    id: str
    meta: dict
    launch: Optional[Launch]                     # None when the GPU did not run it
    expected: dict = field(default_factory=dict)  # "out:<name>" / "mem:<name>" -> array


class GoldenFamily:
    def __init__(self, family: str, directory: str):
        self.family = family
        self.dir = directory
        with open(os.path.join(directory, f"{family}.meta.json")) as f:
            self.meta = json.load(f)
        self._npz = np.load(os.path.join(directory, f"{family}.npz"))

    @property
    def case_ids(self) -> list[str]:
        return list(self.meta["cases"])

    def case(self, cid: str) -> GoldenCase:
        m = self.meta["cases"][cid]
        z = self._npz
        if m.get("status") not in ("recorded", "faulted"):
            return GoldenCase(cid, m, None)
        faulted = m["status"] == "faulted"   # the GPU stopped the launch: nothing to compare
        ptx = bytes(z[f"ptx|{cid}"]).decode()
        srcs = [(name, z[f"in|{m['inputs']}|{i}"]) for i, (name, _t, _k) in enumerate(m["srcs"])]
        dsts, expected = [], {}
        for name, t, k in m["dsts"]:
            if faulted:
                dt = Operand(name, t, k).array_dtype("out")
                dsts.append((name, np.full(m["lanes"] * k * dt.itemsize, SENTINEL, np.uint8).view(dt)))
                continue
            exp = z[f"out|{cid}|{name}"]
            expected["out:" + name] = exp
            dsts.append((name, np.full(exp.nbytes, SENTINEL, np.uint8).view(exp.dtype)))
        mems = []
        unchanged = set(m.get("mem_unchanged", ()))
        for name, _t, _l, _init, sig in m["memory"]:
            init = z[f"mem0|{sig}"]
            mems.append((name, init.copy()))
            if not faulted:
                expected["mem:" + name] = init if name in unchanged else z[f"mem|{cid}|{name}"]
        res = []
        res_unchanged = set(m.get("res_unchanged", ()))
        for rm in m.get("resources", ()):
            r = R.Resource.from_meta(rm)
            levels = [z[f"res0|{r.signature}|{k}"] for k in range(r.levels)]
            res.append((r, [a.copy() for a in levels]))
            if r.kind == "surface" and not faulted:
                key = f"res|{cid}|{r.name}"
                expected["res:" + r.name] = R.bits(levels[0] if r.name in res_unchanged else z[key])
        launch = Launch(cid, ptx, m["kernel"], m["lanes"], m["block"], srcs, dsts, mems, m.get("tmaps", []),
                        res=res)
        return GoldenCase(cid, m, launch, expected)


def families_present(directory: str) -> list[str]:
    if not os.path.isdir(directory):
        return []
    return sorted(f[: -len(".meta.json")] for f in os.listdir(directory)
                  if f.endswith(".meta.json") and os.path.exists(os.path.join(directory, f[: -len(".meta.json")] + ".npz")))


def default_dir() -> str:
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "tests", "goldens", "conformance"))
