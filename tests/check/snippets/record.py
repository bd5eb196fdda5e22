"""Record ptxas's verdict in the first line of each snippet here (needs ptxas: the newest installed,
the CUDA 13.5 wheels' when present, as ptxvm.conformance.ptxas.find picks it).

    python tests/check/snippets/record.py            # every snippet
    python tests/check/snippets/record.py a.ptx      # some

Line 1 of a snippet is its verdict, rewritten by this script:
    // ptxas: accepted
    // ptxas: error line 14: <message> | line 15: <message> | no line: <message>
(warnings are kept as `warning: <message>` after an accepted verdict). Line 2 says what the snippet
tests. ptxas runs with -arch set to the snippet's .target (sm_90 when it names none or an older one).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
_LINE = re.compile(r"^ptxas (?:\S+), line (\d+); (error|fatal|warning)\s*: (.*)$")


def arch_of(text: str) -> str:
    m = re.search(r"^\s*\.target\s+([^\n]*)", text, re.M)
    if m:
        for word in re.split(r"[\s,]+", m.group(1)):
            t = re.fullmatch(r"sm_(\d+)([af]?)", word)
            if t and int(t.group(1)) >= 90:
                return word
    return "sm_90"


def ptxas_tool() -> str:
    """The newest ptxas installed (ptxvm.conformance.ptxas.find: the CUDA 13.5 wheels' first)."""
    sys.path.insert(0, str(HERE.parents[2]))
    from ptxvm.conformance.ptxas import find
    return find() or "ptxas"


def run_ptxas(path: Path, arch: str) -> subprocess.CompletedProcess:
    return subprocess.run([ptxas_tool(), f"-arch={arch}", path.name, "-o", "/dev/null"], cwd=path.parent,
                          capture_output=True, text=True)


def verdict(path: Path) -> str:
    text = path.read_text()
    p = run_ptxas(path, arch_of(text))
    if "is not defined for option 'gpu-name'" in p.stdout + p.stderr:
        p = run_ptxas(path, "sm_90")
    errors, warnings = [], []
    for raw in (p.stdout + p.stderr).splitlines():
        if "aborted due to errors" in raw:
            continue
        m = _LINE.match(raw.strip())
        if m:
            line, kind, message = m.groups()
            (warnings if kind == "warning" else errors).append((int(line), message.strip()))
        elif raw.strip():
            m = re.search(r"on line '(\d+)'", raw)  # "Program uses 32-bit address on line '21' ..."
            rest = raw.replace("ptxas", "", 1).strip()
            if "fatal" in raw or "error" in raw or m:
                errors.append((int(m.group(1)) if m else 0, rest))
    if p.returncode == 0:
        out = "// ptxas: accepted"
        if warnings:
            out += " | " + " | ".join(f"warning: {w}" for _, w in warnings)
        return out
    if p.returncode < 0 or p.returncode == 139:
        return f"// ptxas: crashed (signal {-p.returncode if p.returncode < 0 else 11})"
    errors.sort(key=lambda e: e[0] or 10**9)
    return "// ptxas: error " + " | ".join(f"line {n}: {m}" if n else f"no line: {m}" for n, m in errors)


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] or sorted(HERE.glob("*.ptx"))
    for path in files:
        lines = path.read_text().split("\n")
        v = verdict(path)
        if lines and lines[0].startswith("// ptxas:"):
            lines[0] = v
        else:
            lines.insert(0, v)
        path.write_text("\n".join(lines))
        print(f"{path.name}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
