"""Replay recorded goldens on ptxvm's CPU engine and compare bit for bit.

Each recorded case is run through the public API:

    mod = ptxvm.loads(ptx); k = mod.kernel(name); k.launch(grid, block, args)

with NumPy arrays for the pointer parameters (copied in and back out) and np.uint32 for n; every
output array is then compared with what the GPU wrote, as raw bits (floats are never compared as
floats, so NaN payloads and signed zeros count).

Case statuses:
    verified         every output bit matches the GPU
    differs          some lane differs (the reason names the first few)
    not_implemented  the engine cannot load or run it yet (NotImplementedError, unsupported
                     instruction)
    error            the engine raised something else (a bug: the message says what)
    undefined        the ISA leaves the result undefined: recorded for reference, never compared
    unsupported_sm90 the GPU's driver refused the PTX for sm_90 (the form is not on this target)
    not_recorded     the recorder could not run it (see the golden's meta)
"""
from __future__ import annotations

import json
import os
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable, Optional

import numpy as np

from . import golden as G
from . import resources as R
from .case import Case

CI_LANES = 256

STATUSES = ("verified", "differs", "not_implemented", "error", "undefined", "unsupported_sm90",
            "not_recorded")


@dataclass
class CaseResult:
    id: str
    family: str
    instruction: str
    opcode: str
    modifiers: list
    status: str
    reason: str = ""
    lanes: int = 0
    lanes_differing: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict:
        return asdict(self)


# ------------------------------------------------------------------------------ comparison

def _fmt(v, t: str) -> str:
    v = int(v)
    s = f"0x{v:x}"
    try:
        if t in ("f32",):
            s += f"({np.array(v, np.uint32).view(np.float32)!r})".replace("np.float32", "")
        elif t in ("f64",):
            s += f"({np.array(v, np.uint64).view(np.float64)!r})".replace("np.float64", "")
        elif t == "f16":
            s += f"({float(np.array(v, np.uint16).view(np.float16))!r})"
    except Exception:  # noqa: BLE001
        pass
    return s


