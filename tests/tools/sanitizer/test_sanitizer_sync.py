"""Synchronization beyond CTA barriers: racecheck through mbarriers, asynchronous-copy completion
and fences with a flag; synccheck's "Divergent thread(s) in block". Each planted bug of
planted_sync.cu has a clean twin that must report nothing.

tests/goldens/sanitizer_sync/CASE.TOOL.txt is what compute-sanitizer 2025.3.1 printed for each case on
the H200 (tools/device/record_sanitizer_sync.sh, run_planted_sync.cu launching as here); both
outputs go through test_sanitizer_planted's parser."""
from __future__ import annotations

import functools
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import ptxvm

from test_sanitizer_planted import parse

HERE = Path(__file__).parent
PTX = HERE / "planted_sync.ptx"
SRC = "planted_sync.cu"
GOLDENS = HERE.parents[1] / "goldens" / "sanitizer_sync"


def _ints(n):
    return np.arange(n, dtype=np.int32)


@functools.lru_cache(maxsize=None)
def planted():
    return ptxvm.load(PTX)


# case: (tool, arguments); every case runs one CTA of 64 threads, as run_planted_sync.cu launches it
CASES = {
    "mbar_race": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "mbar_race_ok": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "cp_async_race": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "cp_async_race_ok": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "cp_async_early": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "bulk_race": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "bulk_race_ok": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "fence_flag": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "fence_flag_ok": ("racecheck", lambda: [_ints(128), _ints(64)]),
    "divergent_block": ("synccheck", lambda: [_ints(128)]),
    "divergent_block_ok": ("synccheck", lambda: [_ints(128)]),
    "exit_before_barrier": ("synccheck", lambda: [_ints(128)]),
}

# the planted races: (write line, read line, hazards, severity) of planted_sync.cu; read-after-write
RACES = {
    "mbar_race": (50, 53, 128, "error"),  # warp 1 reads without waiting on the mbarrier warp 0 arrived on
    "cp_async_race": (29, 79, 256, "error"),  # the other warp's cp.async, waited for by that warp only
    "cp_async_early": (29, 96, 256, "warning"),  # its own cp.async destination, before cp.async.wait_group
    "bulk_race": (39, 115, 256, "error"),  # a bulk copy's destination, before the mbarrier wait
    "fence_flag": (144, 151, 128, "error"),  # data published by a flag without the release fence
}
CLEAN = [c for c in CASES if c.endswith("_ok")] + ["exit_before_barrier"]

# compute-sanitizer's output, case by case:
# - the same records (kind, source lines, hazard counts, threads) as ptxvm's:
AGREE = ["mbar_race_ok", "cp_async_race", "cp_async_race_ok", "cp_async_early", "bulk_race", "bulk_race_ok",
         "divergent_block", "divergent_block_ok", "exit_before_barrier"]
# - the same pair of lines and hazard count, named in the other order: on the H200 the reading warp
#   got there first (a write-after-read), in ptxvm's schedule the writing warp did
SAME_PAIR = ["mbar_race", "fence_flag"]
# - compute-sanitizer reports a race where the fence-and-flag protocol orders the accesses (it does
#   not follow fences); ptxvm reports none
CS_FALSE_RACE = ["fence_flag_ok"]


def run(case):
    tool, args = CASES[case]
    values = args()
    report = planted()[case].sanitize(1, 64, values, tool=tool)
    return report, values


@pytest.mark.parametrize("case", sorted(RACES))
def test_planted_race_is_reported(case):
    report, _ = run(case)
    write, read, hazards, severity = RACES[case]
    assert len(report.records) == 1 and len(report.errors) == (severity == "error"), str(report)
    r = report.records[0]
    assert (r.kind, r.access, r.space, r.severity) == ("race", "RAW", "shared", severity)
    assert (r.other.file, r.other.line, r.where.file, r.where.line) == (SRC, write, SRC, read)
    assert r.hazards == hazards


@pytest.mark.parametrize("case", CLEAN)
def test_clean_twin_reports_nothing(case):
    report, values = run(case)
    assert report.ok and not report.records, str(report)
    out = values[0]
    if case in ("mbar_race_ok", "bulk_race_ok", "fence_flag_ok", "cp_async_race_ok"):
        data = np.arange(64, dtype=np.int32)
        if case == "cp_async_race_ok":
            assert np.array_equal(out[:64], np.roll(data, -32))
        elif case == "bulk_race_ok":
            assert np.array_equal(out[:64], data)
        else:
            assert np.array_equal(out[32:64], data[:32])


def test_divergent_block_names_the_threads_already_waiting():
    """Warp 0 waits at the first __syncthreads when warp 1 reaches the second: warp 0's 32
    threads are divergent, at their barrier (compute-sanitizer stops the kernel there)."""
    report, _ = run("divergent_block")
    errors = report.errors
    assert len(errors) == 32
    assert {r.headline for r in errors} == {"Barrier error detected. Divergent thread(s) in block."}
    assert sorted(r.thread[0] for r in errors) == list(range(32)) and {r.where.line for r in errors} == {181}
    assert "ERROR SUMMARY: 32 errors" in str(report)


