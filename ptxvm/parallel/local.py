"""The local executor: one process per shard, results back through pipes (a small pickled header,
then the write set's arrays as raw bytes read straight into the parent's arrays: no pickling of
tens of MB, no intermediate copies).

* fork (Linux, the default where available): a worker inherits the launch and global memory
  copy-on-write, and copies only the pages it writes; the workers are forked as a tree
  (fork_tree: the parent forks once, each worker forks half of the rest), so the parent's serial
  part does not grow with the number of workers;
* spawn (elsewhere, or PTXVM_START_METHOD=spawn): a worker is a fresh interpreter, so it gets the
  launch as data (image.py, as a Ray task does) and global memory through one shared-memory block
  the parent fills once per launch."""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
import signal
import time
from multiprocessing.connection import wait

import numpy as np

from . import warmth
from .in_place import run_shard_here
from .shard import ShardResult, run_shard

F_SETPIPE_SZ = 1031  # Linux: a pipe's buffer size (fcntl); 1 MiB moves a write set in fewer, larger reads
PIPE_BYTES = 1 << 20
RAW_PIPES = os.name == "posix" and hasattr(os, "readv")  # pipes are file descriptors we may read into arrays


def start_method() -> str:
    """PTXVM_START_METHOD (fork or spawn), else fork where this platform has it, else spawn."""
    env = os.environ.get("PTXVM_START_METHOD", "").strip().lower()
    if env in ("fork", "spawn"):
        return env if env in mp.get_all_start_methods() else "spawn"
    return "fork" if "fork" in mp.get_all_start_methods() else "spawn"


def run_local(launch, shards: list[tuple[int, int]], on_done=None) -> list[ShardResult]:
    """Run the shards of `launch` side by side; `on_done(result)` as each one finishes. Forked:
    shard 0 in this process, in place (in_place.py: no fork, no pipe, no copy of its write set),
    each other one in a forked worker; spawned: each in its own process. If this raises, the
    parent's memory is as the launch began."""
    method = start_method()
    ctx = mp.get_context(method)
    budget = launch.device.budget
    share = max(0, budget.free) // max(1, len(shards))  # each worker's share of the device's free memory
    limit = budget.limit - budget.free + share
    shm = None
    procs, pipes, tree = [], [], None
    results: dict[int, ShardResult] = {}
    try:
        for _ in shards[1:] if method == "fork" else shards:
            recv, send = ctx.Pipe(duplex=False)
            _widen(recv)
            pipes.append((recv, send))
        if method == "fork":  # shard 0 runs here (below; its results need no pipe), the others in a tree of forked workers
            pipes.insert(0, None)
            before = warmth.snapshot(launch.module.lazy_program)  # once here, not in every worker
            tree = fork_tree(len(shards) - 1,
                             lambda i, others: _forked(launch, i + 1, shards[i + 1], pipes[i + 1][1], limit, before, others),
                             [c for pair in pipes[1:] for c in pair])
        else:
            from multiprocessing import shared_memory

            from .image import image_of

            arena = launch.device.memory.arena
            shm = shared_memory.SharedMemory(create=True, size=max(1, arena.size))
            shm.buf[: arena.size] = arena.data.cast("B") if arena.size else b""
            image = image_of(launch)
            for i, pos in enumerate(shards):
                p = ctx.Process(target=_spawned, args=(image, shm.name, arena.size, i, pos, pipes[i][1], limit),
                                daemon=True)
                p.start()
                procs.append(p)
        for pair in pipes:
            if pair is not None:
                pair[1].close()
        if method == "fork":
            results[0] = run_shard_here(launch, 0, shards[0], limit)
            if on_done is not None:
                on_done(results[0])
        pending = {pair[0]: i for i, pair in enumerate(pipes) if pair is not None}
        while pending:
            for conn in wait(list(pending)):
                i = pending.pop(conn)
                try:
                    r = receive(conn)
                except (EOFError, OSError):  # the worker died (killed, out of memory)
                    r = ShardResult(i, error="the worker process ended before sending its results")
                results[i] = r
                if on_done is not None:
                    on_done(r)
        if tree is not None:
            tree.join()
        return [results[i] for i in range(len(shards))]
    except BaseException:
        if 0 in results and results[0].undo is not None:
            results[0].undo()
        raise
    finally:
        for pair in pipes:
            if pair is not None:
                pair[0].close()
                pair[1].close()
        if tree is not None:
            tree.stop()
        for p in procs:
            if p.is_alive():
                p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()
        if shm is not None:
            shm.close()
            shm.unlink()


class ForkTree:
    """The worker processes of one launch, forked as a tree (fork_tree); the parent holds the root."""

    def __init__(self, root: int):
        self.root = root

    def join(self) -> int:
        """Wait for the whole tree (each worker waits for the workers it forked); the root's status."""
        if self.root is None:
            return 0
        root, self.root = self.root, None
        try:
            return os.waitpid(root, 0)[1]
        except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored by the application)
            return 0

    def stop(self) -> None:
        """Kill every worker still running (the parent is leaving early: an exception, an interrupt)."""
        if self.root is None:
            return
        try:
            os.killpg(self.root, signal.SIGKILL)  # the tree is one process group, led by the root
        except OSError:
            pass
        self.join()


