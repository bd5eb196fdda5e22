"""SanitizerReport: the records a sanitized launch found, printed in compute-sanitizer's wording."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Optional

PREFIX = "========= "


@dataclass
class Location:
    kernel: str
    ptx_line: int  # the PTX line of the instruction
    file: str  # source file from .loc/.file (nvcc -lineinfo), else the PTX file
    line: int  # source line, else the PTX line

    def text(self) -> str:
        return f"{self.kernel}+{self.ptx_line} in {self.file}:{self.line}"


@dataclass
class Record:
    """One error (or warning) as compute-sanitizer reports it."""

    tool: str
    kind: str  # invalid_access misaligned heap_free leak race uninitialized divergent_barrier divergent_block membermask fault
    headline: str
    where: Optional[Location] = None
    cta: Optional[tuple[int, int, int]] = None
    thread: Optional[tuple[int, int, int]] = None
    space: Optional[str] = None  # global shared local const param
    size: Optional[int] = None
    address: Optional[int] = None
    details: list[str] = field(default_factory=list)  # the indented lines after "by thread"
    allocation: Optional[tuple[int, int]] = None  # (base, size) it missed or hit
    severity: str = "error"
    other: Optional[Location] = None  # racecheck: the second access
    access: Optional[str] = None  # racecheck: "RAW" "WAR" "WAW"
    hazards: int = 0

    def lines(self) -> list[str]:
        if self.kind == "race":
            first, second = ("Write", "Read") if self.access == "RAW" else ("Read", "Write") if self.access == "WAR" else ("Write", "Write")
            label = "Error" if self.severity == "error" else "Warning"
            out = [f"{label}: Race reported between {first} access at {self.other.text()}",
                   f"    and {second} access at {self.where.text()} [{self.hazards} hazard{'s' if self.hazards != 1 else ''}]"]
            if self.space != "shared":
                out.append(f"    on __{self.space}__ memory (beyond compute-sanitizer, which checks __shared__ only)")
            return out
        out = [self.headline]
        if self.where is not None:
            out.append(f"    at {self.where.text()}")
        if self.thread is not None:
            out.append(f"    by thread ({','.join(map(str, self.thread))}) in block ({','.join(map(str, self.cta))})")
        out += ["    " + d for d in self.details]
        return out

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class SanitizerReport:
    tool: str
    kernel: str
    records: list[Record] = field(default_factory=list)
    leak_check: bool = False
    seconds: float = 0.0
    faulted: bool = False  # the launch faulted, or would have without the sanitizer: host arrays untouched

    @property
    def errors(self) -> list[Record]:
        return [r for r in self.records if r.severity == "error"]

    @property
    def warnings(self) -> list[Record]:
        return [r for r in self.records if r.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    def summary(self) -> str:
        if self.tool == "racecheck":
            n, e, w = len(self.records), len(self.errors), len(self.warnings)
            return (f"RACECHECK SUMMARY: {n} hazard{'s' if n != 1 else ''} displayed "
                    f"({e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''})")
        n = len(self.errors)
        return f"ERROR SUMMARY: {n} error{'s' if n != 1 else ''}"

    def __str__(self) -> str:
        out = [PREFIX.rstrip() + " PTXVM SANITIZER"]
        for r in self.records:
            out += [PREFIX + line for line in r.lines()]
            out.append(PREFIX)
        leaks = [r for r in self.records if r.kind == "leak"]
        if leaks:
            total = sum(r.size for r in leaks)
            out.append(f"{PREFIX}LEAK SUMMARY: {total} bytes leaked in {len(leaks)} allocation{'s' if len(leaks) != 1 else ''}")
        out.append(PREFIX + self.summary())
        return "\n".join(out) + "\n"

    def to_json(self) -> str:
        return json.dumps({"tool": self.tool, "kernel": self.kernel, "ok": self.ok, "summary": self.summary(),
                           "errors": len(self.errors), "warnings": len(self.warnings),
                           "records": [r.to_dict() for r in self.records]}, indent=2)
