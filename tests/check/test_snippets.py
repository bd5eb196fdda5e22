"""Our own snippets (tests/check/snippets), one per rule the corpus does not cover, each with
ptxas's verdict recorded in its first line by snippets/record.py."""
from __future__ import annotations

import re

import pytest

from ptxvm import toolchain

from .conftest import SNIPPETS, errors_of, snippet_verdict

FILES = sorted(SNIPPETS.glob("*.ptx"))

# Refused by ptxas only because it compiles a whole program: ptxvm takes a module as relocatable
# code, as `ptxas -c` does, and leaves its .extern functions to the linker (ptxvm.link); a launch
# that reaches an unresolved one faults (tests/engine/test_link.py).
RELOCATABLE = {"call_undefined_extern.ptx"}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_snippet_matches_ptxas(path):
    accepted, lines = snippet_verdict(path)
    kind, errors = errors_of(path.read_text(), str(path))
    shown = "\n".join(d.format() for d in errors[:5])
    if path.name in RELOCATABLE:
        assert not accepted and not errors, shown
        ptxas = toolchain.find("ptxas", toolkit_first=True)
        if ptxas:
            import subprocess

            r = subprocess.run([ptxas, "-arch=sm_90", "-c", str(path), "-o", "/dev/null"], capture_output=True,
                               text=True)
            assert r.returncode == 0, r.stderr
        return
    if accepted:
        assert not errors, shown
    else:
        assert errors, f"{path.name}: accepted, but ptxas rejects it"
        if lines:
            assert errors[0].span.line == min(lines), shown
            # every line ptxas reports an error on, and no other
            assert sorted({d.span.line for d in errors}) == sorted(set(lines)), shown


def test_snippet_names_say_the_verdict():
    """`*_ok` snippets are the accepted ones, and only they."""
    for path in FILES:
        accepted, _ = snippet_verdict(path)
        assert accepted == path.stem.endswith("_ok"), path.name


def _newest_isa():
    from ptxvm.conformance.ptxas import newest_isa
    return newest_isa()


@pytest.mark.skipif(_newest_isa() < (9, 5), reason="needs ptxas 13.5 (PTX ISA 9.5: pip install nvidia-cuda-nvcc); "
                    "the snippets' verdicts are ptxas 13.5's")
def test_recorded_verdicts_are_current():
    """Re-run ptxas (13.5) on every snippet: the recorded verdict (accepted, error lines) still holds."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("record", SNIPPETS / "record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    for path in FILES:
        now = record.verdict(path)
        head = path.read_text().split("\n", 1)[0]
        assert now.startswith("// ptxas: accepted") == head.startswith("// ptxas: accepted"), path.name
        assert re.findall(r"line (\d+):", now) == re.findall(r"line (\d+):", head), path.name
