"""`ptxvm check`: compiler-style diagnostics, exit status, JSON, and no tracebacks for bad input."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ptxvm.cli import main

CORPUS = Path(__file__).resolve().parent / "corpus"
GOOD = str(CORPUS / "valid" / "parameterized_registers.ptx")
BAD = str(CORPUS / "invalid" / "multiple_errors.ptx")


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_help_lists_check():
    r = run("--help")
    assert r.exit_code == 0 and "check" in r.output


def test_valid_file_exits_zero():
    r = run("check", GOOD)
    assert r.exit_code == 0, r.output
    assert "error" not in r.stdout
    assert "1 file checked: no problems" in r.output


def test_invalid_file_prints_every_diagnostic_and_exits_one():
    r = run("check", BAD)
    assert r.exit_code == 1
    out = r.stdout
    assert f"{BAD}:20:23: error: '%r99' is not declared" in out
    assert f"{BAD}:21:" in out and f"{BAD}:22:" in out
    assert "    add.s32 %r1, %r1, %r99;\n                      ^~~~" in out
    assert "3 errors" in r.output
    assert "Traceback" not in r.output


def test_json_output():
    r = run("check", "--json", GOOD, BAD)
    assert r.exit_code == 1
    payload = json.loads(r.stdout)
    assert payload["ok"] is False and payload["errors"] == 3
    good, bad = payload["files"]
    assert good == {"file": GOOD, "ok": True, "errors": 0, "warnings": 0, "diagnostics": []}
    assert bad["errors"] == 3
    first = bad["diagnostics"][0]
    assert first["line"] == 20 and first["col"] == 23 and first["severity"] == "error"
    assert first["message"].startswith("'%r99' is not declared") and first["length"] == 4


def test_syntax_errors_are_diagnostics():
    r = run("check", str(CORPUS / "invalid" / "missing_semicolon.ptx"))
    assert r.exit_code == 1
    assert "missing_semicolon.ptx:21:" in r.stdout and "Traceback" not in r.output


def test_unreadable_and_binary_input(tmp_path):
    junk = tmp_path / "junk.ptx"
    junk.write_bytes(bytes(range(256)) * 4)
    r = run("check", str(tmp_path / "missing.ptx"), str(junk))
    assert r.exit_code == 1
    assert "missing.ptx:1:1: error: cannot read file" in r.stdout
    assert "junk.ptx:1:1: error: binary data, not PTX text" in r.stdout
    assert r.stdout.count("junk.ptx:") == 1  # one diagnostic, not one per undecodable character
    assert "Traceback" not in r.output
    cubin = tmp_path / "k.ptx"
    cubin.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(200))
    r = run("check", str(cubin))
    assert r.exit_code == 1 and "an ELF file (a cubin?" in r.stdout


def test_stdin():
    r = run("check", "-", input=Path(GOOD).read_text())
    assert r.exit_code == 0, r.output
    r = run("check", "--json", "-", input=".version 8.0\n.target sm_90\n.address_size 64\n.entry k() { bra X; }\n")
    assert r.exit_code == 1
    assert json.loads(r.stdout)["files"][0]["file"] == "<stdin>"


def test_warnings_only_exit_zero_and_can_be_hidden():
    path = str(Path(__file__).resolve().parent / "check" / "snippets" / "dir_minnctapersm_alone_ok.ptx")
    r = run("check", path)
    assert r.exit_code == 0 and "warning:" in r.stdout and "1 warning" in r.output
    r = run("check", "--no-warnings", "--quiet", path)
    assert r.exit_code == 0 and r.stdout == ""


def test_internal_errors_are_reported_not_raised(monkeypatch):
    from ptxvm.check import walk

    monkeypatch.setattr(walk.Walker, "run", lambda self: [][1])
    r = run("check", GOOD)
    assert r.exit_code == 1
    assert "internal verifier error: IndexError" in r.stdout and "Traceback" not in r.output


def test_a_nul_terminated_ptx_image_is_read_up_to_the_nul(tmp_path):
    """NVIDIA Warp writes its .ptx files as C strings (a trailing NUL); the driver reads them up to
    the NUL, and so does ptxvm."""
    import ptxvm

    text = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n"
    f = tmp_path / "warp.ptx"
    f.write_bytes(text.encode() + b"\x00")
    r = run("check", str(f))
    assert r.exit_code == 0, r.output
    assert ptxvm.loads(text + "\x00").kernels == ptxvm.load(str(f)).kernels
