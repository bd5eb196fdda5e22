"""Where a ptxvm module runs: "cpu" (the engine) or "cuda" (an NVIDIA GPU, `ptxvm.backends.cuda`).

`ptxvm.compare` (`ptxvm.backends.compare`) runs one launch on two of them and reports the outputs'
differences.
"""
from __future__ import annotations

DEVICES = ("cpu", "cuda")


def check_device(device: str) -> str:
    """`device` itself if ptxvm knows it (ValueError otherwise); "cuda:N" names GPU N."""
    name = str(device)
    base, _, ordinal = name.partition(":")
    if base not in DEVICES or (ordinal and (base != "cuda" or not ordinal.isdigit())):
        raise ValueError(f"unknown device {device!r}: use 'cpu', 'cuda' or 'cuda:N'")
    return name
