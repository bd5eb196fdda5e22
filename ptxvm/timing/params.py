"""Parameters of the timing model that are not properties of a GPU description (GpuSpec).

GpuSpec (gpu.py) holds what a GPU *is*: SM count, clocks, cache sizes, bandwidths, per-class
pipe latency and issue interval, memory latencies. `ModelParams` holds how the model turns a
trace into cycles where the hardware is not documented: queue depths, fixed overheads, the
efficiency at which bandwidth is reached. They are global knobs (never per kernel), calibrated
against the timing kernel suite (docs/timing-model.md says how).
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ModelParams:
    # front end
    fetch_redirect: int = 4  # cycles before a warp issues after a taken branch (instruction fetch)
    divergence_cycles: int = 0  # extra cycles when a branch splits a warp's lanes (BSSY/BSYNC bookkeeping)
    sreg_latency: int = 30  # S2R: reading %tid, %ctaid, ... into a register
    # ptxas schedules instructions; PTX order is not SASS order. While a warp's next instruction
    # waits, one of the next `issue_window` instructions of its basic block may issue if it is
    # independent of those it passes (0: strict PTX order).
    issue_window: int = 8
    mov_latency: int = 1  # mov of a register or an immediate (usually folded into its consumer)
    alu_interval: float = 1.5  # issue interval of simple integer instructions (add, logic, shifts, setp)
    # operand collector: registers live in `reg_banks` banks; extra reads of one bank cost a cycle
    reg_banks: int = 2
    # memory pipeline
    l1_wavefront_cycles: float = 1.0  # L1/shared data stage: cycles per wavefront (SM-wide)
    l1_line_cycles: float = 0.25  # the same stage per 128-B line of a global/local access
    lsu_queue_cycles: int = 16  # L1 backlog (cycles) beyond which memory instructions throttle
    dram_efficiency: float = 1.0  # achievable fraction of dram_bytes_per_s
    dram_write_cost: float = 1.5  # DRAM time of a written sector in read sectors (bus turnaround, ECC)
    dram_loaded_latency: float = 0.0  # extra DRAM latency at full utilization (queues in the memory system)
    l2_efficiency: float = 1.0  # achievable fraction of l2_bytes_per_clk
    atomic_line_cycles: float = 17.0  # L2 cycles per warp atomic request on one 128-B line (SMs share it)
    shared_atomic_cycles: float = 2.0  # L1/shared data-stage cycles per wavefront of a shared atomic
    const_first_pass: float = 1.0  # constant-cache port cycles of a warp's ld.const (LDC), one address
    const_pass_cycles: float = 22.0  # ... and per further distinct address of the warp (a replay)
    partial_store_factor: float = 6.0  # L2 cost of a partially written sector, in full-sector writes
    # CTA scheduling
    cta_launch: int = 250  # cycles from a CTA slot freeing to the next CTA's first issue
    kernel_launch: int = 4000  # cycles from launch to the first CTA plus after the last one (as timed)
    barrier_extra: int = 0  # cycles added to GpuSpec.latency["barrier"] per bar.sync release

    def with_(self, **changes) -> "ModelParams":
        return replace(self, **changes)


DEFAULT = ModelParams()
