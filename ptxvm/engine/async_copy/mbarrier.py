"""The mbarrier object (ISA 9.7.13.15): a 64-bit word in shared memory, as a pure state machine.

The ISA defines the object's contents but not their bit layout (it is opaque to PTX). ptxvm keeps
every part of the state in the 8 bytes, so a copy of the word is a copy of the barrier:

    bits  0..19  pending arrival count   (0 .. 2^20-1) arrivals still missing in the current phase
    bits 20..39  expected arrival count  (1 .. 2^20-1) what the pending count resets to
    bits 40..60  tx-count, 21-bit two's complement (-(2^20-1) .. 2^20-1)
    bits 61..63  current phase, modulo 8 (its parity is bit 61)

`mbarrier.arrive` returns the whole word as it was before the arrive-on operation: its phase
bits say which phase the token belongs to (test_wait/try_wait compare their parity with the object's),
and its pending count is what `mbarrier.pending_count` reads back.

A phase completes when the pending arrival count and the tx-count are both zero; the object then
moves to the next phase, the pending count reloads from the expected count and the tx-count is
zero (ISA "Phase completion of the mbarrier object"). Every operation below checks completion, so
a complete-tx that an asynchronous copy performed before the matching expect-tx (the copy ran at
issue in ptxvm, which is one legal timing) still completes the phase at the expect-tx.

Operations the ISA leaves undefined and that a sanitizer should report (a count out of range, an
arrival that would make the pending count negative, a tx-count out of its range, a
.noComplete arrival that would complete the phase) raise `MbarrierError`.
"""
from __future__ import annotations

import numpy as np

COUNT_BITS = 20
COUNT_MAX = (1 << COUNT_BITS) - 1
TX_BITS = 21
TX_MAX = (1 << 20) - 1
PHASE_SHIFT = 61
PHASES = 8

_U = np.uint64
_MASK20 = _U(COUNT_MAX)
_MASK21 = _U((1 << TX_BITS) - 1)


class MbarrierError(Exception):
    """An mbarrier operation whose result the ISA leaves undefined; `position` indexes the lane."""

    def __init__(self, reason: str, position: int = 0):
        super().__init__(reason)
        self.reason = reason
        self.position = position


def _range_check(values, lo, hi, what):
    if values is None:
        return
    bad = (values < lo) | (values > hi)
    if bad.any():
        i = int(np.argmax(bad))
        raise MbarrierError(f"{what} {int(values[i])} is outside {lo}..{hi}", i)


# ---------------------------------------------------------------------------- encoding


def pack(phase, pending, expected, tx) -> np.ndarray:
    """Encode (arrays or ints) into mbarrier words."""
    phase = np.asarray(phase, dtype=np.int64) % PHASES
    tx = np.asarray(tx, dtype=np.int64)
    return ((np.asarray(pending, dtype=np.int64).astype(_U) & _MASK20)
            | ((np.asarray(expected, dtype=np.int64).astype(_U) & _MASK20) << _U(20))
            | ((tx.astype(_U) & _MASK21) << _U(40))
            | (phase.astype(_U) << _U(PHASE_SHIFT)))


def unpack(words):
    """(phase, pending, expected, tx) as int64 arrays."""
    w = np.asarray(words, dtype=_U)
    pending = (w & _MASK20).astype(np.int64)
    expected = ((w >> _U(20)) & _MASK20).astype(np.int64)
    raw_tx = ((w >> _U(40)) & _MASK21).astype(np.int64)
    tx = np.where(raw_tx >= (1 << (TX_BITS - 1)), raw_tx - (1 << TX_BITS), raw_tx)
    phase = (w >> _U(PHASE_SHIFT)).astype(np.int64)
    return phase, pending, expected, tx


def phase_of(words) -> np.ndarray:
    return (np.asarray(words, dtype=_U) >> _U(PHASE_SHIFT)).astype(np.int64)


