"""ptxvm.toolchain: where NVIDIA's tools are looked for, in which order."""
import os
import stat

from ptxvm import toolchain


def _fake_tool(path, release):
    path.write_text(f"#!/bin/sh\necho 'Cuda compilation tools, release {release}, V{release}.0'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_environment_variable_comes_first(tmp_path, monkeypatch):
    fake = _fake_tool(tmp_path / "ptxas", "12.3")
    monkeypatch.setenv("PTXAS", fake)
    assert toolchain.installed("ptxas")[0] == fake
    assert toolchain.find("ptxas") == fake
    assert toolchain.by_release("ptxas")["12.3"] == fake
    assert toolchain.find("ptxas", "12.3") == fake


def test_toolkit_first_puts_path_before_the_wheels(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = _fake_tool(bin_dir / "nvdisasm", "11.8")
    monkeypatch.delenv("NVDISASM", raising=False)
    monkeypatch.setenv("PATH", str(bin_dir) + os.pathsep + os.environ.get("PATH", ""))
    found = toolchain.installed("nvdisasm", toolkit_first=True)
    assert found[0] == fake
    assert fake in toolchain.installed("nvdisasm")


def test_an_absent_tool_is_none_and_require_says_what_to_install(monkeypatch):
    assert toolchain.find("no-such-nvidia-tool") is None
    monkeypatch.setenv("PATH", "")
    try:
        toolchain.require("no-such-nvidia-tool", "the test")
    except SystemExit as e:
        assert "no-such-nvidia-tool not found" in str(e)
    else:
        raise AssertionError("require did not exit")


def test_a_release_that_is_not_installed_is_none(tmp_path, monkeypatch):
    monkeypatch.setenv("PTXAS", _fake_tool(tmp_path / "ptxas", "12.3"))
    assert toolchain.find("ptxas", "9.9") is None
