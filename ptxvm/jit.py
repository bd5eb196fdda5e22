"""The switch for ptxvm's compiled fast paths (Numba).

Some hot code has two implementations that give the same bits: a NumPy one, which is the
executable specification, and a compiled one (Numba), which is the default. Today: the
tensor-core numerics of ptxvm.numerics.mma (`@njit(cache=True)`), and the compiled tier of the
engine (ptxvm/engine/compiled), which runs hot runs of register-only instructions as one
generated function per block. The compiled one is used when

* Numba imports (`numba_available()`), and
* it is not switched off: the environment variable `PTXVM_JIT=0` (also `false`, `no`, `off`)
  switches it off for the process; `Kernel.launch(..., jit=False)` (or `with ptxvm.jit.override(False):`)
  for one launch or block of code. `jit=True` / `override(True)` switch it on again inside.

Where Numba is missing the NumPy path runs, with the same results, and says once (a
`SlowPathWarning`) that it is the slow path.
"""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager

_OFF = ("0", "false", "no", "off")
_override: list[bool] = []       # innermost override() last
_numba: bool | None = None       # whether numba imports (checked once)
_warned = False


class SlowPathWarning(UserWarning):
    """Numba is not importable: ptxvm runs its NumPy reference paths (same results, slower)."""


def requested() -> bool:
    """Whether the compiled paths are asked for (override, else PTXVM_JIT, else on)."""
    if _override:
        return _override[-1]
    return os.environ.get("PTXVM_JIT", "1").strip().lower() not in _OFF


def numba_available() -> bool:
    global _numba
    if _numba is None:
        try:
            import numba  # noqa: F401
            _numba = True
        except Exception:  # noqa: BLE001 - any import failure means: no compiler here
            _numba = False
    return _numba


def enabled() -> bool:
    """Whether to run the compiled paths now."""
    global _warned
    if not requested():
        return False
    if numba_available():
        return True
    if not _warned:
        _warned = True
        warnings.warn("ptxvm: numba is not importable, so the tensor-core numerics and straight-line code run on "
                      "the NumPy reference path (same results, much slower); `pip install numba` for the compiled path",
                      SlowPathWarning, stacklevel=3)
    return False


@contextmanager
def override(on: bool | None):
    """Switch the compiled paths on (True) or off (False) inside the block; None changes nothing."""
    if on is None:
        yield
        return
    _override.append(bool(on))
    try:
        yield
    finally:
        _override.pop()
