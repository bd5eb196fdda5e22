"""Declarations: variables in every state space (ISA 5.4), parameter lists, function headers and
their performance directives (ISA 11.2, 11.4, 11.7), and the control-flow directives (ISA 11.3)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from . import ast
from ._operands import OperandParser
from .lexer import DIRECTIVE, FLOAT, HEXFLOAT, IDENT, INT, STRING

STATE_SPACES = frozenset(
    (".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex")
)
POINTER_SPACES = frozenset((".const", ".global", ".local", ".shared"))
LINKAGES = frozenset((".extern", ".visible", ".weak", ".common"))
VECTORS = frozenset((".v2", ".v4", ".v8", ".v16"))
ARGUMENT_STARTS = frozenset((INT, FLOAT, HEXFLOAT, STRING, IDENT, "(", "-", "+", "!", "~"))


@dataclass
class DeclHead:
    """Everything before the names of a declaration: `.global .align 4 .v2 .f32`."""

    space: str
    type: Optional[str] = None
    vector: Optional[int] = None
    align: Optional[int] = None
    attributes: tuple[str, ...] = ()
    ptr: bool = False
    ptr_space: Optional[str] = None
    ptr_align: Optional[int] = None


class DeclParser(OperandParser):
    # ------------------------------------------------------------------ variables

    def parse_decl_head(self) -> DeclHead:
        """At a state-space directive; `.const[2]` (banked constants, PTX 1.x) is kept as written."""
        lex = self.lex
        head = DeclHead(lex.value[1:])
        lex.next()
        if lex.kind == "[" and head.space == "const":
            lex.next()
            head.space = f"const[{self.expect_int('a constant bank number')}]"
            self.expect("]")
        while lex.kind == DIRECTIVE:
            word = lex.value
            if word == ".align":
                lex.next()
                head.align = self.expect_int("an alignment")
            elif word in VECTORS:
                head.vector = int(word[2:])
                lex.next()
            elif word == ".attribute":
                lex.next()
                head.attributes += self.parse_attributes()
            elif word == ".ptr":
                lex.next()
                self._pointer_attributes(head)
            elif head.type is None:
                head.type = word[1:]
                lex.next()
            else:
                self.fail(f"unexpected '{word}' after type .{head.type}")
        if head.type is None:
            self.fail_expected("a type")
        return head

    def _pointer_attributes(self, head: DeclHead) -> None:
        """`.ptr[.space][.align N]` on a kernel parameter (ISA 5.1.6.3)."""
        lex = self.lex
        head.ptr = True
        if lex.kind == DIRECTIVE and lex.value in POINTER_SPACES:
            head.ptr_space = lex.value[1:]
            lex.next()
        if lex.kind == DIRECTIVE and lex.value == ".align":
            lex.next()
            head.ptr_align = self.expect_int("an alignment")

    def parse_attributes(self) -> tuple[str, ...]:
        """`(.managed)`, `(.unified(uuid1, uuid2))`: kept as `managed`, `unified(1, 2)`."""
        self.expect("(", "'(' after .attribute")
        attributes = [self._attribute()]
        while self.accept(","):
            attributes.append(self._attribute())
        self.expect(")", "',' or ')' after attribute")
        return tuple(attributes)

    def _attribute(self) -> str:
        lex = self.lex
        if lex.kind != DIRECTIVE:
            self.fail_expected("an attribute such as .managed")
        name = lex.value[1:]
        lex.next()
        if lex.kind != "(":
            return name
        lex.next()
        args = [self.expect_int()]
        while self.accept(","):
            args.append(self.expect_int())
        self.expect(")")
        return f"{name}({', '.join(map(str, args))})"

    def parse_declarator(self, head: DeclHead, linkage: Optional[str], allow_init: bool = True) -> ast.VarDecl:
        """One name of a declaration, with its `<count>`, `[dims]` and `= initializer`."""
        lex = self.lex
        start, end = lex.start, lex.end
        name = self.expect_name("a variable name")
        count = None
        array: list[Optional[int]] = []
        if lex.kind == "<":
            lex.next()
            count = self.expect_int("a register count")
            self.expect(">", "'>' after register count")
        while lex.kind == "[":
            lex.next()
            if lex.kind == "]":
                array.append(None)
            else:  # ptxas takes no expressions here, only literals
                array.append(self.expect_int("an integer array size"))
            self.expect("]", "']' after array size")
        init = None
        if lex.kind == "=":
            if not allow_init:
                self.fail("parameters cannot have initializers")
            lex.next()
            init = self.parse_initializer()
        decl = ast.VarDecl(
            space=head.space,
            type=head.type,
            name=name,
            vector=head.vector,
            array=tuple(array),
            align=head.align,
            linkage=linkage,
            count=count,
            init=init,
            attributes=head.attributes,
            ptr=head.ptr,
            ptr_space=head.ptr_space,
            ptr_align=head.ptr_align,
            span=self.span(start, end),
        )
        self._declare(decl)
        return decl

    def _declare(self, decl: ast.VarDecl) -> None:
        is_register = decl.space == "reg"
        if decl.count is not None:
            self.scopes.declare_range(decl.name, decl.count, is_register)
        else:
            self.scopes.declare(decl.name, is_register)

    def parse_var_decls(self, linkage: Optional[str]) -> list[ast.VarDecl]:
        """`.global .u32 a, b[4] = {...};` at a state-space directive; one VarDecl per name."""
        head = self.parse_decl_head()
        decls = [self.parse_declarator(head, linkage)]
        while self.accept(","):
            decls.append(self.parse_declarator(head, linkage))
        self.expect(";", "',' or ';' after declaration")
        return decls

    def parse_param_list(self) -> tuple[ast.VarDecl, ...]:
        """`( .param .u64 a, .reg .b32 b )`; empty lists allowed."""
        lex = self.lex
        self.expect("(")
        params = []
        if lex.kind != ")":
            params.append(self._param())
            while self.accept(","):
                params.append(self._param())
        self.expect(")", "',' or ')' in parameter list")
        return tuple(params)

    def _param(self) -> ast.VarDecl:
        lex = self.lex
        if lex.kind != DIRECTIVE or lex.value not in STATE_SPACES:
            self.fail_expected("a parameter declaration such as '.param .u32 name'")
        return self.parse_declarator(self.parse_decl_head(), None, allow_init=False)

    # ------------------------------------------------------------------ functions

    def parse_function_header(self, linkage: Optional[str]):
        """`.entry`/`.func` up to (not including) its body or `;`. Returns a Function without body;
        parameters are declared in a new scope that the caller pops."""
        lex = self.lex
        kind = lex.value[1:]
        lex.next()
        attributes: tuple[str, ...] = ()
        if lex.kind == DIRECTIVE and lex.value == ".attribute":
            lex.next()
            attributes = self.parse_attributes()
        self.scopes.push()
        returns = ()
        if lex.kind == "(":
            if kind == "entry":
                self.fail("a kernel (.entry) has no return parameters")
            returns = self.parse_param_list()
        name_start, name_end = lex.start, lex.end
        name = self.expect_name("a function name")
        self.scopes.declare_global(name)
        params = self.parse_param_list() if lex.kind == "(" else ()
        directives, noreturn, more_attributes = self.parse_header_directives()
        return ast.Function(
            kind=kind,
            name=name,
            params=params,
            returns=returns,
            linkage=linkage,
            directives=directives,
            noreturn=noreturn,
            attributes=attributes + more_attributes,
            span=self.span(name_start, name_end),
        )

    def parse_header_directives(self):
        """`.maxntid 256, 1, 1`, `.noreturn`, `.pragma "...";`, `.abi_preserve 8`, ... before a
        body or `;`. Unknown directives are kept as generic ast.Directive."""
        lex = self.lex
        directives = []
        noreturn = False
        attributes: tuple[str, ...] = ()
        while lex.kind == DIRECTIVE:
            if lex.value == ".noreturn":
                noreturn = True
                lex.next()
            elif lex.value == ".attribute":
                lex.next()
                attributes += self.parse_attributes()
            elif lex.value == ".pragma":
                directives.append(self.parse_directive_args())
                self.expect(";", "';' after .pragma")
            else:
                directives.append(self.parse_directive_args())
        return tuple(directives), noreturn, attributes

    def parse_directive_args(self) -> ast.Directive:
        """`.name arg, arg, ...` where args are constant expressions or strings; the directive
        ends at the first argument not followed by a comma."""
        lex = self.lex
        start, end = lex.start, lex.end
        name = lex.value[1:]
        lex.next()
        args = []
        if lex.kind in ARGUMENT_STARTS:
            args.append(self._directive_arg())
            while self.accept(","):
                args.append(self._directive_arg())
        return ast.Directive(name, tuple(args), self.span(start, end))

    def _directive_arg(self):
        lex = self.lex
        if lex.kind == STRING:
            text = lex.value[1:-1]
            lex.next()
            return text
        return self.parse_expr()

    # ------------------------------------------------------------------ control-flow directives

    def parse_labelled_directive(self, label: str, start: int, end: int):
        """The statement after `label:` when it is .branchtargets, .calltargets or .callprototype."""
        lex = self.lex
        directive = lex.value
        lex.next()
        span = self.span(start, end)
        if directive == ".callprototype":
            return self._callprototype(label, span)
        targets = [self._control_flow_target(directive)]
        while self.accept(","):
            targets.append(self._control_flow_target(directive))
        self.expect(";", f"',' or ';' after {directive} list")
        names = tuple(t for group in targets for t in group)
        if directive == ".branchtargets":
            return ast.BranchTargets(label, names, span)
        return ast.CallTargets(label, names, span)

    def _control_flow_target(self, directive: str) -> tuple[str, ...]:
        """A label or function name; `N<5>` in .branchtargets stands for N0 .. N4."""
        lex = self.lex
        name = self.expect_name("a label" if directive == ".branchtargets" else "a function name")
        if lex.kind == "<" and directive == ".branchtargets":
            lex.next()
            count = self.expect_int("a label count")
            self.expect(">", "'>' after label count")
            return tuple(f"{name}{i}" for i in range(count))
        return (name,)

    def _callprototype(self, label: str, span) -> ast.CallPrototype:
        """`.callprototype [(ret)] _ [(params)] [.noreturn] [.abi_preserve N] ;`"""
        lex = self.lex
        self.scopes.push()
        try:
            returns = self.parse_param_list() if lex.kind == "(" else ()
            if lex.kind != IDENT or lex.value != "_":
                self.fail_expected("'_' in .callprototype")
            lex.next()
            params = self.parse_param_list() if lex.kind == "(" else ()
        finally:
            self.scopes.pop()
        directives, noreturn, attributes = self.parse_header_directives()
        if attributes:
            self.fail("a .callprototype cannot have attributes")
        self.expect(";", "';' after .callprototype")
        return ast.CallPrototype(label, returns, params, noreturn, directives, span)
