"""Occupancy: how many CTAs of a kernel fit on one SM, and what limits them.

Registers per thread come from `ptxas -v` when ptxas is installed (the number the hardware will
allocate), else from an estimate over the PTX: the most 32-bit register units live at once, with
live ranges taken over the linear code and stretched over the loops they cross.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass
from typing import Optional

from .. import toolchain
from ..syntax.labels import with_unique_labels
from ..syntax import ast

RESERVED_REGS = 4  # registers ptxas keeps for itself beyond the live values (estimate)


@dataclass(frozen=True)
class Occupancy:
    threads_per_cta: int
    warps_per_cta: int
    regs_per_thread: int
    regs_source: str  # "ptxas" | "estimate" | "given"
    shared_per_cta: int  # bytes, static + dynamic + the system's reservation
    ctas_by_regs: int
    ctas_by_shared: int
    ctas_by_warps: int
    ctas_by_limit: int
    ctas_per_sm: int
    limiter: str  # "registers" | "shared" | "warps" | "ctas"
    max_warps_per_sm: int

    @property
    def warps_per_sm(self) -> int:
        return self.ctas_per_sm * self.warps_per_cta

    @property
    def theoretical(self) -> float:
        return self.warps_per_sm / self.max_warps_per_sm


def occupancy(gpu, threads_per_cta: int, regs_per_thread: int, shared_bytes: int, regs_source: str = "given") -> Occupancy:
    """CTAs per SM for a CTA of `threads_per_cta` threads using `regs_per_thread` registers and
    `shared_bytes` of shared memory (static + dynamic), on `gpu` (a GpuSpec)."""
    if not 1 <= threads_per_cta <= gpu.max_threads_per_cta:
        raise ValueError(f"{threads_per_cta} threads per CTA: the limit is {gpu.max_threads_per_cta}")
    regs = max(1, min(int(regs_per_thread), gpu.max_regs_per_thread))
    warps = -(-threads_per_cta // gpu.warp_size)
    unit = gpu.reg_alloc_unit
    regs_per_warp = -(-regs * gpu.warp_size // unit) * unit
    by_regs = (gpu.regs_per_sm // regs_per_warp) // warps
    shared = shared_bytes + gpu.shared_reserved_per_cta if shared_bytes else gpu.shared_reserved_per_cta
    if shared_bytes > gpu.shared_per_cta_max:
        raise ValueError(f"{shared_bytes} bytes of shared memory per CTA exceed the {gpu.shared_per_cta_max} available")
    by_shared = gpu.shared_per_sm_max // shared if shared else gpu.max_ctas_per_sm
    by_warps = gpu.max_warps_per_sm // warps
    by_limit = gpu.max_ctas_per_sm
    limits = {"registers": by_regs, "shared": by_shared, "warps": by_warps, "ctas": by_limit}
    limiter = min(limits, key=lambda k: (limits[k], ["ctas", "warps", "shared", "registers"].index(k)))
    n = limits[limiter]
    if n < 1:
        raise ValueError(f"a CTA of {threads_per_cta} threads with {regs} registers per thread and {shared_bytes} bytes "
                         f"of shared memory does not fit on one SM ({limiter})")
    return Occupancy(threads_per_cta, warps, regs, regs_source, shared, by_regs, by_shared, by_warps, by_limit, n,
                     limiter, gpu.max_warps_per_sm)


# ---------------------------------------------------------------------------- registers per thread


def registers_per_thread(module, kernel: str) -> tuple[int, str]:
    """(registers, source): from ptxas -v when available, else estimated from the PTX."""
    got = _ptxas_info(module).get(kernel)
    if got is not None:
        return got[0], "ptxas"
    return estimate_registers(module.ast.function(kernel)), "estimate"


def static_shared_bytes(module, kernel: str) -> int:
    """Static shared memory of one kernel: ptxas's figure, else the .shared variables declared in
    its body plus those at module scope."""
    got = _ptxas_info(module).get(kernel)
    if got is not None:
        return got[1]
    from ..engine.core.layout import var_size

    total = sum(var_size(v) for v in module.ast.variables() if v.space.split("::")[0] == "shared"
                and not (v.linkage == "extern"))
    fn = module.ast.function(kernel)

    def walk(block):
        n = 0
        for s in block.statements:
            if isinstance(s, ast.Block):
                n += walk(s)
            elif isinstance(s, ast.VarDecl) and s.space.split("::")[0] == "shared" and s.linkage != "extern":
                n += var_size(s)
        return n

    if fn is not None and fn.body is not None:
        total += walk(fn.body)
    return -(-total // 16) * 16


def _ptxas_info(module) -> dict[str, tuple[int, int, int]]:
    source = getattr(module, "source", "") or ""
    if source and not os.environ.get("PTXVM_NO_PTXAS") and toolchain.find("ptxas"):
        return _ptxas_registers(source, _arch(module.ast))
    return {}


def _arch(tree) -> str:
    for t in getattr(tree, "target", ()):
        m = re.match(r"sm_(\d+)([af]?)$", t)
        if m:
            return t if int(m.group(1)) >= 90 else "sm_90"
    return "sm_90"


@functools.lru_cache(maxsize=64)
def _ptxas_cached(digest: str, source: str, arch: str) -> dict[str, tuple[int, int, int]]:
    """kernel -> (registers per thread, static shared bytes, bytes of machine code) as `ptxas -v`
    reports them and the cubin's `.text.<kernel>` section holds (0 where that is not found)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        try:
            r = subprocess.run([toolchain.find("ptxas"), f"-arch={arch}", "-v", path, "-o", os.path.join(d, "k.cubin")],
                               capture_output=True, text=True, timeout=120)
            with open(os.path.join(d, "k.cubin"), "rb") as f:
                code = text_sizes(f.read())
        except (OSError, subprocess.TimeoutExpired):
            return {}
    out: dict[str, tuple[int, int, int]] = {}
    current = None
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?", line)
        if m:
            current = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and current is not None:
            smem = re.search(r"(\d+) bytes smem", line)
            out[current] = (int(m.group(1)), int(smem.group(1)) if smem else 0, code.get(current, 0))
    return out


