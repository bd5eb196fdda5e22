"""kernel.sanitize and `ptxvm sanitize`: the report's API, what happens to the caller's arrays,
the CLI's exit status and JSON, and cases the planted suite does not cover."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ptxvm
from ptxvm.cli import main
from ptxvm.engine.core.machine import Context

PTX = Path(__file__).parent / "planted.ptx"

LOOP_THEN_SYNC = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry loop_then_sync(.param .u64 out)
{
    .reg .u32 %r<4>;
    .reg .pred %p<2>;
    .reg .u64 %rd<4>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
L1:
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra L1;
    bar.sync 0;
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""

GENERIC_LOCAL = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry generic_oob(.param .u64 out, .param .u32 n)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    add.u32 %r3, %r2, %r1;
    mul.wide.u32 %rd2, %r3, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.u32 [%rd3], %r2;
    ret;
}
"""


@pytest.fixture(scope="module")
def planted():
    return ptxvm.load(PTX)


def test_report_api(planted):
    out = np.arange(60, dtype=np.int32)
    r = planted.kernel("oob_write").sanitize(1, 64, [out, 60])
    assert not r.ok and len(r.errors) == 1
    e = r.errors[0]
    assert (e.kind, e.space, e.size, e.thread, e.cta) == ("invalid_access", "global", 4, (60, 0, 0), (0, 0, 0))
    assert (e.where.file, e.where.line, e.where.kernel) == ("planted.cu", 11, "oob_write")
    assert e.allocation[1] == 240 and e.address == e.allocation[0] + 240
    data = json.loads(r.to_json())
    assert data["ok"] is False and data["errors"] == 1 and data["records"][0]["thread"] == [60, 0, 0]
    text = str(r)
    assert "Invalid __global__ write of size 4 bytes" in text and text.rstrip().endswith("ERROR SUMMARY: 1 error")


def test_arrays_left_as_after_a_fault(planted):
    """memcheck suppresses the bad write and the launch completes, but the caller's arrays are
    left as the unsanitized launch leaves them when it faults: untouched."""
    out = np.full(60, -1, dtype=np.int32)
    with pytest.raises(ptxvm.KernelFault):
        planted.kernel("oob_write").launch(1, 64, [out, 60])
    assert (out == -1).all()
    r = planted.kernel("oob_write").sanitize(1, 64, [out, 60])
    assert r.faulted and (out == -1).all()
    r = planted.kernel("oob_write_ok").sanitize(1, 64, [out, 60])
    assert r.ok and not r.faulted and (out == np.arange(60)).all()


def test_other_threads_go_on(planted):
    """Only the faulting lanes are suppressed: a sanitized launch of a kernel whose every thread
    reads out of bounds still runs them all (32 reports, one per thread)."""
    r = planted.kernel("oob_read").sanitize(1, 32, [np.zeros(32, np.int32), np.arange(60, dtype=np.int32), 60])
    assert sorted(e.thread[0] for e in r.errors) == list(range(32))


def test_unsuppressed_fault_becomes_a_record(planted):
    """Under racecheck an out-of-bounds write faults as it would unsanitized: the report says so."""
    r = planted.kernel("oob_write").sanitize(1, 64, [np.zeros(60, np.int32), 60], tool="racecheck")
    assert not r.ok and r.errors[0].kind == "fault" and r.errors[0].thread == (60, 0, 0) and r.faulted


def test_unknown_tool(planted):
    with pytest.raises(ValueError, match="unknown sanitizer tool"):
        planted.kernel("oob_write").sanitize(1, 1, [np.zeros(1, np.int32), 0], tool="leakcheck")


def test_leak_check_off_by_default(planted):
    assert planted.kernel("heap_leak").sanitize(1, 32, [np.zeros(8, np.uint64)]).ok
    r = planted.kernel("heap_leak").sanitize(1, 32, [np.zeros(8, np.uint64)], leak_check=True)
    assert [e.kind for e in r.errors] == ["leak"] and r.errors[0].size == 64 and not r.faulted


