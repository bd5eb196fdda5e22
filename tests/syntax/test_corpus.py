"""Every corpus file parses, prints, and re-parses to an equal module with printing a fixed point;
the fast paths build exactly what the general parser builds."""
import pytest

from ptxvm.frontend import parse
from ptxvm.syntax.printer import print_module

from helpers import corpus_files, parse_general, statement_spans

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
def test_fast_paths_match_general_parser(path):
    text = path.read_text()
    fast = parse(text, path.name)
    general = parse_general(text, path.name)
    assert general == fast
    assert statement_spans(general) == statement_spans(fast)
