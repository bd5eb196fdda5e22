"""Debugging directives (ISA 11.5): .loc, .file, .section with its DWARF data lines, @@DWARF."""
from __future__ import annotations

from . import ast
from ._fastpath import FastPathParser
from .lexer import DIRECTIVE, EOF, IDENT, INT, STRING


class DebugParser(FastPathParser):
    def parse_loc(self) -> ast.Loc:
        lex = self.lex
        start, end = lex.start, lex.end
        lex.next()
        file = self.expect_int("a file index")
        line = self.expect_int("a line number")
        col = self.expect_int("a column")
        function_name = function_offset = inlined_at = None
        if self.accept(","):
            self._expect_keyword("function_name")
            if lex.kind not in (IDENT, DIRECTIVE) or (lex.kind == IDENT and "." in lex.value):
                self.fail_expected("a label in .debug_str")
            function_name = lex.value
            lex.next()
            if self.accept("+"):
                function_offset = self.expect_int("an offset")
            self.expect(",", "', inlined_at'")
            self._expect_keyword("inlined_at")
            inlined_at = (self.expect_int("a file index"), self.expect_int("a line number"), self.expect_int("a column"))
        return ast.Loc(file, line, col, function_name, function_offset, inlined_at, self.span(start, end))

    def _expect_keyword(self, word: str) -> None:
        if self.lex.kind != IDENT or self.lex.value != word:
            self.fail_expected(f"'{word}'")
        self.lex.next()

    def parse_file(self) -> ast.FileDirective:
        """`.file 1 "name.cu"[, timestamp, size]`"""
        lex = self.lex
        start, end = lex.start, lex.end
        lex.next()
        index = self.expect_int("a file index")
        if lex.kind != STRING:
            self.fail_expected("a file name string")
        path = lex.value[1:-1]
        lex.next()
        timestamp = size = None
        if self.accept(","):
            timestamp = self.expect_int("a timestamp")
            self.expect(",", "', file size'")
            size = self.expect_int("a file size")
        return ast.FileDirective(index, path, timestamp, size, self.span(start, end))

    def parse_section(self) -> ast.Section:
        """`.section .debug_info { ... }`; old modules add attributes: `.section name, "", @progbits`."""
        lex = self.lex
        start, end = lex.start, lex.end
        lex.next()
        if lex.kind not in (DIRECTIVE, IDENT) or (lex.kind == IDENT and "." in lex.value):
            self.fail_expected("a section name")
        name = lex.value
        lex.next()
        attributes = []
        while self.accept(","):
            attributes.append(self._section_attribute())
        self.expect("{", "'{' to open the section")
        entries: list = []
        while True:
            lex.seek(self.fast_section_entries(entries, lex.start))
            if lex.kind == "}":
                break
            if lex.kind == EOF:
                self.fail_expected("'}' to close the section")
            entries.append(self._section_entry())
        lex.next()
        return ast.Section(name, tuple(entries), tuple(attributes), self.span(start, end))

    def _section_attribute(self) -> str:
        lex = self.lex
        if lex.kind == "@":
            lex.next()
            return "@" + self.expect_name("a section type")
        if lex.kind in (STRING, IDENT, INT):
            value = lex.value
            lex.next()
            return value
        self.fail_expected("a section attribute")

    def _section_entry(self) -> ast.SectionEntry:
        lex = self.lex
        start, end = lex.start, lex.end
        if lex.kind == IDENT and lex.peek_kind() == ":":
            name = self.expect_name("a label")
            lex.next()
            return ast.SectionEntry("label", (ast.SymbolRef(name),), self.span(start, end))
        if lex.kind != DIRECTIVE:
            self.fail_expected("a data directive (.b8, .b16, .b32, .b64) or a label")
        directive = lex.value[1:]
        lex.next()
        values = [self.parse_expr(section=True)]
        while self.accept(","):
            values.append(self.parse_expr(section=True))
        return ast.SectionEntry(directive, tuple(values), self.span(start, end))

    def parse_dwarf(self) -> ast.Dwarf:
        lex = self.lex
        node = ast.Dwarf(lex.value[len("@@DWARF") :].strip(), self.token_span())
        lex.next()
        return node