def _golden(case):
    tool = CASES[case][0]
    path = GOLDENS / f"{case}.{tool}.txt"
    if not path.exists():
        pytest.skip(f"no compute-sanitizer golden for {case}")
    return parse(_plain_functions(path.read_text()))


def _plain_functions(text):
    """compute-sanitizer names an inlined function with its C++ signature ("copy4(int *, const
    int *)+0xd0"), ptxvm the kernel; only the source file:line is compared."""
    return re.sub(r"access at .+? in (\S+:\d+)", r"access at F in \1", text)


def _ours(case):
    report, _ = run(case)
    return parse(_plain_functions(str(report)))


@pytest.mark.parametrize("case", AGREE)
def test_agrees_with_compute_sanitizer(case):
    assert _ours(case) == _golden(case)


def _pairs(records: Counter) -> Counter:
    """Race records as (severity, unordered pair of source lines, hazards)."""
    out = Counter()
    for rec, n in records.items():
        (_, severity, _, file1, line1), (_, file2, line2, hazards) = rec
        out[(severity, frozenset([(file1, line1), (file2, line2)]), hazards)] += n
    return out


@pytest.mark.parametrize("case", SAME_PAIR)
def test_same_race_as_compute_sanitizer_in_the_other_order(case):
    ours, theirs = _ours(case), _golden(case)
    assert ours != theirs and _pairs(ours) == _pairs(theirs)


@pytest.mark.parametrize("case", CS_FALSE_RACE)
def test_fence_and_flag_order_what_compute_sanitizer_reports(case):
    assert _golden(case) and not _ours(case)


def test_goldens_cover_every_case():
    recorded = {p.name.split(".")[0] for p in GOLDENS.glob("*.*.txt")} - {"versions", "build"}
    assert recorded == set(CASES) == set(AGREE + SAME_PAIR + CS_FALSE_RACE)


GROUPS = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry groups(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 buf[512];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r2;
  ld.param.u64 %rd1, [in];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  cp.async.ca.shared.global [%r3], [%rd3], 4;
  cp.async.commit_group;
  cp.async.ca.shared.global [%r3+256], [%rd3], 4;
  cp.async.commit_group;
  bar.sync 0;
  ld.shared.u32 %r4, [%r3];
  cp.async.wait_group 1;
  ld.shared.u32 %r5, [%r3];
  ld.shared.u32 %r6, [%r3+256];
  cp.async.wait_all;
  ld.shared.u32 %r7, [%r3+256];
  add.u32 %r4, %r4, %r5;
  add.u32 %r4, %r4, %r6;
  add.u32 %r4, %r4, %r7;
  ld.param.u64 %rd4, [out];
  cvta.to.global.u64 %rd4, %rd4;
  add.s64 %rd5, %rd4, %rd2;
  st.global.u32 [%rd5], %r4;
  ret;
}
"""


def test_cp_async_groups_complete_at_their_wait():
    """A CTA barrier completes no copy; wait_group 1 completes all but the newest group; wait_all
    the rest. Each thread reads only its own destinations (warnings, as compute-sanitizer reports
    cp_async_early)."""
    out = np.zeros(64, np.int32)
    report = ptxvm.loads(GROUPS)["groups"].sanitize(1, 64, [out, _ints(64)], tool="racecheck")
    lines = {line: n for n, line in enumerate(GROUPS.splitlines(), 1)}
    read_of = {n: text.strip() for text, n in lines.items()}
    races = sorted((read_of[r.other.line], read_of[r.where.line], r.hazards) for r in report.records)
    assert {r.severity for r in report.records} == {"warning"}  # a thread's own copies, as in cp_async_early
    assert races == [("cp.async.ca.shared.global [%r3+256], [%rd3], 4;", "ld.shared.u32 %r6, [%r3+256];", 256),
                     ("cp.async.ca.shared.global [%r3], [%rd3], 4;", "ld.shared.u32 %r4, [%r3];", 256)]
    assert np.array_equal(out, 4 * np.arange(64))


def test_unclocked_kernels_keep_barrier_epochs_only():
    """Kernels without mbarriers, asynchronous copies or fences do not pay for the clocks."""
    from ptxvm.tools.sanitizer.session import Sanitizer

    s = Sanitizer(planted()["divergent_block_ok"], "racecheck", False)
    assert not s.checker.clocked
    s = Sanitizer(planted()["fence_flag_ok"], "racecheck", False)
    assert s.checker.clocked


NAMED = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry named(.param .u64 out)
{
  .reg .pred %p1;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W0;
  bar.sync 2, 64;
  bra.uni DONE;
W0:
  bar.sync 1, 32;
  bar.arrive 2, 64;
DONE:
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  ret;
}
"""


def test_warps_at_other_named_barriers_are_not_block_divergence():
    """Warp 1 waits at barrier 2 while warp 0 completes barrier 1 alone (warp specialization):
    only the lanes a barrier releases are compared."""
    out = np.zeros(64, np.uint32)
    report = ptxvm.loads(NAMED)["named"].sanitize(1, 64, [out], tool="synccheck")
    assert report.ok and not report.records, str(report)
    assert np.array_equal(out, np.arange(64))