def pending_count(states) -> np.ndarray:
    """mbarrier.pending_count: the pending arrival count captured in a state token."""
    return (np.asarray(states, dtype=_U) & _MASK20).astype(np.uint32)


# ---------------------------------------------------------------------------- tests


def phase_done(words, states) -> np.ndarray:
    """test_wait/try_wait with a state token: the token's phase has completed. Only the phase
    parity counts, as on the H200: a token two phases old reads as the current phase, not yet
    complete (conformance mbarrier.arrive_drop.release.cluster.shared::cluster.b64#peer_cta)."""
    return (phase_of(words) & 1) != (phase_of(states) & 1)


def parity_done(words, parity) -> np.ndarray:
    """test_wait/try_wait.parity: the phase of parity `parity` (the current or the immediately
    preceding one) has completed, i.e. the current phase has the other parity."""
    return (phase_of(words) & 1) != (np.asarray(parity).astype(np.int64) & 1)


# ---------------------------------------------------------------------------- updates (in place)


def init(view: np.ndarray, idx: np.ndarray, count: np.ndarray) -> None:
    """mbarrier.init: phase 0, pending = expected = count, tx-count 0."""
    count = np.broadcast_to(np.asarray(count, dtype=np.int64), np.shape(idx))
    _range_check(count, 1, COUNT_MAX, "mbarrier.init count")
    view[idx] = pack(0, count, count, 0)  # lanes on one object: the highest lane's count wins


def inval(view: np.ndarray, idx: np.ndarray) -> None:
    """mbarrier.inval: the memory may be reused; later mbarrier operations on it are undefined."""
    view[idx] = _U(0)


def _complete(phase, pending, expected, tx):
    """Apply phase completion where it is due (scalars)."""
    if pending == 0 and tx == 0:
        return phase + 1, expected, expected, 0
    return phase, pending, expected, tx


def _check_tx(tx, i):
    if not -TX_MAX <= tx <= TX_MAX:
        raise MbarrierError(f"mbarrier tx-count {tx} is outside its range ±{TX_MAX}", i)


def update(view: np.ndarray, idx: np.ndarray, *, arrive=None, drop: bool = False, expect_tx=None,
           complete_tx=None, no_complete: bool = False) -> np.ndarray:
    """One instruction's operation for every lane, lanes applied in order (lanes colliding on one
    object are serialised in lane order, one of the orders the hardware may pick).

    Per lane, in the ISA's order: expect-tx (tx-count += expect_tx), complete-tx (tx-count -=
    complete_tx), arrive-drop (expected count -= arrive), arrive-on (pending count -= arrive).
    Returns each lane's word before its operation (the state token of mbarrier.arrive).
    """
    n = idx.size
    states = np.empty(n, dtype=_U)
    if n == 0:
        return states
    arrive = None if arrive is None else np.broadcast_to(np.asarray(arrive, dtype=np.int64), (n,))
    expect_tx = None if expect_tx is None else np.broadcast_to(np.asarray(expect_tx, dtype=np.int64), (n,))
    complete_tx = None if complete_tx is None else np.broadcast_to(np.asarray(complete_tx, dtype=np.int64), (n,))
    _range_check(arrive, 1, COUNT_MAX, "mbarrier arrival count")
    _range_check(expect_tx, 0, TX_MAX, "mbarrier txCount")
    _range_check(complete_tx, 0, TX_MAX, "mbarrier txCount")
    idx = np.asarray(idx, dtype=np.intp)
    if n > 1 and arrive is not None and not drop and expect_tx is None and complete_tx is None:
        fast = _arrive_fast(view, idx, arrive, no_complete)
        if fast is not None:
            return fast
    if n > 1 and arrive is None and expect_tx is None and complete_tx is not None:
        fast = _complete_tx_fast(view, idx, complete_tx)
        if fast is not None:
            return fast
    for i in range(n):  # general case: one lane at a time, in lane order
        k = int(idx[i])
        w = view[k]
        states[i] = w
        phase, pending, expected, tx = (int(x) for x in unpack(w))
        if expect_tx is not None:
            tx += int(expect_tx[i])
            _check_tx(tx, i)
        if complete_tx is not None:
            tx -= int(complete_tx[i])
            _check_tx(tx, i)
        if arrive is not None:
            c = int(arrive[i])
            if drop:
                if c > expected:
                    raise MbarrierError(f"mbarrier.arrive_drop count {c} exceeds the expected arrival count {expected}", i)
                expected -= c
            if c > pending:
                raise MbarrierError(f"mbarrier arrival count {c} exceeds the pending arrival count {pending}", i)
            pending -= c
            if no_complete and pending == 0 and tx == 0:
                raise MbarrierError("mbarrier .noComplete arrival would complete the current phase", i)
        phase, pending, expected, tx = _complete(phase, pending, expected, tx)
        view[k] = pack(phase, pending, expected, tx)[()]
    return states


