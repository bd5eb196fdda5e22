"""Linking: one program from several verified PTX modules, as cuLink / nvJitLink / nvlink make one
from relocatable code (`nvcc -rdc=true`).

- Module-scope names with external linkage (`.visible`, `.weak`, `.common`, `.extern`, and every
  `.entry`) are one name across the modules: an `.extern` declaration is resolved by the module
  that defines the name.
- A strong (`.visible`) definition wins over `.weak` ones; of several `.weak` definitions the first
  in link order wins (nvlink 13.0 keeps the first, checked with cuobjdump); of several `.common`
  variables the largest. Two strong definitions are an error (nvlink: "Multiple definition").
- Every declaration and losing definition must agree with the winner: the same kind of symbol, the
  same parameter list (nvlink: "Prototype doesn't match"), the same variable size and state space
  (nvlink: "Size doesn't match"); an unsized `.extern` array matches any size.
- Names without linkage (static functions and variables) stay private to their module: a clash with
  a name of another module renames the later one to `name$N` (N: its position in the link).
- An `.extern` function that no module defines is left unresolved (nvlink would stop with
  "Undefined reference"): the program loads, a warning says so, and a launch that reaches a call
  to it faults naming it (engine/control/flow.py). An initializer cannot wait for a launch: one that
  takes the address of an unresolved function is an error. A sized `.extern` variable that no
  module defines gets storage of its own, zero-initialised, as ptxas gives it in whole-program
  mode (engine/lower.py `storage_variables`), with a warning; an unsized one (ptxas: fatal) has
  none, and an instruction that uses it faults when reached.

The merged AST keeps every module's items in link order with one definition per name: where a
name first appears before its definition stands a declaration of it, and later declarations and
losing definitions go, so the merged module is one that ptxas accepts (`Module.to_ptx`). Spans keep their
own file, so faults and diagnostics name the file a statement came from.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Sequence

from .errors import Diagnostic, PtxError, Span
from .syntax import ast

from .engine.control import syscalls as _syscalls  # noqa: F401  (fills the registry read below)
from .engine.control.flow import _SYSCALLS, is_dynamic_parallelism

SYSTEM_CALLS = frozenset(_SYSCALLS)  # the functions the engine provides (engine/control/syscalls.py)


class PtxLinkError(PtxError):
    """Modules that do not link: duplicate or mismatched definitions, undefined initializer targets."""


@dataclass
class Linked:
    tree: ast.Module
    warnings: list[Diagnostic]


@dataclass
class _Entry:
    module: int
    item: object  # ast.Function | ast.VarDecl
    defines: bool


def link_trees(parts: Sequence[tuple[ast.Module, str]]) -> Linked:
    """Link verified module trees (each with its source text, for carets) into one tree."""
    linker = _Linker(list(parts))
    tree = linker.run()
    if linker.errors:
        raise PtxLinkError(linker.errors)
    if len(parts) == 1:  # one verified module: only the warnings and initializer checks were new
        tree = parts[0][0]
    return Linked(tree, linker.warnings)


class _Linker:
    def __init__(self, parts):
        self.trees = [t for t, _ in parts]
        self.sources = {}
        for t, src in parts:
            self.sources.setdefault(t.file, src or t.source or "")
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []

    # ------------------------------------------------------------------ diagnostics
    def diag(self, span: Span, message: str, severity: str = "error") -> Diagnostic:
        lines = self.sources.get(span.file, "").split("\n")
        line = lines[span.line - 1] if 0 < span.line <= len(lines) else None
        d = Diagnostic(span, message, severity, line)
        (self.errors if severity == "error" else self.warnings).append(d)
        return d

    def note(self, span: Span, message: str) -> None:
        lines = self.sources.get(span.file, "").split("\n")
        line = lines[span.line - 1] if 0 < span.line <= len(lines) else None
        target = self.errors if self.errors else self.warnings
        target.append(Diagnostic(span, message, "note", line))

    # ------------------------------------------------------------------ the link
    def run(self) -> ast.Module:
        trees = self.trees
        first = trees[0]
        for t in trees[1:]:
            if (t.address_size or 32) != (first.address_size or 32):
                self.diag(_head(t), f"cannot link a {t.address_size or 32}-bit module with {first.file}, a "
                                    f"{first.address_size or 32}-bit one (.address_size differs)")
        trees = [self.rename_locals(i, t) for i, t in enumerate(trees)]
        trees = _renumber_files(trees)
        entries: dict[str, list[_Entry]] = {}
        for i, t in enumerate(trees):
            aliased = {a.alias for a in t.items if isinstance(a, ast.Alias)}
            for item in t.items:
                if isinstance(item, (ast.Function, ast.VarDecl)) and _external(item):
                    defines = item.body is not None or item.name in aliased if isinstance(item, ast.Function) \
                        else item.linkage != "extern"
                    entries.setdefault(item.name, []).append(_Entry(i, item, defines))
        replaced: dict[int, object] = {}  # id(item) -> its replacement (a declaration), or _DROP
        unresolved: set[str] = set()
        for name, group in entries.items():
            winner = self.resolve(name, group)
            self.merge(group, winner, replaced)
            if winner is None and not _dynamic_shared(group[0].item) and name not in SYSTEM_CALLS:
                item = group[0].item
                if isinstance(item, ast.Function) or (item.array and item.array[-1] is None):
                    unresolved.add(name)  # nothing to take the address of
                self.warn_unresolved(name, group[0].item)
        items = []
        for t in trees:
            for item in t.items:
                item = replaced.get(id(item), item)
                if item is not _DROP:
                    items.append(item)
        self.check_initializers(items, unresolved)
        version = max(t.version for t in trees)
        file = first.file if len(trees) == 1 else ", ".join(t.file for t in trees)
        return ast.Module(version, first.target, first.address_size, tuple(items), file, first.span)

    @staticmethod
    def merge(group: list[_Entry], winner: Optional[_Entry], replaced: dict) -> None:
        """One definition (or, unresolved, one declaration) per name, declared before any use, in
        forms ptxas accepts in one module: before the definition, one declaration (a function's
        prototype with the definition's header and linkage: ptxas refuses an .extern one there);
        after it, nothing (ptxas refuses a function declared again after its definition)."""
        keep = winner or group[0]
        declared = False
        for e in group:  # in link order
            if e is keep:
                declared = True
            elif declared:
                replaced[id(e.item)] = _DROP
            else:
                replaced[id(e.item)] = _as_declaration(keep.item, e.item.span)
                declared = True

    def resolve(self, name: str, group: list[_Entry]) -> Optional[_Entry]:
        kinds = {_kind(e.item) for e in group}
        if len(kinds) > 1:
            a = group[0]
            b = next(e for e in group if _kind(e.item) != _kind(a.item))
            self.diag(b.item.span, f"'{name}' is a {_kind(b.item)} here but a {_kind(a.item)} in {_where(a.item)}")
            self.note(a.item.span, f"'{name}' first declared here")
            return None
        if _dynamic_shared(group[0].item):
            return None  # every unsized .extern .shared array is the dynamic shared memory
        defs = [e for e in group if e.defines]
        strong = [e for e in defs if e.item.linkage not in ("weak", "common")]
        for extra in strong[1:]:
            self.diag(extra.item.span, f"multiple definition of '{name}', first defined at {_where(strong[0].item)} "
                                       "(nvlink: Multiple definition)")
            self.note(strong[0].item.span, f"'{name}' first defined here")
        weak = [e for e in defs if e.item.linkage == "weak"]
        common = [e for e in defs if e.item.linkage == "common"]
        if strong:
            winner = strong[0]
        elif weak:
            winner = weak[0]
        elif common:
            winner = max(common, key=lambda e: _var_size(e.item))  # max keeps the first of equals
        else:
            winner = None
        ref = winner or group[0]
        for e in group:
            if e is ref or any(e is s for s in strong[1:]):
                continue
            problem = _mismatch(name, ref.item, e.item)
            if problem:
                what = "definition" if ref.defines else "first declaration"
                self.diag(e.item.span, problem.format(f"its {what} at {_where(ref.item)}"))
                self.note(ref.item.span, f"'{name}' {'defined' if ref.defines else 'first declared'} here")
        return winner

    def warn_unresolved(self, name: str, item) -> None:
        if isinstance(item, ast.VarDecl):
            if item.array and item.array[-1] is None:
                self.diag(item.span, f"unresolved .extern variable '{name}': no module given defines it and it "
                                     "has no size; a launch that reaches an instruction using it faults", "warning")
            else:
                self.diag(item.span, f"unresolved .extern variable '{name}': no module given defines it; it gets "
                                     "zero-initialised storage of its own (as ptxas gives it in whole-program "
                                     "compilation, 'ignoring extern qualifier')", "warning")
            return
        if is_dynamic_parallelism(name):
            why = "it belongs to dynamic parallelism (kernel launches from the device), which ptxvm does not support"
        else:
            why = "no module given defines it"
        self.diag(item.span, f"unresolved .extern function '{name}': {why}; a launch that reaches a call to it "
                             "faults", "warning")

    def check_initializers(self, items, unresolved: set) -> None:
        for item in items:
            if isinstance(item, ast.VarDecl) and item.init is not None:
                for ref in _names_in(item.init):
                    if ref in unresolved:
                        self.diag(item.span, f"the initializer of '{item.name}' takes the address of '{ref}', which "
                                             "is declared .extern and defined in no module given (nvlink: Undefined "
                                             "reference)")

    # ------------------------------------------------------------------ private names
    def rename_locals(self, index: int, tree: ast.Module) -> ast.Module:
        """Module-local (no linkage) names that another module also uses get `$N` appended."""
        if len(self.trees) == 1:
            return tree
        if not hasattr(self, "_taken"):
            self._taken = {item.name for t in self.trees for item in t.items
                           if isinstance(item, (ast.Function, ast.VarDecl)) and _external(item)}
            self._all = {item.name for t in self.trees for item in t.items
                         if isinstance(item, (ast.Function, ast.VarDecl))}
        local = {item.name for item in tree.items if isinstance(item, (ast.Function, ast.VarDecl)) and not _external(item)}
        renames = {}
        for name in sorted(local):
            if name in self._taken:
                new, k = f"{name}${index + 1}", 1
                while new in self._all or new in self._taken:
                    k += 1
                    new = f"{name}${index + 1}_{k}"
                renames[name] = new
        self._taken |= {renames.get(n, n) for n in local}
        if not renames:
            return tree
        items = tuple(_rename_item(item, renames) for item in tree.items)
        return dataclasses.replace(tree, items=items)


# ---------------------------------------------------------------------- symbols
def _external(item) -> bool:
    return (isinstance(item, ast.Function) and item.kind == "entry") or item.linkage is not None


def _kind(item) -> str:
    if isinstance(item, ast.Function):
        return "kernel" if item.kind == "entry" else "function"
    return "variable"


def _dynamic_shared(item) -> bool:
    return isinstance(item, ast.VarDecl) and item.linkage == "extern" and item.space.startswith("shared") \
        and bool(item.array) and item.array[-1] is None


def _where(item) -> str:
    return f"{item.span.file}:{item.span.line}"


def _head(tree: ast.Module) -> Span:
    return tree.span if tree.span.line > 0 else Span(tree.file, 1, 1)


def _var_size(d: ast.VarDecl) -> int:
    from .engine.core.layout import var_size

    return var_size(d)


def _param_shape(p: ast.VarDecl) -> tuple:
    return (p.space.split("::")[0], _var_size(p))


def _mismatch(name: str, ref, other) -> Optional[str]:
    """What differs between two declarations of `name` (None: they agree), as a message with a
    `{}` for where the reference declaration is."""
    if isinstance(ref, ast.Function):
        if [_param_shape(p) for p in ref.params] != [_param_shape(p) for p in other.params] or \
                [_param_shape(p) for p in ref.returns] != [_param_shape(p) for p in other.returns]:
            return f"the prototype of '{name}' does not match {{}} (nvlink: Prototype doesn't match)"
        return None
    if ref.space.split("::")[0] != other.space.split("::")[0]:
        return f"'{name}' is a .{other.space} variable here and a .{ref.space} one in {{}}"
    unsized = lambda d: d.linkage == "extern" and bool(d.array) and d.array[-1] is None  # noqa: E731
    if unsized(ref) or unsized(other) or "common" in (ref.linkage, other.linkage):
        return None  # a .common variable takes the size of the largest (nvlink accepts any sizes)
    a, b = _var_size(ref), _var_size(other)
    if a != b:
        return f"'{name}' is {b} bytes here and {a} bytes in {{}} (nvlink: Size doesn't match)"
    return None


_DROP = object()


def _as_declaration(definition, span: Span):
    """A declaration of `definition` standing at `span` (where a module declared or defined it)."""
    if isinstance(definition, ast.Function):
        linkage = definition.linkage if definition.body is not None else "extern"
        return dataclasses.replace(definition, body=None, linkage=linkage, directives=(), span=span)
    return dataclasses.replace(definition, linkage="extern", init=None, span=span)


def _names_in(node) -> list[str]:
    out = []

    def walk(n):
        if isinstance(n, (ast.IntLit, ast.FloatLit)):
            return
        if isinstance(n, (ast.SymbolRef, ast.Generic)):
            out.append(n.name)
        if isinstance(n, tuple):
            for x in n:
                walk(x)
        elif dataclasses.is_dataclass(n):
            for f in dataclasses.fields(n):
                if f.name != "span":
                    walk(getattr(n, f.name))

    walk(node)
    return out


# ---------------------------------------------------------------------- debug line tables
def _renumber_files(trees: list) -> list:
    """`.file N` indices are per module: a later module's (and its `.loc`s') move past the earlier
    ones, so the merged module numbers each source file once."""
    out, used = [], 0
    for t in trees:
        files = [i.index for i in t.items if isinstance(i, ast.FileDirective)]
        shift = used
        if shift and files:

            def visit(n, shift=shift):
                if isinstance(n, ast.FileDirective):
                    return dataclasses.replace(n, index=n.index + shift)
                if isinstance(n, ast.Loc):
                    at = n.inlined_at
                    return dataclasses.replace(n, file=n.file + shift,
                                               inlined_at=(at[0] + shift,) + tuple(at[1:]) if at else at)
                return None

            t = dataclasses.replace(t, items=tuple(_transform(i, visit) for i in t.items))
        used = max([used] + [i + shift for i in files])
        out.append(t)
    return out


def _transform(node, visit):
    """`node` with every node that `visit` replaces (returns not None) replaced; shared otherwise."""
    if isinstance(node, tuple):
        new = tuple(_transform(x, visit) for x in node)
        return node if all(a is b for a, b in zip(new, node)) else new
    if not dataclasses.is_dataclass(node) or isinstance(node, (ast.IntLit, ast.FloatLit, ast.Register)):
        return node
    done = visit(node)
    if done is not None:
        return done
    changes = {}
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if f.name != "span" and (isinstance(v, tuple) or dataclasses.is_dataclass(v)):
            nv = _transform(v, visit)
            if nv is not v:
                changes[f.name] = nv
    return dataclasses.replace(node, **changes) if changes else node


# ---------------------------------------------------------------------- renaming
_NAME_FIELDS = {
    ast.SymbolRef: ("name",), ast.Register: ("name",), ast.Generic: ("name",), ast.Function: ("name",),
    ast.VarDecl: ("name",), ast.Alias: ("alias", "aliasee"), ast.CallTargets: ("targets",),
}


def _rename_item(item, renames: dict):
    if isinstance(item, ast.Function):
        shadowed = _declared_inside(item)
        if shadowed & renames.keys():
            inner = {k: v for k, v in renames.items() if k not in shadowed}
            renamed = _rename(item, inner)
            return dataclasses.replace(renamed, name=renames.get(item.name, item.name))
    return _rename(item, renames)


def _declared_inside(fn: ast.Function) -> set:
    names = {p.name for p in fn.params + fn.returns}

    def walk(block):
        for s in block.statements:
            if isinstance(s, (ast.VarDecl, ast.Label)):
                names.add(s.name)
            elif isinstance(s, ast.Block):
                walk(s)

    if fn.body is not None:
        walk(fn.body)
    return names


def _rename(node, renames: dict):
    if isinstance(node, tuple):
        new = tuple(_rename(x, renames) for x in node)
        return node if all(a is b for a, b in zip(new, node)) else new
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    changes = {}
    name_fields = _NAME_FIELDS.get(type(node), ())
    for f in dataclasses.fields(node):
        if f.name == "span":
            continue
        v = getattr(node, f.name)
        if f.name in name_fields:
            if isinstance(v, str) and v in renames:
                changes[f.name] = renames[v]
            elif isinstance(v, tuple) and any(x in renames for x in v):
                changes[f.name] = tuple(renames.get(x, x) for x in v)
        elif isinstance(v, tuple) or dataclasses.is_dataclass(v):
            nv = _rename(v, renames)
            if nv is not v:
                changes[f.name] = nv
    return dataclasses.replace(node, **changes) if changes else node
