"""Small builders shared by the syntax tests."""
from __future__ import annotations

from pathlib import Path
from unittest import mock

from ptxvm.frontend import parse
from ptxvm.syntax import _exprs, ast
from ptxvm.syntax.parser import Parser, parse_with
from ptxvm.syntax.printer import print_module

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n"


def module(text: str, header: str = HEADER) -> ast.Module:
    return parse(header + text, "t.ptx")


def body(statements: str, declarations: str = "") -> tuple:
    """The statements of a kernel whose body is `statements` (registers %r, %rd, %f, %p declared)."""
    regs = ".reg .b32 %r<10>; .reg .b64 %rd<10>; .reg .f32 %f<10>; .reg .pred %p<10>;\n"
    m = module(f"{declarations}\n.visible .entry k()\n{{\n{regs}{statements}\n}}\n")
    return m.function("k").body.statements[4:]


def instruction(text: str, declarations: str = "") -> ast.Instruction:
    (insn,) = body(text, declarations)
    return insn


def operands(text: str, declarations: str = "") -> tuple:
    return instruction(text, declarations).operands


def roundtrip(text: str) -> str:
    """Print the parsed text, and check the printed form is a fixed point parsing to an equal AST."""
    m = parse(text, "t.ptx")
    printed = print_module(m)
    again = parse(printed, "t.ptx")
    assert again == m, "printed text parses to a different module"
    assert print_module(again) == printed, "printing is not a fixed point"
    return printed


def corpus_files(*subdirs: str) -> list[Path]:
    files = []
    for sub in subdirs:
        directory = CORPUS / sub
        if directory.is_dir():
            files.extend(sorted(directory.glob("*.ptx")))
    return files


class GeneralParser(Parser):
    """The parser with every fast path switched off."""

    def fast_statements(self, statements, pos):
        return pos

    def fast_section_entries(self, entries, pos):
        return pos


def parse_general(text: str, name: str = "t.ptx") -> ast.Module:
    """What the general parser alone makes of `text` (same contract as parse)."""
    with mock.patch.object(_exprs, "_flat_list", lambda text, start: None):
        return parse_with(GeneralParser(text, name))


def statement_spans(module: ast.Module) -> list:
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
