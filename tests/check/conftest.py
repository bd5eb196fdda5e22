"""Shared helpers for the verifier tests."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
SNIPPETS = Path(__file__).resolve().parent / "snippets"


def diagnostics_of(text: str, name: str):
    """(kind, diagnostics): kind "syntax" when the parser rejects the text, else "verify"."""
    from ptxvm.check import verify
    from ptxvm.errors import PtxSyntaxError
    from ptxvm.frontend import parse

    try:
        tree = parse(text, name)
    except PtxSyntaxError as exc:
        return "syntax", list(exc.diagnostics)
    return "verify", verify(tree, text)


def errors_of(text: str, name: str):
    kind, ds = diagnostics_of(text, name)
    return kind, [d for d in ds if d.severity == "error"]


def snippet_verdict(path: Path) -> tuple[bool, list[int]]:
    """(accepted, error lines) from a snippet's first line (see snippets/record.py)."""
    head = path.read_text().split("\n", 1)[0]
    assert head.startswith("// ptxas: "), f"{path.name}: no recorded ptxas verdict"
    accepted = head.startswith("// ptxas: accepted")
    return accepted, [int(n) for n in re.findall(r"line (\d+):", head) if int(n) > 0]
