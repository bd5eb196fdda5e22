"""A launch as data another process can run: the program (the module's syntax tree, its options and
where its variables live), the device's allocation table and .const bytes, the launch geometry and
the marshalled parameter buffer. Global memory itself travels beside it (Ray's object store).

`rebuild(image, arena)` makes, in a fresh process, a Device whose memory has the parent's
allocations at the parent's addresses and a Module whose variables sit where the parent's do, so
the lowered program (which bakes addresses in) is the parent's; the lowering is kept per process
for the next shard of the same program."""
from __future__ import annotations

import hashlib
import pickle
import weakref
from dataclasses import dataclass

import numpy as np


@dataclass
class LaunchImage:
    key: str  # digest of the program part: a worker lowers each program once
    tree: object
    file: str
    contract: object
    bases: list
    allocations: list  # (base, size, label) of every live allocation
    top: int
    const_image: bytes
    kernel: str
    grid: tuple
    block: tuple
    cluster: object  # the launch's cluster shape when it was given explicitly, else None
    shared_mem: int
    kparams: bytes
    jit: bool


def image_of(launch) -> LaunchImage:
    from .. import jit

    module = launch.module
    mem = launch.device.memory
    bases = module.variable_bases()
    key = program_key(module, bases)
    const = module.const_image if module.const_image is not None else module.lazy_program.const_image
    return LaunchImage(key, module.ast, module.file, module.contract, bases,
                       [(a.base, a.size, a.label) for a in mem.allocations()], mem.top,
                       np.asarray(const).tobytes(), launch.info.name, launch.grid, launch.block,
                       launch.cluster if launch.explicit_cluster else None, launch.shared_dynamic, launch.kparams,
                       jit.enabled())


_KEYS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # module -> (bases, key): digested once


def program_key(module, bases) -> str:
    """The digest of a module's program part (pickling a large syntax tree costs ~10 ms: once per module)."""
    try:
        known = _KEYS.get(module)
    except TypeError:  # not weakly referable
        known = None
    if known is not None and known[0] == bases:
        return known[1]
    key = hashlib.sha256(pickle.dumps((module.ast, module.file, module.contract, bases))).hexdigest()
    try:
        _KEYS[module] = (bases, key)
    except TypeError:
        pass
    return key


# key -> (device, module) in a worker process: the PROGRAMS_KEPT programs launched last, the most
# recent last (launches that alternate between a few kernels' modules lower each once; a sweep of
# many programs does not grow without end). The pool's parent mirrors this order (pool._Worker.programs).
PROGRAMS_KEPT = 4
_PROGRAMS: dict = {}


def held(programs: list, key: str) -> bool:
    """Whether a worker holding `programs` (keys, the most recent last) holds `key`; then record
    this launch of it as rebuild does (`programs` updated in place)."""
    hit = key in programs
    if hit:
        programs.remove(key)
    programs.append(key)
    del programs[:-PROGRAMS_KEPT]
    return hit


def rebuild(image: LaunchImage):
    """(module, Launch) of `image` in this process; global memory is the caller's to set."""
    from ..engine.core.device import Device
    from ..engine.core.memory import Allocation
    from ..engine.launch import Launch
    from ..module import Module
    from .analysis import may_regroup

    entry = _PROGRAMS.pop(image.key, None)
    if entry is None:
        if image.tree is None:
            raise RuntimeError("the launch image came without its program, which this worker does not hold")
        device = Device()
        _restore_allocations(device.memory, image, Allocation)
        module = Module(image.tree, device=device, contract=image.contract, placed=image.bases)
        module.lazy_program  # noqa: B018  (lower now; its initializers land in a scratch arena)
        entry = (device, module)
    _PROGRAMS[image.key] = entry  # the most recent last
    while len(_PROGRAMS) > PROGRAMS_KEPT:
        _PROGRAMS.pop(next(iter(_PROGRAMS)))
    device, module = entry
    _restore_allocations(device.memory, image, Allocation)
    module.const_image = np.frombuffer(image.const_image, np.uint8).copy()
    launch = Launch(module.kernel(image.kernel), image.grid, image.block, [], image.shared_mem, image.cluster,
                    kparams=image.kparams)
    launch.regroup = may_regroup(launch)  # as the parent's launch: a split launch's kernel passes it
    return module, launch


def _restore_allocations(mem, image, Allocation) -> None:
    mem._allocs = {b: Allocation(b, s, label) for b, s, label in image.allocations}
    mem._bases = sorted(mem._allocs)
    mem.top = image.top
    mem.written_top = 1 << 62  # the arena is the parent's bytes: any of them may be non-zero
    mem.budget.used = sum(s for _, s, _ in image.allocations)
    need = -(-(image.top + 4096) // 512) * 512
    if mem.arena.size < need:
        mem.arena = np.zeros(need, np.uint8)
