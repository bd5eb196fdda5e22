"""ptxvm.timing.memory: vectorized models of the H100/H200 memory hierarchy (issue 10).

Pure functions and small stateful caches over NumPy arrays, fed with per-warp addresses from the
engine's trace; see docs/timing-memory.md for what is modelled and where the numbers come from.
"""
from .banks import bank_conflicts, distinct_addresses, lanes_per_phase, same_address_multiplicity
from .coalesce import Coalesced, coalesce, from_sectors
from .ops import CacheOp, EvictPriority, Policy, Space, parse_qualifiers

__all__ = [
    "CacheOp", "Coalesced", "EvictPriority", "Policy", "Space", "bank_conflicts", "coalesce",
    "distinct_addresses", "from_sectors", "lanes_per_phase", "parse_qualifiers",
    "same_address_multiplicity",
]