def _complete_tx_fast(view, idx, complete_tx):
    """complete-tx of many lanes (bulk copies issued by every thread) for every object at once,
    where each object's tx-count, lowered lane by lane, neither completes its phase before the
    group's last lane nor leaves its range (the general path's result). None when it would."""
    order = np.argsort(idx, kind="stable")
    sidx, sc = idx[order], complete_tx[order]
    start = np.ones(sidx.size, dtype=bool)
    start[1:] = sidx[1:] != sidx[:-1]
    heads = np.flatnonzero(start)
    seg = np.cumsum(start) - 1
    uniq = sidx[heads]
    phase, pending, expected, tx = unpack(view[uniq])
    csum = np.cumsum(sc)
    done_before = csum - (csum[heads] - sc[heads])[seg]  # each lane's running total within its object
    after = tx[seg] - done_before  # the object's tx-count after each lane
    if (after < -TX_MAX).any() or (after > TX_MAX).any():
        return None
    last = np.ones(sidx.size, dtype=bool)
    last[:-1] = start[1:]
    if ((pending[seg] == 0) & (after == 0) & ~last).any():  # a phase would complete mid-group
        return None
    states = np.empty(idx.size, dtype=_U)
    states[order] = pack(phase[seg], pending[seg], expected[seg], after + sc)
    tx = tx - np.add.reduceat(sc, heads)
    done = (pending == 0) & (tx == 0)
    view[uniq] = pack(np.where(done, phase + 1, phase), np.where(done, expected, pending), expected,
                      np.where(done, 0, tx))
    return states


def _arrive_fast(view, idx, arrive, no_complete):
    """Plain arrivals where no object completes a phase before its last arrival of the group (the
    common case: whole CTAs arrive together), for every object at once. None when the general
    path is needed."""
    order = np.argsort(idx, kind="stable")
    sidx, sa = idx[order], arrive[order]
    start = np.ones(sidx.size, dtype=bool)
    start[1:] = sidx[1:] != sidx[:-1]
    heads = np.flatnonzero(start)
    seg = np.cumsum(start) - 1
    uniq = sidx[heads]
    phase, pending, expected, tx = unpack(view[uniq])
    csum = np.cumsum(sa)
    total = np.add.reduceat(sa, heads)
    if (total > pending).any():
        return None
    before = csum - sa - (csum[heads] - sa[heads])[seg]
    states = np.empty(idx.size, dtype=_U)
    states[order] = pack(phase[seg], pending[seg] - before, expected[seg], tx[seg])
    pending = pending - total
    done = (pending == 0) & (tx == 0)
    if no_complete and done.any():
        raise MbarrierError("mbarrier .noComplete arrival would complete the current phase",
                            int(order[heads[np.argmax(done)]]))
    view[uniq] = pack(np.where(done, phase + 1, phase), np.where(done, expected, pending), expected, tx)
    return states
