"""The README's main job stays true: the SAXPY example runs and checks itself."""
import pathlib
import runpy

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples" / "saxpy.py"


def test_saxpy_example_runs(capsys):
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out
    assert "result matches a*x+y: True" in out


def test_saxpy_example_ptx_is_the_corpus_file():
    corpus = EXAMPLE.parents[1] / "tests" / "corpus" / "ptx" / "saxpy.sm_90.ptx"
    if not corpus.exists():
        pytest.skip("corpus file absent")
    assert (EXAMPLE.parent / "saxpy.ptx").read_text() == corpus.read_text()
