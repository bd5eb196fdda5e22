"""The front door for PTX text: parse a module from a string or a file.

`parse` only parses; loading a module for execution (parse, then verify) builds on it.
"""
from __future__ import annotations

import os
from typing import Union

from .errors import Diagnostic, PtxSyntaxError, Span
from .syntax import ast
from .syntax.parser import parse as _parse, without_terminator


def parse(text: str, name: str = "<string>") -> ast.Module:
    """Parse PTX source `text`; `name` is the file name that diagnostics mention.

    Raises PtxSyntaxError (with every diagnostic) for text that is not PTX; never anything else.
    """
    try:
        return _parse(text, name)
    except PtxSyntaxError:
        raise
    except RecursionError as exc:
        raise _failure(name, "constructs nested too deeply to parse") from exc
    except Exception as exc:  # a parser bug must still surface as a diagnostic, not a traceback
        raise _failure(name, f"internal parser error ({type(exc).__name__}: {exc})") from exc


def parse_file(path: Union[str, os.PathLike]) -> ast.Module:
    """Parse the PTX file at `path` (read_source)."""
    return parse(read_source(path), os.fspath(path))


def read_source(path: Union[str, os.PathLike]) -> str:
    """The text of the PTX file at `path` (UTF-8, undecodable bytes replaced); PtxSyntaxError
    with one diagnostic when the file holds binary data (a cubin, a fatbin, ...), not text."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = without_terminator(f.read())  # a C string's NUL is not binary data
    binary = _binary(text)
    if binary:
        raise _failure(os.fspath(path), binary)
    return text


def _binary(text: str) -> str:
    """Why `text` is not PTX text at all (a cubin, a fatbin, other binary data), or ''. Its first
    4 KiB decide: a NUL, or bytes that were not UTF-8 (read with errors='replace')."""
    head = text[:4096]
    if head.startswith("\x7fELF") or head.startswith("\ufffdELF"):
        return "binary data, not PTX text: an ELF file (a cubin? ptxvm reads the PTX, e.g. nvcc -ptx)"
    if "\x00" in head or head.count("\ufffd") > 8:
        return "binary data, not PTX text"
    return ""


def _failure(name: str, message: str) -> PtxSyntaxError:
    return PtxSyntaxError([Diagnostic(Span(name, 1, 1), message)])
