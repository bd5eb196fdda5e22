"""The README's main job: run nvcc's PTX for SAXPY (examples/saxpy.cu) on ptxvm's CPU engine.

    python examples/saxpy.py
"""
from pathlib import Path

import numpy as np

import ptxvm

HERE = Path(__file__).parent


def main() -> None:
    module = ptxvm.load(HERE / "saxpy.ptx")
    n = 1 << 16
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    a = np.float32(2.5)
    # The kernel computes fma.rn.f32(a, x, y): one rounding of the exact a*x+y, which float64
    # holds exactly here; allow half an f32 ulp of the operands' magnitude for that rounding.
    exact = np.float64(a) * x.astype(np.float64) + y.astype(np.float64)
    scale = np.abs(np.float64(a) * x) + np.abs(y)
    stats = module["saxpy"].launch(grid=64, block=256, args=[np.int32(n), a, x, y])
    fused = np.abs(y - exact) <= scale * 2.0**-24
    print(f"saxpy on {n} elements: {stats.thread_instructions:,} thread-instructions "
          f"in {stats.seconds:.3f} s ({stats.instructions_per_second / 1e6:.1f} M/s)")
    print(f"y[:4] = {y[:4]}")
    print("result matches a*x+y:", bool(fused.all()))
    if not fused.all():
        raise SystemExit(1)


if __name__ == "__main__":
    main()
