"""python -m ptxvm.conformance COMMAND

    list      [--family F]                      the cases (id, instruction, inputs, lanes)
    generate  [--family F] [--out DIR] [--ptxas] write each case's PTX; --ptxas checks them
    check     [--tier ci|full] [--family F] [--json] [--case SUBSTR] [--executor local|ray] [--workers N]
              replay the goldens on ptxvm; --json ends with a JSON summary line. A full check of
              every family also writes tests/goldens/conformance/last_check.json.
    coverage  regenerate docs/coverage.md from the ISA table and last_check.json
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import golden as G


def _root() -> str:
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def cmd_list(a) -> int:
    from . import inputs as I
    from .cases import FAMILIES, family_cases
    n = 0
    for fam in a.family or FAMILIES:
        for c in family_cases(fam):
            flags = ("ci " if c.ci else "") + ("undefined " if c.undefined else "")
            print(f"{fam:10s} {c.id:45s} {c.inputs:40s} {I.lanes(c.inputs):6d} {flags}")
            n += 1
    print(f"{n} cases", file=sys.stderr)
    return 0


def cmd_generate(a) -> int:
    from .cases import FAMILIES, family_cases
    cases = [c for fam in (a.family or FAMILIES) for c in family_cases(fam)]
    if a.out:
        for c in cases:
            d = os.path.join(a.out, c.family)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, c.kernel_name() + ".ptx"), "w") as f:
                f.write(c.ptx())
        print(f"wrote {len(cases)} PTX files under {a.out}")
    if a.ptxas:
        from . import ptxas
        if not ptxas.available():
            print("ptxas not found on PATH", file=sys.stderr)
            return 2
        bad = ptxas.assemble_cases(cases)
        expected = {c.id for c in cases if c.expect_reject}
        for cid, msg in sorted(bad.items()):
            tag = "refused as expected" if cid in expected else "REFUSED"
            print(f"{tag}: {cid}: {msg.splitlines()[0] if msg else ''}")
        wrong = [c.id for c in cases if (c.id in bad) != bool(c.expect_reject)]
        print(f"ptxas: {len(cases) - len(bad)}/{len(cases)} accepted, {len(wrong)} unexpected")
        return 1 if wrong else 0
    return 0


def cmd_check(a) -> int:
    from . import check as C
    from .units import build_units, summary
    directory = a.goldens or G.default_dir()
    fams = a.family or None
    t0 = time.time()
    counts = {}

    def progress(r):
        counts[r.status] = counts.get(r.status, 0) + 1
        if a.verbose or r.status in ("differs", "error"):
            print(f"{r.status:16s} {r.family}/{r.id}: {r.reason}"[:400], flush=True)

    present = G.families_present(directory)
    if not present:
        print(f"no goldens under {directory}: record them on a GPU (tools/device/record_all.sh)")
    case_filter = (lambda cid: a.case in cid) if a.case else None
    results = C.check(directory, a.tier, fams, progress=progress, case_filter=case_filter, device=a.device,
                      executor=a.executor, workers=a.workers)
    units, unmapped, from_table = build_units(results)
    s = summary(units, results, unmapped, from_table)
    s["tier"] = a.tier
    s["families"] = sorted({r.family for r in results})
    s["seconds"] = round(time.time() - t0, 1)
    full_run = a.tier == "full" and not fams and not a.case and present and a.device == "cpu"
    if full_run and not a.no_save:
        C.save(results, os.path.join(directory, "last_check.json"), a.tier, s)
    print(f"conformance ({a.tier}): {s['cases']['total']} cases: " +
          ", ".join(f"{k} {v}" for k, v in s["cases"].items() if k != "total" and v) +
          f" | forms {s['forms_total']}: verified {s['verified']}, differs {s['differs']}, "
          f"not on sm_90 {s['unsupported_sm90']}, not implemented {s['not_implemented']}, "
          f"no case yet {s['untested']}, not recorded {s['not_recorded']}, undefined {s['undefined']} "
          f"({s['seconds']} s)")
    if a.json:
        print(json.dumps(s, sort_keys=True))
    return 1 if (a.strict and s["cases"].get("differs", 0)) else 0


def cmd_coverage(a) -> int:
    from .coverage import regenerate
    directory = a.goldens or G.default_dir()
    out = a.out or os.path.join(_root(), "docs", "coverage.md")
    s = regenerate(directory, out)
    print(f"wrote {out}: {s['forms_total']} forms, {s['verified']} verified, {s['differs']} differ, "
          f"{s['unsupported_sm90']} not on sm_90, {s['not_implemented']} not implemented, "
          f"{s['untested']} with no case yet, {s['not_recorded']} not recorded, {s['undefined']} undefined")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ptxvm.conformance", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list")
    p.add_argument("--family", action="append")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("generate")
    p.add_argument("--family", action="append")
    p.add_argument("--out")
    p.add_argument("--ptxas", action="store_true")
    p.set_defaults(fn=cmd_generate)
    p = sub.add_parser("check")
    p.add_argument("--tier", choices=("ci", "full"), default="full")
    p.add_argument("--family", action="append")
    p.add_argument("--case", help="only cases whose id contains this")
    p.add_argument("--json", action="store_true")
    p.add_argument("--goldens")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--strict", action="store_true", help="exit 1 when a case differs")
    p.add_argument("--no-save", action="store_true", help="do not write last_check.json")
    p.add_argument("--device", default="cpu",
                   help="replay on 'cpu' (ptxvm's engine) or 'cuda' (ptxvm's GPU backend, to check it; never saved)")
    p.add_argument("--executor", choices=("local", "ray"),
                   help="run the families side by side: forked processes, or Ray tasks (ptxvm.ray; RAY_ADDRESS "
                        "names a cluster, else a local one starts)")
    p.add_argument("--workers", type=int, help="processes for --executor local (default: every core)")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("coverage")
    p.add_argument("--goldens")
    p.add_argument("--out")
    p.set_defaults(fn=cmd_coverage)
    a = ap.parse_args(argv)
    return a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
