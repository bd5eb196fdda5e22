"""The local executor: one process per shard, results back through pipes (a small pickled header,
then the write set's arrays as raw bytes read straight into the parent's arrays: no pickling of
tens of MB, no intermediate copies).

* fork (Linux, the default where available): a worker inherits the launch and global memory
  copy-on-write, and copies only the pages it writes;
* spawn (elsewhere, or PTXVM_START_METHOD=spawn): a worker is a fresh interpreter, so it gets the
  launch as data (image.py, as a Ray task does) and global memory through one shared-memory block
  the parent fills once per launch."""
from __future__ import annotations

import dataclasses
import multiprocessing as mp
import os
from multiprocessing.connection import wait

import numpy as np

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
    """Run each shard of `launch` in its own process; `on_done(result)` as each one finishes."""
    method = start_method()
    ctx = mp.get_context(method)
    budget = launch.device.budget
    share = max(0, budget.free) // max(1, len(shards))  # each worker's share of the device's free memory
    limit = budget.limit - budget.free + share
    shm = None
    procs = []
    try:
        if method == "spawn":
            from multiprocessing import shared_memory

            from .image import image_of

            arena = launch.device.memory.arena
            shm = shared_memory.SharedMemory(create=True, size=max(1, arena.size))
            shm.buf[: arena.size] = arena.data.cast("B") if arena.size else b""
            image = image_of(launch)
        for i, pos in enumerate(shards):
            recv, send = ctx.Pipe(duplex=False)
            _widen(recv)
            if method == "fork":
                p = ctx.Process(target=_forked, args=(launch, i, pos, send, limit), daemon=True)
            else:
                p = ctx.Process(target=_spawned, args=(image, shm.name, arena.size, i, pos, send, limit), daemon=True)
            p.start()
            send.close()
            procs.append((p, recv))
        results: dict[int, ShardResult] = {}
        pending = {recv: (i, p) for i, (p, recv) in enumerate(procs)}
        while pending:
            for conn in wait(list(pending)):
                i, p = pending.pop(conn)
                try:
                    r = receive(conn)
                except (EOFError, OSError):  # the worker died (killed, out of memory)
                    p.join()
                    r = ShardResult(i, error=f"worker process exited with status {p.exitcode}")
                results[i] = r
                if on_done is not None:
                    on_done(r)
        return [results[i] for i in range(len(shards))]
    finally:
        for p, recv in procs:
            recv.close()
            if p.is_alive():
                p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join()
        if shm is not None:
            shm.close()
            shm.unlink()


def _forked(launch, index, positions, conn, limit) -> None:
    try:
        launch.device.budget.limit = limit
        # written in place: the pages a worker stores to become its own (copy-on-write)
        result = run_shard(launch, index, positions, launch.device.memory.arena, copy=False, views=RAW_PIPES)
        send(conn, result)
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


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
