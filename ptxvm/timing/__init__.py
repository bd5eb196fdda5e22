"""ptxvm.timing: performance model of the SIMT core and memory hierarchy (issue 10).

    prof = kernel.profile(grid, block, args, gpu="h200")      # or ptxvm.timing.profile(kernel, ...)
    prof.cycles, prof.seconds, prof.stalls, prof.report(), prof.roofline("k.svg")

The engine records an event trace of the CTAs one SM runs (engine/trace/events.py); the memory model
(timing/memory/) and the SM model (timing/sm.py) turn it into cycles. docs/timing-model.md has
the design, docs/timing-calibration.md where the numbers come from.
"""
from .gpu import GpuSpec, Pipe, load_gpu
from .occupancy import Occupancy, occupancy
from .params import ModelParams
from .profile import Profile, profile

__all__ = ["GpuSpec", "ModelParams", "Occupancy", "Pipe", "Profile", "load_gpu", "occupancy", "profile"]
