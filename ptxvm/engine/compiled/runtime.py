"""Fused blocks at run time: tiering, the on-disk cache of machine code, and running a group.

Tiering is a break-even rule: a `FusedBlock` estimates the seconds the interpreter has spent on
it (per scheduler step and per thread-instruction, each instruction weighted by what the
interpreter spends on it: emit.interpreter_cost) and compiles once that reaches what
compiling is expected to cost: about `WARM_COST` when its machine code is already in the disk
cache, else `COLD_BASE + COLD_PER_OP * length` (what Numba takes on an idle machine for this
kind of code: ~0.3 s for a few instructions, ~1.2 s for two dozen). Like renting skis until
their price is paid, this never spends more than about twice the better choice's time: a small
test kernel stays interpreted unless its code is cached, a large or loop-heavy launch
compiles, and the disk cache makes the next process's load cheap. `PTXVM_JIT_THRESHOLD=N`
replaces the rule by a fixed count of thread-instructions (0: compile every block on its first
run).

Compiling writes the block's source to the cache folder under a name that hashes the source,
the helpers, ptxvm's, Numba's and Python's versions, imports it and asks Numba for the one
signature it runs with; Numba's own cache (`cache=True`, next to the file) then keeps the
machine code, so a second process loads it instead of compiling. The seconds this takes are
added to `ctx.extra["jit_seconds"]` (LaunchStats.jit_seconds). A block that fails to compile is
never tried again and keeps running in the interpreter (`FusedBlock.error` says why;
`PTXVM_DEBUG_JIT=1` raises instead, as it does for an emitter that fails).

The cache folder is `PTXVM_CACHE_DIR` if set, else `$XDG_CACHE_HOME/ptxvm` or `~/.cache/ptxvm`,
with `jit/` below it; where none can be written, blocks compile in memory only.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np

from .emit import Step
from .source import block_source

STEP_COST = 3e-6  # interpreter seconds per instruction per scheduler step (dispatch, operand gathers)
LANE_COST = 1.5e-9  # ... and per thread-instruction (NumPy passes over the lanes)
WARM_COST = 0.02  # seconds to load a cached block
COLD_BASE, COLD_PER_OP = 0.2, 0.05  # seconds to compile one (see above)
_compiled: dict[str, object] = {}  # cache key -> Numba dispatcher, for this process
_no_lanes = np.zeros(0, dtype=np.int64)


def threshold() -> Optional[int]:
    """The fixed thread-instruction threshold PTXVM_JIT_THRESHOLD sets, or None (break-even)."""
    try:
        return max(0, int(os.environ["PTXVM_JIT_THRESHOLD"]))
    except (KeyError, ValueError):
        return None


def cache_dir() -> Path:
    base = os.environ.get("PTXVM_CACHE_DIR")
    if not base:
        base = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "ptxvm")
    return Path(base) / "jit"


def _key(source: str) -> str:
    import numba

    from ... import __version__
    helpers = Path(__file__).with_name("helpers.py").read_bytes()
    h = hashlib.sha256()
    for part in (source.encode(), helpers, __version__.encode(), numba.__version__.encode(), sys.version.encode()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:32]


def _module_file(key: str, source: str) -> Optional[Path]:
    """The block's source file in the cache folder (written once; never rewritten, so Numba's
    cache, which checks the file's time stamp, stays valid), or None when it cannot be written."""
    folder = cache_dir()
    path = folder / f"block_{key}.py"
    if path.exists():
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        if path.exists():  # another process won the race: keep its file (and time stamp)
            os.unlink(tmp)
        else:
            os.replace(tmp, path)
        return path
    except OSError:
        return None


def _load(key: str, source: str):
    name = f"ptxvm_jit_block_{key}"
    path = _module_file(key, source)
    if path is not None:
        try:
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            sys.modules[name] = module
            return module.block
        except Exception:  # noqa: BLE001 - e.g. Numba finds no writable cache there: compile in memory
            sys.modules.pop(name, None)
    namespace: dict = {"__name__": name}
    exec(compile(source.replace("cache=True", "cache=False"), f"<{name}>", "exec"), namespace)
    return namespace["block"]


def _signature(dtypes, specials: list[str] = ()):
    from numba import types

    def array(dt):
        return types.Array(types.boolean if dt == np.bool_ else getattr(types, dt.name), 1, "C")

    extra = []
    for key in specials:
        extra += [types.Array(types.uint8 if key == "params" else types.uint32, 1, "C"), types.int64]
    return (types.int64, types.Array(types.int64, 1, "C"), types.boolean, types.Array(types.int64, 1, "C"),
            *[array(dt) for dt in dtypes], *extra)


def sreg_arguments(ctx, keys: list[str]) -> list:
    """(uint32 array, step) per special register, as engine/core/sregs.reader reads it: the
    value of "%tid.x" (else "%tid", else 0), per thread slot (step 1) or one for all (step 0).
    Made once per wave: the launcher sets the registers before a wave and clears ctx.extra."""
    cache = ctx.extra.get("jit_sregs")
    if cache is None:
        cache = ctx.extra["jit_sregs"] = {}
    out = []
    for key in keys:
        got = cache.get(key)
        if got is None and key == "params":  # the kernel parameter buffer (read-only) and its size
            got = cache[key] = (ctx.kparams.buf, int(ctx.kparams.size))
        if got is None and key.startswith("table:"):  # a measured MUFU table (numerics.mufu)
            from ...numerics import mufu

            got = cache[key] = (mufu.table(key.split(":", 1)[1]), 0)
        if got is None:
            v = ctx.sreg.get(key)
            if v is None:
                v = ctx.sreg.get(key.split(".")[0], 0)
            v = np.asarray(v)
            if v.ndim == 0:
                got = (np.asarray(v).astype(np.uint32).reshape(1), 0)
            else:
                got = (np.ascontiguousarray(v.astype(np.uint32, copy=False)), 1)
            cache[key] = got
        out += got
    return out


