"""A persistent pool of forked workers for split launches (Linux; the default there, PTXVM_POOL=0 turns it off).

The fork-per-launch executor (local.py) pays for each fork on both sides: every private page
either process writes afterwards costs a copy-on-write fault (~2.4 us per 4 KiB here), the
workers' wave arrays and NumPy temporaries included. The pool's workers are forked once, at the
first split launch that needs them, and serve launch after launch, so their heaps stay their own
and the parent does not fork at all.

* Global memory: a device whose launches the pool runs keeps its arena in a `memfd` mapped
  MAP_SHARED (`share`: copied there once, and again only if the arena grows). Per launch each
  worker (one per shard; the parent runs none) maps that file MAP_PRIVATE: it reads the launch's
  memory without a copy and its stores stay private (copy-on-write), so the arena itself is
  untouched until the merge, exactly as a forked worker's view is.
* The launch travels as a `LaunchImage` (image.py, as for spawned workers and Ray tasks); each
  worker lowers a program once and keeps it for the next launch of it.
* Results come back as from forked workers (local.send/receive) and merge the same way.
* A worker that fails to answer (killed, out of memory) or a launch interrupted in the parent
  discards the whole pool (its workers are killed and reaped) and the launch runs again in one
  process; the next split launch starts a fresh pool. The pool is shut down at exit; workers end
  at their socket's end-of-file when the parent goes (and die with it mid-shard where the pool
  was forked from the main thread: PR_SET_PDEATHSIG); a process forked from one that holds a
  pool forgets it (and maps any shared arena, which is its parent's memory too, privately).
  Launches from several threads take turns on the pool."""
from __future__ import annotations

import atexit
import ctypes
import dataclasses
import mmap
import os
import pickle
import signal
import socket
import threading
import time
import weakref
from multiprocessing.connection import Connection, wait

import numpy as np

from .shard import ShardResult, run_shard

PR_SET_PDEATHSIG = 1


def enabled() -> bool:
    """Whether local split launches use the pool: unless PTXVM_POOL is 0 (or false, no, off),
    where the system has what it needs (Linux: memfd, fork, descriptor passing)."""
    env = os.environ.get("PTXVM_POOL", "").strip().lower()
    on = env not in ("0", "false", "no", "off")
    return on and hasattr(os, "memfd_create") and hasattr(socket, "send_fds") and hasattr(os, "fork")


# ---------------------------------------------------------------- global memory in a memfd

_SHARED: "weakref.WeakSet" = weakref.WeakSet()  # GlobalMemory objects whose arena is a shared memfd mapping


class SharedArena:
    """One GlobalMemory's arena as a memfd, mapped MAP_SHARED here."""

    def __init__(self, size: int):
        self.fd = os.memfd_create("ptxvm-arena", getattr(os, "MFD_CLOEXEC", 1))
        os.ftruncate(self.fd, size)
        self.size = size
        self.map = mmap.mmap(self.fd, size, flags=mmap.MAP_SHARED)
        self.array = np.frombuffer(self.map, np.uint8)
        self.owner = os.getpid()
        self._finalizer = weakref.finalize(self, os.close, self.fd)

    def private_view(self) -> np.ndarray:
        """The file mapped MAP_PRIVATE: its bytes now, stores private (copy-on-write)."""
        return private_view(self.fd, self.size)