def compare(launch: G.Launch, expected: dict, got: dict, meta: dict, max_examples: int = 3):
    """(lanes differing, reason) comparing outputs `got` with `expected` ("out:d" -> array)."""
    lanes = launch.lanes
    bad = np.zeros(lanes, bool)
    mem_bad = False
    notes = []
    types = {name: t for name, t, _k in meta.get("dsts", [])}
    for key, exp in expected.items():
        g = got.get(key)
        if key.startswith("out:"):
            k = max(1, exp.size // max(1, meta["lanes"]))
            exp = exp[: lanes * k]
        if g is None:
            return lanes, f"{key}: no output"
        g = np.ascontiguousarray(g).view(exp.dtype) if g.dtype != exp.dtype and g.nbytes == exp.nbytes else g
        if g.shape != exp.shape:
            return lanes, f"{key}: shape {g.shape}, expected {exp.shape}"
        diff = g != exp
        if not diff.any():
            continue
        if key.startswith("out:"):
            per_lane = diff.reshape(lanes, -1).any(axis=1)
            bad |= per_lane
            name = key[4:]
            t = types.get(name, "")
            for lane in np.flatnonzero(per_lane)[:max_examples]:
                k = exp.size // lanes
                ins = ", ".join(f"{n}={_fmt(a[lane * (a.size // lanes)], '')}" for n, a in launch.srcs)
                notes.append(f"lane {lane} ({ins}): {name} expected {_fmt(exp[lane * k], t)} got {_fmt(g[lane * k], t)}")
        else:
            idx = np.flatnonzero(diff)
            notes.append(f"{key}: {idx.size}/{exp.size} elements differ, first at {idx[0]}: expected "
                         f"0x{int(exp[idx[0]]):x} got 0x{int(g[idx[0]]):x}")
            mem_bad = True
    n = int(bad.sum())
    if n == 0 and not mem_bad:
        return 0, ""
    head = f"{n}/{lanes} lanes differ" if n else "memory differs"
    # a memory-only difference still counts every lane as suspect (any lane may have written it)
    return (n if n else lanes), head + "; " + "; ".join(notes[: max_examples + 1])


# ------------------------------------------------------------------------------ the engine

def _not_implemented(e: BaseException) -> bool:
    if isinstance(e, NotImplementedError):
        return True
    text = f"{e.__class__.__name__}: {e}".lower()
    return any(w in text for w in ("not implemented", "unsupported", "no semantics", "not supported",
                                    "unknown instruction", "notimplemented"))


def _kernel_fault(e: BaseException) -> bool:
    try:
        from ptxvm.errors import KernelFault
    except Exception:  # noqa: BLE001
        return False
    return isinstance(e, KernelFault)


def engine_runner(device: str = "cpu") -> Callable:
    """The default runner: ptxvm's public API on `device` ("cpu": the engine; "cuda": the GPU
    backend, to check it against the goldens). Returns run(launch) -> {"out:d": array, ...}."""
    import ptxvm  # noqa: F401  (imported lazily: the recorder never gets here)

    if not hasattr(ptxvm, "loads"):
        raise NotImplementedError("ptxvm.loads is not available yet (no engine API)")

    def run(launch: G.Launch) -> dict:
        host_mod = mod = ptxvm.loads(launch.ptx)
        if device != "cpu":
            if any(r.ref for r, _ in launch.res):
                raise NotImplementedError(f"the {device} backend binds no .texref/.surfref variables")
            mod = mod.on(device)
        k = mod.kernel(launch.kernel)
        objs = [R.engine_object(r, lv) for r, lv in launch.res]     # texture / surface objects
        for (r, _), (o, _) in zip(launch.res, objs):
            R.bind(mod, r, o)
        args = launch.args([o for o, _ in objs])
        on_device = []
        for ti, mi, t in launch.tensor_map_slots():
            host = args[mi]
            dev = host if not isinstance(host, np.ndarray) else host_mod.device.to_device(host)
            if dev is not host:
                on_device.append((mi, host, dev))
            args[mi] = dev
            args[ti] = ptxvm.tensor_map(dev, tuple(t["box"]), element_strides=tuple(t["element_strides"]),
                                        swizzle=t["swizzle"], oob_fill=t["oob_fill"], dtype=t["dtype"],
                                        shape=tuple(t["shape"]))
        try:
            k.launch((launch.grid, 1, 1), (launch.block, 1, 1), args)
        finally:
            for o, _ in objs:
                R.destroy(o)
        for mi, host, dev in on_device:
            args[mi] = dev.copy_to_host(host)
        out = {}
        i = len(launch.srcs)
        for name, _ in launch.dsts:
            out["out:" + name] = args[i]
            i += 1
        for name, _ in launch.mems:
            out["mem:" + name] = args[i]
            i += 1
        for (r, _), (_, surface) in zip(launch.res, objs):
            if surface is not None:
                out["res:" + r.name] = R.bits(surface)
        return out

    return run


def run_case(gc: G.GoldenCase, family: str, runner: Callable, lanes_limit: Optional[int] = None) -> CaseResult:
    m = gc.meta
    base = dict(id=gc.id, family=family, instruction=m["instruction"], opcode=m["opcode"],
                modifiers=list(m["modifiers"]))
    st = m.get("status")
    if st not in ("recorded", "faulted"):
        msg = (m.get("ptxas") or m.get("message") or "").strip()
        if st == "load_failed" and (m.get("expect_reject") or "requires .target" in msg
                                    or "not supported on .target" in msg):
            why = msg.splitlines()[0] if msg else (m.get("expect_reject") or "")
            return CaseResult(status="unsupported_sm90", reason=why, **base)
        return CaseResult(status="not_recorded", reason=f"{st}: {msg[:200]}", **base)
    if m.get("undefined"):
        return CaseResult(status="undefined", reason=m["undefined"], lanes=m["lanes"], **base)
    launch = gc.launch
    # a memory array that the kernel writes holds every lane's effect: no truncation then
    writes_memory = any(name not in set(m.get("mem_unchanged", ())) for name, *_ in m.get("memory", ()))
    if lanes_limit and m.get("truncatable", True) and not writes_memory and launch.lanes > lanes_limit:
        mult = m.get("lanes_multiple", 1) or 1
        launch = launch.truncated(max(mult, lanes_limit // mult * mult))
    t0 = time.perf_counter()
    try:
        got = runner(launch)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        dt = time.perf_counter() - t0
        line = f"{e.__class__.__name__}: {e}".splitlines()[0][:300]
        if st == "faulted" and _kernel_fault(e):
            return CaseResult(status="verified", reason=f"both stop the launch: GPU {m.get('message', '')[:120]}; "
                              f"engine {line[:160]}", lanes=launch.lanes, seconds=dt, **base)
        if _not_implemented(e):
            return CaseResult(status="not_implemented", reason=line, lanes=launch.lanes, seconds=dt, **base)
        tb = traceback.extract_tb(e.__traceback__)
        where = f" (at {os.path.basename(tb[-1].filename)}:{tb[-1].lineno})" if tb else ""
        return CaseResult(status="error", reason=line + where, lanes=launch.lanes, seconds=dt, **base)
    dt = time.perf_counter() - t0
    if st == "faulted":
        return CaseResult(status="differs", reason=f"the GPU stopped the launch ({m.get('message', '')[:120]}); "
                          "the engine ran it to completion", lanes=launch.lanes, seconds=dt, **base)
    expected = gc.expected
    n, why = compare(launch, expected, got, m)
    if why:
        return CaseResult(status="differs", reason=why, lanes=launch.lanes, lanes_differing=n, seconds=dt, **base)
    return CaseResult(status="verified", lanes=launch.lanes, seconds=dt, **base)


# ------------------------------------------------------------------------------ the run

def iter_cases(directory: str, families: Optional[list[str]], tier: str):
    for fam in G.families_present(directory):
        if families and fam not in families:
            continue
        gf = G.GoldenFamily(fam, directory)
        for cid in gf.case_ids:
            m = gf.meta["cases"][cid]
            if tier == "ci" and not m.get("ci"):
                continue
            yield fam, gf, cid


def check(directory: Optional[str] = None, tier: str = "full", families: Optional[list[str]] = None,
          runner: Optional[Callable] = None, progress: Optional[Callable[[CaseResult], None]] = None,
          case_filter: Optional[Callable[[str], bool]] = None, device: str = "cpu", executor: Optional[str] = None,
          workers: Optional[int] = None) -> list[CaseResult]:
    """Replay the goldens. `executor` "local" or "ray" runs the families side by side
    (ptxvm.map_launches: forked processes, or Ray tasks that read the goldens from `directory` on
    their node); the results are the same, in the same order."""
    directory = directory or G.default_dir()
    if executor is not None:
        if runner is not None:
            raise ValueError("a custom runner cannot go to other processes: use executor=None")
        from ..parallel.sweep import map_launches

        fams = [f for f in G.families_present(directory) if not families or f in families]
        parts = map_launches(lambda fam: check(directory, tier, [fam], case_filter=case_filter, device=device),
                             fams, executor=executor, workers=workers)
        results = [r for part in parts for r in part]
        if progress:
            for r in results:
                progress(r)
        return results
    lanes_limit = CI_LANES if tier == "ci" else None
    results = []
    runner_obj = runner
    runner_error = None
    if runner_obj is None:
        try:
            runner_obj = engine_runner(device)
        except BaseException as e:  # noqa: BLE001  (no engine yet: everything is not_implemented)
            runner_error = e

            def runner_obj(_launch, _e=e):
                raise NotImplementedError(f"ptxvm engine unavailable: {_e.__class__.__name__}: {_e}")
    for fam, gf, cid in iter_cases(directory, families, tier):
        if case_filter and not case_filter(cid):
            continue
        try:
            gc = gf.case(cid)
        except KeyError as e:
            m = gf.meta["cases"][cid]
            r = CaseResult(cid, fam, m["instruction"], m["opcode"], list(m["modifiers"]), "not_recorded",
                           reason=f"golden incomplete: {e}")
        else:
            r = run_case(gc, fam, runner_obj, lanes_limit)
        results.append(r)
        if progress:
            progress(r)
    return results


def summarize_cases(results: Iterable[CaseResult]) -> dict:
    out = {s: 0 for s in STATUSES}
    n = 0
    for r in results:
        out[r.status] = out.get(r.status, 0) + 1
        n += 1
    out["total"] = n
    return out


def save(results: list[CaseResult], path: str, tier: str, summary: dict) -> None:
    data = {
        "tier": tier,
        "checked_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "summary": summary,
        "cases": [r.to_json() for r in results],
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")


def load_results(path: str) -> list[CaseResult]:
    with open(path) as f:
        data = json.load(f)
    return [CaseResult(**c) for c in data["cases"]]