def test_initcheck_remembers_what_a_launch_wrote(planted):
    """A device_array written by a sanitized launch is initialized for the next one; one that no
    launch wrote is not; one passed to an unsanitized launch counts as written."""
    dev = planted.device
    a = dev.device_array(60, np.int32)
    assert planted.kernel("oob_write_ok").sanitize(1, 64, [a, 60], tool="initcheck").ok
    out = np.zeros(128, np.int32)
    assert planted.kernel("uninit_global").sanitize(1, 32, [out, a], tool="initcheck").ok
    b = dev.device_array(32, np.int32)
    assert len(planted.kernel("uninit_global").sanitize(1, 32, [out, b], tool="initcheck").errors) == 32
    c = dev.device_array(32, np.int32)
    planted.kernel("uninit_global").launch(1, 32, [out, c])
    assert planted.kernel("uninit_global").sanitize(1, 32, [out, c], tool="initcheck").ok


def test_loop_before_barrier_is_not_divergent():
    """Lanes of a warp that leave a loop at different iterations reach the barrier at different
    scheduler steps; that is convergent code, no synccheck error."""
    k = ptxvm.loads(LOOP_THEN_SYNC).kernel("loop_then_sync")
    out = np.zeros(64, np.uint32)
    r = k.sanitize(1, 64, [out], tool="synccheck")
    assert r.ok, str(r)
    assert (out == np.maximum(np.arange(64), 1)).all()


def test_generic_address_out_of_bounds():
    k = ptxvm.loads(GENERIC_LOCAL).kernel("generic_oob")
    r = k.sanitize(1, 8, [np.zeros(8, np.int32), 6])
    assert sorted(e.thread[0] for e in r.errors) == [2, 3, 4, 5, 6, 7]
    assert all(e.headline == "Invalid __global__ write of size 4 bytes" for e in r.errors)
    assert r.errors[0].where.file.endswith(".ptx") or r.errors[0].where.file == "<string>"


def test_unobserved_launch_has_no_hooks(planted):
    """The fast path: a plain launch runs with ctx.hooks None (one test per step, none per lane)."""
    assert Context(1, []).hooks is None


# ---------------------------------------------------------------------------- CLI


def test_cli_exit_status_and_text(tmp_path):
    a = tmp_path / "a.npy"
    np.save(a, np.full(60, -1, dtype=np.int32))
    run = CliRunner().invoke(main, ["sanitize", "--tool", "memcheck", str(PTX), "-k", "oob_write", "-g", "1", "-b", "64",
                                    "-a", f"inout:{a}", "-a", "s32:60"])
    assert run.exit_code == 1
    assert "at oob_write+" in run.output and "in planted.cu:11" in run.output and "by thread (60,0,0) in block (0,0,0)" in run.output
    assert (np.load(a) == -1).all()  # faulted: nothing written back
    run = CliRunner().invoke(main, ["sanitize", str(PTX), "-k", "oob_write_ok", "-b", "64", "-a", f"inout:{a}", "-a", "s32:60"])
    assert run.exit_code == 0 and "ERROR SUMMARY: 0 errors" in run.output
    assert (np.load(a) == np.arange(60)).all()


def test_cli_json_and_device_memory(tmp_path):
    run = CliRunner().invoke(main, ["sanitize", "--tool", "initcheck", "--json", str(PTX), "-k", "uninit_global", "-b", "32",
                                    "-a", f"out:{tmp_path / 'o.npy'}:s32:128", "-a", "dev:s32:32"])
    assert run.exit_code == 1
    data = json.loads(run.output)
    assert data["errors"] == 32 and data["records"][0]["where"]["line"] == 141


