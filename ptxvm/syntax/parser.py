"""PTX text -> ast.Module, for PTX ISA 1.0 through 9.0.

A recursive-descent parser over lazily lexed tokens, with whole-line fast paths for the shapes that
make up most of compiler output (instructions, `.loc`, `.section` data lines). Syntax errors are
collected; after each the parser skips to the end of the statement (`;`) or block (`}`) and goes
on, and at the end raises PtxSyntaxError with every diagnostic.

Spans: statements, declarations, directives, labels, guards and initializer lists carry spans.
Operand and expression nodes do not (they are shared between occurrences; see
spans.operand_span).
"""
from __future__ import annotations

from typing import Optional

from ..errors import Diagnostic, PtxSyntaxError, Span
from . import ast
from ._base import ParseError, TooManyErrors
from ._debug import DebugParser
from ._decls import LINKAGES, STATE_SPACES
from .gcpause import paused_gc
from .lexer import DIRECTIVE, DWARF, EOF, FLOAT, IDENT
from .scope import Scopes

LABELLED_DIRECTIVES = frozenset((".branchtargets", ".calltargets", ".callprototype"))
MODULE_STARTS = frozenset(
    (".version", ".target", ".address_size", ".entry", ".func", ".alias", ".file", ".section")
) | LINKAGES | (STATE_SPACES - {".reg", ".param"})


def without_terminator(text: str) -> str:
    """PTX kept as a C string ends in NUL bytes (NVIDIA Warp writes its .ptx files so): the driver
    reads such an image up to the NUL, and so does ptxvm (ptxas 13.0 calls it "Unexpected EOF")."""
    return text.rstrip("\x00") if text.endswith("\x00") else text


def parse(text: str, file: str = "<string>") -> ast.Module:
    """Parse a whole PTX module. Raises PtxSyntaxError listing every syntax error found."""
    with paused_gc():
        return parse_with(Parser(text, file))


def parse_with(parser: "Parser") -> ast.Module:
    """Run `parser` (a Parser, or a subclass) over its whole text; as parse()."""
    try:
        module = parser.parse_module()
    except TooManyErrors:
        module = None
        last = parser.diagnostics[-1]
        parser.diagnostics.append(Diagnostic(last.span, "too many errors; parsing stopped here", "note"))
    if parser.diagnostics:
        raise PtxSyntaxError(parser.diagnostics)
    return module