def text_sizes(elf: bytes) -> dict[str, int]:
    """function -> bytes of its `.text.<function>` section in a cubin (a 64-bit little-endian ELF);
    {} for anything else."""
    if len(elf) < 64 or elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shoff + shnum * shentsize > len(elf) or shstrndx >= shnum:
        return {}

    def section(k):  # (name offset, file offset, size)
        base = shoff + k * shentsize
        name, = struct.unpack_from("<I", elf, base)
        offset, size = struct.unpack_from("<QQ", elf, base + 0x18)
        return name, offset, size

    strtab = section(shstrndx)[1]
    out = {}
    for k in range(shnum):
        name_at, _, size = section(k)
        end = elf.find(b"\0", strtab + name_at)
        name = elf[strtab + name_at:end].decode("ascii", "replace")
        if name.startswith(".text."):
            out[name[len(".text."):]] = int(size)
    return out


def code_bytes(module, kernel: str) -> int:
    """Bytes of the kernel's machine code as ptxas makes it (0 without ptxas)."""
    got = _ptxas_info(module).get(kernel)
    return got[2] if got else 0


def _ptxas_registers(source: str, arch: str) -> dict[str, tuple[int, int, int]]:
    return _ptxas_cached(hashlib.sha1(source.encode()).hexdigest(), source, arch)


def estimate_registers(fn: ast.Function) -> int:
    """Most 32-bit register units live at once over the function's linear code (+ reserved)."""
    widths: dict[str, int] = {}
    events: list[tuple[str, ...]] = []
    labels: dict[str, int] = {}
    branches: list[tuple[int, str]] = []

    def walk(block):
        for s in block.statements:
            if isinstance(s, ast.Block):
                walk(s)
            elif isinstance(s, ast.VarDecl) and s.space.split("::")[0] == "reg":
                units = 0 if s.type == "pred" else (2 if s.type.endswith("64") else (4 if s.type.endswith("128") else 1))
                if s.count is not None:
                    for i in range(s.count):
                        widths[f"{s.name}{i}"] = units
                else:
                    widths[s.name] = units * (s.vector or 1)
            elif isinstance(s, ast.Label):
                labels[s.name] = len(events)
            elif isinstance(s, ast.Instruction):
                names: list[str] = []
                for op in s.operands:
                    _collect(op, names)
                if s.opcode == "bra" and s.operands and isinstance(s.operands[-1], ast.Immediate):
                    e = s.operands[-1].expr
                    if isinstance(e, ast.SymbolRef):
                        branches.append((len(events), e.name))
                events.append(tuple(names))

    if fn is None or fn.body is None:
        return 32
    walk(with_unique_labels(fn.body))
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for i, names in enumerate(events):
        for n in names:
            if n in widths:
                first.setdefault(n, i)
                last[n] = i
    loops = [(labels[t], i) for i, t in branches if t in labels and labels[t] <= i]
    delta = [0] * (len(events) + 2)
    for n, a in first.items():
        b = last[n]
        for lo, hi in loops:  # a value live into or across a loop stays live for all of it
            if a < lo <= b or a <= hi < b or (lo <= a <= hi and b > hi) or (lo <= b <= hi and a < lo):
                a, b = min(a, lo), max(b, hi)
        delta[a] += widths[n]
        delta[b + 1] -= widths[n]
    live = best = 0
    for d in delta:
        live += d
        best = max(best, live)
    return max(16, min(255, best + RESERVED_REGS))


def _collect(node, out: list[str]) -> None:
    if isinstance(node, ast.Register):
        out.append(node.name)
    elif isinstance(node, ast.Address) and isinstance(node.base, ast.Register):
        out.append(node.base.name)
    elif isinstance(node, (ast.VectorOperand, ast.BracketList, ast.ParamList)):
        for e in node.elements:
            _collect(e, out)
    elif isinstance(node, ast.PredPair):
        _collect(node.first, out)
        _collect(node.second, out)
