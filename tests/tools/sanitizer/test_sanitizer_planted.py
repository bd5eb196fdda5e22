"""The planted-bug suite: ptxvm's sanitizer against compute-sanitizer's output on the H200.

tests/goldens/sanitizer/CASE.TOOL.txt is what compute-sanitizer 2025.3.1 printed for each kernel of
planted.cu (tools/device/record_sanitizer.sh, launched as run_planted.cu launches them). Both
outputs go through the same parser, so the wording is checked too: headlines, source lines
(nvcc -lineinfo's .loc), threads and blocks, the access details (addresses masked: the H200's
differ), race pairs with their hazard counts, device-heap leaks. Host-side output (the host's own
cudaMalloc leaks, "Program hit ...") is not the kernel's and is left out.
"""
from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import ptxvm

HERE = Path(__file__).parent
GOLDENS = HERE.parents[1] / "goldens" / "sanitizer"
PTX = HERE / "planted.ptx"


def _ints(n):
    return np.arange(n, dtype=np.int32)


def _u64():
    return np.zeros(8, dtype=np.uint64)


# case: (tool, grid, block, arguments) as run_planted.cu launches it
CASES = {
    "oob_write": ("memcheck", 1, 64, lambda d: [_ints(60), 60]),
    "oob_write_ok": ("memcheck", 1, 64, lambda d: [_ints(60), 60]),
    "oob_read": ("memcheck", 1, 32, lambda d: [_ints(128), _ints(60), 60]),
    "oob_read_ok": ("memcheck", 1, 32, lambda d: [_ints(128), _ints(60), 60]),
    "oob_shared": ("memcheck", 1, 32, lambda d: [_ints(128), 4096]),
    "oob_shared_ok": ("memcheck", 1, 32, lambda d: [_ints(128), 5]),
    "misaligned": ("memcheck", 1, 32, lambda d: [_ints(128), _ints(64), 1]),
    "misaligned_ok": ("memcheck", 1, 32, lambda d: [_ints(128), _ints(64), 1]),
    "heap_leak": ("memcheck", 1, 32, lambda d: [_u64()]),
    "heap_leak_ok": ("memcheck", 1, 32, lambda d: [_u64()]),
    "double_free": ("memcheck", 1, 32, lambda d: [_u64()]),
    "use_after_free": ("memcheck", 1, 32, lambda d: [_u64()]),
    "race_raw": ("racecheck", 1, 64, lambda d: [_ints(128), _ints(64)]),
    "race_raw_ok": ("racecheck", 1, 64, lambda d: [_ints(128), _ints(64)]),
    "race_war": ("racecheck", 1, 64, lambda d: [_ints(128), _ints(64)]),
    "race_war_ok": ("racecheck", 1, 64, lambda d: [_ints(128), _ints(64)]),
    "race_waw": ("racecheck", 1, 64, lambda d: [_ints(128)]),
    "race_waw_ok": ("racecheck", 1, 64, lambda d: [_ints(128)]),
    "race_global": ("racecheck", 4, 32, lambda d: [_ints(128)]),
    "race_global_ok": ("racecheck", 4, 32, lambda d: [_ints(128)]),
    "uninit_global": ("initcheck", 1, 32, lambda d: [_ints(128), d.device_array(32, np.int32)]),
    "uninit_global_ok": ("initcheck", 1, 32, lambda d: [_ints(128), _ints(32)]),
    "uninit_shared": ("initcheck", 1, 32, lambda d: [_ints(128)]),
    "uninit_shared_ok": ("initcheck", 1, 32, lambda d: [_ints(128)]),
    "divergent_barrier": ("synccheck", 1, 32, lambda d: [_ints(128)]),
    "divergent_barrier_ok": ("synccheck", 1, 32, lambda d: [_ints(128)]),
    "shfl_bad_mask": ("synccheck", 1, 32, lambda d: [_ints(128)]),
    "shfl_bad_mask_ok": ("synccheck", 1, 32, lambda d: [_ints(128)]),
}
# What compute-sanitizer does not see and ptxvm reports: (records, headline start, source line)
BEYOND = {
    "race_global": (2, "race", 132),
    "uninit_shared": (16, "Uninitialized __shared__ memory read of size 4 bytes", 149),
    "shfl_bad_mask": (1, "Warp synchronization error detected.", 373),
}
KERNEL_OF = {"uninit_global_ok": "uninit_global"}  # the clean twin is the same kernel, given written memory

_HEX = re.compile(r"0x[0-9a-f]+")
_AT = re.compile(r"at (\S+) in (\S+):(\d+)")
_RACE = re.compile(r"(Error|Warning): Race reported between (\w+) access at \S+ in (\S+):(\d+)")
_RACE2 = re.compile(r"and (\w+) access at \S+ in (\S+):(\d+) \[(\d+) hazards?\]")
_HOST = ("COMPUTE-SANITIZER", "PTXVM SANITIZER", "Program hit", "LEAK SUMMARY", "ERROR SUMMARY", "RACECHECK SUMMARY")


def parse(text: str) -> Counter:
    """compute-sanitizer's output as a multiset of kernel-side records (addresses masked)."""
    records, cur = [], None
    for raw in text.splitlines():
        if not raw.startswith("========="):
            continue
        body = raw[10:]
        if not body.strip() or "Host Frame" in body or "Saved host backtrace" in body:
            continue
        if not body.startswith(" "):  # a headline
            cur = None
            if body.startswith(_HOST) or (body.startswith("Leaked") and "device heap" not in body):
                continue
            m = _RACE.match(body)
            cur = [("race", m.group(1), m.group(2), m.group(3), int(m.group(4)))] if m else [_HEX.sub("ADDR", body)]
            records.append(cur)
            continue
        if cur is None:
            continue
        line = body.strip()
        m = _AT.match(line)
        if m:
            cur.append(("at", m.group(2), int(m.group(3))))
            continue
        m = _RACE2.match(line)
        if m:
            cur.append((m.group(1), m.group(2), int(m.group(3)), int(m.group(4))))
            continue
        if line.startswith("on __"):
            continue
        cur.append(_HEX.sub("ADDR", line))
    return Counter(tuple(r) for r in records)


def golden(case: str) -> Counter:
    tool = CASES[case][0]
    return parse((GOLDENS / f"{case}.{tool}.txt").read_text())


@functools.lru_cache(maxsize=None)
def planted():
    return ptxvm.load(PTX)


def run_case(case: str):
    tool, grid, block, args = CASES[case]
    mod = planted()
    return mod.kernel(KERNEL_OF.get(case, case)).sanitize(grid, block, args(mod.device), tool=tool, leak_check=True)


@pytest.mark.parametrize("case", [c for c in CASES if c not in BEYOND])
def test_agrees_with_compute_sanitizer(case):
    report = run_case(case)
    expected = golden(case)
    assert parse(str(report)) == expected
    assert report.ok == (not expected)


@pytest.mark.parametrize("case", sorted(BEYOND))
def test_beyond_compute_sanitizer(case):
    """compute-sanitizer reports nothing on these (its goldens say so); ptxvm finds the bug."""
    assert golden(case) == Counter()
    count, headline, line = BEYOND[case]
    report = run_case(case)
    assert len(report.errors) == count
    for r in report.errors:
        assert (r.kind if headline == "race" else r.headline).startswith(headline)
        assert r.where.line == line


def test_goldens_cover_every_case():
    recorded = {p.name.split(".")[0] for p in GOLDENS.glob("*.*.txt")} - {"versions", "build"}
    assert recorded == set(CASES)
