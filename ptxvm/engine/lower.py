"""Lowering: a parsed module -> one flat list of `Op`s with every name resolved.

Done once per loaded module. Functions are laid out one after another; labels become PCs;
registers become slots; variables become offsets in their spaces. Each instruction is matched
against the ISA table once and turned into a closure over its operands' slots and its lane
function: nothing is parsed or looked up by name while the kernel runs.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

import os

from ..isa import MatchError
from ..isa import match as isa_match
from ..isa.table import Kind, Role
from ..semantics import Spec, lane_function
from ..semantics.dtypes import numpy_dtype
from ..syntax import ast
from ..syntax.constexpr import evaluate
from ..syntax.labels import with_unique_labels
from .core.layout import (FlatLayout, Frame, RegisterFile, Scope, Symbol, component_index, type_size, var_align,
    var_size, vector_register)
from . import shared_layout
from .compiled.emit import EMITTERS as FUSIBLE_OPCODES
from .core.machine import Context, Fault, Op
from .core.memory import RESERVED_SHARED
from ..isa.sregs import SREGS
from .core.operands import (FUNC_ADDRESS_BASE, alu_runner, symbol_plus_offset, LoweringError, UnresolvedReference,
    constant_reader, literal, register_reader, register_writer, sink_writer)

FRAME_HEADER = 32  # return pc, caller frame base, callee id, caller alloca pointer: see control.py

_DEBUG = bool(os.environ.get("PTXVM_DEBUG_LOWERING"))
_PARAM_FAMILY = re.compile(r"^(.*?)(\d+)$")


@dataclass
class FunctionInfo:
    name: str
    kind: str  # "entry" | "func"
    decl: ast.Function
    index: int
    entry_pc: int = -1
    frame: Frame = field(default_factory=Frame)
    params: list[Symbol] = field(default_factory=list)
    returns: list[Symbol] = field(default_factory=list)
    reg_slots: list[int] = field(default_factory=list)
    save_offset: int = -1  # where the register save area starts in the frame (recursive calls)
    callees: set = field(default_factory=set)
    kparam_size: int = 0
    variables: dict = field(default_factory=dict)  # name -> Symbol of the body's non-register variables (debugger)
    shared_static: int = 0  # kernels: bytes of static .shared (what the kernel reaches; shared_layout.py)

    @property
    def address(self) -> int:
        return FUNC_ADDRESS_BASE + 16 * self.index


def _not_lowered(ctx, lanes, pc=None):
    raise Fault("internal error: ran code of a function that was not lowered")


NOT_LOWERED = Op(_not_lowered, control=True, text="(not lowered)")


class _Segment(list):
    """The ops of one function body while it is lowered: its length counts from the body's place
    in the whole program, so the PCs lowering reads (len(code)) are the final ones."""

    def __init__(self, start: int):
        super().__init__()
        self.start = start

    def __len__(self) -> int:
        return self.start + super().__len__()

    def ops(self) -> list:
        return list.__getitem__(self, slice(None))


@dataclass
class Program:
    code: list[Op]
    regs: RegisterFile
    functions: dict[str, FunctionInfo]
    shared_static: int
    shared_align: int
    const_image: np.ndarray
    local_static: int
    recursive: set
    dynamic_shared: bool
    globals: dict[str, Symbol]
    uses_alloca: bool = False
    dynamic_shared_base: int = 0  # the offset of the extern (dynamic) .shared array (shared_layout.py)
    plan_fused: Optional[Callable] = None  # makes the compiled tier's blocks (once; see Lowerer._plan_fused)
    lower_for: Optional[Callable] = None  # lowers a kernel and its callees (Lowerer.lower_reachable)
    version: int = 0  # how many times more code was lowered: analyses cached per program key on it

    def ensure(self, kernel: Optional[str] = None) -> "Program":
        """This program with `kernel` and everything it can call lowered (done at its first
        launch); with None, every function."""
        if self.lower_for is not None:
            self.lower_for(kernel)
        return self

    def prepare_fused(self) -> None:
        if self.plan_fused is not None:
            plan, self.plan_fused = self.plan_fused, None
            plan()

    def frame_need(self, kernel: str) -> int:
        """Bytes of local memory one thread of `kernel` needs for its deepest call chain."""
        seen: dict[str, int] = {}

        def depth(name, stack):
            if name in stack:
                return None
            if name in seen:
                return seen[name]
            f = self.functions[name]
            best = 0
            for c in f.callees:
                d = depth(c, stack | {name}) if c in self.functions else 0
                if d is None:
                    return None
                best = max(best, d)
            seen[name] = -(-f.frame.size // 16) * 16 + best  # each callee frame starts 16-aligned
            return seen[name]

        d = depth(kernel, frozenset())
        return d if d is not None else -1  # -1: recursion, size decided by the launcher


def storage_variables(module: ast.Module) -> list[ast.VarDecl]:
    """The module-scope variables that get storage: every definition, and a sized `.extern`
    declaration of a name the module does not define (ptxas in whole-program mode, hence the
    driver's JIT of one module: "Unresolved extern variable ... ignoring extern qualifier").
    Unsized `.extern` arrays get none: `.shared` ones are the dynamic shared memory, the others
    are `unresolved_arrays` (ptxas: "Unresolved extern variable", fatal)."""
    defined = {v.name for v in module.variables() if v.linkage != "extern"}
    out, seen = [], set()
    for v in module.variables():
        if v.linkage == "extern" and (v.name in defined or v.name in seen or _unsized(v)):
            continue
        seen.add(v.name)
        out.append(v)
    return out


def unresolved_arrays(module: ast.Module) -> set[str]:
    """Unsized `.extern` arrays outside shared memory that the module does not define."""
    defined = {v.name for v in module.variables() if v.linkage != "extern"}
    return {v.name for v in module.variables()
            if _unsized(v) and not _dynamic_shared(v) and v.name not in defined}


def _unsized(decl: ast.VarDecl) -> bool:
    return decl.linkage == "extern" and bool(decl.array) and decl.array[-1] is None


def _dynamic_shared(decl: ast.VarDecl) -> bool:
    return _unsized(decl) and decl.space.split("::")[0] == "shared"


class Lowerer:
    def __init__(self, module: ast.Module, device_globals: dict[str, int], file: str,
                 scoped_globals: Optional[dict[int, int]] = None, contract: Optional[bool] = None):
        from . import contraction, shared_layout

        self.module = module
        self.contract = contraction.enabled(contract)
        self.contraction = contraction.Plan()
        self.file = file
        self.regs = RegisterFile()
        self.code: list[Op] = []
        self.globals: dict[str, Symbol] = {}
        self.functions: dict[str, FunctionInfo] = {}
        self.aliases: dict[str, str] = {}  # `.alias a, b;`: calls to a run b (a may also be declared as a prototype)
        self.shared = FlatLayout()
        self.const = FlatLayout()
        self.local_static = FlatLayout()
        self.device_globals = device_globals
        self.scoped_globals = scoped_globals or {}  # id(decl) -> address of a function-scoped .global
        self.const_inits: list[tuple[int, ast.VarDecl]] = []
        self.dynamic_shared = False
        self.unresolved: set[str] = set()  # unsized .extern arrays nobody defines: using one faults
        self.current: Optional[FunctionInfo] = None
        self.uses_alloca = False
        # whether any vector register (.reg .v4 .f32 v) exists: only then are operands searched for them
        self.vector_registers = _declares_vector_registers(module)
        # the compiled tier (engine/compiled): pc -> (instr, match, scope, guard) of each candidate
        # instruction; the PCs that start blocks
        self.fusible: dict = {}
        self.leaders: set[int] = set()

    # ------------------------------------------------------------------ module scope
    def lower(self) -> Program:
        for v in storage_variables(self.module):
            self.globals[v.name] = self.declare_static(v)
        self.unresolved = unresolved_arrays(self.module)
        for item in self.module.items:
            if isinstance(item, ast.VarDecl):
                if _dynamic_shared(item) and item.name not in self.globals:
                    self.globals[item.name] = self.declare_static(item)
            elif isinstance(item, ast.Function):
                if item.name not in self.functions:
                    self.functions[item.name] = FunctionInfo(item.name, item.kind, item, len(self.functions))
                if item.body is not None:
                    self.functions[item.name].decl = item
                self.globals[item.name] = Symbol(item.name, "function", offset=self.functions[item.name].address)
            elif isinstance(item, ast.Alias):
                self.globals[item.alias] = Symbol(item.alias, "alias", decl=None, type=item.aliasee)
                self.aliases[item.alias] = item.aliasee
        for alias in [s for s in self.globals.values() if s.space == "alias"]:
            target = self.globals.get(alias.type)
            if target is not None:
                self.globals[alias.name] = target
        for info in self.functions.values():
            self.place_params(info)
        self._collect_shared()
        self._layout_shared()
        self._declare_body_statics()
        self._reserve_code()
        const_image = np.zeros(max(self.const.size, 1), dtype=np.uint8)
        from .core.initializers import write_initializer

        for off, decl in self.const_inits:
            write_initializer(const_image, off, decl, self.symbol_address_static)
        shared_static = max((f.shared_static for f in self.functions.values() if f.kind == "entry"), default=0)
        self.program = Program(self.code, self.regs, self.functions, shared_static, self.shared.max_align,
                               const_image, self.local_static.size, set(), self.dynamic_shared, self.globals,
                               self.uses_alloca, self._dynamic_base, None, self.lower_reachable)
        return self.program

    # ------------------------------------------------------------------ on demand
    def _declare_body_statics(self) -> None:
        """The .const/.global variables declared inside function bodies get their places now, in
        module order, so the .const image and the variables' addresses do not depend on which
        functions have been lowered."""
        self._body_statics: dict[int, Symbol] = {}

        def walk(block):  # in lower_block's order: a block's declarations, then its nested blocks
            for s in block.statements:
                if isinstance(s, ast.VarDecl) and s.space.split("::")[0] not in ("reg", "shared", "local", "param"):
                    self._body_statics[id(s)] = self.declare_static(s)
            for s in block.statements:
                if isinstance(s, ast.Block):
                    walk(s)

        for info in self.functions.values():
            if info.decl.body is not None:
                walk(info.decl.body)

    def _reserve_code(self) -> None:
        """Each function body's place in the code, fixed before any is lowered: a launch lowers its
        kernel and what the kernel can call (`lower_reachable`), and every process of a parallel
        launch sees the same PCs whatever it lowered first. Unlowered places hold NOT_LOWERED."""
        self._bodies: dict[str, ast.Block] = {}
        self._places: dict[str, tuple[int, int]] = {}
        self._branch_tables, self._prototypes = {}, {}  # (set again per function as it is lowered)
        self._lowered: set[str] = set()
        pc = 0
        for name, info in self.functions.items():
            if info.decl.body is None:
                continue
            body = self._bodies[name] = with_unique_labels(info.decl.body)  # inline-asm labels repeat
            size = self._count_labels(body, 0, {}) + 1  # and the implicit return
            self._places[name] = (pc, size)
            pc += size
        self.code.extend([NOT_LOWERED] * pc)

    def lower_reachable(self, kernel: Optional[str]) -> None:
        """Lower `kernel` and every function it can call (shared_layout.reachable_names: an
        indirect call reaches every function), once each; None: every function."""
        wanted = self._places if kernel is None else self._reach.get(kernel, {kernel})
        if any(n in self.aliases for n in wanted):  # a call through `.alias a, b` runs b: all, to be sure
            wanted = self._places
        names = [n for n in wanted if n in self._places and n not in self._lowered]
        if not names:
            return
        program, code = self.program, self.code
        for name in sorted(names, key=lambda n: self._places[n][0]):
            start, size = self._places[name]
            self.code = _Segment(start)
            try:
                self.lower_function(self.functions[name])
                if len(self.code) != start + size:
                    raise LoweringError(f"internal error: {name} lowered to {len(self.code) - start} ops, "
                                        f"{size} expected")
                code[start:start + size] = self.code.ops()
            except BaseException:  # nothing of a half-lowered body stays planned for the compiled tier
                for pc in [pc for pc in self.fusible if start <= pc < start + size]:
                    del self.fusible[pc]
                raise
            finally:
                self.code = code
            self._lowered.add(name)
        recursive = self._recursive_functions()
        for name in names:
            info = self.functions[name]
            if info.save_offset < 0 and (name in recursive or any(c in recursive for c in info.callees)):
                words = sum(2 if self.regs.dtypes[s].itemsize == 16 else 1 for s in info.reg_slots)  # .b128: 2
                info.save_offset = info.frame.place(8 * words, 8)
        program.recursive = recursive
        program.uses_alloca = self.uses_alloca
        program.version += 1
        if self.fusible:
            program.plan_fused = self._plan_fused

    def _plan_fused(self) -> None:
        """The compiled tier's blocks (engine/compiled), made at the first launch that may use
        them: loading a module pays nothing for the tier."""
        from .compiled import emit, plan

        try:
            steps = {pc: emit.describe(self, *candidate) for pc, candidate in self.fusible.items()}
            plan.attach(self.code, {pc: s for pc, s in steps.items() if s is not None}, self.leaders, self.regs.dtypes)
        except Exception:  # noqa: BLE001 - the interpreter runs everything; never a failed launch
            if os.environ.get("PTXVM_DEBUG_JIT"):
                raise
        self.fusible = {}

    def declare_static(self, decl: ast.VarDecl) -> Symbol:
        space = decl.space.split("::")[0]
        size, align = var_size(decl), var_align(decl)
        if space == "global":
            address = self.scoped_globals.get(id(decl))
            if address is None:
                address = self.device_globals.get(decl.name)
            if address is None:
                # an .extern .global defined in no loaded module: address 0, so that an access
                # faults (KernelFault) where a launch reaches it, and loading does not fail
                address = 0
            return Symbol(decl.name, "global", decl.type, size, address, decl)
        if space == "const":
            off = self.const.place(size, align)
            if decl.init is not None:
                self.const_inits.append((off, decl))
            return Symbol(decl.name, "const", decl.type, size, off, decl)
        if space == "shared":
            return self._shared_symbol(decl)
        if space == "local":
            return Symbol(decl.name, "slocal", decl.type, size, self.local_static.place(size, align), decl)
        if space in ("tex",) or decl.type in ("texref", "samplerref", "surfref"):
            return Symbol(decl.name, "texref", decl.type, 8, 0, decl)
        raise LoweringError(f"module-scope variable in .{decl.space} space is not supported")

    def _shared_symbol(self, decl: ast.VarDecl) -> Symbol:
        if decl.linkage == "extern" and decl.array and decl.array[-1] is None:
            self.dynamic_shared = True
            return Symbol(decl.name, "shared", decl.type, 0, 0, decl, dynamic=True)
        size, align = var_size(decl), var_align(decl)
        return Symbol(decl.name, "shared", decl.type, size, self.shared.place(size, align), decl)

    def _collect_shared(self) -> None:
        """Static .shared variables of every function are placed before any code is lowered, so
        that the dynamic shared memory's offset (after all of them) is known."""
        self._shared_in_bodies: dict[int, Symbol] = {}
        self._shared_owner: dict[int, str] = {}  # id(Symbol) -> the function whose body declares it

        def walk(block, owner):
            for s in block.statements:
                if isinstance(s, ast.Block):
                    walk(s, owner)
                elif isinstance(s, ast.VarDecl) and s.space.split("::")[0] == "shared":
                    sym = self._shared_in_bodies[id(s)] = self._shared_symbol(s)
                    self._shared_owner[id(sym)] = owner

        for info in self.functions.values():
            if info.decl.body is not None:
                walk(info.decl.body, info.name)

    def _layout_shared(self) -> None:
        """Final offsets of the static .shared variables, per kernel as ptxas allocates them
        (shared_layout.py); each kernel's static size; where the dynamic shared memory starts."""
        reach = self._reach = shared_layout.reachable_names(self.functions)
        symbols, seen = [], set()
        for sym in list(self.globals.values()) + list(self._shared_in_bodies.values()):
            if sym.space == "shared" and not sym.dynamic and id(sym) not in seen:
                seen.add(id(sym))
                symbols.append(sym)
        symbols.sort(key=lambda sym: sym.offset)  # declaration order (their provisional places)

        def users(sym):
            owner = self._shared_owner.get(id(sym))
            return frozenset(k for k, names in reach.items() if (owner in names if owner else sym.name in names))

        kernels = [users(sym) for sym in symbols]
        offsets = shared_layout.place([(sym.size, var_align(sym.decl)) for sym in symbols], kernels)
        for sym, off in zip(symbols, offsets):
            sym.offset = RESERVED_SHARED + off  # after the system's reserved 1 KiB, as on the H200
        for k in reach:  # a kernel's static bytes: its own variables (the reserved KiB not counted)
            ends = [off + sym.size for sym, off, ks in zip(symbols, offsets, kernels) if k in ks]
            self.functions[k].shared_static = -(-max(ends, default=0) // 16) * 16
        dynamic = {sym.name for sym in self.globals.values() if sym.space == "shared" and sym.dynamic}
        takers = [k for k, names in reach.items() if names & dynamic]
        # one address for the extern array, after the static variables of every kernel that names it
        static = max((self.functions[k].shared_static for k in takers), default=0)
        self._dynamic_base = RESERVED_SHARED + static
        for k in takers:
            self.functions[k].shared_static = static

    def dynamic_shared_offset(self) -> int:
        return self._dynamic_base

    def symbol_address_static(self, name: str) -> int:
        """The address of a module-scope name, for initializers (global/const/function)."""
        sym = self.globals.get(name)
        if sym is None:
            raise LoweringError(f"initializer refers to unknown symbol {name}")
        return sym.offset

    def place_params(self, info: FunctionInfo) -> None:
        decl = info.decl
        if info.kind == "entry":
            off = 0
            for p in decl.params:
                size, align = var_size(p), var_align(p)
                off = -(-off // align) * align
                info.params.append(Symbol(p.name, "kparam", p.type, size, off, p))
                off += size
            info.kparam_size = off
            info.frame.place(0, 1)
            return
        info.frame.place(FRAME_HEADER, 8)
        for p in decl.returns:
            info.returns.append(self._func_param(info, p))
        for p in decl.params:
            info.params.append(self._func_param(info, p))

    def _func_param(self, info: FunctionInfo, p: ast.VarDecl) -> Symbol:
        """A .func parameter or return value: a .param variable in the activation's frame, or (the
        pre-ABI form, `.func (.reg .u32 r) f(.reg .u32 a)`) a register of the callee, which the call
        writes and reads; it is one of the callee's registers, so a recursive call saves it with them."""
        if p.space != "reg":
            return Symbol(p.name, "fparam", p.type, var_size(p), info.frame.place(var_size(p), var_align(p)), p)
        outer, self.current = self.current, info
        try:
            if p.vector:
                sym = vector_register(p.name, p.type, p.vector, p)
                for part in sym.parts:
                    self._materialize(part)
                return sym
            return self._materialize(Symbol(p.name, "reg", p.type, offset=-1, decl=p))
        finally:
            self.current = outer

    def _recursive_functions(self) -> set:
        reach: dict[str, set] = {}

        def visit(name, seen):
            for c in self.functions.get(name, FunctionInfo(name, "func", None, 0)).callees:
                if c not in seen:
                    seen.add(c)
                    visit(c, seen)
            return seen

        for name in self.functions:
            reach[name] = visit(name, set())
        return {n for n, r in reach.items() if n in r}

    # ------------------------------------------------------------------ function bodies
    def lower_function(self, info: FunctionInfo) -> None:
        self.current = info
        scope = Scope(parent=None)
        for s in info.params + info.returns:
            scope.names[s.name] = s
        labels: dict[str, int] = {}
        self._branch_tables: dict[str, list[str]] = {}
        self._prototypes: dict[str, ast.CallPrototype] = {}
        body = self._bodies[info.name]  # its labels renamed apart (syntax/labels.py)
        self._count_labels(body, len(self.code), labels)
        self.labels = labels
        info.entry_pc = len(self.code)
        self.leaders.update(labels.values())
        self.leaders.add(info.entry_pc)
        self._families: list = []
        if self.contract:  # ptxas's mul+add -> fma fusion, as the GPU runs it (engine/contraction.py)
            from . import contraction

            self.contraction = contraction.plan(body)
        self.lower_block(body, scope)
        from .control.flow import lower_implicit_return

        self.code.append(lower_implicit_return(self, info))

    def _count_labels(self, block: ast.Block, pc: int, labels: dict) -> int:
        for s in block.statements:
            if isinstance(s, ast.Label):
                labels[s.name] = pc
            elif isinstance(s, ast.Instruction):
                pc += 2 if s.opcode == "call" else 1
            elif isinstance(s, ast.Block):
                pc = self._count_labels(s, pc, labels)
            elif isinstance(s, ast.BranchTargets):
                self._branch_tables[s.name] = list(s.targets)
            elif isinstance(s, ast.CallPrototype):
                self._prototypes[s.name] = s
        return pc

    def lower_block(self, block: ast.Block, parent: Scope) -> None:
        scope = Scope(parent=parent)
        for s in block.statements:
            if isinstance(s, ast.VarDecl):
                self.declare_local(s, scope)
        for s in block.statements:
            if isinstance(s, ast.Instruction):
                self.lower_instruction(s, scope)
            elif isinstance(s, ast.Block):
                self.lower_block(s, scope)

    def declare_local(self, decl: ast.VarDecl, scope: Scope) -> None:
        self._declare_local(decl, scope)
        sym = scope.names.get(decl.name)
        if isinstance(sym, Symbol) and sym.space not in ("reg", "regvec"):
            self.current.variables.setdefault(decl.name, sym)  # the first of a name in nested blocks

    def _declare_local(self, decl: ast.VarDecl, scope: Scope) -> None:
        space = decl.space.split("::")[0]
        if space == "reg":
            if decl.count is not None:
                scope.names.setdefault("<families>", []).append((decl.name, decl.count, decl.type, decl.vector))
            elif decl.vector:
                scope.names[decl.name] = vector_register(decl.name, decl.type, decl.vector, decl)
            else:
                scope.names[decl.name] = Symbol(decl.name, "reg", decl.type, offset=-1, decl=decl)
        elif space == "shared":
            scope.names[decl.name] = self._shared_in_bodies[id(decl)]
        elif space in ("local", "param"):
            off = self.current.frame.place(var_size(decl), var_align(decl))
            kind = "flocal" if space == "local" else "fparam"
            scope.names[decl.name] = Symbol(decl.name, kind, decl.type, var_size(decl), off, decl)
        else:
            known = self._body_statics.get(id(decl))
            scope.names[decl.name] = known if known is not None else self.declare_static(decl)

    # ------------------------------------------------------------------ names
    def lookup(self, name: str, scope: Scope) -> Optional[Symbol]:
        s = scope
        while s is not None:
            sym = s.names.get(name)
            if sym is not None:
                return self._materialize(sym)
            fams = s.names.get("<families>")
            if fams:
                m = _PARAM_FAMILY.match(name)
                if m:
                    for prefix, count, t, vector in fams:
                        if m.group(1) == prefix and int(m.group(2)) < count and not (len(m.group(2)) > 1 and m.group(2)[0] == "0"):
                            sym = vector_register(name, t, vector) if vector else Symbol(name, "reg", t, offset=-1)
                            s.names[name] = sym
                            return self._materialize(sym)
            s = s.parent
        sym = self.globals.get(name)
        if sym is None and name in self.unresolved:
            raise UnresolvedReference(f"'{name}' is an unsized .extern array that no module of the program defines "
                                      "(ptxas: Unresolved extern variable); link the module that defines it")
        if sym is None and name == "WARP_SZ":  # the ISA's one predefined constant
            return Symbol(name, "constant", "u32", offset=32)
        return sym

    def _materialize(self, sym: Symbol) -> Symbol:
        if sym.space == "reg" and sym.offset < 0:
            sym.offset = self.regs.new(sym.name, sym.type)
            if self.current is not None:
                self.current.reg_slots.append(sym.offset)
        return sym

    def register(self, reg: ast.Register, scope: Scope) -> Symbol:
        name = reg.name if reg.component is None else f"{reg.name}.{reg.component}"
        sym = self.lookup(reg.name, scope)
        if sym is not None and sym.space == "regvec" and reg.component is not None:
            k = component_index(reg.component)
            if not 0 <= k < len(sym.parts):
                raise LoweringError(f"{name}: no element .{reg.component} in a .v{len(sym.parts)} register")
            return self._materialize(sym.parts[k])
        if sym is None:
            from .core import sregs

            if sregs.is_special(reg.name):
                return Symbol(name, "sreg", sregs.type_of(reg.name))
            known = SREGS.get(reg.name)
            if known is not None and known.min_sm > 90:
                raise LoweringError(f"special register {reg.name} needs sm_{known.min_sm} or later: ptxvm runs "
                                    f"kernels as an H200 ({ENGINE_TARGET}), which does not have it")
            if known is not None:
                raise LoweringError(f"special register {reg.name} is not modelled by ptxvm ({known.note or 'no value'})")
            raise LoweringError(f"undeclared register {name}")
        return sym

    # ------------------------------------------------------------------ operands
    def reader(self, operand, ptx_type: str, scope: Scope):
        if isinstance(operand, ast.Register) and operand.offset is not None:
            return self.register_plus_reader(operand, ptx_type, scope)
        if isinstance(operand, ast.Register):
            sym = self.register(operand, scope)
            if sym.space == "sreg":
                from .core import sregs

                return sregs.reader(operand.name, operand.component, ptx_type)
            if sym.space != "reg":
                return self.address_of(sym, 0, ptx_type)
            r = register_reader(sym.offset, self.regs.dtypes[sym.offset], ptx_type)
            if operand.negated:
                return lambda ctx, lanes, r=r: ~r(ctx, lanes)
            return r
        if isinstance(operand, ast.Immediate):
            return self.immediate_reader(operand.expr, ptx_type, scope)
        if isinstance(operand, ast.ArrayElement):
            return self.element_address(operand, scope, ptx_type)
        raise LoweringError(f"unsupported operand {type(operand).__name__} here")

    def register_plus_reader(self, operand: ast.Register, ptx_type: str, scope: Scope):
        """`%r + 4`: the register plus the constant, wrapping in the register's width (ptxas 13.0/13.5
        compile it to one IADD3 on the register), then read as `ptx_type` like the register itself."""
        sym = self.register(operand, scope)
        if sym.space != "reg" or self.regs.dtypes[sym.offset] == np.bool_:
            raise LoweringError(f"{operand.name} cannot take '+ constant'")
        slot = sym.offset
        reg_dtype = self.regs.dtypes[slot]
        add = reg_dtype.type(int(evaluate(operand.offset)) % (1 << (8 * reg_dtype.itemsize)))
        convert = register_reader(0, reg_dtype, ptx_type)

        class _Sum:  # what `convert` reads as ctx.regs: the sum in place of the register
            __slots__ = ("regs",)

        def read(ctx, lanes):
            raw = ctx.regs[slot] if lanes is None else ctx.regs[slot][lanes]
            view = _Sum()
            view.regs = (raw + add,)
            return convert(view, None)

        return read

    def immediate_reader(self, expr, ptx_type: str, scope: Scope):
        sym_name, offset = symbol_plus_offset(expr)
        if sym_name is not None:
            sym = self.lookup(sym_name, scope)
            if sym is None:
                raise LoweringError(f"unknown symbol {sym_name}")
            return self.address_of(sym, offset, ptx_type)
        return constant_reader(literal(expr, ptx_type))

    def element_address(self, node: ast.ArrayElement, scope: Scope, ptx_type: str = "u64"):
        """`a[2]`, `a[%r]`, `a[%r+2]` (ISA "Arrays as Operands"): the array's address plus the index
        times the array's scalar size; a `.v4 .u32` array steps 4 bytes, as ptxas 13.0 compiles it.
        A register index goes to 32 bits as its type says (.s16 sign-extends, a 64-bit register
        truncates); index plus offset times size wraps in 32 bits and is zero-extended (ptxas: one LEA
        of the 32-bit index, a zero high word). docs/hardware-notes.md, "Array operands"."""
        sym = self.lookup(node.base.name, scope)
        if sym is None or sym.decl is None:
            raise LoweringError(f"{node.base.name}[...]: not an array variable")
        step = type_size(sym.decl) // (sym.decl.vector or 1)
        index = node.index
        if not isinstance(index, ast.Register):
            return self.address_of(sym, int(evaluate(index)) * step, ptx_type)
        base = self.address_of(sym, 0, "u64")
        reg = self.register(index, scope)
        signed = reg.type.startswith("s") and reg.type != "s64"
        idx = self.reader(ast.Register(index.name, index.component), "s32" if signed else "u32", scope)
        off = np.uint64(0 if index.offset is None else int(evaluate(index.offset)) & 0xFFFFFFFF)
        step64, low, out = np.uint64(step), np.uint64(0xFFFFFFFF), numpy_dtype(ptx_type)

        def read(ctx, lanes):
            i = np.asarray(idx(ctx, lanes)).astype(np.uint32).astype(np.uint64)
            return (base(ctx, lanes) + (((i + off) * step64) & low)).astype(out)
        return read

    def address_of(self, sym: Symbol, offset: int, ptx_type: str):
        """A name used as a value: its address in its own state space (ISA 6.4.x: `mov r, var`)."""
        dt = numpy_dtype(ptx_type)
        if sym.space in ("flocal", "fparam"):
            off = np.uint64(sym.offset + offset)
            return lambda ctx, lanes: ((ctx.frame_base if lanes is None else ctx.frame_base[lanes]) + off).astype(dt)
        if sym.space == "shared" and sym.dynamic:
            return constant_reader(dt.type(self.dynamic_shared_offset() + offset))
        if sym.space in ("label", "constant"):
            return constant_reader(dt.type(sym.offset))
        return constant_reader(np.array(sym.offset + offset, dtype=np.uint64).astype(dt)[()])

    def writer(self, operand, ptx_type: str, scope: Scope):
        if isinstance(operand, ast.Sink):
            return sink_writer
        if isinstance(operand, ast.Register):
            sym = self.register(operand, scope)
            if sym.space != "reg":
                raise LoweringError(f"{sym.name} is not a register and cannot be written")
            return register_writer(sym.offset, self.regs.dtypes[sym.offset], ptx_type)
        raise LoweringError(f"cannot write to operand {type(operand).__name__}")

    # ------------------------------------------------------------------ instructions
    def lower_instruction(self, instr: ast.Instruction, scope: Scope) -> None:
        from . import dispatch

        guard = None
        if instr.guard is not None:
            sym = self.lookup(instr.guard.register, scope)
            if sym is None or sym.space != "reg":
                raise LoweringError(f"undeclared predicate {instr.guard.register}")
            guard = (sym.offset, instr.guard.negated)
        text = _instruction_text(instr)
        written = instr
        if self.vector_registers and instr.opcode != "call":
            instr = self._expand_vector_registers(instr, scope)
        m = None  # (an instruction the table does not match faults where it runs: its ops carry m = None)
        try:
            try:
                m = isa_match(instr.opcode, instr.modifiers)
            except MatchError:
                if instr.opcode not in dispatch.ENGINE_LOWERINGS:
                    raise
                m = None  # the verifier vouches for the spelling; the engine reads the modifiers
            if m is not None:
                _refuse_beyond_sm90(m)
            ops = self._lower_contracted(instr, m, scope, written)
        except UnresolvedReference as e:  # a kernel that reaches it faults; one that does not runs
            ops = [_faulting(str(e))] * (2 if instr.opcode == "call" else 1)
        except Exception as e:  # noqa: BLE001 - the kernel faults if it reaches this instruction
            if _DEBUG:
                raise
            why = str(e) if isinstance(e, (LoweringError, NotImplementedError, KeyError, MatchError)) \
                else f"internal lowering error ({type(e).__name__}: {e})"
            ops = [_unsupported(f"{text}: {why}")] * (2 if instr.opcode == "call" else 1)
        else:
            self._note_fusible(instr, m, scope, written, ops, guard)
        for op in ops:
            op.guard = guard if not op.control else op.guard
            if op.control and guard is not None and op.guard is None:
                op.guard = guard
            op.text = text
            op.line = instr.span.line
            op.file = instr.span.file
            op.origin = (instr, m)
            self.code.append(op)

    def _note_fusible(self, instr, m, scope, written, ops, guard) -> None:
        """Remember the compiled tier's code for an ordinary register-only instruction (not one
        ptxas contracts: its Op does more than the instruction says)."""
        if len(ops) != 1 or ops[0].control or m is None or instr.opcode not in FUSIBLE_OPCODES:
            return
        if ops[0].side_effects and instr.opcode != "ld":  # ld: ld.param of a kernel only (emit._ld_param)
            return
        if id(written) in self.contraction.fused or id(written) in self.contraction.stashed:
            return
        self.fusible[len(self.code)] = (instr, m, scope, guard)  # described when a launch plans blocks

    def _expand_vector_registers(self, instr: ast.Instruction, scope: Scope) -> ast.Instruction:
        """A whole vector register operand acts as the braced vector of its elements:
        `ld.global.v4.f32 v, [p]` is `ld.global.v4.f32 {v.x, v.y, v.z, v.w}, [p]`."""

        def expand(node):
            if isinstance(node, ast.Register) and node.component is None:
                sym = self.lookup(node.name, scope)
                if sym is not None and sym.space == "regvec":
                    return ast.VectorOperand(tuple(ast.Register(p.name.rpartition(".")[0], p.name.rpartition(".")[2],
                                                                span=node.span) for p in sym.parts), span=node.span)
                return node
            if isinstance(node, ast.PredPair):
                first = expand(node.first)
                return node if first is node.first else ast.PredPair(first, node.second, span=node.span)
            if isinstance(node, ast.BracketList):
                elements = tuple(expand(e) for e in node.elements)
                changed = any(a is not b for a, b in zip(elements, node.elements))
                return ast.BracketList(elements, span=node.span) if changed else node
            return node

        operands = tuple(expand(o) for o in instr.operands)
        if all(a is b for a, b in zip(operands, instr.operands)):
            return instr
        return ast.Instruction(instr.opcode, instr.modifiers, operands, instr.guard, span=instr.span)

    def _lower_contracted(self, instr: ast.Instruction, m, scope: Scope, written: ast.Instruction) -> list[Op]:
        """dispatch.lower, except for the adds ptxas fuses with a product (contraction.py); the plan
        knows the instruction as written (`written`), before vector registers were expanded."""
        from . import contraction, dispatch

        fusion = self.contraction.fused.get(id(written))
        if fusion is not None:
            return contraction.lower_fused(self, instr, fusion, scope)
        ops = dispatch.lower(self, instr, m, scope)
        product = self.contraction.stashed.get(id(written))
        if product is not None:
            ops = contraction.wrap_stash(self, instr, product, ops, scope)
        return ops

    def spec(self, instr: ast.Instruction, m) -> Spec:
        types = {slot: t.name for slot, t in m.types.items()}
        if "type" not in types and m.type is not None:
            types["type"] = m.type.name
        values = dict(m.values)
        return Spec(instr.opcode, values, types, instr.modifiers)

    def _is_register_array(self, node, scope: Scope) -> bool:
        """Whether the operand reads a register (an array over the lanes, never a scalar)."""
        if not isinstance(node, ast.Register):
            return False
        sym = self.register(node, scope)
        return sym.space == "reg"

    def alu(self, instr: ast.Instruction, m, scope: Scope) -> list[Op]:
        """Instructions that only read registers/immediates and write registers."""
        fn = lane_function(self.spec(instr, m))
        readers, writers = [], []
        lane_arrays = False  # whether a source is a register (read as an array over the lanes)
        unpack_parts = 0
        carry_in = instr.opcode in ("addc", "subc", "madc")
        carry_out = m.has("cc")
        elementwise = bool(m.values.get("vec"))  # mov.v2/.v4: braced lists of whole elements, not parts
        for spec, node in zip(m.operands, instr.operands):
            t = spec.type.name if spec.type is not None else "b64"
            if spec.kind is Kind.PAIR or spec.spec.second is not None:
                first, second = (node.first, node.second) if isinstance(node, ast.PredPair) else (node, None)
                first_t = t
                writers.append(self.writer(first, first_t, scope))
                writers.append(self.writer(second, "pred", scope) if second is not None else sink_writer)
                continue
            if isinstance(node, ast.VectorOperand):
                if elementwise:
                    if spec.role is Role.SRC:
                        readers.extend(self.reader(el, t, scope) for el in node.elements)
                        lane_arrays = lane_arrays or any(self._is_register_array(el, scope) for el in node.elements)
                    else:
                        writers.extend(self.writer(el, t, scope) for el in node.elements)
                    continue
                if spec.role is Role.SRC:
                    part = _part_type(t, len(node.elements))
                    for el in node.elements:
                        readers.append(self.reader(el, part, scope))
                        lane_arrays = lane_arrays or self._is_register_array(el, scope)
                    continue
                unpack_parts = len(node.elements)
                part = _part_type(t, unpack_parts)
                writers.extend(self.writer(el, part, scope) for el in node.elements)
                continue
            if spec.role is Role.SRC:
                readers.append(self.reader(node, t, scope))
                lane_arrays = lane_arrays or self._is_register_array(node, scope)
            elif spec.role is Role.DST:
                writers.append(self.writer(node, t, scope))
            else:
                readers.append(self.reader(node, t, scope))
                writers.append(self.writer(node, t, scope))
                lane_arrays = lane_arrays or self._is_register_array(node, scope)
        if not lane_arrays and not carry_in:
            # no register source (constants, special registers, addresses): the lane function
            # still gets arrays over the lanes; with one, the constants broadcast against it
            readers = [_over_lanes(r) for r in readers]
        if carry_in:
            readers.append(lambda ctx, lanes: ctx.carry if lanes is None else ctx.carry[lanes])
        if carry_out:
            writers.append(_carry_writer)
        if instr.opcode == "setp" and len(writers) == 1:
            fn = _first_result(fn)
        if unpack_parts:
            whole = fn
            bits = numpy_dtype(m.type.name).itemsize * 8 // unpack_parts

            def fn(*srcs):
                from ..semantics.families.move import unpack

                return unpack(np.asarray(whole(*srcs)), bits, unpack_parts)
        return [Op(alu_runner(fn, readers, writers))]


def _declares_vector_registers(module: ast.Module) -> bool:
    def block_has(block) -> bool:
        for st in block.statements:
            if isinstance(st, ast.VarDecl) and st.vector and st.space == "reg":
                return True
            if isinstance(st, ast.Block) and block_has(st):
                return True
        return False

    for f in module.functions():
        if any(p.vector and p.space == "reg" for p in f.params + f.returns):
            return True
        if f.body is not None and block_has(f.body):
            return True
    return False


def _part_type(t: str, parts: int) -> str:
    """The type of each element of a vector operand that packs into one `t` (mov.b64 {a,b})."""
    if parts == 1:
        return t
    bits = numpy_dtype(t).itemsize * 8 // parts
    return {8: "b8", 16: "b16", 32: "b32"}[bits]


def _carry_writer(ctx, lanes, v):
    if lanes is None:
        np.copyto(ctx.carry, v, casting="unsafe", where=True if ctx.write_mask is None else ctx.write_mask)
    else:
        ctx.carry[lanes] = v


def _first_result(fn):
    """setp's lane function returns (p, q); a form without the q destination keeps p."""
    return lambda *srcs: fn(*srcs)[0]


def _over_lanes(reader):
    """An immediate's reader that gives the value once per lane, as a register's does: lane
    functions index and mask their operands (an all-immediate fma or cvt.rni got a NumPy scalar)."""
    def read(ctx, lanes):
        v = np.asarray(reader(ctx, lanes))
        return v if v.ndim else np.full(ctx.n if lanes is None else lanes.size, v, dtype=v.dtype)

    return read


ENGINE_TARGET = "sm_90a"  # what the virtual GPU is: an H200


def _refuse_beyond_sm90(m) -> None:
    """Forms for later GPUs (the sm_100 family, sm_120, ...: 256-bit loads, PTX ISA 9.1+ forms) verify against
    their module's target, but an H200 has no such instruction: a kernel that reaches one faults
    with a message naming the form and the target it needs (as the driver would refuse its cubin)."""
    req = m.requirement
    if req.problems((9, 5), ENGINE_TARGET):
        kind = {"a": " (architecture-specific)", "f": " or a later target of its family"}.get(req.suffix, " or later")
        raise LoweringError(f"{m.name} needs .target {req.target}{kind}: ptxvm runs kernels as an H200 "
                            f"({ENGINE_TARGET}), which does not have it")


def _unsupported(message: str) -> Op:
    return _faulting(f"unsupported instruction: {message}")


def _faulting(message: str) -> Op:
    def run(ctx, lanes):
        raise Fault(message)

    return Op(run, side_effects=True)


def _instruction_text(instr: ast.Instruction) -> str:
    from ..syntax.printer import print_instruction

    try:
        return print_instruction(instr).strip()
    except Exception:  # the printer is for messages here; never let it hide the real problem
        return instr.name
