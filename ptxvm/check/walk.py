"""One pass over the module that keeps the scopes and hands every statement to its rules.

Module items in order (a name must be declared before it is used); in each function, the
parameters and the body's top level share a scope, each `{ }` opens one, labels are collected per
block before its statements are checked (they may be referenced before they appear).

Operands are reduced to shapes once per operand node (the parser shares one node between all
occurrences of the same operand text), and instruction checks are memoized on (spelling, guard
shape, operand shapes); see operands.py and instructions.py. A cached shape stays valid until a
name it was resolved with may change meaning: each cached entry is recorded under the names (and
`%r<N>` prefixes) it looked up, and a declaration, a block's labels, or the end of a block drops
just the entries recorded under its names. Call sequences (`{ .param .b32 param0; ... }`) thus
keep the function's cached shapes.
"""
from __future__ import annotations

from ..isa.sregs import SREGS
from ..syntax import ast, constexpr
from . import calls, decls
from .limits import Limits
from .context import Context
from .instructions import InstructionRules
from .names import Scope, Sym, label_kind, range_key, reg_kind
from .operands import SINK

_Instruction = ast.Instruction
_Label = ast.Label
_VarDecl = ast.VarDecl
_Block = ast.Block
_Loc = ast.Loc
_Register = ast.Register
_Immediate = ast.Immediate
_Address = ast.Address
_IntLit = ast.IntLit
_SymbolRef = ast.SymbolRef
_LABEL_KINDS = (ast.Label, ast.CallPrototype, ast.BranchTargets, ast.CallTargets)
_HEADER_DIRECTIVES = decls.ENTRY_DIRECTIVES | {"noreturn", "abi_preserve", "abi_preserve_control"}
# functions ptxas provides itself (the CUDA system calls)
SYSTEM_CALLS = frozenset(("vprintf", "malloc", "free", "__assertfail"))


