#!/usr/bin/env python3
"""Build and check the ptxvm PTX test corpus.

Modes (they can be combined; with no mode flag, ``--ptx`` is implied):

  --ptx            compile every ``tests/corpus/cuda/*.cu`` with ``nvcc -ptx`` for
                   each variant into ``tests/corpus/ptx/<stem>.<variant>.ptx`` and
                   write ``tests/corpus/ptx/MANIFEST.json``.
  --ptxas-check    additionally assemble every generated PTX file with ptxas and
                   record the result in the manifest (slow-ish).
  --verdicts       run ptxas on every snippet in ``tests/corpus/invalid`` and
                   ``tests/corpus/valid`` and (re)write their ``VERDICTS.json``.
                   Exits non-zero if an invalid snippet is accepted or a valid
                   one rejected.
  --check-cases    compare the ``.entry`` parameter lists in the PTX files with
                   the arguments of the cases in ``tests/kernels/cases.py``.

Options: ``--only STEM[,STEM..]`` restricts ``--ptx`` to some sources (the
manifest is then updated in place rather than rewritten), ``-j N`` sets the
number of parallel compiler processes.

Source files may carry directives in comments near the top:

  // corpus: min_arch=sm_80            variants below this arch are skipped
  // corpus: skip_variants=sm_90-G,..  variants that are never built
  // corpus: extra_flags=--extended-lambda
  // corpus: only_variants=sm_90-rdc       build these variants only (relocatable code that
                                         calls into another file builds only with -rdc=true)

Only the standard library is used (plus ``tests/kernels/cases.py`` for
``--check-cases``, which needs numpy).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from ptxvm import toolchain  # noqa: E402
CORPUS = ROOT / "tests" / "corpus"
CUDA_DIR = CORPUS / "cuda"
PTX_DIR = CORPUS / "ptx"
INVALID_DIR = CORPUS / "invalid"
VALID_DIR = CORPUS / "valid"
MANIFEST = PTX_DIR / "MANIFEST.json"

# the CUDA toolkit's (PATH first), as the committed corpus was built; $NVCC / $PTXAS to choose
NVCC = toolchain.find("nvcc", toolkit_first=True) or "nvcc"
PTXAS = toolchain.find("ptxas", toolkit_first=True) or "ptxas"


@dataclass(frozen=True)
class Variant:
    name: str
    arch: str            # e.g. "sm_90a"
    flags: tuple = ()    # extra nvcc flags
    note: str = ""


VARIANTS = [
    Variant("sm_75", "sm_75"),
    Variant("sm_80", "sm_80"),
    Variant("sm_86", "sm_86"),
    Variant("sm_89", "sm_89"),
    Variant("sm_90", "sm_90"),
    # -arch=sm_90a works with -ptx (the PTX gets ".target sm_90a").
    Variant("sm_90a", "sm_90a"),
    Variant("sm_90-G", "sm_90", ("-G",), "device debug: no optimisation, DWARF sections"),
    Variant("sm_90-lineinfo", "sm_90", ("-lineinfo",), ".file/.loc directives, inlined_at"),
    Variant("sm_90-fastmath", "sm_90", ("--use_fast_math",), "approx math, ftz"),
    Variant("sm_90-rdc", "sm_90", ("-rdc=true",), "relocatable device code: .visible/.extern funcs"),
]
VARIANT_BY_NAME = {v.name: v for v in VARIANTS}


def arch_number(arch: str) -> int:
    m = re.match(r"(?:sm|compute)_(\d+)", arch)
    if not m:
        raise ValueError(f"bad arch {arch!r}")
    return int(m.group(1))


def arch_key(arch: str) -> tuple:
    """Ordering key: sm_90 < sm_90a < sm_100."""
    return (arch_number(arch), 1 if arch.endswith(("a", "f")) else 0)


# --------------------------------------------------------------------------
# nvcc / ptxas helpers
# --------------------------------------------------------------------------

def nvcc_version() -> str:
    out = subprocess.run([NVCC, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release [\d.]+, V([\d.]+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1]


def ptxas_version() -> str:
    out = subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release [\d.]+, V([\d.]+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1]


@dataclass
class SourceInfo:
    path: Path
    min_arch: str | None = None
    skip_variants: set = field(default_factory=set)
    extra_flags: list = field(default_factory=list)
    only_variants: set = field(default_factory=set)

    @property
    def stem(self) -> str:
        return self.path.stem


def read_source_info(path: Path) -> SourceInfo:
    info = SourceInfo(path)
    for line in path.read_text().splitlines()[:30]:
        m = re.match(r"\s*//\s*corpus:\s*(\w+)\s*=\s*(.*?)\s*$", line)
        if not m:
            continue
        key, val = m.groups()
        if key == "min_arch":
            info.min_arch = val
        elif key == "skip_variants":
            info.skip_variants.update(v.strip() for v in val.split(",") if v.strip())
        elif key == "extra_flags":
            info.extra_flags.extend(shlex.split(val))
        elif key == "only_variants":
            info.only_variants.update(v.strip() for v in val.split(",") if v.strip())
        else:
            raise ValueError(f"{path.name}: unknown corpus directive {key!r}")
    return info


def nvcc_command(src: SourceInfo, var: Variant, out: Path) -> list:
    return [NVCC, "-ptx", f"-arch={var.arch}", *var.flags, *src.extra_flags,
            str(src.path.relative_to(ROOT)), "-o", str(out.relative_to(ROOT))]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\(([^)]*)\)", re.S)


def ptx_entries(text: str) -> dict:
    """Map kernel name -> list of (ptx_type, byte_size, align) for its params.

    A deliberately small regex parser (the real ptxvm parser lives elsewhere):
    handles ``.param .u64 .ptr .global .align 1 name`` and
    ``.param .align 8 .b8 name[24]`` forms.
    """
    entries = {}
    for m in ENTRY_RE.finditer(text):
        params = []
        body = m.group(2).strip()
        if body:
            for p in body.split(","):
                p = p.strip()
                toks = p.split()
                align = None
                if ".align" in toks:
                    align = int(toks[toks.index(".align") + 1])
                types = [t for t in toks if re.fullmatch(r"\.[subf]\d+|\.b\d+|\.pred", t)]
                if not types:
                    raise ValueError(f"cannot parse param {p!r}")
                t = types[0]
                width = 1 if t == ".pred" else int(t[2:]) // 8
                arr = re.search(r"\[(\d+)\]\s*$", p)
                count = int(arr.group(1)) if arr else 1
                params.append((t[1:], width * count, align if align else width))
        entries[m.group(1)] = params
    return entries


# --------------------------------------------------------------------------
# --ptx
# --------------------------------------------------------------------------

def plan_jobs(sources: list) -> tuple:
    jobs, skipped = [], []
    for src in sources:
        for var in VARIANTS:
            if var.name in src.skip_variants:
                skipped.append({"source": f"cuda/{src.path.name}", "variant": var.name,
                                "reason": "skip_variants directive in source"})
                continue
            if src.only_variants and var.name not in src.only_variants:
                skipped.append({"source": f"cuda/{src.path.name}", "variant": var.name,
                                "reason": "only_variants directive in source"})
                continue
            if src.min_arch and arch_key(var.arch) < arch_key(src.min_arch):
                skipped.append({"source": f"cuda/{src.path.name}", "variant": var.name,
                                "reason": f"source needs {src.min_arch} (min_arch directive)"})
                continue
            jobs.append((src, var))
    return jobs, skipped


def compile_one(src: SourceInfo, var: Variant, version: str) -> dict:
    out = PTX_DIR / f"{src.stem}.{var.name}.ptx"
    cmd = nvcc_command(src, var, out)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    rec = {"source": f"cuda/{src.path.name}", "variant": var.name, "arch": var.arch,
           "command": shlex.join(["nvcc", *cmd[1:]]), "nvcc_version": version}
    if proc.returncode != 0:
        if out.exists():
            out.unlink()
        rec["error"] = proc.stderr.strip().splitlines()[:20]
        return rec
    text = out.read_text()
    rec.update({
        "ptx": out.name,
        "lines": text.count("\n"),
        "bytes": len(text.encode()),
        "sha256": sha256(out),
        "entries": sorted(ptx_entries(text)),
    })
    return rec


def ptxas_check_one(ptx: Path, arch: str) -> dict:
    proc = subprocess.run([PTXAS, f"-arch={arch}", ptx.name, "-o", "/dev/null"],
                          cwd=ptx.parent, capture_output=True, text=True)
    return {"returncode": proc.returncode,
            "messages": [l for l in proc.stderr.splitlines() if l.strip()][:20]}


def build_ptx(only: list | None, jobs_n: int, ptxas_check: bool) -> int:
    PTX_DIR.mkdir(parents=True, exist_ok=True)
    all_sources = sorted(CUDA_DIR.glob("*.cu"))
    if only:
        wanted = set(only)
        sources = [read_source_info(p) for p in all_sources if p.stem in wanted]
        missing = wanted - {s.stem for s in sources}
        if missing:
            print(f"unknown sources: {sorted(missing)}", file=sys.stderr)
            return 2
    else:
        sources = [read_source_info(p) for p in all_sources]
    version = nvcc_version()
    jobs, skipped = plan_jobs(sources)
    print(f"nvcc {version}: {len(sources)} sources, {len(jobs)} compilations, "
          f"{len(skipped)} skipped by directive", flush=True)

    results = []
    with cf.ThreadPoolExecutor(max_workers=jobs_n) as ex:
        futs = {ex.submit(compile_one, s, v, version): (s, v) for s, v in jobs}
        for fut in cf.as_completed(futs):
            rec = fut.result()
            results.append(rec)
            status = f"{rec['lines']:7d} lines" if "ptx" in rec else "FAILED"
            print(f"  {rec['source']:36s} {rec['variant']:16s} {status}", flush=True)

    failed = [r for r in results if "error" in r]
    files = [r for r in results if "ptx" in r]
    for r in failed:
        skipped.append({"source": r["source"], "variant": r["variant"],
                        "reason": "nvcc failed", "command": r["command"],
                        "error": r["error"]})

    if ptxas_check:
        print("ptxas check ...", flush=True)
        with cf.ThreadPoolExecutor(max_workers=jobs_n) as ex:
            futs = {ex.submit(ptxas_check_one, PTX_DIR / r["ptx"], r["arch"]): r for r in files}
            for fut in cf.as_completed(futs):
                r = futs[fut]
                res = fut.result()
                r["ptxas_ok"] = res["returncode"] == 0
                if res["returncode"] != 0:
                    r["ptxas_messages"] = res["messages"]
                    print(f"  ptxas rejected {r['ptx']}: {res['messages'][:2]}")

    # Merge with the existing manifest when building a subset.
    old = {}
    if only and MANIFEST.exists():
        old = json.loads(MANIFEST.read_text())
    rebuilt = {f"cuda/{s.path.name}" for s in sources}
    old_files = [f for f in old.get("files", []) if f["source"] not in rebuilt]
    old_skipped = [f for f in old.get("skipped", []) if f["source"] not in rebuilt]
    files = sorted(old_files + files, key=lambda r: r["ptx"])
    skipped = sorted(old_skipped + skipped, key=lambda r: (r["source"], r["variant"]))

    if not only:  # remove stale PTX files
        keep = {r["ptx"] for r in files}
        for p in PTX_DIR.glob("*.ptx"):
            if p.name not in keep:
                p.unlink()

    manifest = {
        "description": "PTX generated from tests/corpus/cuda by tools/build_corpus.py",
        "nvcc_version": version,
        "variants": [{"name": v.name, "arch": v.arch, "flags": list(v.flags), "note": v.note}
                     for v in VARIANTS],
        "sources": sorted({r["source"] for r in files} | {r["source"] for r in skipped}),
        "total_files": len(files),
        "total_lines": sum(r["lines"] for r in files),
        "total_bytes": sum(r["bytes"] for r in files),
        "files": files,
        "skipped": skipped,
    }
    MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(files)} PTX files, {manifest['total_lines']} lines, "
          f"{manifest['total_bytes'] / 1e6:.2f} MB; {len(skipped)} skipped "
          f"({len(failed)} nvcc failures)")
    for r in failed:
        print(f"  nvcc failed: {r['source']} {r['variant']}: {r['error'][:3]}")
    return 0


# --------------------------------------------------------------------------
# --verdicts
# --------------------------------------------------------------------------

MSG_LINE_RE = re.compile(r"^ptxas\s+(?P<file>[^,]+),\s*line\s+(?P<line>\d+);\s*(?P<kind>\w+)\s*:")
ARCH_DIRECTIVE_RE = re.compile(r"//\s*ptxas-arch:\s*(\S+)")
TARGET_RE = re.compile(r"^\s*\.target\s+([\w, ]+)", re.M)


def snippet_arch(text: str) -> str:
    """The -arch ptxas runs a snippet with.

    An explicit ``// ptxas-arch: sm_XX`` comment wins.  Otherwise sm_90, unless
    the snippet's .target names something newer than sm_90 (e.g. sm_90a), in
    which case that target.  Snippets that target an older arch are still
    assembled for sm_90: ptxas checks instruction availability against the
    .target directive, not against -arch.
    """
    m = ARCH_DIRECTIVE_RE.search(text)
    if m:
        return m.group(1)
    m = TARGET_RE.search(text)
    if m:
        for tok in m.group(1).split(","):
            tok = tok.strip()
            if tok.startswith("sm_") and arch_key(tok) > arch_key("sm_90"):
                return tok
    return "sm_90"


def ptxas_verdict(path: Path) -> dict:
    text = path.read_text()
    arch = snippet_arch(text)
    proc = subprocess.run([PTXAS, f"-arch={arch}", path.name, "-o", "/dev/null"],
                          cwd=path.parent, capture_output=True, text=True)
    messages = [l.rstrip() for l in proc.stderr.splitlines() if l.strip()]
    # ptxas does not always report in source order (declarations are checked
    # before instructions), so first_error_line is the smallest line number of
    # any error/fatal message; first_message_line is the line of the first one.
    error_lines = []
    for l in messages:
        m = MSG_LINE_RE.match(l)
        if m and m.group("kind").lower() in ("error", "fatal"):
            error_lines.append(int(m.group("line")))
    # Some fatal errors carry no line; the offending line is then only named by a
    # preceding warning ("Program uses 32-bit address on line '22' ...").
    from_warning = False
    if not error_lines and proc.returncode != 0:
        for l in messages:
            m = re.search(r"on line '(\d+)'", l)
            if m:
                error_lines.append(int(m.group(1)))
                from_warning = True
    rec = {"accepted": proc.returncode == 0, "returncode": proc.returncode,
           "arch": arch, "messages": messages,
           "first_error_line": min(error_lines) if error_lines else None,
           "first_message_line": error_lines[0] if error_lines else None,
           "error_lines": sorted(set(error_lines))}
    if from_warning:
        rec["line_from_warning"] = True
    return rec


def record_verdicts() -> int:
    version = ptxas_version()
    bad = []
    for d, expect_ok in ((INVALID_DIR, False), (VALID_DIR, True)):
        if not d.is_dir():
            continue
        verdicts = {}
        for p in sorted(d.glob("*.ptx")):
            v = ptxas_verdict(p)
            verdicts[p.name] = v
            if v["accepted"] != expect_ok:
                bad.append((p, v))
        out = {"ptxas_version": version,
               "command": "ptxas -arch=<arch> <file> -o /dev/null (run in this directory)",
               "expected_accepted": expect_ok,
               "verdicts": verdicts}
        (d / "VERDICTS.json").write_text(json.dumps(out, indent=1) + "\n")
        n_ok = sum(v["accepted"] for v in verdicts.values())
        print(f"{d.relative_to(ROOT)}: {len(verdicts)} snippets, {n_ok} accepted, "
              f"{len(verdicts) - n_ok} rejected")
    for p, v in bad:
        what = "accepted" if v["accepted"] else "rejected"
        print(f"UNEXPECTED: {p.relative_to(ROOT)} was {what}: {v['messages'][:3]}")
    return 1 if bad else 0


# --------------------------------------------------------------------------
# --check-cases
# --------------------------------------------------------------------------

# Host-side sizes / alignments of case argument kinds, by PTX type.
PTX_TYPE_SIZES = {"u8": 1, "s8": 1, "b8": 1, "u16": 2, "s16": 2, "b16": 2, "f16": 2,
                  "bf16": 2, "u32": 4, "s32": 4, "b32": 4, "f32": 4, "u64": 8, "s64": 8,
                  "b64": 8, "f64": 8}


def check_cases() -> int:
    sys.path.insert(0, str(ROOT / "tests" / "kernels"))
    try:
        import cases as cases_mod  # noqa: E402
    finally:
        sys.path.pop(0)
    problems = []
    cache = {}
    all_cases = list(getattr(cases_mod, "ALL_CASES",
                             list(cases_mod.CASES) + list(cases_mod.ADVANCED_CASES)))
    names = [c.name for c in all_cases]
    dups = {n for n in names if names.count(n) > 1}
    if dups:
        problems.append(f"duplicate case names: {sorted(dups)}")
    for case in all_cases:
        ptx_path = PTX_DIR / case.ptx
        if not ptx_path.exists():
            problems.append(f"{case.name}: missing {case.ptx}")
            continue
        if ptx_path not in cache:
            cache[ptx_path] = ptx_entries(ptx_path.read_text())
        entries = cache[ptx_path]
        if case.kernel not in entries:
            problems.append(f"{case.name}: kernel {case.kernel} not in {case.ptx} "
                            f"(has {sorted(entries)})")
            continue
        params = entries[case.kernel]
        if len(params) != len(case.args):
            problems.append(f"{case.name}: {len(case.args)} args but {case.kernel} has "
                            f"{len(params)} params")
            continue
        for i, (arg, (ptype, size, align)) in enumerate(zip(case.args, params)):
            kind = type(arg).__name__
            if kind in ("In", "Out", "InOut", "Texture", "Surface"):
                ok = size == 8 and ptype in ("u64", "b64", "s64")
                want = "a 64-bit pointer"
            elif kind == "Scalar":
                ok = PTX_TYPE_SIZES.get(arg.ptx_type.lstrip(".")) == size
                want = f"{size} bytes"
            elif kind == "Struct":
                ok = len(arg.bytes_value) == size and (arg.align is None or arg.align == align)
                want = f"{size} bytes, align {align}"
            else:
                ok, want = False, "a known argument kind"
            if not ok:
                problems.append(f"{case.name}: arg {i} ({kind} {arg!r}) does not match "
                                f"param .{ptype} size {size} (wanted {want})")
        # materialize must work and be deterministic
        try:
            a = cases_mod.materialize(case, 1234)
            b = cases_mod.materialize(case, 1234)
            for x, y in zip(a, b):
                if hasattr(x, "tobytes") and x.tobytes() != y.tobytes():
                    problems.append(f"{case.name}: materialize is not deterministic")
                    break
        except Exception as e:  # pragma: no cover - reported
            problems.append(f"{case.name}: materialize failed: {e!r}")
    for p in problems:
        print("CASE PROBLEM:", p)
    print(f"checked {len(all_cases)} cases ({len(getattr(cases_mod, 'CORE_CASES', ()))} core, "
          f"{len(getattr(cases_mod, 'EXTRA_CASES', ()))} extra, "
          f"{len(cases_mod.ADVANCED_CASES)} advanced): {len(problems)} problems")
    return 1 if problems else 0


# --------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptx", action="store_true", help="compile the CUDA sources to PTX")
    ap.add_argument("--ptxas-check", action="store_true",
                    help="assemble the generated PTX with ptxas (implies --ptx)")
    ap.add_argument("--verdicts", action="store_true",
                    help="re-record ptxas verdicts for invalid/ and valid/ snippets")
    ap.add_argument("--check-cases", action="store_true",
                    help="check tests/kernels/cases.py against the PTX signatures")
    ap.add_argument("--only", help="comma-separated source stems for --ptx")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args(argv)
    if args.ptxas_check:
        args.ptx = True
    if not (args.ptx or args.verdicts or args.check_cases):
        args.ptx = True
    rc = 0
    if args.ptx:
        only = [s.strip() for s in args.only.split(",")] if args.only else None
        rc |= build_ptx(only, args.jobs, args.ptxas_check)
    if args.verdicts:
        rc |= record_verdicts()
    if args.check_cases:
        rc |= check_cases()
    return rc


if __name__ == "__main__":
    sys.exit(main())
