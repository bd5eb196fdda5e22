"""Mutations of valid corpus modules (tokens deleted, repeated, swapped or replaced by other tokens
of the same module, lines dropped or repeated, stray punctuation) through `ptxvm.loads` raise
nothing but PtxError, and the verifier never fails internally on what the parser accepts."""
from __future__ import annotations

from functools import lru_cache

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptxvm
from ptxvm.check import verify
from ptxvm.errors import PtxError, PtxSyntaxError
from ptxvm.frontend import parse
from ptxvm.syntax.lexer import EOF, tokenize

from .conftest import CORPUS, SNIPPETS

SEEDS = sorted((CORPUS / "valid").glob("*.ptx")) + sorted(
    p for p in (CORPUS / "ptx").glob("*.sm_90.ptx") if p.stat().st_size < 12_000
) + sorted(p for p in SNIPPETS.glob("*_ok.ptx"))
PUNCTUATION = list("{}[]();,.%@!<>+-*/|_=") + [".reg", ".b32", "%r1", "0f3F800000", "::", ".v4", "1", "-1"]


@lru_cache(maxsize=None)
def tokens_of(text: str) -> list[tuple[int, int]]:
    return [(t.start, t.end) for t in tokenize(text) if t.kind != EOF]


def mutate(text: str, data) -> str:
    toks = tokens_of(text)
    if not toks:
        return text
    kind = data.draw(st.sampled_from(["delete", "repeat", "swap", "replace", "line-", "line+", "insert"]))
    i = data.draw(st.integers(0, len(toks) - 1))
    a, b = toks[i]
    if kind == "delete":
        return text[:a] + text[b:]
    if kind == "repeat":
        return text[:b] + " " + text[a:b] + text[b:]
    if kind == "swap" and i + 1 < len(toks):
        c, d = toks[i + 1]
        return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]
    if kind == "replace":
        c, d = toks[data.draw(st.integers(0, len(toks) - 1))]
        return text[:a] + text[c:d] + text[b:]
    lines = text.split("\n")
    k = data.draw(st.integers(0, len(lines) - 1))
    if kind == "line-":
        return "\n".join(lines[:k] + lines[k + 1:])
    if kind == "line+":
        return "\n".join(lines[:k + 1] + lines[k:])
    return text[:a] + data.draw(st.sampled_from(PUNCTUATION)) + text[a:]


@lru_cache(maxsize=None)
def seed_text(index: int) -> str:
    return SEEDS[index].read_text()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutations_raise_only_ptx_errors(data):
    text = seed_text(data.draw(st.integers(0, len(SEEDS) - 1)))
    for _ in range(data.draw(st.integers(1, 3))):
        text = mutate(text, data)
    try:
        tree = parse(text, "fuzz.ptx")
    except PtxSyntaxError:
        return
    ds = verify(tree, text)
    internal = [d.format() for d in ds if "internal verifier error" in d.message]
    assert not internal, "\n".join(internal) + "\n--- module ---\n" + text
    try:
        ptxvm.loads(text, "fuzz.ptx")
    except PtxError:
        pass
