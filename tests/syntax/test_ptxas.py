"""ptxas accepts the printed text of every sampled file it accepts as written."""
import re
import subprocess

import pytest

from ptxvm import toolchain
from ptxvm.frontend import parse
from ptxvm.syntax.printer import print_module

from helpers import corpus_files

PTXAS = toolchain.find("ptxas", toolkit_first=True)
pytestmark = pytest.mark.skipif(PTXAS is None, reason="ptxas is not installed")

VARIANTS = ("sm_75", "sm_90a", "sm_90-G", "sm_90-lineinfo", "sm_90-rdc")
MAX_BYTES = 60_000


def _sample():
    """All valid snippets, and the smaller corpus files of a few nvcc variants."""
    files = corpus_files("valid")
    by_variant = {}
    for path in sorted(corpus_files("ptx"), key=lambda p: p.stat().st_size):
        variant = path.name.split(".", 1)[1].removesuffix(".ptx")
        if variant in VARIANTS and path.stat().st_size <= MAX_BYTES and len(by_variant.get(variant, ())) < 2:
            by_variant.setdefault(variant, []).append(path)
    return files + [p for paths in by_variant.values() for p in paths]


def ptxas(path, arch):
    return subprocess.run(
        [PTXAS, f"-arch={arch}", "-c", str(path), "-o", "/dev/null"], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("path", _sample(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_printed_text_is_accepted(path, tmp_path):
    module = parse(path.read_text(), path.name)
    arch = next((t for t in module.target if re.fullmatch(r"(sm|compute)_\d+[af]?", t)), "sm_90")
    original = ptxas(path, arch)
    if original.returncode != 0:
        pytest.skip(f"ptxas rejects the file as written: {original.stderr.strip()[:200]}")
    printed = tmp_path / path.name
    printed.write_text(print_module(module))
    result = ptxas(printed, arch)
    assert result.returncode == 0, result.stderr
