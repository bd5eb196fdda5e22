"""The verifier against ptxas's verdicts on the corpus.

- every nvcc-generated module of tests/corpus/ptx verifies with no error;
- every snippet of tests/corpus/valid that ptxas accepts verifies with no error;
- every snippet of tests/corpus/invalid is rejected, the first diagnostic is on the line of
  ptxas's first error (when ptxas names one), and the lines with errors are the lines ptxas
  reports errors on.
"""
from __future__ import annotations

import json

import pytest

from .conftest import CORPUS, errors_of

NVCC = sorted((CORPUS / "ptx").glob("*.ptx"))
VALID = json.loads((CORPUS / "valid" / "VERDICTS.json").read_text())["verdicts"]
INVALID = json.loads((CORPUS / "invalid" / "VERDICTS.json").read_text())["verdicts"]

# Where we knowingly disagree with ptxas on the line (the file is still rejected).
LINE_XFAIL = {
    "missing_version.ptx": "the parser reports the missing .version at the first directive (line 3); ptxas "
                           "names the line after it",
}


def _show(ds) -> str:
    return "\n".join(d.format() for d in ds[:5])


@pytest.mark.parametrize("path", NVCC, ids=[p.name for p in NVCC])
def test_nvcc_corpus_verifies(path):
    kind, errors = errors_of(path.read_text(encoding="utf-8", errors="replace"), str(path))
    assert not errors, _show(errors)


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_snippets_verify(name):
    assert VALID[name]["accepted"]
    path = CORPUS / "valid" / name
    kind, errors = errors_of(path.read_text(), str(path))
    assert not errors, _show(errors)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_snippets_rejected_on_ptxas_line(name, request):
    verdict = INVALID[name]
    assert not verdict["accepted"]
    path = CORPUS / "invalid" / name
    kind, errors = errors_of(path.read_text(), str(path))
    assert errors, f"{name}: accepted, but ptxas says: {verdict['messages']}"
    want = verdict.get("first_error_line")
    if want is None:
        return
    if name in LINE_XFAIL:
        request.applymarker(pytest.mark.xfail(reason=LINE_XFAIL[name], strict=False))
    assert errors[0].span.line == want, f"ptxas: {verdict['messages'][:2]}\nours:\n{_show(errors)}"
    lines = sorted(set(verdict.get("error_lines") or []))
    if lines:
        assert sorted({d.span.line for d in errors}) == lines, f"ptxas: {verdict['messages']}\nours:\n{_show(errors)}"
