"""The persistent worker pool (parallel/pool.py, PTXVM_POOL=1): workers forked once and re-used
across launches give the single process's bytes; a worker that dies makes the launch run again in
one process and the next launch start a fresh pool; nothing is left running after a shutdown, an
interrupt or the end of the process; a process forked from one with a pool neither uses its
workers nor shares its global memory."""
from __future__ import annotations

import os
import pathlib
import platform
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import ptxvm
from parallel_launches import needs_pool, vadd
from ptxvm.errors import DataRaceWarning, KernelFault
from ptxvm.parallel import pool

pytestmark = needs_pool

KERNELS = pathlib.Path(__file__).with_name("kernels.ptx")
ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def pooled(monkeypatch):
    monkeypatch.setenv("PTXVM_PARALLEL_MIN_WORK", "0")
    monkeypatch.setenv("PTXVM_POOL", "1")
    monkeypatch.delenv("PTXVM_START_METHOD", raising=False)
    pool.shutdown()
    _BEFORE[:] = _all_children()  # a multiprocessing resource tracker other tests started, say
    yield
    pool.shutdown()
    assert _children() == []


_BEFORE: list = []


def _all_children():
    path = pathlib.Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    return path.read_text().split() if path.exists() else []


def _children():
    """This process's child processes started during the test."""
    return [c for c in _all_children() if c not in _BEFORE]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not running
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_the_pool_is_started_once_and_reused_with_identical_bytes():
    ref, _ = vadd(1)
    assert pool.current() is None  # lazily: no launch split yet
    c, st = vadd(3)
    assert st.workers == 3 and st.serial_reason == "" and c.tobytes() == ref.tobytes()
    pids = pool.current().pids()
    assert len(pids) == 3  # one worker per shard
    for workers in (3, 2, 3):
        c, st = vadd(workers)
        assert st.workers == workers and c.tobytes() == ref.tobytes()
        assert len(st.worker_cpu) == workers
    assert pool.current().pids() == pids  # the same processes served every launch
    vadd(5)
    assert pool.current().pids()[:3] == pids and len(pool.current().pids()) == 5  # grown, not restarted


def _atomics_args(data, n):
    stats = np.zeros(10, np.uint32)
    stats[2:4] = 0xFFFFFFFF  # min u64 starts high
    stats[5] = 0xFFFFFFFF  # the and-word
    stats[8], stats[9] = 5, 3  # inc and dec counters inside their ranges
    return [data, np.zeros(64, np.uint32), stats, n]


