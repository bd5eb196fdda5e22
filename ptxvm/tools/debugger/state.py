"""What the debugger's API hands back: breakpoints, watchpoints, stops, frames, warp and block
states (plain records; session.py's Debugger builds and keeps them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from ...errors import KernelFault
from .expr import Expression

WARP = 32
FINISHED = ("exited", "faulted", "killed", "error")


@dataclass
class Breakpoint:
    number: int
    location: str
    pcs: list
    condition: Optional[Expression] = None
    cta: Optional[tuple] = None
    thread: Optional[tuple] = None
    lane: Optional[int] = None
    temporary: bool = False
    enabled: bool = True
    hits: int = 0
    error: str = ""  # what went wrong evaluating the condition at the last stop


@dataclass
class Watchpoint:
    number: int
    expression: str
    space: str  # "global" or "shared"
    address: int
    size: int
    type: str = "b32"
    cta: Optional[int] = None  # linear CTA id (shared)
    hits: int = 0


@dataclass
class Stop:
    """Why and where the launch stopped. `finished` once it can no longer be resumed."""

    reason: str  # breakpoint step watchpoint fault sanitizer interrupt warp-exited | exited faulted killed error
    pc: Optional[int] = None
    cta: Optional[tuple] = None
    thread: Optional[tuple] = None
    breakpoint: Optional[Breakpoint] = None
    watchpoint: Optional[Watchpoint] = None
    old: Optional[bytes] = None
    new: Optional[bytes] = None
    writer_pc: Optional[int] = None
    fault: Optional[KernelFault] = None
    records: list = field(default_factory=list)
    message: str = ""

    @property
    def finished(self) -> bool:
        return self.reason in FINISHED


@dataclass
class Frame:
    level: int
    function: str
    pc: int
    file: str
    line: int
    source: Optional[tuple]
    args: list  # (name, text)
    base: int = 0  # the frame's base in the thread's local memory


@dataclass
class WarpState:
    cta: tuple
    warp: int
    pc: Optional[int]  # the PC the warp issues next (None: every lane exited)
    active: int  # lanes runnable at that PC
    divergent: int  # live lanes elsewhere
    barrier: int  # lanes waiting at a CTA barrier or a warp-synchronous instruction
    exited: int
    lanes: int  # lanes the warp has (a partial last warp has fewer than 32)
    focus: bool = False


@dataclass
class CtaState:
    cta: tuple
    threads: int
    live: int
    at_barrier: int
    exited: int
    focus: bool = False


@dataclass
class _Mode:
    kind: str  # stepi step nexti next finish
    cta: int
    warp: int
    key: object = None
    base: int = 0
