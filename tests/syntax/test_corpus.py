"""Every corpus file parses, prints, and re-parses to an equal module with printing a fixed point;
the fast paths build exactly what the general parser builds."""
import pytest

from ptxvm.frontend import parse
from ptxvm.syntax.parser import Parser
from ptxvm.syntax.printer import print_module

from helpers import corpus_files

FILES = corpus_files("ptx", "valid")
SAMPLE_LINES = 40_000  # general-path parsing is slower: compare on a sample of this many lines


def _id(path):
    return f"{path.parent.name}/{path.name}"


@pytest.mark.skipif(not FILES, reason="tests/corpus/{ptx,valid} holds no PTX files yet")
@pytest.mark.parametrize("path", FILES, ids=_id)
def test_round_trip_is_a_fixed_point(path):
    text = path.read_text()
    module = parse(text, path.name)
    printed = print_module(module)
    again = parse(printed, path.name)
    assert again == module
    assert print_module(again) == printed


class GeneralParser(Parser):
    """The parser with every fast path switched off."""

    def fast_statements(self, statements, pos):
        return pos

    def fast_section_entries(self, entries, pos):
        return pos


def _sample(files, budget):
    """The valid snippets, then corpus files of growing size until `budget` lines."""
    chosen = [f for f in files if f.parent.name == "valid"]
    for f in sorted((f for f in files if f.parent.name == "ptx"), key=lambda p: p.stat().st_size):
        lines = f.read_text().count("\n")
        if lines > budget:
            break
        budget -= lines
        chosen.append(f)
    return chosen[:: max(1, len(chosen) // 60)]


@pytest.mark.skipif(not FILES, reason="tests/corpus/{ptx,valid} holds no PTX files yet")
@pytest.mark.parametrize("path", _sample(FILES, SAMPLE_LINES), ids=_id)
def test_fast_paths_match_general_parser(path, monkeypatch):
    from ptxvm.syntax import _exprs

    text = path.read_text()
    fast = Parser(text, path.name).parse_module()
    monkeypatch.setattr(_exprs, "_flat_list", lambda text, start: None)
    general = GeneralParser(text, path.name).parse_module()
    assert general == fast
    assert _spans(general) == _spans(fast)


def _spans(module):
    """Spans of the statements, which equality does not compare."""
    out = []

    def walk(statements):
        for s in statements:
            out.append((type(s).__name__, s.span))
            if getattr(s, "guard", None) is not None:
                out.append(("guard", s.guard.span))
            if hasattr(s, "statements"):
                walk(s.statements)

    for item in module.items:
        out.append((type(item).__name__, item.span))
        if getattr(item, "body", None) is not None:
            walk(item.body.statements)
        for entry in getattr(item, "entries", ()):
            out.append(("entry", entry.span))
    return out