def test_different_programs_and_modules_through_one_pool():
    mod = ptxvm.load(KERNELS)
    n = 1 << 12
    data = np.random.default_rng(3).integers(0, 1 << 31, n).astype(np.uint32)
    ref = _atomics_args(data, n)
    mod["atomics"].launch(n // 64, 64, ref, workers=1)
    x = np.linspace(-1, 1, n).astype(np.float32)
    ref_out = np.zeros(n, np.float32)
    mod["stencil"].launch(n // 128, 128, [x, ref_out, n], workers=1)
    for _ in range(2):
        got = _atomics_args(data, n)
        assert mod["atomics"].launch(n // 64, 64, got, workers=2).workers == 2
        assert got[1].tobytes() == ref[1].tobytes() and got[2].tobytes() == ref[2].tobytes()
        out = np.zeros(n, np.float32)
        assert mod["stencil"].launch(n // 128, 128, [x, out, n], workers=2).workers == 2
        assert out.tobytes() == ref_out.tobytes()
        ref_c, _ = vadd(1)
        c, st = vadd(2)  # another module (and its own memory) on the same workers
        assert st.workers == 2 and c.tobytes() == ref_c.tobytes()
    assert len(pool.current().pids()) == 2


def test_device_memory_that_grows_between_launches():
    mod = ptxvm.load(KERNELS)
    ref, _ = vadd(1, mod=mod)
    vadd(2, mod=mod)
    big = ptxvm.to_device(np.ones(8 << 20, np.uint8))  # the arena grows: shared again, once
    n = 1 << 16
    ref, _ = vadd(1, n=n, mod=mod)
    c, st = vadd(2, n=n, mod=mod)
    assert st.workers == 2 and c.tobytes() == ref.tobytes()
    assert big.copy_to_host().sum() == 8 << 20 if hasattr(big, "copy_to_host") else True


def test_in_place_update_of_a_device_array_on_the_pool():
    """a += b twice on a device array: each launch sees the previous one's merged result."""
    n = 1 << 14
    a = ptxvm.to_device(np.arange(n, dtype=np.float32))
    b = np.full(n, 0.5, np.float32)
    mod = ptxvm.load(KERNELS)
    for _ in range(2):
        assert mod["vadd"].launch(n // 128, 128, [a, b, a, n], workers=2).workers == 2
    got = a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)
    assert got.tobytes() == (np.arange(n, dtype=np.float32) + 1.0).tobytes()


def test_races_and_faults_as_without_the_pool():
    mod = ptxvm.load(KERNELS)
    out = np.zeros(1 + 8 * 32, np.uint32)
    with pytest.warns(DataRaceWarning, match="data race in kernel 'racy'"):
        st = mod["racy"].launch(8, 32, [out], workers=2)
    assert st.workers == 1
    out = np.full(8 * 32, 5, np.uint32)
    with pytest.raises(KernelFault) as pooled_fault:
        mod["faulty"].launch(8, 32, [out, 6], workers=2)
    with pytest.raises(KernelFault) as single:
        mod["faulty"].launch(8, 32, [out, 6], workers=1)
    assert str(pooled_fault.value) == str(single.value)
    assert (out == 5).all()
    pids = pool.current().pids()
    c, st = vadd(2)  # a fault in a worker is the kernel's, not the pool's: the pool stays
    assert st.workers == 2 and pool.current().pids() == pids


def test_a_killed_worker_falls_back_and_the_next_launch_starts_a_fresh_pool():
    ref, _ = vadd(1)
    vadd(3)
    old = pool.current().pids()
    os.kill(old[1], signal.SIGKILL)  # as the OOM killer would, between launches
    c, st = vadd(3)
    assert st.workers == 1 and "pool worker" in st.serial_reason and c.tobytes() == ref.tobytes()
    assert pool.current() is None and not any(_alive(p) for p in old)  # discarded, reaped
    c, st = vadd(3)
    assert st.workers == 3 and c.tobytes() == ref.tobytes()
    assert not set(pool.current().pids()) & set(old)


def test_a_worker_killed_mid_launch(monkeypatch):
    real = pool.run_shard

    def dying(launch, index, *a, **k):
        if index == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(launch, index, *a, **k)

    monkeypatch.setattr(pool, "run_shard", dying)  # before the pool starts: its workers inherit it
    ref, _ = vadd(1)
    c, st = vadd(4)
    assert st.workers == 1 and "ended before sending" in st.serial_reason and c.tobytes() == ref.tobytes()
    assert pool.current() is None and _children() == []


def test_an_interrupt_discards_the_pool_and_leaves_the_arrays(monkeypatch):
    real = pool.run_shard

    def slow(launch, index, *a, **k):
        if index:
            signal.pause()  # a worker that would never finish on its own
        return real(launch, index, *a, **k)

    monkeypatch.setattr(pool, "run_shard", slow)
    n = 1 << 14
    a = np.arange(n, dtype=np.float32)
    c = np.full(n, 7, np.float32)

    def progress(done):
        raise KeyboardInterrupt  # ^C while the workers run

    with pytest.raises(KeyboardInterrupt):
        ptxvm.load(KERNELS)["vadd"].launch(n // 128, 128, [a, a, c, n], workers=4, progress=progress)
    assert (c == 7).all()
    assert pool.current() is None and _children() == []


def test_shutdown_leaves_no_process():
    vadd(4)
    pids = pool.current().pids()
    assert all(_alive(p) for p in pids)
    pool.shutdown()
    assert not any(_alive(p) for p in pids) and _children() == []


def test_no_worker_outlives_the_process():
    code = ("import os, numpy as np, ptxvm; from ptxvm.parallel import pool; "
            f"m = ptxvm.load({str(KERNELS)!r}); n = 1 << 14; a = np.ones(n, np.float32); "
            "st = m['vadd'].launch(n // 128, 128, [a, a, a, n], workers=3); "
            "print(st.workers, *pool.current().pids())")
    env = dict(os.environ, PTXVM_POOL="1", PTXVM_PARALLEL_MIN_WORK="0", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                         check=True, cwd=ROOT).stdout.split()
    assert out[0] == "3" and len(out) == 4
    deadline = time.monotonic() + 10
    while any(_alive(int(p)) for p in out[1:]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(int(p)) for p in out[1:])


def test_a_forked_child_forgets_the_pool_and_has_its_own_memory():
    n = 1 << 14
    a = ptxvm.to_device(np.zeros(n, np.float32))
    b = np.ones(n, np.float32)
    mod = ptxvm.load(KERNELS)
    mod["vadd"].launch(n // 128, 128, [a, b, a, n], workers=2)  # the arena is now a shared file
    assert pool.current() is not None
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pool of its own yet; its launches write its own memory
        status = 1
        try:
            ok = pool.current() is None
            mod["vadd"].launch(n // 128, 128, [a, b, a, n], workers=1)
            os.write(w, b"1" if ok else b"0")
            status = 0
        finally:
            os._exit(status)
    os.close(w)
    assert os.read(r, 1) == b"1"
    os.close(r)
    assert os.waitpid(pid, 0)[1] == 0
    got = a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)
    assert (got == 1).all()  # the child's launch (2.0) did not reach the parent's memory
    c, st = vadd(2)  # and the parent's pool still serves it
    assert st.workers == 2


TEX_KERNEL = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 h, .param .u64 xs, .param .u64 o, .param .u32 n)
{
 .reg .pred %p; .reg .b32 %r<8>; .reg .f32 %c<2>; .reg .f32 %f<4>; .reg .b64 %rd<12>;
 ld.param.u64 %rd1, [h]; ld.param.u64 %rd2, [xs]; ld.param.u64 %rd5, [o]; ld.param.u32 %r1, [n];
 mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r5, %tid.x; mad.lo.s32 %r4, %r2, %r3, %r5;
 setp.ge.u32 %p, %r4, %r1; @%p bra DONE;
 mul.wide.u32 %rd6, %r4, 4; add.s64 %rd7, %rd2, %rd6; ld.global.f32 %c0, [%rd7];
 mov.f32 %c1, 0f3F000000;
 tex.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [%rd1, {%c0, %c1}];
 add.s64 %rd8, %rd5, %rd6; st.global.f32 [%rd8], %f0;
DONE:
 ret;
}
"""


def test_texture_objects_split_by_forking_beside_the_pool():
    """The pool's workers lack this process's texture objects: such a launch is forked per launch
    (not run in one process), with the single process's bytes."""
    t = ptxvm.texture_object(np.array([[0.0, 1.0, 2.0], [10.0, 20.0, 40.0]], np.float32), filter_mode="linear")
    n = 512
    xs = np.linspace(-1, 4, n).astype(np.float32)
    k = ptxvm.loads(TEX_KERNEL, "tex.ptx")["k"]
    ref, got = np.zeros(n, np.float32), np.zeros(n, np.float32)
    k.launch(n // 128, 128, [t, xs, ref, np.uint32(n)], workers=1)
    vadd(2)  # a pool exists and the default device's arena is shared
    st = k.launch(n // 128, 128, [t, xs, got, np.uint32(n)], workers=2)
    assert st.workers == 2 and got.tobytes() == ref.tobytes()
    c, st = vadd(2)  # and the pool still serves the next launch
    assert st.workers == 2


def test_threads_launching_side_by_side_share_the_pool_one_launch_at_a_time():
    import threading

    ref, _ = vadd(1)
    vadd(2)  # the arena shared before the threads start (sharing it, like growing it, copies it)
    got, errors = [], []

    def launch():
        try:
            got.append(vadd(2))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=launch) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert [st.workers for _, st in got] == [2, 2, 2], [st.serial_reason for _, st in got]
    assert all(c.tobytes() == ref.tobytes() for c, _ in got)


_FAULTS = r'''
import resource, sys, numpy as np
from ptxvm.parallel import pool
pool._keep_freed_memory()
out = []
for i in range(4):
    f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    a = np.ones(24 << 18, np.float32)  # 24 MiB, every page written
    del a
    out.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
print(out)
'''


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the kept heap is glibc's mallopt")
def test_a_pool_worker_keeps_freed_memory_for_its_next_wave():
    """After _keep_freed_memory (what a pool worker calls once forked), an array freed and made
    again comes from the kept heap: no page faults after the first (glibc's default maps a 24 MiB
    array afresh or trims it: hundreds of faults the second time)."""
    import ast

    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[2]))
    out = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True, env=env, check=True)
    first, *again = ast.literal_eval(out.stdout.strip())
    assert first > 0
    assert all(n <= max(8, first // 20) for n in again), (first, again)


def test_workers_keep_the_programs_of_launches_that_alternate(monkeypatch):
    """Two modules launched in turn: each worker lowers each program once and keeps both
    (image.PROGRAMS_KEPT), so from the second round on it gets the launch without the syntax tree
    and still runs it (a worker lacking the program would fail the launch back to one process)."""
    from ptxvm.parallel import image

    sent = []
    real = image.held

    def held(programs, key):
        light = real(programs, key)
        sent.append(light)
        return light

    monkeypatch.setattr(image, "held", held)
    first, second = ptxvm.load(KERNELS), ptxvm.load(KERNELS.read_text().replace("vadd", "vadd2"))
    ref, _ = vadd(1, mod=first)
    for _ in range(3):
        for mod in (first, second):
            n = 1 << 14
            a, b = np.arange(n, dtype=np.float32), np.full(n, 0.25, np.float32)
            c = np.full(n, 7, np.float32)
            name = "vadd" if mod is first else "vadd2"
            assert mod[name].launch(n // 128, 128, [a, b, c, n], workers=2).workers == 2
            assert c.tobytes() == ref.tobytes()
    assert sent == [False] * 4 + [True] * 8  # two workers: the first round whole, then without the tree
    assert all(len(w.programs) == 2 for w in pool.current().workers)


def test_a_worker_keeps_the_last_programs_in_launch_order():
    from ptxvm.parallel.image import PROGRAMS_KEPT, held

    programs: list = []
    keys = [f"k{i}" for i in range(PROGRAMS_KEPT + 1)]
    assert [held(programs, k) for k in keys[:PROGRAMS_KEPT]] == [False] * PROGRAMS_KEPT
    assert held(programs, keys[0]) is True  # used again: now the most recent
    assert held(programs, keys[-1]) is False  # a new one: the least recent (k1) goes
    assert programs == keys[2:PROGRAMS_KEPT] + [keys[0], keys[-1]]
    assert held(programs, keys[1]) is False
