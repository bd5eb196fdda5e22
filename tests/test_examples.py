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


def test_triton_example_runs(capsys):
    pytest.importorskip("triton", reason="triton is not installed (pip install 'ptxvm[triton]')")
    runpy.run_path(str(EXAMPLE.parent / "triton_matmul.py"), run_name="__main__")
    out = capsys.readouterr().out
    diff = float(out.rsplit(":", 1)[1])
    assert "f16 matmul" in out and diff <= 2 ** -6  # f16 rounding of values below 16 in magnitude


def test_numba_example_runs(capsys):
    pytest.importorskip("numba.cuda", reason="numba-cuda is not installed (pip install 'ptxvm[numba]')")
    runpy.run_path(str(EXAMPLE.parent / "numba_reduce.py"), run_name="__main__")
    out = capsys.readouterr().out
    got, want = out.split("ptxvm: ")[1].split(" (NumPy: ")
    assert int(got) == int(want.rstrip(")\n"))
