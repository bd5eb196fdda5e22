"""Global atomics (atom/red .global) as the H200 performs them, for the timing model.

Pinned by benchmarks/timing/micro2/atomics.cu (results/micro2_atomics_h200.json; docs/timing-model.md
section 3, "Global atomics"):

* **ptxas's warp aggregation.** An integer add (and, for red, min/max/and/or/xor) whose address
  ptxas can prove warp-uniform becomes one request of the warp's leader (VOTEU.ANY + POPC/REDUX +
  REDG; atom adds a scan and a SHFL for the lanes' values). `aggregated_pcs` finds them with a
  small uniformity analysis of the PTX (kernel parameters, %ctaid/%ntid/..., loads from uniform
  addresses and arithmetic on them). An address that is the same for every lane only at run time
  is not aggregated: each lane is its own operation.
* **Packets.** The hardware does not combine lanes on one address: a warp's request is split per
  32-B sector into passes, one per lane on the sector's most-used address (`packets`). 32 lanes
  on one address are 32 packets; 32 lanes on 32 words of one line are 4 (one per sector).
* **The SM**: a sub-partition's LSU pipe issues one global atomic per `atomic_issue_cycles`; the
  L1 stage sends a request's packets, `atomic_request_cycles` + `atomic_packet_cycles` per packet.
* **The L2** performs them in its slices' atomic units: a line belongs to one of
  `l2_atomic_slices` slices (`slice_of`), a unit takes `atomic_pass_cycles` per packet; every SM's
  packets on that slice queue there. Floating-point updates of one word follow each other at
  `atomic_float_pass_cycles` (the adder's latency): packets of a float op whose sector holds a
  single address also hold their line that long (with every SM's packets on the line).
* **Round trip** of an atom whose value is used: `atomic_round_trip` cycles plus the queues.
"""
from __future__ import annotations


import numpy as np

from .uniformity import address_registers, per_program, warp_uniformity

_RED_AGGREGATED = {"add", "min", "max", "and", "or", "xor"}


def uniform_atomic_pcs(program, accept) -> frozenset:
    """PCs of the atomics at a warp-uniform address (timing/uniformity.py) that `accept(space,
    opcode, op, type)` takes; `opcode` is "red" for an atom whose value no instruction of its
    function reads (ptxas's rewrite: HeCBench atomicPerf's `atomicAdd(p, 1ull)` at one address
    is VOTEU/POPC and one REDG.E.ADD.64 per warp)."""
    code = program.code
    u = warp_uniformity(program)
    read: dict = {}  # function -> every register some instruction of it reads
    for info in u.infos:
        read.setdefault(u.func[info.pc], set()).update(info.reads)
    out = []
    for info in u.infos:
        mem = info.mem
        if mem is None or not mem.atomic or not mem.atomic_op:
            continue
        op, _, ty = mem.atomic_op.partition(".")
        opcode = "red" if info.opcode == "atom" and not read[u.func[info.pc]] & set(info.writes) else info.opcode
        if accept(mem.space, opcode, op, ty) and u.uniform(info.pc, address_registers(code[info.pc])):
            out.append(info.pc)
    return frozenset(out)


def _global_aggregated(space: str, opcode: str, op: str, ty: str) -> bool:
    if space not in ("global", "generic") or ty[:1] not in ("u", "s", "b"):
        return False
    if opcode == "atom":
        return op == "add" and ty[1:] == "32"
    return op in _RED_AGGREGATED and (ty[1:] == "32" or op == "add")


@per_program
def aggregated_pcs(program) -> frozenset:
    """PCs of the global atomics ptxas turns into one request per warp (`program`: a lowered
    Program). The address must be uniform (timing/uniformity.py); the value (REDUX, a scan) and the guard (VOTEU over
    the lanes that take part) need not be: ptxas 13 aggregates `@p red.global.add.u32 [param], v`
    with p and v per lane."""
    return uniform_atomic_pcs(program, _global_aggregated)


def is_float(mem) -> bool:
    ty = mem.atomic_op.partition(".")[2]
    return ty[:1] == "f" or ty.startswith("bf")


