"""Bandwidth as a first-come-first-served server (deterministic service, one queue).

Request i arriving at now_i with b_i bytes finishes at f_i = max(f_{i-1}, now_i) + b_i / B,
B in bytes per cycle. The recurrence is a max-plus scan, computed for a whole batch at once:
with C_i = sum_{j<=i} b_j / B,  f_i = C_i + max(f_prev, max_{j<=i}(now_j - C_{j-1})).
"""
from __future__ import annotations

import numpy as np


class BandwidthQueue:
    def __init__(self, bytes_per_cycle: float):
        if bytes_per_cycle <= 0:
            raise ValueError(f"bandwidth must be positive, got {bytes_per_cycle} bytes/cycle")
        self.bytes_per_cycle = float(bytes_per_cycle)
        self.free_at = -np.inf  # when the server finishes its last accepted request
        self.busy_cycles = 0.0

    def serve(self, nbytes, now=None) -> np.ndarray:
        """Cycles from each request's arrival until its last byte is served (its own transfer
        included). now=None: the batch arrives together and queues only behind itself; the
        server's state is left as it was (no clock to relate calls to each other)."""
        b = np.asarray(nbytes, dtype=np.float64)
        service = b / self.bytes_per_cycle
        self.busy_cycles += float(service.sum())
        if now is None:
            return np.cumsum(service)
        t = np.broadcast_to(np.asarray(now, dtype=np.float64), b.shape)
        c = np.cumsum(service)
        finish = c + np.maximum(self.free_at, np.maximum.accumulate(t - (c - service)))
        if len(finish):
            self.free_at = float(finish[-1])
        return finish - t