class FusedBlock:
    """`len(ops)` consecutive ordinary instructions from `pc`, runnable as one compiled call."""

    def __init__(self, pc: int, ops: list, steps: list[Step], dtypes):
        self.pc = pc
        self.ops = ops
        self.length = len(ops)
        self.steps = steps
        self.source, self.slots, self.specials = block_source(steps, [op.text for op in ops], dtypes)
        self.dtypes = [np.dtype(dtypes[s]) for s in self.slots]
        self.weight = sum(step.cost for step in steps)  # in simple instructions (emit.interpreter_cost)
        self.executed = 0  # thread-instructions run in the interpreter so far
        self.spent = 0.0  # estimated interpreter seconds so far
        self.cost: Optional[float] = None  # expected seconds to compile (or load) it
        self.key: Optional[str] = None
        self.function = None
        self.error: Optional[str] = None  # why it could not be compiled

    def run(self, ctx, lanes: Optional[np.ndarray], work: int) -> bool:
        """Run the block for `lanes` (None: every slot) if it is compiled or now gets hot;
        False: the caller interprets it (nothing was done)."""
        if self.function is None:
            if self.error is not None:
                return False
            self.executed += work
            self.spent += (STEP_COST + LANE_COST * (work / self.length)) * self.weight
            if not self._hot() or not self._compile(ctx.extra):
                return False
        n = ctx.n if lanes is None else lanes.size
        bail = ctx.extra.get("jit_bail")
        if bail is None or bail.size < ctx.n:
            bail = ctx.extra["jit_bail"] = np.empty(ctx.n, dtype=np.int64)
        regs = ctx.regs
        specials = sreg_arguments(ctx, self.specials) if self.specials else ()
        nb = self.function(n, _no_lanes if lanes is None else lanes, lanes is not None, bail,
                           *[regs[s] for s in self.slots], *specials)
        if nb:
            left = bail[:nb].copy()
            if lanes is None and ctx.n_live != ctx.n and "params" in self.specials:
                left = np.intersect1d(left, ctx.lanes_or_live(None))  # an ld.param faults for live threads only
            self._interpret(ctx, left)
        return True

    def _hot(self) -> bool:
        fixed = threshold()
        if fixed is not None:
            return self.executed >= fixed
        if self.spent < WARM_COST:
            return False
        if self.cost is None:
            self.cost = WARM_COST if self._cached() else COLD_BASE + COLD_PER_OP * self.length
        return self.spent >= self.cost

    def _cached(self) -> bool:
        """Whether this process or the disk cache already has the block's machine code."""
        try:
            self.key = self.key or _key(self.source)
        except Exception:  # noqa: BLE001 - no numba: _compile will say so
            return False
        if self.key in _compiled:
            return True
        folder = cache_dir()
        return (folder / f"block_{self.key}.py").exists() and any((folder / "__pycache__").glob(f"block_{self.key}.*.nbi"))

    def _interpret(self, ctx, lanes: np.ndarray) -> None:
        """The block, one instruction at a time, for the lanes the compiled code left."""
        from ..core.machine import Fault
        from ..core.memory import AccessFault

        for j, op in enumerate(self.ops):
            active = lanes
            if op.guard is not None:
                slot, negated = op.guard
                p = ctx.regs[slot][lanes]
                active = lanes[~p] if negated else lanes[p]
            if not active.size:
                continue
            try:  # a fault (an ld.param past the buffer) names this instruction, as the interpreter's would
                op.run(ctx, active)
            except AccessFault as e:
                raise Fault(e.reason, int(active[min(e.position, active.size - 1)]), e.address, self.pc + j) from None
            except Fault as f:
                if f.pc is None:
                    f.pc = self.pc + j
                if f.lane is None:
                    f.lane = int(active[0])
                raise

    def compile_now(self) -> bool:
        """Compile (or load from the disk cache) the block outside a run, whatever its counters say:
        a parent process does this for the blocks its forked workers compiled (parallel/warmth.py),
        so that later workers inherit the machine code instead of each loading it again."""
        return self.function is not None or (self.error is None and self._compile({}))

    def _compile(self, extra: dict) -> bool:
        """Compile or load the block; the seconds it took are added to `extra["jit_seconds"]`."""
        start = time.perf_counter()
        try:
            key = self.key = self.key or _key(self.source)
            fn = _compiled.get(key)
            if fn is None:
                fn = _load(key, self.source)
                fn.compile(_signature(self.dtypes, self.specials))
                _compiled[key] = fn
            self.function = fn
        except Exception as e:  # noqa: BLE001 - a block Numba refuses stays interpreted
            self.error = f"{type(e).__name__}: {e}"
            if os.environ.get("PTXVM_DEBUG_JIT"):
                raise
        extra["jit_seconds"] = extra.get("jit_seconds", 0.0) + time.perf_counter() - start
        return self.function is not None
