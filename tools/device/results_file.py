"""The results JSON of a timing recorder (tools/device/timing_*.py), shared by them.

Each measurement item runs in its own try block and the file is rewritten after every item, so a
run that stops part-way (a time limit, a kernel that cannot launch) still returns what it measured,
and a failing item is recorded with its traceback instead of ending the run.
"""
from __future__ import annotations

import datetime
import json
import os
import time
import traceback
from typing import Callable, Iterable, Optional


def device_info(props: dict) -> dict:
    """The fields of cudaGetDeviceProperties that the timing results record."""
    name = props["name"]
    return {"name": name.decode() if isinstance(name, bytes) else name, "sms": props["multiProcessorCount"],
            "clock_khz": props["clockRate"], "l2": props["l2CacheSize"]}


def sm_clock(cp, np, spin) -> dict:
    """SM cycles per microsecond: a one-thread `spin(n)` kernel (clock64 until n cycles passed)
    for 2M and 4M cycles, CUDA events around each; the slope is the clock the SMs ran at."""
    out = []
    for n in (2_000_000, 4_000_000):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        spin((1,), (1,), (np.int64(n),))
        e1.record()
        e1.synchronize()
        out.append((n, cp.cuda.get_elapsed_time(e0, e1) * 1e3))
    (n0, t0), (n1, t1) = out
    return {"spins": out, "cycles_per_us": (n1 - n0) / (t1 - t0)}


class ResultsFile:
    """`res` is the JSON object: date, device, any `meta`, and `items` by name."""

    def __init__(self, path: str, device: dict, **meta):
        self.path = path
        self.res = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                    "device": device, **meta, "items": {}}

    def save(self) -> None:
        with open(self.path + ".tmp", "w") as f:
            json.dump(self.res, f, indent=1, default=float)
        os.replace(self.path + ".tmp", self.path)

    def item(self, name: str, fn: Callable[[], object], only: Optional[Iterable[str]] = None) -> None:
        """Run one measurement item (unless `only` names others), record its result or its error
        and how long it took, print that, and save."""
        if only and name not in only:
            return
        t0 = time.time()
        try:
            self.res["items"][name] = fn()
        except Exception:
            self.res["items"][name] = {"error": traceback.format_exc()[-1500:]}
        self.res["items"][name + "_seconds"] = round(time.time() - t0, 2)
        print(name, round(time.time() - t0, 2), flush=True)
        self.save()