def test_cli_racecheck_and_leak_check(tmp_path):
    o = tmp_path / "o.npy"
    run = CliRunner().invoke(main, ["sanitize", "--tool", "racecheck", str(PTX), "-k", "race_waw", "-b", "64", "-a", f"out:{o}:s32:128"])
    assert run.exit_code == 1 and "[32 hazards]" in run.output and "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)" in run.output
    run = CliRunner().invoke(main, ["sanitize", "--leak-check", "full", str(PTX), "-k", "heap_leak", "-b", "32", "-a", f"out:{o}:u64:8"])
    assert run.exit_code == 1 and "Leaked 64 bytes at 0x" in run.output and "on the device heap" in run.output


def test_cli_bad_input(tmp_path):
    run = CliRunner().invoke(main, ["sanitize", str(PTX), "-k", "nope", "-b", "32"])
    assert run.exit_code == 1 and "Traceback" not in run.output
    run = CliRunner().invoke(main, ["sanitize", str(PTX), "-k", "uninit_global", "-a", "dev:s32"])
    assert run.exit_code != 0 and "dev:DTYPE:COUNT" in run.output


COUNTED_BARRIER = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry counted(.param .u32 mine, .param .u32 theirs)
{
    .reg .u32 %r<6>;
    .reg .pred %p<2>;
    ld.param.u32 %r1, [mine];
    ld.param.u32 %r2, [theirs];
    mov.u32 %r3, %tid.x;
    setp.lt.u32 %p1, %r3, 32;
    selp.u32 %r4, %r1, %r2, %p1;
    bar.sync 1, %r4;
    ret;
}
"""


@pytest.mark.parametrize("mine, theirs, errors", [(64, 64, 0), (64, 96, 32), (48, 48, 64)])
def test_barrier_thread_counts(mine, theirs, errors):
    """Warp 0 arrives with `mine`, warp 1 with `theirs`: a disagreement is one error per thread
    whose count differs from the first; a count that is no multiple of 32 one per thread."""
    k = ptxvm.loads(COUNTED_BARRIER).kernel("counted")
    r = k.sanitize(1, 64, [mine, theirs], tool="synccheck")
    found = [e for e in r.errors if e.kind == "barrier_count"]
    assert len(found) == errors
    assert all(e.headline == "Barrier error detected. Mismatched thread count." for e in found)
    # the barrier then waits for a count that never arrives: the engine's deadlock fault ends the launch
    assert [e.kind for e in r.errors if e not in found] == (["fault"] if theirs == 96 else [])


BROADCAST_THEN_WRITE = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry broadcast_then_write(.param .u64 out, .param .u32 sync)
{
    .shared .align 4 .b32 s[64];
    .reg .u32 %r<6>;
    .reg .pred %p<3>;
    .reg .u64 %rd<4>;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r5, s;
    add.u32 %r2, %r2, %r5;
    st.shared.u32 [%r2], %r1;
    bar.sync 0;
    ld.shared.u32 %r3, [s];
    ld.param.u32 %r4, [sync];
    setp.ne.u32 %p2, %r4, 0;
    @%p2 bar.sync 0;
    setp.eq.u32 %p1, %r1, 63;
    @%p1 st.shared.u32 [s], %r1;
    ret;
}
"""


@pytest.mark.parametrize("sync, hazards", [(0, 4), (1, 0)])
def test_write_after_broadcast_read(sync, hazards):
    """Every thread reads s[0], then thread 63 writes it: a write-after-read hazard on its 4 bytes
    unless a barrier separates them, though thread 63 itself was the last of the readers."""
    k = ptxvm.loads(BROADCAST_THEN_WRITE).kernel("broadcast_then_write")
    r = k.sanitize(1, 64, [np.zeros(4, np.int32), sync], tool="racecheck")
    assert sum(e.hazards for e in r.errors if e.access == "WAR") == hazards
    assert len(r.errors) == (1 if hazards else 0)