def packets(addr: np.ndarray, active: np.ndarray, aggregated: bool = False) -> list:
    """Per warp (rows of `addr`, (warps, 32) byte addresses, `active` the lanes that take part):
    ((128-B line, packets, single-word packets), ...). A sector's packets are the most lanes on
    one of its addresses; single-word packets are those of sectors whose lanes all update one
    address (back-to-back updates of one word: the float adder's latency, `atomic_float_pass_cycles`).
    `aggregated`: one lane per warp (ptxas's warp aggregation)."""
    out = []
    for a_row, m_row in zip(addr, active):
        a = a_row[m_row]
        if a.size == 0:
            out.append(())
            continue
        if aggregated:
            out.append(((int(a[0]) >> 7, 1, 1),))
            continue
        words, counts = np.unique(a, return_counts=True)
        sectors, inv = np.unique(words >> np.uint64(5), return_inverse=True)
        per_sector = np.zeros(sectors.size, np.int64)
        np.maximum.at(per_sector, inv, counts)
        single = np.where(np.bincount(inv, minlength=sectors.size) == 1, per_sector, 0)
        lines, linv = np.unique(sectors >> np.uint64(2), return_inverse=True)
        n = np.bincount(linv, weights=per_sector).astype(np.int64).tolist()
        one = np.bincount(linv, weights=single).astype(np.int64).tolist()
        out.append(tuple(zip(lines.tolist(), n, one)))
    return out


def grid_packets(warp: np.ndarray, addr: np.ndarray) -> dict:
    """Packets per 128-B line of the lanes (warp id, byte address) of one step of every CTA, as
    `packets` counts them per warp."""
    if addr.size == 0:
        return {}
    addr = addr.astype(np.uint64)
    lo = int(addr.min()) & ~127
    off = addr - np.uint64(lo)
    warp = warp.astype(np.uint64)
    if int(off.max()) >= 1 << 38 or int(warp.max()) >= 1 << 25:  # too wide to pack into one key
        keys = np.stack([warp, addr])
        pairs, counts = np.unique(keys, axis=1, return_counts=True)
        sec = np.stack([pairs[0], pairs[1] >> np.uint64(5)])
        sectors, inv = np.unique(sec, axis=1, return_inverse=True)
        per_sector = np.zeros(sectors.shape[1], np.int64)
        np.maximum.at(per_sector, inv.reshape(-1), counts)
        lines = sectors[1] >> np.uint64(2)
    else:  # (warp, word) packed into one uint64: 1-D uniques are much faster
        words, counts = np.unique((warp << np.uint64(38)) | off, return_counts=True)
        sectors, inv = np.unique(words >> np.uint64(5), return_inverse=True)
        per_sector = np.zeros(sectors.size, np.int64)
        np.maximum.at(per_sector, inv, counts)
        lines = ((sectors & np.uint64((1 << 33) - 1)) + np.uint64(lo >> 5)) >> np.uint64(2)
    lines, linv = np.unique(lines, return_inverse=True)
    return dict(zip(lines.tolist(), np.bincount(linv.reshape(-1), weights=per_sector).astype(np.int64).tolist()))


def slice_of(line, slices: int):
    """The L2 slice whose atomic unit owns a 128-B line (an int or a NumPy array of them). The
    real hash is not documented; this one has the structure micro2 atomics `gpu` shows: the two
    256-B halves of a 1-KB block go to the two slices of a pair (2 neighbouring lines: one slice's
    rate, 4 and 8 lines: two slices', 16: four), and consecutive 1-KB blocks go round the pairs,
    higher address bits folded in so that power-of-two strides still spread."""
    pairs = max(1, slices // 2)
    if isinstance(line, np.ndarray):
        g = line.astype(np.uint64) >> np.uint64(3)
        h = g ^ (g >> np.uint64(5)) ^ (g >> np.uint64(10)) ^ (g >> np.uint64(15)) ^ (g >> np.uint64(20))
        x = line.astype(np.uint64)
        half = ((x >> np.uint64(1)) ^ (x >> np.uint64(3)) ^ (x >> np.uint64(6)) ^ (x >> np.uint64(11))) & np.uint64(1)
        return ((h % np.uint64(pairs)) * np.uint64(2) + half).astype(np.int64) % slices
    g = line >> 3
    h = g ^ (g >> 5) ^ (g >> 10) ^ (g >> 15) ^ (g >> 20)
    return ((h % pairs) * 2 + (((line >> 1) ^ (line >> 3) ^ (line >> 6) ^ (line >> 11)) & 1)) % slices


def line_contention(own: dict, grid: dict, line: int) -> float:
    """Packets every SM sends to `line` per packet of this SM (at least 1)."""
    n = own.get(line, 0)
    return max(1.0, grid.get(line, 0) / n) if n else 1.0


def slice_contention(own: dict, grid: dict, slices: int) -> dict:
    """Per slice: the packets every SM sends there per packet of this SM (at least 1)."""
    if not own:
        return {}

    def per_slice(d):
        lines = np.fromiter(d.keys(), np.uint64, len(d))
        return np.bincount(slice_of(lines, slices), weights=np.fromiter(d.values(), np.float64, len(d)),
                           minlength=slices)

    o = per_slice(own)
    g = per_slice(grid) if grid else o
    return {s: max(1.0, g[s] / o[s]) for s in np.flatnonzero(o).tolist()}