def private_view(fd: int, size: int) -> np.ndarray:
    """The memfd `fd` mapped MAP_PRIVATE: the launch's bytes, read without a copy (a fault per
    16 pages read); a store copies its page. (Mapping every page up front, MADV_POPULATE_READ,
    cost more than the faults it saved: 24 ms for the vector add's 256 MB against the ~8 ms of
    read faults of the half a shard reads.)"""
    m = mmap.mmap(fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    return np.frombuffer(m, np.uint8)


def share(mem) -> SharedArena:
    """Make `mem`'s arena a shared memfd mapping (a copy, once; again after the arena grew)."""
    shared = getattr(mem, "_pool_arena", None)
    if shared is not None and shared.owner == os.getpid() and mem.arena is shared.array:
        return shared
    shared = SharedArena(mem.arena.size)
    top = min(mem.arena.size, max(mem.top, getattr(mem, "written_top", mem.arena.size)) + 4096)
    shared.array[:top] = mem.arena[:top]  # the rest is zero, as the arena's is past `written_top`... and guard
    if top < mem.arena.size and mem.arena[top:].any():
        shared.array[top:] = mem.arena[top:]
    mem.arena = shared.array
    mem._pool_arena = shared
    _SHARED.add(mem)
    return shared


def unshare(mem) -> None:
    """Give `mem` a private arena again (a copy) if the pool shared it: before forking workers
    that inherit memory (local.fork_tree), which must not see the parent's shard write it."""
    shared = getattr(mem, "_pool_arena", None)
    if shared is not None and mem.arena is shared.array:
        mem.arena = np.array(shared.array)
    mem._pool_arena = None
    _SHARED.discard(mem)


def _unshare_in_child() -> None:
    """After fork, in the child: a shared arena is the parent's memory too. Map the same file
    MAP_PRIVATE over it, at the same address (MAP_FIXED: every view of the arena stays valid,
    nothing is copied): the child's stores stay its own, as with any forked memory. (Pages the
    child has not written show what the parent writes later, unlike fork's snapshot.) In a pool
    worker, which never uses the parent's devices, the arena is dropped instead."""
    for mem in list(_SHARED):
        shared = getattr(mem, "_pool_arena", None)
        if shared is None or mem.arena is not shared.array:
            continue
        if _forking_worker or not _remap_private(shared):
            mem.arena = np.zeros(0, np.uint8) if _forking_worker else np.array(shared.array)
        mem._pool_arena = None
    _SHARED.clear()


def _remap_private(shared: SharedArena) -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        addr = shared.array.ctypes.data
        got = libc.mmap(addr, shared.size, mmap.PROT_READ | mmap.PROT_WRITE,
                        mmap.MAP_PRIVATE | 0x10, shared.fd, 0)  # 0x10: MAP_FIXED
        return got == addr
    except (OSError, AttributeError):
        return False


# ---------------------------------------------------------------- the pool

class _Worker:
    def __init__(self, pid: int, sock: socket.socket, conn: Connection):
        self.pid, self.sock, self.conn = pid, sock, conn
        self.programs: list = []  # keys of the programs it holds lowered, the most recent last (image.rebuild)
        self.undo = None  # its shared_stores.UndoFiles, made at its first launch that stores in place


class Pool:
    def __init__(self):
        self.workers: list[_Worker] = []
        self.owner = os.getpid()
        self.counter = None  # the undo logs' shared sequence counter (shared_stores.new_counter)

    def grow(self, n: int) -> None:
        while len(self.workers) < n:
            self.workers.append(_start_worker(self))

    def pids(self) -> list[int]:
        return [w.pid for w in self.workers]

    def close(self, kill: bool = False) -> None:
        """Stop every worker (closing its socket ends its loop; SIGKILL if `kill` or it lingers) and reap it."""
        workers, self.workers = self.workers, []
        for w in workers:
            if kill:
                _kill(w.pid)
            for c in (w.conn, w.sock):
                try:
                    c.close()
                except OSError:
                    pass
        deadline = time.monotonic() + 2.0
        for w in workers:
            while True:
                try:
                    pid, _ = os.waitpid(w.pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if pid:
                    break
                if time.monotonic() > deadline:
                    _kill(w.pid)
                    try:
                        os.waitpid(w.pid, 0)
                    except ChildProcessError:
                        pass
                    break
                time.sleep(0.002)


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


_POOL: "Pool | None" = None
_forking_worker = False


def current() -> "Pool | None":
    return _POOL if _POOL is not None and _POOL.owner == os.getpid() else None


def get(n: int) -> Pool:
    """The pool, with at least `n` workers (started now if need be)."""
    global _POOL
    if current() is None:
        _POOL = Pool()
    _POOL.grow(n)
    return _POOL


def shutdown(kill: bool = False) -> None:
    """Stop the pool's workers (at exit; after a failure, `kill`)."""
    global _POOL
    pool = current()
    _POOL = None
    if pool is not None:
        pool.close(kill)


def _forget_in_child() -> None:
    """After fork, in the child: the pool is the parent's; close our copies of its sockets."""
    global _POOL, _BUSY
    pool, _POOL = _POOL, None
    _BUSY = threading.Lock()  # another thread may have held it when this process was forked
    if pool is not None:
        for w in pool.workers:
            for c in (w.conn, w.sock):
                try:
                    c.close()
                except OSError:
                    pass
    _unshare_in_child()


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _start_worker(pool: Pool) -> _Worker:
    global _forking_worker
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    for s in (ours, theirs):
        for opt in (socket.SO_SNDBUF, socket.SO_RCVBUF):
            try:
                s.setsockopt(socket.SOL_SOCKET, opt, 1 << 20)
            except OSError:
                pass
    parent = os.getpid()
    # PR_SET_PDEATHSIG fires when the forking *thread* ends: only from the main thread (a pool
    # started by a short-lived thread would die with it); otherwise the socket's end-of-file
    # when the parent goes (however it goes) ends the worker
    main_thread = threading.current_thread() is threading.main_thread()
    _forking_worker = True
    try:
        pid = os.fork()
    finally:
        _forking_worker = False
    if pid == 0:  # the worker: never returns
        status = 1
        try:
            ours.close()
            _die_with(parent, main_thread)
            _keep_freed_memory()
            _serve(theirs, Connection(os.dup(theirs.fileno())))
            status = 0
        except BaseException:  # noqa: BLE001 - the parent sees the socket close and reruns in one process
            pass
        finally:
            os._exit(status)
    theirs.close()
    return _Worker(pid, ours, Connection(os.dup(ours.fileno())))


def _die_with(parent: int, main_thread: bool) -> None:
    """Be killed if the parent dies while this worker runs a shard (Linux; forked from the main
    thread), so a worker is never left behind; an idle worker ends at its socket's end-of-file."""
    if main_thread:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # ^C is the parent's to handle (it kills the pool)


# glibc's mallopt parameters (malloc.h)
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3


def _keep_freed_memory() -> None:
    """Keep what the worker frees for its next wave and launch instead of giving it back to the
    system: a wave's NumPy arrays (registers, temporaries; up to 32 MiB each) come from the heap,
    not from fresh mappings, and the heap is not trimmed. Fresh pages cost a page fault each on
    first touch: 12 700 faults (~20 ms) per shard of the 16M-element vector add on 2 workers,
    none once kept (benchmarks/profile_parallel.py; docs/performance.md). The worker holds its
    peak heap between launches. glibc only; elsewhere nothing changes."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)  # glibc's largest: bigger arrays are still mapped
        libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
        libc.mallopt(M_TOP_PAD, 64 << 20)
    except (OSError, AttributeError):
        pass


def _serve(sock: socket.socket, conn: Connection) -> None:
    """A worker's loop: a launch's memfd (passed as a descriptor), then the job; run the shard,
    send its result; until the parent closes the socket."""
    from .. import jit
    from . import local, shared_stores
    from .image import rebuild

    while True:
        msg, fds, _, _ = socket.recv_fds(sock, 1, 4)
        if not msg:
            return
        image = pickle.loads(conn.recv_bytes())  # its syntax tree None when this worker holds the program
        # RAW_PIPES: as the parent reads; `resume`: this worker ran an earlier piece of the launch
        index, positions, size, limit, local.RAW_PIPES, restorable, resume = conn.recv()
        c0 = time.process_time()
        journal = None
        try:
            if msg == b"S":  # store in place (shared_stores): the arena MAP_SHARED, kept; an undo log
                arena = shared_stores.kept("arena", fds[0], size).array
                journal = shared_stores.SharedUndoJournal(arena, fds[1], shared_stores.kept("log", fds[2]),
                                                          shared_stores.kept("data", fds[3]), restorable, resume)
            else:
                arena = private_view(fds[0], size)
        except BaseException:
            for fd in fds:
                os.close(fd)
            raise
        if journal is None:
            for fd in fds:
                os.close(fd)
        try:
            with jit.override(image.jit):
                _, launch = rebuild(image)
                launch.device.budget.limit = limit
                result = run_shard(launch, index, positions, arena, copy=False, views=True, journal=journal,
                                   runs=journal is not None)
            launch.device.memory.arena = np.zeros(0, np.uint8)  # the mapping goes with this launch (a kept one stays)
            if journal is not None and result.error is None:  # the bytes are in the arena: send which, not what
                result.parts, result.stored_in_arena = None, True
        except Exception as e:  # noqa: BLE001 - the parent reruns in one process
            result = ShardResult(index, error=f"{type(e).__name__}: {e}")
        finally:
            if journal is not None:
                for fd in fds:
                    os.close(fd)
        result.cpu_seconds = time.process_time() - c0
        local.send(conn, result)
        del result, arena, journal  # a private mapping goes with its last view


# ---------------------------------------------------------------- a launch on the pool

_BUSY = threading.Lock()  # one launch at a time on the pool (threads of one process that launch side by side wait)


def run_pool(launch, shards: list[tuple[int, int]], limit: int, on_done=None, in_place: bool = False) -> list[ShardResult]:
    """run_pool_now, one launch at a time."""
    with turn():
        return run_pool_now(launch, shards, limit, on_done, in_place)


def turn():
    """The pool's lock: one launch at a time (threads of one process that launch side by side wait)."""
    return _BUSY


# Pieces per worker (PTXVM_PIECES): 1, a worker's share in one piece. More pieces, handed out as
# workers finish, even out cores of unequal speed, but each costs a launch image, a rebuild and a
# write set: on the 2-core VM 4 pieces made the 2-worker vector add slower (1.43-1.57x against
# 1.62-1.64x), and on the 16-core machine they gained nothing measurable (two alternating runs
# of each, benchmarks/results/pieces_16cores/). Kept as an option for a machine shared with
# other work.
PIECES_PER_WORKER = 1
PIPELINED_JOB = 32 << 10  # bytes of a launch image small enough to send while the worker answers


def pieces_per_worker() -> int:
    """PTXVM_PIECES, else PIECES_PER_WORKER."""
    env = os.environ.get("PTXVM_PIECES", "").strip()
    return max(1, int(env)) if env.isdigit() else PIECES_PER_WORKER


def split_finer(launch, shards: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces a launch runs as on the pool: each worker's share cut in up to pieces_per_worker()
    pieces (whole clusters, at least one cache-sized wave each, in launch order). A worker that
    finishes a piece takes the next one, so a core that runs slower (another process on it, a
    lower clock) delays the launch by part of a piece, not by part of a whole share."""
    from ..engine.launch import CACHE_WAVE_THREADS

    size = int(np.prod(launch.cluster))
    lo, hi = shards[0][0], shards[-1][1]
    clusters = (hi - lo) // size
    wave = max(1, CACHE_WAVE_THREADS // max(1, launch.threads_per_cta * size))  # clusters in a wave
    n = min(len(shards) * pieces_per_worker(), clusters // wave)
    if n <= len(shards):
        return list(shards)
    bounds = [lo + k * clusters // n * size for k in range(n + 1)]
    return [(bounds[k], bounds[k + 1]) for k in range(n)]


def run_pool_now(launch, shards: list[tuple[int, int]], limit: int, on_done=None,
                 in_place: bool = False) -> list[ShardResult]:
    """Run the shards of `launch` side by side, each on one of the pool's workers (this process
    runs none: its device memory stays the shared arena throughout, so other threads' launches
    may marshal into it meanwhile). Memory is untouched until the merge, unless `in_place`
    (shared_stores.py): then the workers store straight into the arena, and the first result's
    `undo` puts memory back as the launch began (the caller calls it before any run in one
    process; if this raises, memory is put back first). A worker that does not answer: its
    result is an error and the pool is discarded."""
    from . import local, shared_stores
    from .image import held, image_of

    mem = launch.device.memory
    shared = share(mem)
    job_image = image_of(launch)
    pool = get(len(shards))
    workers = pool.workers[: len(shards)]
    pieces = split_finer(launch, shards)
    # the image pickled once per launch: in full for a worker that lacks the program, else without its syntax tree
    pickled: dict = {}

    def image_for(w: _Worker) -> bytes:
        light = held(w.programs, job_image.key)
        if light not in pickled:
            pickled[light] = pickle.dumps(dataclasses.replace(job_image, tree=None) if light else job_image,
                                          protocol=pickle.HIGHEST_PROTOCOL)
        return pickled[light]

    def light_size() -> int:
        """Bytes of the image without its syntax tree (what a worker that ran a piece gets next)."""
        if True not in pickled:
            pickled[True] = pickle.dumps(dataclasses.replace(job_image, tree=None), protocol=pickle.HIGHEST_PROTOCOL)
        return len(pickled[True])

    undo, restorable = None, []
    if in_place:
        if pool.counter is None:
            pool.counter = shared_stores.new_counter()
        for w in workers:
            if w.undo is None:
                w.undo = shared_stores.UndoFiles()
            w.undo.reset()
        logs = [w.undo for w in workers]  # kept here: the pool may be discarded before the undo
        arena = shared.array
        restorable = shared_stores.host_copies(launch)

        def undo():
            shared_stores.undo(arena, logs)
            shared_stores.restore_copies(arena, launch)
    results: dict[int, ShardResult] = {}
    ok = False  # becomes True once every worker answered: the pool may serve the next launch
    returned = False
    ran: set = set()  # workers that ran a piece of this launch (their undo logs go on from there)
    pending: dict = {}  # a worker's connection -> the (worker, piece) it was sent, oldest first

    def send(k: int, i: int) -> None:
        w = workers[k]
        if in_place:
            socket.send_fds(w.sock, [b"S"], [shared.fd, pool.counter, w.undo.log, w.undo.data])
        else:
            socket.send_fds(w.sock, [b"L"], [shared.fd])
        w.conn.send_bytes(image_for(w))
        w.conn.send((i, pieces[i], shared.size, limit, local.RAW_PIPES, restorable, k in ran))
        ran.add(k)
        pending.setdefault(w.conn, []).append((k, i))

    following = iter(range(len(pieces)))
    gone = failed = False

    def next_piece(k: int) -> None:
        nonlocal gone
        i = next(following, None)
        if i is not None:
            try:
                send(k, i)
            except OSError:
                results[i] = ShardResult(i, error="a pool worker was gone before the launch reached it")
                gone = True

    try:
        for k in range(len(workers)):
            next_piece(k)
        while pending:
            for conn in wait(list(pending)):
                k, i = pending[conn][0]
                # the worker is answering: its next piece goes now, before its result is read, so it
                # finds the job waiting (only a small job: it must fit the socket's buffer while the
                # worker may still be blocked sending a large result)
                if not (gone or failed) and len(pending[conn]) == 1 and light_size() < PIPELINED_JOB:
                    next_piece(k)
                died = False
                try:
                    r = local.receive(conn)
                except (EOFError, OSError):  # the worker died (killed, out of memory)
                    r = ShardResult(i, error="a pool worker ended before sending its results")
                    gone = died = True
                pending[conn].pop(0)
                if died:  # a piece queued for it is not run
                    for _, j in pending.pop(conn):
                        results[j] = ShardResult(j, error="a pool worker ended before sending its results")
                elif not pending[conn]:
                    del pending[conn]
                r.worker = k
                results[i] = r
                if r.error is not None:  # it may not hold the program any more: send it whole next time
                    workers[k].programs.clear()
                    failed = True
                if on_done is not None:
                    on_done(r)
                if not (gone or failed) and conn not in pending:  # the next piece to the worker that is free
                    next_piece(k)  # (none after a failure: the launch runs again in one process)
        for i in range(len(pieces)):
            results.setdefault(i, ShardResult(i, error="not run: another piece of the launch failed"))
        ok = not gone
        out = [results[i] for i in range(len(pieces))]
        out[0].undo = undo
        returned = True
        return out
    finally:
        if not ok:  # a worker failed, or this launch was interrupted: no pool state can be trusted
            shutdown(kill=True)  # (every worker killed and reaped: none stores any more)
        if undo is not None and not returned:  # interrupted: memory as the launch began before leaving
            undo()