MIXED_SIZES = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry mixed_sizes(.param .u32 sync)
{
    .shared .align 4 .b8 s[64];
    .reg .u32 %r<8>;
    .reg .pred %p<3>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r5, s;
    st.shared.u32 [%r5+32], %r1;
    bar.sync 0;
    add.u32 %r2, %r1, %r5;
    st.shared.u8 [%r2], %r1;
    ld.param.u32 %r4, [sync];
    setp.ne.u32 %p2, %r4, 0;
    @%p2 bar.sync 0;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 ld.shared.u32 %r3, [%r5+4];
    ret;
}
"""


@pytest.mark.parametrize("sync, hazards", [(0, 4), (1, 0)])
def test_byte_writes_and_word_reads(sync, hazards):
    """64 threads write the 64 bytes of s one each (four threads share a word: no hazard), thread 0
    then reads the word of bytes 4..7: four read-after-write hazards unless a barrier separates them.
    (Before that every thread wrote the word at s+32: a write-after-write hazard among those 64
    stores; the byte stores to that word come after a barrier and split it into bytes.)"""
    k = ptxvm.loads(MIXED_SIZES).kernel("mixed_sizes")
    r = k.sanitize(1, 64, [sync], tool="racecheck")
    raw = [e for e in r.errors if e.access == "RAW"]
    assert sum(e.hazards for e in raw) == hazards
    assert [e.access for e in r.errors if e.access != "RAW"] == ["WAW"]  # the 64 word stores at s+32


LOCAL_ARRAY = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry local_array(.param .u64 out, .param .u32 filled)
{
    .local .align 4 .b8 a[32];
    .reg .u32 %r<8>;
    .reg .pred %p<2>;
    .reg .u64 %rd<6>;
    ld.param.u32 %r1, [filled];
    mov.u32 %r2, 0;
    mov.u64 %rd1, a;
FILL:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra DONE;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.local.u32 [%rd3], %r2;
    add.u32 %r2, %r2, 1;
    bra FILL;
DONE:
    mov.u32 %r3, %tid.x;
    and.b32 %r4, %r3, 7;
    mul.wide.u32 %rd2, %r4, 4;
    add.u64 %rd3, %rd1, %rd2;
    ld.local.u32 %r5, [%rd3];
    ld.param.u64 %rd4, [out];
    mul.wide.u32 %rd2, %r3, 4;
    add.u64 %rd5, %rd4, %rd2;
    st.global.u32 [%rd5], %r5;
    ret;
}
"""


@pytest.mark.parametrize("filled, errors", [(8, 0), (4, 16)])
def test_uninitialized_local_memory(filled, errors):
    """Each thread fills the first `filled` words of its .local array, then reads word tid % 8:
    beyond compute-sanitizer, initcheck reports the threads whose word was never written."""
    k = ptxvm.loads(LOCAL_ARRAY).kernel("local_array")
    r = k.sanitize(1, 32, [np.zeros(32, np.uint32), filled], tool="initcheck")
    assert len(r.errors) == errors
    assert all(e.headline == "Uninitialized __local__ memory read of size 4 bytes" and e.thread[0] % 8 >= 4
               for e in r.errors)


@pytest.mark.parametrize("name, hazards", [("race_raw_ok", 0), ("race_raw", 300 * 256)])
def test_several_waves(planted, name, hazards):
    """100 KiB of dynamic shared memory per CTA leaves room for 264 resident CTAs, so 300 CTAs run
    in two waves that reuse CTA slots: shadows and epochs start fresh for the second wave. (Every
    CTA also writes out[0..63], every CTA the same values: no write-after-write hazard on global
    memory, as compute-sanitizer counts none for a store of the bytes memory already holds.)"""
    r = planted.kernel(name).sanitize(300, 64, [np.zeros(128, np.int32), np.arange(64, dtype=np.int32)],
                                      tool="racecheck", shared_mem=100 * 1024)
    shared = [e for e in r.errors if e.space == "shared"]
    assert sum(e.hazards for e in shared) == hazards and len(shared) == (1 if hazards else 0)
    assert not [e for e in r.errors if e.space != "shared"]
