"""What a DRAM access costs beyond its bytes, from the order an SM sends them.

Row opens. HBM serves a burst from an open row; a request to a row no recent request used must
open it first, which costs the channel time that moving data would have used. An SM's loads that
stream through memory read every row whole (one open per row), a random gather opens a row for
every granule. `RowTracker` follows the rows (`row_bytes` of address space) of the DRAM fetches
one SM sends, in order, and counts an open for each fetch whose row is not among the `window`
rows used last. Each open costs `open_bytes` of DRAM transfer time (micro3 gather: random 32-B and
64-B granules from a 256 MiB table arrive at 42-43 G granules/s where streaming moves 4.33 TB/s,
i.e. about 64 + 40 bytes of channel time per granule; random 128-B granules 25 G/s: 128 + 45).

The slowest of n. A warp's load finishes with the last of its lines. One line from DRAM takes
the measured DRAM latency; the latencies of several lines spread (banks, rows, channel queues),
so the slowest of n lines of one request arrives later the more lines there are: about
`tail_cycles` per doubling of n (micro3 chase: a warp whose 32 lanes follow chains through
n = 1, 2, 4, 8, 16, 32 distinct lines per hop takes 679, 754, 832, 919, 1011, 1097 cycles per
hop with the L2 flushed; 294..348 when the lines are in L2).
"""
from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np


class RowTracker:
    """The DRAM rows one SM used last (an LRU of `window` rows)."""

    def __init__(self, row_bytes: int = 2048, window: int = 16):
        if row_bytes <= 0 or row_bytes & (row_bytes - 1):
            raise ValueError(f"row_bytes must be a power of two, got {row_bytes}")
        self.shift = np.uint64(row_bytes.bit_length() - 1)
        self.window = int(window)
        self.recent: OrderedDict = OrderedDict()
        self.opens = 0

    def request(self, addresses) -> int:
        """Rows opened by one request's DRAM fetches (byte addresses, in order)."""
        if len(addresses) == 0:
            return 0
        rows = np.unique(np.asarray(addresses, np.uint64) >> self.shift).tolist()
        recent, n = self.recent, 0
        for r in rows:
            if r in recent:
                recent.move_to_end(r)
            else:
                n += 1
                recent[r] = None
                if len(recent) > self.window:
                    recent.popitem(last=False)
        self.opens += n
        return n


def slowest_of(n_lines: int, tail_cycles: float) -> float:
    """Extra cycles until the slowest of `n_lines` DRAM lines of one request arrives."""
    return tail_cycles * math.log2(n_lines) if n_lines > 1 else 0.0
