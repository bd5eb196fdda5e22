"""ptxvm on Ray: launches split into Ray tasks, and sweeps of many launches as Ray tasks.

    import ptxvm, ptxvm.ray
    ptxvm.ray.init()                        # a local Ray instance; or init(address="ray://host:10001")
    kernel.launch(grid, block, args, executor="ray", workers=64)
    ptxvm.map_launches(run_one, cases, executor="ray")

Needs the `ray` package (`pip install 'ptxvm[ray]'`). A launch's global memory goes to Ray's object
store once per launch; the results are the single process's bit for bit (docs/parallel.md)."""
from __future__ import annotations

from .parallel.ray_executor import ensure_ray


def init(address=None, **kwargs):
    """Connect to the Ray cluster at `address` (None: RAY_ADDRESS, else start a local one); extra
    keywords go to ray.init. Returns the ray module. Launches with executor="ray" call it
    themselves when Ray is not initialized yet."""
    return ensure_ray(address, **kwargs)


def shutdown() -> None:
    import ray

    ray.shutdown()