class Parser(DebugParser):
    def __init__(self, text: str, file: str = "<string>"):
        super().__init__(without_terminator(text), file)
        self.scopes = Scopes()

    # ------------------------------------------------------------------ module

    def parse_module(self) -> ast.Module:
        self.version: Optional[tuple[int, int]] = None
        self.target: Optional[tuple[str, ...]] = None
        self.address_size: Optional[int] = None
        items: list = []
        lex = self.lex
        while lex.kind != EOF:
            start = lex.start
            try:
                self.parse_toplevel(items)
            except ParseError as error:
                self.report(error)
                self.scopes.reset()
                self.recover_toplevel(start)
        if self.version is None:
            self.report(ParseError("missing .version directive", len(self.text), len(self.text)))
        return ast.Module(
            version=self.version or (0, 0),
            target=self.target or (),
            address_size=self.address_size,
            items=tuple(items),
            file=self.file,
            span=Span(self.file, 1, 1),
            source=self.text,
        )

    def parse_toplevel(self, items: list) -> None:
        lex = self.lex
        if lex.kind == DWARF:
            items.append(self.parse_dwarf())
            return
        if lex.kind != DIRECTIVE:
            self.fail_expected("a directive")
        word = lex.value
        if self.version is None and word != ".version":
            self.version = (0, 0)  # reported once, then parsing goes on
            self.report(ParseError("missing .version directive at the start of the module", lex.start, lex.end))
        if word == ".version":
            self._version()
        elif word == ".target":
            self._target_directive(items)
        elif word == ".address_size":
            self._address_size()
        elif word in (".entry", ".func"):
            items.append(self.parse_function(None))
        elif word in LINKAGES:
            self._linked(items)
        elif word in STATE_SPACES:
            items.extend(self.parse_var_decls(None))
        elif word == ".alias":
            items.append(self._alias())
        elif word == ".file":
            items.append(self.parse_file())
        elif word == ".section":
            items.append(self.parse_section())
        elif word == ".loc":
            self.fail(".loc is only allowed inside a function body")
        else:
            items.append(self.parse_directive_args())
            self.expect(";", f"';' after .{items[-1].name}")

    def _version(self) -> None:
        lex = self.lex
        if self.version is not None:
            self.fail("duplicate .version directive")
        lex.next()
        if lex.kind != FLOAT or not _is_version(lex.value):
            self.fail_expected("a version number such as 8.0")
        major, minor = lex.value.split(".")
        self.version = (int(major), int(minor))
        lex.next()

    def _target_directive(self, items: list) -> None:
        lex = self.lex
        start, end = lex.start, lex.end
        lex.next()
        names = [self.expect_name("a target such as sm_90")]
        while self.accept(","):
            names.append(self.expect_name("a target such as sm_90"))
        if self.target is None:
            self.target = tuple(names)
        else:  # a later .target changes the features allowed from here on (ISA 11.1.2)
            items.append(ast.Directive("target", tuple(ast.SymbolRef(n) for n in names), self.span(start, end)))

    def _address_size(self) -> None:
        lex = self.lex
        if self.address_size is not None:
            self.fail("duplicate .address_size directive")
        lex.next()
        self.address_size = self.expect_int("an address size (32 or 64)")

    def _linked(self, items: list) -> None:
        lex = self.lex
        linkage = lex.value[1:]
        lex.next()
        if lex.kind == DIRECTIVE and lex.value in (".entry", ".func"):
            items.append(self.parse_function(linkage))
        elif lex.kind == DIRECTIVE and lex.value in STATE_SPACES:
            items.extend(self.parse_var_decls(linkage))
        else:
            self.fail_expected(f"a function or variable declaration after .{linkage}")

    def _alias(self) -> ast.Alias:
        lex = self.lex
        start, end = lex.start, lex.end
        lex.next()
        alias = self.expect_name("a function name")
        self.expect(",", "',' in .alias")
        aliasee = self.expect_name("a function name")
        self.expect(";", "';' after .alias")
        return ast.Alias(alias, aliasee, self.span(start, end))

    def parse_function(self, linkage: Optional[str]) -> ast.Function:
        function = self.parse_function_header(linkage)
        lex = self.lex
        if lex.kind == ";":
            lex.next()
            self.scopes.pop()
            return function
        if lex.kind != "{":
            self.fail_expected("'{' or ';' after the function header")
        function.body = self.parse_block(1)
        self.scopes.pop()
        return function

    def recover_toplevel(self, start: int) -> None:
        """Skip the broken module-level statement that began at `start`: through its `;` or its
        `{...}` (and a `;` right after it), or up to the next directive that starts a
        module-level statement."""
        lex = self.lex
        lex.seek(start)
        depth = 0
        first = True
        while lex.kind != EOF:
            kind = lex.kind
            if depth == 0 and not first and (kind == DWARF or (kind == DIRECTIVE and lex.value in MODULE_STARTS)):
                return
            lex.next()
            first = False
            if kind == "{":
                depth += 1
            elif kind == "}" and depth > 0:
                depth -= 1
                if depth == 0:
                    self.accept(";")
                    return
            elif kind == ";" and depth == 0:
                return

    # ------------------------------------------------------------------ statements

    def parse_block(self, depth: int) -> ast.Block:
        """At `{`: the statements up to the matching `}`, in a new scope."""
        lex = self.lex
        self.check_depth(depth)
        span = self.token_span()
        pos = lex.end
        statements: list = []
        while True:
            lex.seek(self.fast_statements(statements, pos))
            kind = lex.kind
            if kind == "}":
                lex.next()
                return ast.Block(tuple(statements), span)
            if kind == EOF:
                self.fail_expected("'}' to close the block")
            start = lex.start
            try:
                self.parse_statement(statements, depth)
            except ParseError as error:
                self.report(error)
                self.recover_statement(start)
            pos = lex.start

    def parse_statement(self, statements: list, depth: int) -> None:
        lex = self.lex
        kind = lex.kind
        if kind == IDENT:
            if lex.peek_kind() == ":":
                self._label(statements)
            else:
                statements.append(self.parse_instruction(None))
        elif kind == "@":
            statements.append(self.parse_instruction(self.parse_guard()))
        elif kind == DIRECTIVE:
            self._directive_statement(statements)
        elif kind == "{":
            self.scopes.push()
            try:
                statements.append(self.parse_block(depth + 1))
            finally:
                self.scopes.pop()
        else:
            self.fail_expected("a statement")

    def _label(self, statements: list) -> None:
        lex = self.lex
        start, end = lex.start, lex.end
        name = self.expect_name("a label")
        lex.next()  # ':'
        if lex.kind == DIRECTIVE and lex.value in LABELLED_DIRECTIVES:
            statements.append(self.parse_labelled_directive(name, start, end))
        else:
            statements.append(ast.Label(name, self.span(start, end)))

    def _directive_statement(self, statements: list) -> None:
        lex = self.lex
        word = lex.value
        if word == ".loc":
            statements.append(self.parse_loc())
        elif word in STATE_SPACES:
            statements.extend(self.parse_var_decls(None))
        elif word in LINKAGES and lex.peek_kind() == DIRECTIVE:
            linkage = word[1:]
            lex.next()
            if lex.value not in STATE_SPACES:
                self.fail_expected(f"a variable declaration after .{linkage}")
            statements.extend(self.parse_var_decls(linkage))
        elif word in LABELLED_DIRECTIVES:
            self.fail(f"{word} must follow a label")
        elif word in MODULE_STARTS:
            self.fail(f"{word} is only allowed at module scope")
        else:
            statements.append(self.parse_directive_args())
            self.expect(";", f"';' after .{statements[-1].name}")

    def recover_statement(self, start: int) -> None:
        """Skip the broken statement that began at `start`: through its `;`, or up to a `}` that
        closes the enclosing block. Braces inside the statement (vector operands) are balanced."""
        lex = self.lex
        lex.seek(start)
        depth = 0
        first = True
        while lex.kind != EOF:
            kind = lex.kind
            if kind == "}" and depth == 0 and not first:
                return
            lex.next()
            first = False
            if kind == "{":
                depth += 1
            elif kind == "}":
                depth = max(0, depth - 1)
            elif kind == ";" and depth == 0:
                return


def _is_version(text: str) -> bool:
    major, _, minor = text.partition(".")
    return major.isdigit() and minor.isdigit()