def fork_tree(n: int, work, inherited=()) -> ForkTree:
    """Start `work(i)` for i in range(n), each in its own forked process, forked as a binary tree:
    the parent forks one root worker, and each worker hands half of the indices it holds to a
    child it forks, then the half of what remains, and so on, before it runs `work` for the one
    left. So the parent pays one fork (not n, each copying the page tables of a process that
    may hold gigabytes) and the last worker starts after about log2(n) forks, not n.

    `work(i, inherited)` must close the connections in `inherited` it does not use (so that a
    pipe reaches end-of-file when its one writer ends). Each worker then waits for the workers it
    forked and leaves with os._exit: it never returns into the caller's code. The tree is one
    process group (ForkTree.stop kills it whole)."""
    root = os.fork()
    if root:
        try:
            os.setpgid(root, root)  # also done in the child: whichever runs first
        except OSError:
            pass
        return ForkTree(root)
    status, children = 1, []
    try:
        try:
            os.setpgid(0, 0)
        except OSError:  # a sandbox that forbids it: stop() then reaches the root only
            pass
        todo = list(range(n))
        while len(todo) > 1:
            mine, theirs = todo[: len(todo) // 2], todo[len(todo) // 2 :]
            pid = os.fork()
            if pid == 0:
                children, todo = [], theirs
            else:
                children.append(pid)
                todo = mine
        work(todo[0], inherited)
        status = 0
    except BaseException:  # noqa: BLE001 - the parent sees the missing result and reruns in one process
        pass
    finally:
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except (OSError, KeyboardInterrupt):
                pass
        os._exit(status)


def _forked(launch, index, positions, conn, limit, before, inherited=()) -> None:
    for c in inherited:
        if c is not conn:
            c.close()
    try:
        launch.device.budget.limit = limit
        # written in place: the pages a worker stores to become its own (copy-on-write)
        result = run_shard(launch, index, positions, launch.device.memory.arena, copy=False, views=RAW_PIPES)
        result.learned = warmth.learned(launch.module.lazy_program, before)
        # the whole CPU time of this process since it was forked (Linux starts a child's at zero):
        # the shard, and the forks of the workers it started (fork_tree)
        result.cpu_seconds = max(result.cpu_seconds, time.process_time())
        send(conn, result)
    finally:
        conn.close()


def _spawned(image, shm_name, size, index, positions, conn, limit) -> None:
    import numpy as np
    from multiprocessing import shared_memory

    from .. import jit
    from .image import rebuild

    shm = shared_memory.SharedMemory(name=shm_name)
    try:
        with jit.override(image.jit):
            _, launch = rebuild(image)
            launch.device.budget.limit = limit
            arena = np.ndarray((size,), np.uint8, buffer=shm.buf)
            result = run_shard(launch, index, positions, arena, copy=True)
            del arena
        send(conn, result)
    except BaseException as e:  # noqa: BLE001 - the parent reruns in one process
        send(conn, ShardResult(index, error=f"{type(e).__name__}: {e}"))
    finally:
        conn.close()
        shm.close()


# ---------------------------------------------------------------- results through a pipe

def send(conn, result: ShardResult) -> None:
    """Send `result`: a pickled header (the result less its arrays, and each array's dtype and
    shape), then each array's bytes written straight from its memory (pickled whole where the
    pipe is no POSIX file descriptor)."""
    if not RAW_PIPES:
        if result.parts is not None:
            result.data, result.parts = np.concatenate(result.parts), None
        conn.send(result)
        return
    arrays = {f.name: [getattr(result, f.name)] for f in dataclasses.fields(result)
              if isinstance(getattr(result, f.name), np.ndarray)}
    if result.parts is not None:  # the stored bytes, still in the arena: sent from there
        arrays["data"] = result.parts
    header = dataclasses.replace(result, parts=None, **{name: None for name in arrays})
    conn.send((header, [(name, parts[0].dtype.str, (sum(p.shape[0] for p in parts), *parts[0].shape[1:]))
                        for name, parts in arrays.items()]))
    fd = conn.fileno()
    for parts in arrays.values():
        for a in parts:
            view = memoryview(np.ascontiguousarray(a).reshape(-1).view(np.uint8))
            while view.nbytes:
                view = view[os.write(fd, view):]


def receive(conn) -> ShardResult:
    """What `send` sent; EOFError if the worker went away before all of it arrived."""
    if not RAW_PIPES:
        return conn.recv()
    header, layout = conn.recv()
    fd = conn.fileno()
    for name, dtype, shape in layout:
        a = np.empty(shape, np.dtype(dtype))
        view, done = memoryview(a.reshape(-1).view(np.uint8)), 0
        while done < view.nbytes:
            n = os.readv(fd, [view[done:]])
            if n == 0:
                raise EOFError("the worker closed its pipe before its write set arrived")
            done += n
        setattr(header, name, a)
    return header


def _widen(conn) -> None:
    """A larger pipe buffer where the platform allows one (Linux); harmless where it does not."""
    try:
        import fcntl

        fcntl.fcntl(conn.fileno(), F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, OSError, AttributeError):
        pass