class Walker:
    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.module = Scope()
        self.scope = self.module
        self.rules = InstructionRules(ctx)
        self.shapes: dict = {}  # id(operand node) or ("g", name, negated) -> shape id
        self.users: dict[str, list] = {}  # name, or "<" + range prefix -> keys of `shapes` resolved with it
        self._deps: list[str] = []  # names looked up while computing the current shape
        self.var_memo: dict = {}  # declaration form -> problems (decls.check_var)
        self.limits = Limits(ctx)
        self.files: dict[int, ast.FileDirective] = {}
        self.aliases: set[str] = set()
        self.func_refs: dict[str, object] = {}  # functions called or addressed -> where first (None: unknown)
        self.interned: dict[tuple, int] = {}  # shape -> shape id (the whole run)
        self.by_id: list[tuple] = []  # shape id -> shape
        self.memo: dict[tuple, tuple] = {}  # (opcode, modifiers, guard id, operand ids...) -> results
        self.locs: set[tuple[int, int, int]] = set()
        self.function_kind = "entry"

    # ================================================================== module
    def run(self) -> None:
        ctx = self.ctx
        for item in self.ctx.tree.items:
            t = type(item)
            try:
                if t is ast.Function:
                    self.function(item)
                elif t is _VarDecl:
                    self.module_variable(item)
                elif t is ast.Directive:
                    self.module_directive(item)
                elif t is ast.Alias:
                    self.alias(item)
                elif t is ast.FileDirective:
                    first = self.files.setdefault(item.index, item)
                    if first is not item:
                        ctx.error(self.after_file(item), f"duplicate .file index {item.index} (first at line "
                                                         f"{first.span.line})")
            except Exception as exc:  # a verifier bug must not hide the other diagnostics
                span = getattr(item, "span", None) or ctx.tree.span
                ctx.error(span, f"internal verifier error: {type(exc).__name__}: {exc}")
            finally:
                self.scope = self.module
                self.clear()
                self.limits.current = None
        try:
            self.limits.finish()
            self.unresolved()
        except Exception as exc:  # noqa: BLE001
            ctx.error(ctx.tree.span, f"internal verifier error: {type(exc).__name__}: {exc}")

    def after_file(self, item: ast.FileDirective):
        """Where ptxas reports a bad .file directive: the token after it."""
        from ..syntax.lexer import Lexer

        ctx = self.ctx
        start = ctx.offset(item.span)
        if start is None or not ctx.source:
            return item.span
        lex = Lexer(ctx.source, start)
        lex.next()  # the index
        lex.next()  # the file name
        lex.next()
        while lex.kind == ",":
            lex.next()
            lex.next()
        if lex.kind == "eof":
            return item.span
        return ctx.span_at(lex.start, max(1, len(lex.value)))

    def unresolved(self) -> None:
        """A function that is called or whose address is taken must be defined in the module unless
        it is declared `.extern` (relocatable code, `ptxas -c`: another module or a library defines
        it; ptxvm.link resolves it, and a launch that reaches an unresolved one faults), or is one
        of the system calls (vprintf, malloc, free, __assertfail). ptxas -c refuses a `.func`,
        `.visible` or `.weak` declaration that has no definition ("Unresolved extern function")."""
        for name, span in self.func_refs.items():
            sym = self.module.names.get(name)
            if sym is None or sym.kind != "func" or sym.node.body is not None or name in SYSTEM_CALLS \
                    or name in self.aliases or sym.node.linkage == "extern":
                continue
            self.ctx.error(span or sym.span, f"unresolved extern function '{name}': it is declared but not "
                                             "defined in this module (only an .extern declaration may be "
                                             "defined by another module)")

    def module_variable(self, d: ast.VarDecl) -> None:
        names = decls.check_var(self.ctx, d, "module")
        self.limits.module_variable(d)
        sym = self.var_sym(d, "module")
        clash = self.module.declare(sym)
        if clash is not None:
            if clash.kind == "var" and (clash.node is not None and clash.node.linkage == "extern" or
                                        d.linkage == "extern"):
                if clash.node is not None and clash.node.linkage == "extern":
                    self.module.names[d.name] = sym
            elif clash.kind == "func":
                self.ctx.error(d.span, f"'{d.name}' is already declared as a function (line {clash.span.line})")
            else:
                self.ctx.error(d.span, f"duplicate definition of variable '{d.name}' (first declared at line "
                                       f"{clash.span.line})")
        if names:
            for name in names:
                if name in constexpr.PREDEFINED:
                    continue
                found = self.module.lookup(name)
                if found is None:
                    self.ctx.error(d.span, f"invalid initial value: '{name}' is not declared")
                elif found.kind == "reg":
                    self.ctx.error(d.span, f"invalid initial value: '{name}' is a register")
                elif found.kind == "var" and found.base_space not in ("global", "const"):
                    self.ctx.error(d.span, f"invalid initial value: '{name}' is a .{found.space} variable (only "
                                           ".global and .const variables have addresses at load time)")
                elif found.kind == "func":
                    self.func_refs.setdefault(name, d.span)

    def module_directive(self, d: ast.Directive) -> None:
        if d.name in ("pragma", "target"):
            return
        if d.name in _HEADER_DIRECTIVES:
            self.ctx.error(d.span, f".{d.name} belongs in a function header, before its body")
        else:
            self.ctx.error(d.span, f"unknown directive .{d.name}")

    def alias(self, a: ast.Alias) -> None:
        self.aliases.add(a.alias)  # `.alias f, g;` defines f
        for name in (a.alias, a.aliasee):
            sym = self.module.lookup(name)
            if sym is None:
                self.ctx.error(a.span, f".alias: '{name}' is not declared")
            elif sym.kind != "func":
                self.ctx.error(a.span, f".alias: '{name}' is not a function")

    # ================================================================== functions
    def function(self, fn: ast.Function) -> None:
        ctx = self.ctx
        decls.check_function_header(ctx, fn)
        existing = self.module.names.get(fn.name)
        if existing is None:
            self.module.declare(Sym("func", fn.name, fn.span, node=fn))
        elif existing.kind != "func":
            ctx.error(decls.body_span(ctx, fn), f"'{fn.name}' is already declared as a {existing.describe()} (line "
                               f"{existing.span.line})")
        else:
            prev = existing.node
            if prev.body is not None and fn.body is not None:
                where = fn.body.span if fn.body.span.line > 0 else fn.span  # ptxas points at the body
                ctx.error(where, f"duplicate definition of function '{fn.name}' (first defined at line "
                                   f"{prev.span.line})")
            else:
                decls.check_prototypes(ctx, prev, fn)
                if fn.body is not None:
                    existing.node = fn
        self.function_kind = fn.kind
        self.call_returns: set[str] = set()  # .param variables a call so far returned into (param_read)
        self.limits.function(fn)
        scope = Scope(self.module)
        self.scope = scope
        self.clear()
        entry = fn.kind == "entry"
        for d in fn.returns:
            decls.check_var(ctx, d, "func-ret", self.var_memo)
            self.declare(d, "func-ret")
        if len(fn.returns) > 1 and fn.kind == "func":
            for d in fn.returns:
                if d.space != "reg":
                    # ptxas 13.0/13.5: "Multiple return parameters require .register state space"
                    ctx.error(d.span, f"'{d.name}': a function with several return values returns them in "
                                      ".reg registers, not .param variables")
                    break
        for d in fn.params:
            decls.check_var(ctx, d, "entry-param" if entry else "func-param", self.var_memo)
            self.declare(d, "entry-param" if entry else "func-param")
        if fn.body is not None:
            self.block(fn.body, scope)

    def var_sym(self, d: ast.VarDecl, role: str) -> Sym:
        kind = "reg" if d.space == "reg" else "var"
        return Sym(kind, d.name, d.span, space=d.space, type=d.type, vector=d.vector, array=d.array, align=d.align,
                   role=role, node=d, count=d.count)

    def declare(self, d: ast.VarDecl, role: str) -> None:
        sym = self.var_sym(d, role)
        clash = self.scope.declare(sym)
        if clash is not None:
            shown = f"{d.name}<{d.count}>" if d.count is not None else d.name
            self.ctx.error(d.span, f"duplicate definition of '{shown}' in this scope (first declared at line "
                                   f"{clash.span.line})")
        if d.count is not None:
            self.invalidate("<" + d.name)
        else:
            self.invalidate(range_key(d.name) or d.name)

    def invalidate(self, name: str) -> None:
        """Forget the cached shapes that were resolved with `name`."""
        keys = self.users.pop(name, None)
        if keys:
            shapes = self.shapes
            for k in keys:
                shapes.pop(k, None)

    def forget_scope(self, scope: Scope) -> None:
        """A block ends (or starts, for its labels): its names no longer (or now) mean something else."""
        if not self.users:
            return
        for name in scope.names:
            self.invalidate(range_key(name) or name)
        for prefix in scope.ranges:
            self.invalidate("<" + prefix)
        for name in scope.labels:
            self.invalidate(range_key(name) or name)

    def clear(self) -> None:
        self.shapes.clear()
        self.users.clear()

    # ================================================================== blocks
    def block(self, block: ast.Block, scope: Scope) -> None:
        ctx = self.ctx
        statements = block.statements
        for st in statements:
            if isinstance(st, _LABEL_KINDS):
                clash = scope.declare_label(st)
                if clash is not None:
                    ctx.error(st.span, f"duplicate definition of label '{st.name}' (first defined at line "
                                       f"{clash.span.line})")
        if scope.labels and scope.parent is not self.module:
            self.forget_scope_labels(scope)
        memo = self.memo
        shapes = self.shapes
        sid = self.sid
        report = ctx.report_instruction
        locs = self.locs
        for st in statements:
            t = type(st)
            if t is _Instruction:
                opcode = st.opcode
                if opcode == "call":
                    self.call(st)
                    continue
                if opcode == "ld" and "param" in st.modifiers:
                    self.param_read(st)
                g = st.guard
                if g is None:
                    gid = -1
                else:
                    gid = shapes.get(("g", g.register, g.negated))
                    if gid is None:
                        gid = self.guard_id(g)
                ops = st.operands
                n = len(ops)
                if n == 3:  # the common case, unrolled
                    a, b, c = ops
                    sa = shapes.get(id(a))
                    if sa is None:
                        sa = sid(a)
                    sb = shapes.get(id(b))
                    if sb is None:
                        sb = sid(b)
                    sc = shapes.get(id(c))
                    if sc is None:
                        sc = sid(c)
                    key = (opcode, st.modifiers, gid, sa, sb, sc)
                elif n == 2:
                    a, b = ops
                    sa = shapes.get(id(a))
                    if sa is None:
                        sa = sid(a)
                    sb = shapes.get(id(b))
                    if sb is None:
                        sb = sid(b)
                    key = (opcode, st.modifiers, gid, sa, sb)
                else:
                    key = (opcode, st.modifiers, gid, *[sid(o) for o in ops])
                res = memo.get(key)
                if res is None:
                    res = memo[key] = self.compute(key, n)
                if res:
                    report(st, res)
            elif t is _Loc:
                if st.inlined_at is not None:
                    self.loc(st)
                else:
                    locs.add((st.file, st.line, st.col))
            elif t is _Label:
                continue
            elif t is _VarDecl:
                names = decls.check_var(ctx, st, "body", self.var_memo)
                self.declare(st, "body")
                for name in names or ():  # a function-scoped .global/.const initializer's names
                    if name not in constexpr.PREDEFINED and self.scope.lookup(name) is None:
                        ctx.error(st.span, f"invalid initial value: '{name}' is not declared")
                if st.space != "reg":
                    self.limits.body_variable(st)
            elif t is _Block:
                inner = Scope(scope)
                self.scope = inner
                self.block(st, inner)
                self.scope = scope
                self.forget_scope(inner)
            elif t is ast.Directive:
                self.body_directive(st)
            elif t is ast.BranchTargets:
                for name in st.targets:
                    if scope.label(name) is None:
                        ctx.error(st.span, f".branchtargets: label '{name}' is not declared")
            elif t is ast.CallTargets:
                for name in st.targets:
                    self.func_refs.setdefault(name, st.span)
                    sym = scope.lookup(name)
                    if sym is None:
                        ctx.error(st.span, f".calltargets: function '{name}' is not declared")
                    elif sym.kind != "func":
                        ctx.error(st.span, f".calltargets: '{name}' is not a function")
            elif t is ast.CallPrototype:
                for d in st.returns:
                    decls.check_var(ctx, d, "proto")
                for d in st.params:
                    decls.check_var(ctx, d, "proto")

    def forget_scope_labels(self, scope: Scope) -> None:
        for name in scope.labels:
            self.invalidate(range_key(name) or name)

    def body_directive(self, d: ast.Directive) -> None:
        if d.name == "pragma":
            return
        if d.name in _HEADER_DIRECTIVES:
            self.ctx.error(d.span, f".{d.name} belongs in the function header, before the body")
        elif d.name in ("version", "target", "address_size", "file", "section", "entry", "func", "alias"):
            self.ctx.error(d.span, f".{d.name} is only allowed at module scope")
        else:
            self.ctx.error(d.span, f"unknown directive .{d.name}")

    def loc(self, st: ast.Loc) -> None:
        if st.inlined_at is not None and tuple(st.inlined_at) not in self.locs:
            f, line, col = st.inlined_at
            self.ctx.error(st.span, f"source location {f} {line} {col} used in inlined_at must appear in a "
                                    "preceding .loc directive")
        self.locs.add((st.file, st.line, st.col))

    def param_read(self, st: ast.Instruction) -> None:
        """ld.param of a .param variable declared in the function's body: such a variable belongs
        to a call sequence, and only a call's return value may be read from it, after the call
        (ptxas: "Function call sequence invalid: 'ld.param' of 'x' without corresponding call")."""
        addr = st.operands[1] if len(st.operands) > 1 else None
        if type(addr) is not ast.Address or type(addr.base) is not _SymbolRef:
            return
        name = addr.base.name
        if name in self.call_returns:
            return
        sym = self.scope.lookup(name)
        if sym is None or sym.kind != "var" or sym.space != "param" or sym.role != "body":
            return
        self.ctx.report_instruction(st, [(1, f"ld.param reads '{name}', a call's parameter variable, but no call "
                                             f"before it returns into '{name}' (only a call's return value can be "
                                             "read back)", "error")])

    def call(self, st: ast.Instruction) -> None:
        if st.operands and type(st.operands[0]) is ast.ParamList:  # the return list: readable from now on
            for e in st.operands[0].elements:
                if type(e) is _Immediate and type(e.expr) is _SymbolRef:
                    self.call_returns.add(e.expr.name)
        out = []
        plan = self.rules.plan("call", st.modifiers)
        if plan.error is not None:
            out.append((-1, plan.error, "error"))
        else:
            out.extend((-1, p, "error") for p in plan.problems)
        if st.guard is not None:
            from .instructions import guard_problems

            out.extend((-2, m, "error") for m in guard_problems(self.guard_shape(st.guard)))
        out.extend(calls.check_call(self, st))
        ops = st.operands
        for op in ops[:2]:
            if type(op) is _Immediate and type(op.expr) is _SymbolRef:
                self.limits.call(op.expr.name)
                if self.func_refs.get(op.expr.name) is None:
                    self.func_refs[op.expr.name] = st.span
        if out:
            self.ctx.report_instruction(st, out)

    # ================================================================== shapes
    def sid(self, node) -> int:
        """The shape id of an operand node (cached until a name it was resolved with changes).
        Only called for whole operands: parts of an operand are resolved by `_shape` itself, so
        that the operand's entry is recorded under every name it depends on."""
        key = id(node)
        s = self.shapes.get(key)
        if s is None:
            sym = self.scope.lookup(node.name) if type(node) is _Register and node.offset is None else None
            if sym is not None and sym.kind == "reg" and not sym.info.vector:
                # the common case, a plain scalar register: register_shape and depend inlined
                name = node.name
                dependency = range_key(name)
                self._deps = [name if dependency is None else dependency]
                shape = ("reg", sym.info, node.component, "-" if node.minus else node.negated)
            else:  # vector registers, `%r + 4`, special registers, undeclared names, everything else
                self._deps = []
                shape = self._shape(node)
            s = self.intern(shape)
            self.remember(key, s)
        return s

    def remember(self, key, s: int) -> None:
        self.shapes[key] = s
        users = self.users
        for name in self._deps:
            entry = users.get(name)
            if entry is None:
                users[name] = [key]
            else:
                entry.append(key)

    def intern(self, shape: tuple) -> int:
        s = self.interned.get(shape)
        if s is None:
            s = self.interned[shape] = len(self.by_id)
            self.by_id.append(shape)
        return s

    def shape(self, node) -> tuple:
        return self.by_id[self.sid(node)]

    def guard_id(self, g: ast.Guard) -> int:
        key = ("g", g.register, g.negated)
        s = self.shapes.get(key)
        if s is None:
            self._deps = []
            s = self.intern(self.register_shape(g.register, None, g.negated))
            self.remember(key, s)
        return s

    def compute(self, key: tuple, n: int) -> tuple:
        by_id = self.by_id
        gid = key[2]
        return self.rules.check(key[0], key[1], None if gid < 0 else by_id[gid],
                                tuple([by_id[i] for i in key[3:]]))

    def _shape(self, node) -> tuple:
        t = type(node)
        if t is _Register:
            shape = self.vector_register_shape(
                self.register_shape(node.name, node.component, "-" if node.minus else node.negated))
            if node.offset is None:
                return shape
            if node.component is not None and shape[0] not in ("sreg", "undef"):
                return ("bad", "a vector register's element cannot take '+ constant'", "plus")  # ptxas: syntax error
            return self.plus_constant_shape(shape, node.offset)
        if t is _Immediate:
            return self.expr_shape(node.expr)
        if t is _Address:
            base = node.base
            if base is None:
                bs = None
            elif type(base) is _Register:
                bs = self.register_shape(base.name, base.component, base.negated)
            else:
                bs = self.symbol_shape(base.name)
            off = None if node.offset is None else self.expr_shape(node.offset)
            return ("addr", bs, off, "unified") if node.unified else ("addr", bs, off)
        if t is ast.Sink:
            return SINK
        if t is ast.VectorOperand:
            return ("vec", tuple([self.element_shape(e) for e in node.elements]))
        if t is ast.PredPair:
            first = node.first
            if type(first) is _Register and first.component is not None:
                reg = self.register_shape(first.name, first.component, False)
                if reg[0] == "reg" and reg[1].vector:  # ptxas 13.0/13.5: syntax error at '|'
                    return ("bad", "an element of a vector register cannot stand before '|'", "pair")
            return ("pair", self._shape(node.first), self._shape(node.second))
        if t is ast.BracketList:
            return ("brk", tuple([self._shape(e) for e in node.elements]))
        if t is ast.ParamList:
            return ("plist", tuple([self._shape(e) for e in node.elements]))
        if t is ast.ArrayElement:
            index = node.index
            if type(index) is _Register:
                return self.register_index_shape(node.base.name, index)
            return ("elem", self.symbol_shape(node.base.name), self.expr_shape(index))
        return ("bad", f"unexpected operand {type(node).__name__}")

    def register_index_shape(self, array: str, index) -> tuple:
        """`a[%r]`, `a[%r+4]`: ptxas 13.0 takes an integer or bit-size register as the index
        ("Illegal to use symbol '%p' of type .pred as array index. Use integer or bit only")."""
        shape = self.register_shape(index.name, index.component, False)  # a special register may (`a[%laneid]`)
        if shape[0] == "reg":
            t = shape[1].ptype
            if t is None or t.kind.name in ("FLOAT", "PRED") or t.packed or shape[1].vector:
                what = f".v{shape[1].vector} vector" if shape[1].vector else f"type .{shape[1].type}"
                return ("bad", f"'{index.name}' of {what} cannot index an array: an integer or bit-size "
                        "register can", "elem")
        off = ("int", 0) if index.offset is None else self.expr_shape(index.offset)
        if off[0] not in ("int", "undef"):
            return ("bad", "an array index's offset must be an integer constant", "elem")
        return ("elem", self.symbol_shape(array), shape if shape[0] == "undef" else off)

    def plus_constant_shape(self, shape: tuple, offset) -> tuple:
        """`%r + 4`: the register's shape with the constant's value as a fifth item. ptxas 13.0/13.5
        add in the register's width (IADD3); they crash (SIGSEGV) or drop the instruction for a
        floating-point register and never finish for a predicate, so those are refused here."""
        if shape[0] == "undef":
            return shape
        if shape[0] == "sreg":
            return ("bad", f"a special register cannot take '+ constant' ({shape[1].name})", "plus")
        if shape[0] == "vec":
            # ptxas: `v.y + 1` is a syntax error; `v + 1` it takes, and compiles to nonsense (the first
            # element plus 1, the second plus an unrelated constant or zero)
            return ("bad", "a vector register cannot take '+ constant'", "plus")
        if shape[0] != "reg":
            return ("bad", "'+ constant' follows a register only", "plus")
        ptype = shape[1].ptype
        if ptype is not None and (ptype.kind.name in ("FLOAT", "PRED") or ptype.packed or ptype.bits > 64):
            return ("bad", f"'+ constant' applies to integer and bit-size registers, not .{ptype.name}", "plus")
        value = self.expr_shape(offset)
        if value[0] == "bad":
            return value
        if value[0] != "int":
            return ("bad", "an integer constant expression is expected after 'register +'", "plus")
        return shape + (value[1],)

    def element_shape(self, node) -> tuple:
        """A braced vector's element: a whole vector register stays one (an error there)."""
        if type(node) is _Register:
            shape = self.register_shape(node.name, node.component, "-" if node.minus else node.negated)
            if shape[0] != "reg" or shape[2] is None or not shape[1].vector:
                return shape
            if max("xyzw".find(shape[2]), "rgba".find(shape[2])) >= shape[1].vector:
                return shape
            # an element of a vector register: an ordinary register that remembers it was one
            # (ptxas refuses it next to a constant in a source vector)
            return ("reg", reg_kind(shape[1].type, None), shape[2], shape[3])
        return self._shape(node)

    @staticmethod
    def vector_register_shape(shape: tuple) -> tuple:
        """A vector register (`.reg .v4 .f32 v`) as an operand: its element `v.y` (or `v.g`) is an
        ordinary register of the element type, the whole `v` is the braced vector of its elements
        ({v.x, v.y, v.z, v.w}), which is how ptxas 13.0/13.5 take it (mov.b64 %rd, v packs a .v2 .u32;
        ld.v4.f32 v reads four; add.u32 v, ... is "Vector operand is not allowed")."""
        if shape[0] != "reg" or not shape[1].vector:
            return shape
        info, comp, negated = shape[1], shape[2], shape[3]
        element = ("reg", reg_kind(info.type, None), None, negated)
        if comp is None:
            return ("vec", (element,) * info.vector)
        if max("xyzw".find(comp), "rgba".find(comp)) < info.vector:
            return element
        return shape  # outside the register: reported by the operand rules

    def depend(self, name: str) -> None:
        """Record that the shape being computed looked `name` up. A numbered name (`%r12`) is
        recorded under its prefix only ("<%r"): declaring `%r<N>` or any `%rK` drops the group."""
        key = range_key(name)
        self._deps.append(name if key is None else key)

    def register_shape(self, name: str, component, negated) -> tuple:
        self.depend(name)
        sym = self.scope.lookup(name)
        if sym is None:
            sreg = SREGS.get(name)
            if sreg is not None:
                return ("sreg", sreg, component, negated)
            return ("undef", name, self.scope.nearest_range(name))
        if sym.kind == "reg":
            return ("reg", sym.info, component, negated)
        return ("sym", sym.info or sym, False)

    def symbol_shape(self, name: str) -> tuple:
        self.depend(name)
        scope = self.scope
        sym = scope.lookup(name)
        if sym is not None:
            if sym.role == "module":
                self.limits.use(name)
            elif sym.kind == "func":
                self.func_refs.setdefault(name, None)
            if sym.kind == "reg":
                return ("reg", sym.info, None, False)
            return ("sym", sym.info or sym, False)
        label = scope.label(name)
        if label is not None:
            return ("label", label_kind(label))
        if name in constexpr.PREDEFINED:
            return ("int", constexpr.PREDEFINED[name][0])
        sreg = SREGS.get(name)
        if sreg is not None:
            return ("sreg", sreg, None, False)
        return ("undef", name, scope.nearest_range(name))

    def expr_shape(self, e) -> tuple:
        t = type(e)
        if t is _IntLit:
            return ("int", e.value)
        if t is ast.FloatLit:
            return ("flt", 32 if e.is_f32 else 64)
        if t is _SymbolRef:
            return self.symbol_shape(e.name)
        if t is ast.Unary and e.op == "-" and type(e.operand) is _IntLit:
            return ("int", -e.operand.value)
        names = decls.init_symbols(e, [])
        if names:
            shapes = [self.symbol_shape(n) for n in names if n not in constexpr.PREDEFINED]
            for s in shapes:
                if s[0] == "label":  # `L+4`: a label is a target, not a value (ptxas: "Arguments mismatch")
                    return ("bad", "a label cannot appear in an expression")
                if s[0] in ("undef", "reg"):
                    return s if s[0] != "reg" else ("bad", "registers cannot appear in constant expressions")
            if shapes:
                s = shapes[0]
                return ("sym", s[1], True) if s[0] == "sym" else s
        try:
            value, kind = constexpr.evaluate_typed(e)
        except constexpr.ConstExprError as exc:
            return ("bad", f"constant expression: {exc.message}")
        except Exception as exc:  # noqa: BLE001 - an evaluator bug is a diagnostic, not a crash
            return ("bad", f"constant expression could not be evaluated ({exc})")
        if kind == "f64":
            return ("flt", 64)
        return ("int", value)

    def guard_shape(self, g: ast.Guard) -> tuple:
        return self.by_id[self.guard_id(g)]
