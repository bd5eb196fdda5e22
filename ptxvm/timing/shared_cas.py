"""Shared-memory atomics that sm_90 performs as a compare-and-swap loop, for the timing model.

ptxas 13.0 for sm_90 (benchmarks/timing/cas/build.py's survey, `cuobjdump -sass`): 32-bit
integer atomics on shared memory (add, min, max, and, or, xor, inc, dec, exch, cas) are one
ATOMS each, as are exch.b64 and cas.b64. Every other one (64-bit add/min/max/and/or/xor, and
every floating-point add: f16, bf16, f16x2, bf16x2, f32, f64) is a loop: LDS the word, compute,
ATOMS.CAST.SPIN, branch back for the lanes whose compare failed. Lanes of a warp on one address
succeed one per trip round the loop.

Pinned by benchmarks/timing/cas (cas.ptx, results/cas_h200.json, 64 adds per thread, one CTA):
* a warp alone, lanes on different words: one trip, `shared_cas_round_cycles` (u64 / f64: 113
  cycles; f32 188 when no lane collides);
* a warp alone, 32 lanes on one word: 32 trips a round (112 cycles each; f32 95);
* 8 warps on one word (u64/f64 57, f32 51 cycles per update) or on the same 32 words, a word per
  lane (u64/f64 884 cycles per round of the 8 warps: 110 per update, 256 bytes a request; f32
  437: 128 bytes, though its words, 8 bytes apart, conflict two ways in the banks): each update
  holds the words of its request `shared_cas_pass_cycles` per 128 bytes of distinct words, and
  requests on other words go on.
* an integer add whose word ptxas can prove warp-uniform is one update of the warp's leader
  (VOTEU.ANY, UFLO, POPC, then the loop: HeCBench atomicPerf's SingleRangeAtomicOnSharedMem<u64>
  adds 1 per lane in 4.8 us where its double twin takes 28); floats are not aggregated.
"""
from __future__ import annotations

import numpy as np

from .atomics import uniform_atomic_pcs
from .uniformity import per_program

_NATIVE_64 = ("exch", "cas")
_INTEGER_32 = ("u32", "s32", "b32")


def is_cas_loop(atomic_op: str) -> bool:
    """Whether `atomic_op` ("add.f32", "max.u64", ...) on shared memory is ptxas's CAS loop."""
    parts = atomic_op.split(".")
    if len(parts) < 2:
        return False
    op, ty = parts[0], parts[-1]
    if ty in _INTEGER_32:
        return False
    if op in _NATIVE_64 and ty in ("b64", "u64", "s64"):
        return False
    return True


def _shared_aggregated(space: str, opcode: str, op: str, ty: str) -> bool:
    return space == "shared" and op == "add" and ty[:1] in ("u", "s") and is_cas_loop(f"{op}.{ty}")


@per_program
def aggregated_shared_pcs(program) -> frozenset:
    """PCs of the CAS-loop shared atomics that ptxas performs once per warp: integer adds at a
    warp-uniform address (`program`: a lowered Program; timing/uniformity.py)."""
    return uniform_atomic_pcs(program, _shared_aggregated)


def cas_updates(addr: np.ndarray, act: np.ndarray, size: int, aggregated: bool = False) -> list:
    """Per warp (a row of `addr` / `act`, (warps, 32)): (most lanes on one word, the 128-B
    passes its words take, ((word address, lanes on it), ...)), or None for a warp with no
    active lane. Passes count the distinct words' bytes: 32 lanes on one word are one pass, on
    32 words of 8 bytes two (of 4 bytes one, whatever the bank conflicts). `aggregated`: the
    warp's leader alone updates the word (aggregated_shared_pcs)."""
    out: list = []
    for a, live in zip(addr, act):
        if not live.any():
            out.append(None)
            continue
        words, counts = np.unique(a[live], return_counts=True)
        if aggregated:
            words, counts = words[:1], np.ones(1, np.int64)
        passes = float(-(-words.size * size // 128))
        out.append((int(counts.max()), passes, tuple(zip(words.tolist(), counts.tolist()))))
    return out
