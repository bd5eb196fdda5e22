"""Errors the user sees: compiler-style diagnostics for bad PTX, KernelFault for bad kernels."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence


@dataclass(slots=True, unsafe_hash=True)
class Span:
    """A position in a source file: 1-based line and column, and how many columns it covers.

    Treated as immutable (hashable, compared by value); not declared frozen because frozen
    dataclasses construct about four times slower and the parser builds one per statement."""

    file: str
    line: int
    col: int
    length: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in a PTX source, printed as `file:line:col: error: message`, the line and a caret."""

    span: Span
    message: str
    severity: str = "error"  # "error" | "warning" | "note"
    source_line: Optional[str] = None

    def format(self) -> str:
        head = f"{self.span}: {self.severity}: {self.message}"
        if self.source_line is None:
            return head
        line = self.source_line.rstrip("\n").expandtabs(1)
        caret = " " * (self.span.col - 1) + "^" + "~" * max(0, min(self.span.length, len(line) - self.span.col + 1) - 1)
        return f"{head}\n{line}\n{caret}"

    def to_json(self) -> dict:
        return {
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
            "severity": self.severity,
            "message": self.message,
        }


class PtxError(Exception):
    """Bad PTX. `diagnostics` holds every problem found; str() is the compiler-style listing."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__(self.listing())

    def listing(self) -> str:
        return "\n".join(d.format() for d in self.diagnostics)


class PtxSyntaxError(PtxError):
    """The text is not PTX: the lexer or parser could not read it."""


class PtxVerifyError(PtxError):
    """The text parses, but breaks a rule of the ISA (names, types, modifiers, targets)."""


@dataclass
class FaultSite:
    kernel: str
    cta: tuple[int, int, int]
    thread: tuple[int, int, int]
    line: Optional[int] = None
    file: Optional[str] = None
    instruction: Optional[str] = None
    address: Optional[int] = None


class KernelFault(Exception):
    """A kernel did something the hardware would stop it for (bad address, trap, deadlock, budget).

    The caller's host arrays are left as they were before the launch.
    """

    def __init__(self, reason: str, site: FaultSite, *, more_threads: int = 0):
        self.reason = reason
        self.site = site
        self.kernel = site.kernel
        self.cta = site.cta
        self.thread = site.thread
        self.line = site.line
        self.address = site.address
        self.more_threads = more_threads
        super().__init__(self._describe())

    def _describe(self) -> str:
        s = self.site
        where = f"kernel {s.kernel}, CTA {s.cta}, thread {s.thread}"
        if s.line is not None:
            where += f", {s.file or 'ptx'}:{s.line}"
        if s.instruction:
            where += f" `{s.instruction}`"
        if s.address is not None:
            where += f", address 0x{s.address:x}"
        more = f" (and {self.more_threads} more threads)" if self.more_threads else ""
        return f"{self.reason}: {where}{more}"


class LaunchError(ValueError):
    """A launch was asked for wrongly (argument count, types, sizes, grid shape): nothing ran."""


class OutOfDeviceMemory(LaunchError):
    """The virtual device's memory budget cannot hold an allocation (CUDA's cudaErrorMemoryAllocation,
    CUDA_ERROR_OUT_OF_MEMORY): a device array, an argument copy, a module variable or the shared,
    local and register state of a launch wave. Nothing was allocated; `needed` and `free` are bytes."""

    def __init__(self, message: str, needed: int = 0, free: int = 0):
        super().__init__(message)
        self.needed = needed
        self.free = free


class DataRaceWarning(UserWarning):
    """Two CTAs of a launch split across workers stored different values to one byte of global
    memory without atomics (ptxvm/parallel): the result returned is the single process's."""


class ArgumentTypeWarning(UserWarning):
    """A NumPy array passed for a pointer parameter whose C++ type says other elements (a float64
    array for a `float*`): the kernel reads its bytes as the parameter's type, as a GPU would."""


class DataRaceError(RuntimeError):
    """A data race between CTAs found by a parallel launch run with `on_race="error"`; the
    caller's arrays are left as they were."""
