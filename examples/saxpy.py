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
    expected = a * x + y  # NumPy's float32 multiply-then-add; the kernel fuses into one fma.rn
    stats = module["saxpy"].launch(grid=64, block=256, args=[np.int32(n), a, x, y])
    fused = np.abs(y - expected) <= np.abs(expected) * 2**-22 + 1e-30
    print(f"saxpy on {n} elements: {stats.thread_instructions:,} thread-instructions "
          f"in {stats.seconds:.3f} s ({stats.instructions_per_second / 1e6:.1f} M/s)")
    print(f"y[:4] = {y[:4]}")
    print("result matches a*x+y:", bool(fused.all()))
    if not fused.all():
        raise SystemExit(1)


if __name__ == "__main__":
    main()
