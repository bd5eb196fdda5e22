"""Register values and memory bytes as a debugger shows them: typed, per lane.

Registers hold raw bits (engine/core/layout.py); a value is shown as its declared PTX type says
(f32 as a float, .s32 signed, .b32 in hex, .pred true/false) unless a format asks otherwise
(gdb's /x /d /u /f /t, and f16, bf16, f16x2, bf16x2 for halves packed in a wider register).
Memory is read straight from the wave's buffers, never through the engine's access path, so
looking at a bad address is an error message, not a fault of the kernel.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...engine.core.memory import (CLUSTER_OFFSET_MASK, CLUSTER_RANK_SHIFT, CONST_WINDOW, GLOBAL_BASE, LOCAL_WINDOW,
                                   PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE)
from ...semantics.dtypes import bits_of
from .program import DebuggerError

FORMATS = ("x", "d", "u", "f", "t", "c", "f16", "bf16", "f16x2", "bf16x2")
SPACES = ("generic", "global", "shared", "local", "const", "param")


def raw_bits(values: np.ndarray) -> list[int]:
    """Register storage (uint, bool, float or 16-byte items) -> Python ints of its raw bits."""
    v = np.asarray(values)
    if v.dtype == np.bool_:
        return [int(x) for x in v]
    if v.dtype.kind in "iuf" and v.dtype.itemsize <= 8:
        return [int(x) for x in v.view(f"u{v.dtype.itemsize}")]
    return [int.from_bytes(np.asarray(x).tobytes(), "little") for x in v]


def _half(bits: int) -> float:
    return float(np.array([bits & 0xFFFF], dtype=np.uint16).view(np.float16)[0])


def _bf16(bits: int) -> float:
    return float(np.array([(bits & 0xFFFF) << 16], dtype=np.uint32).view(np.float32)[0])


def _float(bits: int, width: int) -> str:
    if width == 16:
        return _short(_half(bits), np.float16)
    if width == 32:
        return _short(np.array([bits & 0xFFFFFFFF], dtype=np.uint32).view(np.float32)[0], np.float32)
    if width == 64:
        return _short(np.array([bits & (2**64 - 1)], dtype=np.uint64).view(np.float64)[0], np.float64)
    raise DebuggerError(f"no {width}-bit float format")


def _short(value, dtype) -> str:
    return str(dtype(value)) if np.isfinite(value) else str(float(value))


def format_value(bits: int, ptx_type: str, fmt: Optional[str] = None) -> str:
    """One value of `ptx_type` (its raw bits) as text."""
    width = 1 if ptx_type == "pred" else bits_of(ptx_type)
    bits &= (1 << max(width, 1)) - 1
    kind = ptx_type[0]
    if fmt is None:
        if ptx_type == "pred":
            return "true" if bits else "false"
        if ptx_type == "bf16":
            fmt = "bf16"
        elif ptx_type in ("f16x2", "bf16x2"):
            fmt = ptx_type
        elif kind == "f":
            fmt = "f"
        elif kind == "s":
            fmt = "d"
        elif kind == "u":
            fmt = "u"
        else:
            fmt = "x"
    if fmt == "x":
        return f"0x{bits:0{max(1, (width + 3) // 4)}x}"
    if fmt == "t":
        return f"0b{bits:0{max(width, 1)}b}"
    if fmt == "u":
        return str(bits)
    if fmt == "d":
        return str(bits - (1 << width) if width > 1 and bits >> (width - 1) else bits)
    if fmt == "c":
        b = bits & 0xFF
        return f"{b} {chr(b)!r}"
    if fmt == "f":
        return _float(bits, width)
    if fmt == "f16":
        return _short(_half(bits), np.float16)
    if fmt == "bf16":
        return _short(_bf16(bits), np.float32)
    if fmt in ("f16x2", "bf16x2"):
        one = _half if fmt == "f16x2" else _bf16
        dt = np.float16 if fmt == "f16x2" else np.float32
        return "{" + ", ".join(_short(one(bits >> s), dt) for s in (0, 16)) + "}"
    raise DebuggerError(f"unknown format /{fmt} (formats: {', '.join(FORMATS)})")


# ---------------------------------------------------------------------------- memory


def classify(address: int) -> tuple[str, int]:
    """(space, space-relative address) of a generic address."""
    for space, base in (("shared", SHARED_WINDOW), ("local", LOCAL_WINDOW), ("const", CONST_WINDOW),
                        ("param", PARAM_WINDOW)):
        if base <= address < base + WINDOW_SIZE:
            return space, address - base
    return "global", address


def read_memory(ctx, space: str, address: int, size: int, thread: int) -> bytes:
    """`size` bytes at `address` in `space` as thread slot `thread` of the wave sees them."""
    if space == "generic":
        space, address = classify(address)
    if address < 0 or size < 0:
        raise DebuggerError(f"cannot access memory at negative address {address}")
    if space == "global":
        alloc = ctx.gmem.find(address)
        if alloc is None or address + size > alloc.base + alloc.size:
            raise DebuggerError(f"cannot access memory at address 0x{address:x}: not inside a live global allocation"
                                + (f" (the allocation at 0x{alloc.base:x} has {alloc.size} bytes)" if alloc else ""))
        off = address - GLOBAL_BASE
        return ctx.gmem.arena[off : off + size].tobytes()
    if space == "shared":
        owner = int(ctx.cta_slot[thread])
        rank = address >> CLUSTER_RANK_SHIFT
        if rank:  # a .shared::cluster address (mapa): another CTA of the cluster
            size_c = getattr(ctx, "cluster_size", 1)
            if rank > size_c:
                raise DebuggerError(f"shared::cluster address 0x{address:x} names CTA rank {rank - 1}, outside the cluster")
            owner = owner - owner % size_c + rank - 1
            address &= CLUSTER_OFFSET_MASK
        return _window(ctx.shared, owner, address, size, "shared")
    if space == "local":
        return _window(ctx.local, thread, address, size, "local")
    if space in ("const", "param"):
        mem = ctx.const if space == "const" else ctx.kparams
        if address + size > mem.size:
            raise DebuggerError(f"cannot access {space} memory at 0x{address:x}: the {space} space has {mem.size} bytes")
        return mem.buf[address : address + size].tobytes()
    raise DebuggerError(f"unknown state space {space!r} (spaces: {', '.join(SPACES)})")


def _window(mem, owner: int, address: int, size: int, name: str) -> bytes:
    if address + size > mem.limit:
        raise DebuggerError(f"cannot access {name} memory at 0x{address:x}: the {name} window has {mem.limit} bytes")
    off = owner * mem.stride + address
    return mem.buf[off : off + size].tobytes()


def elements(raw: bytes, ptx_type: str, fmt: Optional[str] = None) -> list[str]:
    """`raw` bytes as consecutive values of `ptx_type`, formatted."""
    width = max(1, bits_of(ptx_type) // 8) if ptx_type != "pred" else 1
    return [format_value(int.from_bytes(raw[i : i + width], "little"), ptx_type, fmt)
            for i in range(0, len(raw) - width + 1, width)]
