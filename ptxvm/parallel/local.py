"""The local executor: one forked process per shard (global memory shared copy-on-write: a worker
copies only the pages it writes), results back through pipes. Fork is Linux's (and the default where available); elsewhere processes are
spawned, which cannot inherit the launch, so the launch runs in one process there."""
from __future__ import annotations

import multiprocessing as mp
import os
from multiprocessing.connection import wait

from .shard import ShardResult, run_shard


def available() -> bool:
    return "fork" in mp.get_all_start_methods()


def run_local(launch, shards: list[tuple[int, int]], on_done=None) -> list[ShardResult]:
    """Run each shard of `launch` in a forked process; `on_done(result)` as each one finishes."""
    ctx = mp.get_context("fork")
    budget = launch.device.budget
    share = max(0, budget.free) // max(1, len(shards))  # each worker's share of the device's free memory
    procs = []
    try:
        for i, pos in enumerate(shards):
            recv, send = ctx.Pipe(duplex=False)
            p = ctx.Process(target=_child, args=(launch, i, pos, send, budget.limit - budget.free + share),
                            daemon=True)
            p.start()
            send.close()
            procs.append((p, recv))
        results: dict[int, ShardResult] = {}
        pending = {recv: (i, p) for i, (p, recv) in enumerate(procs)}
        while pending:
            for conn in wait(list(pending)):
                i, p = pending.pop(conn)
                try:
                    r = conn.recv()
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


def _child(launch, index, positions, conn, limit) -> None:
    try:
        launch.device.budget.limit = limit
        # written in place: the pages a worker stores to become its own (copy-on-write)
        result = run_shard(launch, index, positions, launch.device.memory.arena, copy=False)
        conn.send(result)
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers
