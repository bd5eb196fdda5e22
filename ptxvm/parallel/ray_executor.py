"""The Ray executor: each shard is a Ray task. Global memory goes into the object store once per
launch (every task reads the same object, zero-copy on its node, and copies it to write), the
launch image (image.py) once; a task returns the same ShardResult a local worker does."""
from __future__ import annotations

import os

from .shard import ShardResult, run_shard

_task = None


def ray_module():
    """The ray package, or a LaunchError saying how to get it."""
    try:
        import ray
    except ImportError:
        from ..errors import LaunchError

        raise LaunchError("executor='ray' needs Ray: pip install 'ptxvm[ray]' (or pip install ray)") from None
    return ray


def ensure_ray(address=None, **kwargs):
    """Connect to Ray once: `address` (or RAY_ADDRESS) names an existing cluster, where ptxvm must
    be installed on the nodes (or shipped with `runtime_env`); else a local instance starts, whose
    workers import this ptxvm (its directory goes on their PYTHONPATH)."""
    ray = ray_module()
    if not ray.is_initialized():
        if address is None and not os.environ.get("RAY_ADDRESS"):  # a local instance: this ptxvm on its path
            root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            env = dict(kwargs.pop("runtime_env", None) or {})
            env_vars = dict(env.get("env_vars", {}))
            path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
            env_vars.setdefault("PYTHONPATH", path)
            env["env_vars"] = env_vars
            kwargs["runtime_env"] = env
            kwargs.setdefault("include_dashboard", False)
        ray.init(address=address, **kwargs)
    return ray


def _shard_task(image, arena, index, positions):
    from .. import jit
    from .image import rebuild

    with jit.override(image.jit):
        _, launch = rebuild(image)
        return run_shard(launch, index, positions, arena, copy=True)


def run_ray(launch, shards, on_done=None) -> list[ShardResult]:
    global _task
    from .image import image_of

    ray = ensure_ray()
    if _task is None:
        _task = ray.remote(_shard_task)
    image = ray.put(image_of(launch))
    arena = ray.put(launch.device.memory.arena)
    pending = {_task.remote(image, arena, i, pos): i for i, pos in enumerate(shards)}
    results: dict[int, ShardResult] = {}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            i = pending.pop(ref)
            try:
                r = ray.get(ref)
            except Exception as e:  # noqa: BLE001 - a lost task: the parent reruns in one process
                r = ShardResult(i, error=f"Ray task failed: {type(e).__name__}: {e}")
            results[i] = r
            if on_done is not None:
                on_done(r)
    return [results[i] for i in range(len(shards))]
