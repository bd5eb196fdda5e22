"""PTX line -> source file:line, from the module's .file and .loc directives (nvcc -lineinfo)."""
from __future__ import annotations

import os

from ...syntax import ast


def source_lines(tree) -> dict[int, tuple[str, int]]:
    """For every instruction's PTX line, the (file, line) of the .loc in force there; instructions
    with no .loc before them are absent. Files are named by their base name, as compute-sanitizer's
    output of a program built in its source folder names them."""
    files = {d.index: os.path.basename(d.path) for d in tree.items if isinstance(d, ast.FileDirective)}
    out: dict[int, tuple[str, int]] = {}
    for fn in tree.items:
        if isinstance(fn, ast.Function) and fn.body is not None:
            _walk(fn.body, files, out, [None])
    return out


def _walk(block, files, out, current) -> None:
    for s in block.statements:
        if isinstance(s, ast.Loc):
            current[0] = (files.get(s.file, f"file{s.file}"), s.line)
        elif isinstance(s, ast.Block):
            _walk(s, files, out, current)
        elif isinstance(s, ast.Instruction) and current[0] is not None:
            out[s.span.line] = current[0]
