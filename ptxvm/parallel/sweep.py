"""Sweeps: many independent launches (or profiles, or conformance cases) at once, as forked
processes locally or as Ray tasks. Each call runs in one process (its own launches are not split
further: PTXVM_WORKERS=1 there), so a sweep uses cores by running calls side by side."""
from __future__ import annotations

import multiprocessing as mp
import os
import traceback

from ..errors import LaunchError

_JOB: dict = {}  # what forked pool workers inherit: the function and the items


class SweepError(RuntimeError):
    """A call of a sweep raised; `index` says which item, the message carries its traceback."""

    def __init__(self, index: int, text: str):
        super().__init__(f"item {index} of the sweep failed:\n{text}")
        self.index = index


def map_launches(fn, items, *, executor: str = "local", workers=None) -> list:
    """[fn(item) for item in items], computed in parallel: `executor` "local" (forked processes,
    `workers` of them, default PTXVM_WORKERS or every core) or "ray" (one Ray task per item; fn
    and the items must pickle, which cloudpickle makes true of most closures). The results come
    back in the items' order; a call that raises raises SweepError naming the item."""
    items = list(items)
    if executor not in ("local", "ray"):
        raise LaunchError(f"executor must be 'local' or 'ray', got {executor!r}")
    if executor == "ray":
        from .ray_executor import ensure_ray

        ray = ensure_ray()
        task = ray.remote(_ray_call)
        refs = [task.remote(fn, item) for item in items]
        out = []
        for i, ref in enumerate(refs):
            ok, value = ray.get(ref)
            if not ok:
                raise SweepError(i, value)
            out.append(value)
        return out
    from .launcher import default_workers
    from .local import start_method

    n = min(len(items), workers or default_workers())
    if n <= 1 or start_method() != "fork":  # a spawned pool would need fn and the items to pickle
        return [_unwrap(i, _call(fn, item)) for i, item in enumerate(items)]
    _JOB.update(fn=fn, items=items)
    try:
        with mp.get_context("fork").Pool(n) as pool:
            results = pool.map(_pool_call, range(len(items)), chunksize=1)
    finally:
        _JOB.clear()
    return [_unwrap(i, r) for i, r in enumerate(results)]


def _call(fn, item):
    try:
        return True, fn(item)
    except Exception:  # noqa: BLE001 - carried back to the caller with its traceback
        return False, traceback.format_exc()


def _pool_call(i):
    os.environ["PTXVM_WORKERS"] = "1"
    return _call(_JOB["fn"], _JOB["items"][i])


def _ray_call(fn, item):
    os.environ["PTXVM_WORKERS"] = "1"
    return _call(fn, item)


def _unwrap(i, result):
    ok, value = result
    if not ok:
        raise SweepError(i, value)
    return value
