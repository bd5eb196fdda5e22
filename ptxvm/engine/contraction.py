"""Floating-point contraction: the multiply-add pairs ptxas fuses into one FMA.

`mul`, `add` and `sub` on floats without a rounding modifier may be "optimized aggressively by
the code generator, e.g. into fma" (ISA 9.7.3). The GPU runs ptxas's SASS, so where ptxas fuses,
the hardware rounds once where the PTX as written rounds twice. This pass finds, per function,
the pairs ptxas 13.0 (sm_90) fuses and lowers each such add as one FMA of the multiply's factors;
the multiply itself still runs (its value is read by nothing else). The rules, measured with
tools/ptxas_contraction_probe.py (docs/hardware-notes.md, "ptxas: floating-point contraction"):

* a *product* is an unpredicated `mul{.ftz}.T` (T = f32 f64 f16 bf16 f16x2 bf16x2; no rounding
  modifier, no .sat), or the final multiply of `div.full{.ftz}.f32`, `div.approx{.ftz}.f32` or
  `rcp.approx.f32` (their SASS ends in an FMUL; the factors come from semantics.families.approx);
* its value may travel through unpredicated `mov` and `neg` (a negated product);
* an *add* is `add{.ftz}{.sat}.T` / `sub{.ftz}{.sat}.T` without a rounding modifier, same T and
  the same .ftz as the product (predicated or not), with the product as exactly one source;
* a product is fused only if EVERY read of it (through the movs/negs) is such an add, in the
  same basic block (labels that a branch names and branches end blocks; a use in another block,
  a store, a compare, a use by both sources of one add, or a live-out register all block it);
  then each of those adds becomes FMA(a, b, +-c) (or FMA(-a, b, c) for `sub c, p`);
* when both sources of an add are fusable products, the first source is fused.

Registers declared in nested `{ }` blocks (inline asm) are told apart from the function's by
scope; a product and an add in different scopes read the factors from saved copies.

A source of the multiply redefined between the multiply and the add (ptxas works on SSA values,
so it still fuses) is saved into a hidden register when the multiply runs.

`PTXVM_CONTRACT=0` in the environment, or `contract=False` when loading, turns the pass off.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Optional

import numpy as np

from ..syntax import ast

ENV = "PTXVM_CONTRACT"
FLOAT_TYPES = ("f32", "f64", "f16", "bf16", "f16x2", "bf16x2")
_ROUNDINGS = {"rn", "rz", "rm", "rp", "rna", "rs"}
_BLOCK_ENDS = {"bra", "brx", "ret", "exit", "call", "trap"}
_SIGN = {"f16": 0x8000, "bf16": 0x8000, "f16x2": 0x80008000, "bf16x2": 0x80008000}
_SIZE = {"f32": 32, "f64": 64, "f16": 16, "bf16": 16, "f16x2": 32, "bf16x2": 32}


def enabled(option: Optional[bool] = None) -> bool:
    """Whether to contract: an explicit option wins, else PTXVM_CONTRACT (default on)."""
    if option is not None:
        return bool(option)
    return os.environ.get(ENV, "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass
class Product:
    instr: ast.Instruction
    kind: str            # "mul", "div.full", "div.approx", "rcp.approx"
    type: str
    ftz: bool
    sources: tuple        # register names the factors are computed from
    uses: list = field(default_factory=list)   # (add instr, source index, negated)
    blocked: bool = False
    stash: bool = False   # a source is redefined before some use: save the sources
    slots: Optional[list] = None   # the hidden registers holding the saved sources


@dataclass(frozen=True)
class Fusion:
    """How one add/sub is lowered as an FMA."""
    product: Product
    index: int            # which source of the add (0 or 1) is the product
    negated: bool         # the product reached the add through an odd number of negs


@dataclass
class Plan:
    fused: dict = field(default_factory=dict)     # id(add instruction) -> Fusion
    stashed: dict = field(default_factory=dict)   # id(product instruction) -> Product

    def __bool__(self):
        return bool(self.fused)


# --------------------------------------------------------------------------- reading the PTX


def _mods(instr):
    return set(instr.modifiers)


def _ftype(instr) -> Optional[str]:
    ts = [m for m in instr.modifiers if m in FLOAT_TYPES]
    return ts[0] if len(ts) == 1 and len(instr.modifiers) - len(ts) <= 2 else None


def _reg(node) -> Optional[str]:
    return node.name if isinstance(node, ast.Register) and node.component is None and not node.minus else None


def _product_kind(instr) -> Optional[str]:
    """The kind of product `instr` computes (None: not one ptxas fuses from)."""
    if instr.guard is not None or len(instr.operands) < 2 or _reg(instr.operands[0]) is None:
        return None
    mods, t = _mods(instr), _ftype(instr)
    if t is None or mods & _ROUNDINGS or "sat" in mods:
        return None
    if instr.opcode == "mul" and mods <= {t, "ftz"} and len(instr.operands) == 3:
        return "mul"
    if t != "f32":
        return None
    if instr.opcode == "div" and len(instr.operands) == 3 and mods <= {"f32", "ftz", "full", "approx"}:
        return "div.full" if "full" in mods else "div.approx" if "approx" in mods else None
    if instr.opcode == "rcp" and mods == {"approx", "f32"} and len(instr.operands) == 2:
        return "rcp.approx"
    return None


def _add_form(instr) -> Optional[tuple[str, bool]]:
    """(type, ftz) of an add/sub ptxas may fuse into, else None."""
    if instr.opcode not in ("add", "sub") or len(instr.operands) != 3:
        return None
    mods, t = _mods(instr), _ftype(instr)
    if t is None or mods & _ROUNDINGS or not mods <= {t, "ftz", "sat"}:
        return None
    if t.startswith("bf16") and mods & {"ftz", "sat"}:
        return None
    return t, "ftz" in mods


def _carrier(instr) -> Optional[tuple[str, str, bool]]:
    """(destination, source, negates) for an unpredicated `mov`/`neg` that passes a value on."""
    if instr.guard is not None or len(instr.operands) != 2:
        return None
    d, s = _reg(instr.operands[0]), _reg(instr.operands[1])
    if d is None or s is None or len(instr.modifiers) != 1:
        return None
    if instr.opcode == "mov":
        return d, s, False
    if instr.opcode == "neg" and instr.modifiers[0] in FLOAT_TYPES:
        return d, s, True
    return None


def _registers(node, out: list) -> list:
    """Every register name inside an operand (addresses, vectors, lists)."""
    if isinstance(node, ast.Register):
        out.append(node.name)
    elif is_dataclass(node) and not isinstance(node, (ast.Immediate, ast.Sink)):
        for f in fields(node):
            v = getattr(node, f.name)
            for item in (v if isinstance(v, tuple) else (v,)):
                if is_dataclass(item):
                    _registers(item, out)
    return out


def _reads_writes(instr) -> tuple[list, list]:
    """(registers read, registers written). Destinations are known where the ISA table matches
    the instruction; otherwise every register counts as both read and written (conservative)."""
    from ..isa import match as isa_match
    from ..isa.table import Role

    reads = [instr.guard.register] if instr.guard is not None else []
    try:
        m = isa_match(instr.opcode, instr.modifiers)
        specs = list(m.operands)
    except Exception:  # noqa: BLE001 - unknown shape: count everything as read and written
        specs = []
    if len(specs) != len(instr.operands):
        regs = [r for node in instr.operands for r in _registers(node, [])]
        return reads + regs, regs
    writes = []
    for spec, node in zip(specs, instr.operands):
        regs = _registers(node, [])
        if spec.role is Role.DST and not isinstance(node, ast.Address):
            writes += regs
        elif spec.role is Role.INOUT:
            reads += regs
            writes += regs
        else:
            reads += regs
    if instr.guard is not None:
        reads += writes      # a predicated write keeps the old value on some lanes
    return reads, writes


class _Scope:
    """The registers a nested `{ }` block declares (inline asm blocks: `.reg .f16 low;`): inside
    it, those names are other registers than the function's. They get a key unique to the block."""

    def __init__(self, block: ast.Block, parent: Optional["_Scope"]):
        self.parent, self.tag = parent, f"@{id(block)}"
        decls = [d for d in block.statements if isinstance(d, ast.VarDecl) and d.space == "reg"]
        self.names = {d.name for d in decls if d.count is None}
        self.names |= {f"{d.name}.{c}" for d in decls if d.vector for c in "xyzw"[: d.vector]}
        self.families = [(d.name, d.count) for d in decls if d.count is not None]

    def key(self, name: str) -> str:
        s = self
        while s is not None:
            if name in s.names or any(_in_family(name, p, n) for p, n in s.families):
                return name + s.tag
            s = s.parent
        return name


def _in_family(name: str, prefix: str, count: int) -> bool:
    rest = name[len(prefix):]
    return name.startswith(prefix) and rest.isdigit() and int(rest) < count and not (len(rest) > 1 and rest[0] == "0")


def _renamed(node, scope: _Scope):
    """A copy of an AST node with every register name replaced by its scope key."""
    if isinstance(node, ast.Register):
        key = scope.key(node.name)
        return node if key == node.name else replace(node, name=key)
    if isinstance(node, ast.Guard):
        key = scope.key(node.register)
        return node if key == node.register else replace(node, register=key)
    if not is_dataclass(node) or isinstance(node, (ast.Immediate, ast.Sink)):
        return node
    changes = {}
    for f in fields(node):
        v = getattr(node, f.name)
        if isinstance(v, tuple):
            new = tuple(_renamed(x, scope) for x in v)
            if any(a is not b for a, b in zip(new, v)):
                changes[f.name] = new
        elif is_dataclass(v):
            new = _renamed(v, scope)
            if new is not v:
                changes[f.name] = new
    return replace(node, **changes) if changes else node


def _statements(block: ast.Block, out: list, originals: dict, scope: Optional[_Scope] = None) -> list:
    """The function body flattened, registers of nested blocks renamed to their scope keys.
    originals: id(renamed instruction) -> (the instruction as parsed, its block's scope tag)."""
    for s in block.statements:
        if isinstance(s, ast.Block):
            inner = _Scope(s, scope)
            _statements(s, out, originals, inner)
        elif isinstance(s, ast.Instruction):
            r = _renamed(s, scope) if scope is not None else s
            originals[id(r)] = (s, scope.tag if scope is not None else "")
            out.append(r)
        elif isinstance(s, (ast.Label, ast.BranchTargets)):
            out.append(s)
    return out


def _branch_names(instr) -> list[str]:
    names = [r for node in instr.operands for r in _registers(node, [])]
    return names + [n.expr.name for n in instr.operands
                    if isinstance(n, ast.Immediate) and isinstance(n.expr, ast.SymbolRef)]


def _trivial_branches(stmts: list) -> set:
    """ids of `bra L` whose label L follows it with no instruction between: ptxas drops them."""
    out = set()
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Instruction) and s.opcode == "bra":
            names = set(_branch_names(s))
            j = i + 1
            while j < len(stmts) and not isinstance(stmts[j], ast.Instruction):
                if isinstance(stmts[j], ast.Label) and stmts[j].name in names:
                    out.add(id(s))
                j += 1
    return out


def _blocks(stmts: list) -> tuple[list, dict]:
    """Basic blocks (lists of instructions) and, per block, the indices of its successors. A
    label starts a block only if some branch names it (compilers leave many unreferenced
    labels, `$L__tmp3:`, that ptxas ignores); a branch, ret, exit or call ends one."""
    trivial = _trivial_branches(stmts)
    targets = set()
    for s in stmts:
        if isinstance(s, ast.BranchTargets):
            targets |= set(s.targets)
        elif isinstance(s, ast.Instruction) and s.opcode in ("bra", "brx", "call") and id(s) not in trivial:
            targets |= set(_branch_names(s))
    blocks, labels = [[]], {}
    for s in stmts:
        if isinstance(s, ast.Label) and s.name in targets:
            if blocks[-1]:
                blocks.append([])
            labels[s.name] = len(blocks) - 1
        elif isinstance(s, ast.Instruction):
            if id(s) in trivial:
                continue
            blocks[-1].append(s)
            if s.opcode in _BLOCK_ENDS:
                blocks.append([])
    succ = {}
    tables = {s.name: s.targets for s in stmts if isinstance(s, ast.BranchTargets)}
    for i, b in enumerate(blocks):
        nxt = set()
        last = b[-1] if b else None
        ends = last is not None and last.opcode in ("bra", "brx", "ret", "exit", "trap")
        if (not ends or last.guard is not None) and i + 1 < len(blocks):
            nxt.add(i + 1)
        if last is not None and last.opcode in ("bra", "brx"):
            for n in _branch_names(last):
                for t in tables.get(n, (n,)):
                    if t in labels:
                        nxt.add(labels[t])
        succ[i] = nxt
    return blocks, succ


def _live_out(blocks: list, succ: dict, rw: dict) -> list[set]:
    use_def = []
    for b in blocks:
        use, defs = set(), set()
        for instr in b:
            r, w = rw[id(instr)]
            use |= set(r) - defs
            defs |= set(w)
        use_def.append((use, defs))
    live_in = [set() for _ in blocks]
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(blocks))):
            out = set().union(*(live_in[j] for j in succ[i])) if succ[i] else set()
            new = use_def[i][0] | (out - use_def[i][1])
            if new != live_in[i]:
                live_in[i], changed = new, True
    return [set().union(*(live_in[j] for j in succ[i])) if succ[i] else set() for i in range(len(blocks))]


# --------------------------------------------------------------------------- the plan


def plan(body: ast.Block) -> Plan:
    """Which adds of one function ptxas turns into FMAs (see the module docstring)."""
    originals: dict = {}
    stmts = _statements(body, [], originals)
    if not any(isinstance(s, ast.Instruction) and _product_kind(s) for s in stmts):
        return Plan()
    blocks, succ = _blocks(stmts)
    rw = {id(i): _reads_writes(i) for b in blocks for i in b}
    live_out = _live_out(blocks, succ, rw)
    products: list[Product] = []
    for b, out in zip(blocks, live_out):
        products += _scan_block(b, out, rw)
    for p in products:   # back to the parsed instructions the lowerer sees
        p.instr, tag = originals[id(p.instr)]
        uses = []
        for instr, i, neg in p.uses:
            orig, use_tag = originals[id(instr)]
            p.stash |= use_tag != tag   # another scope: read the factors from saved copies
            uses.append((orig, i, neg))
        p.uses = uses
    return _resolve(products)


def _scan_block(block: list, live_out: set, rw: dict) -> list[Product]:
    carriers: dict[str, tuple[Product, bool]] = {}   # register -> (product it holds, negated)
    pending: list[Product] = []
    for instr in block:
        reads, writes = rw[id(instr)]
        carry = _carrier(instr)
        add = _add_form(instr)
        held = [(r, carriers[r]) for r in reads if r in carriers]
        handled = set()
        if carry is not None and carry[1] in carriers:
            handled.add(carry[1])
        elif add is not None and held:
            srcs = [_reg(n) for n in instr.operands[1:]]
            for i, name in enumerate(srcs):
                if name in carriers and name not in handled:
                    prod, neg = carriers[name]
                    other = srcs[1 - i]
                    same = other is not None and other in carriers and carriers[other][0] is prod
                    if (prod.type, prod.ftz) == add and not same:
                        prod.uses.append((instr, i, neg))
                        handled.add(name)
        for r, (prod, _) in held:
            if r not in handled:
                prod.blocked = True
        for prod in pending:        # a factor changes while the product is still carried
            if not prod.blocked and set(writes) & set(prod.sources):
                prod.stash = True
        new_carrier = None
        if carry is not None and carry[1] in carriers:
            prod, neg = carriers[carry[1]]
            new_carrier = (carry[0], (prod, neg ^ carry[2]))
        for w in writes:
            carriers.pop(w, None)
        kind = _product_kind(instr)
        if kind is not None:
            t = _ftype(instr)
            prod = Product(instr, kind, t, "ftz" in instr.modifiers,
                           tuple(r for node in instr.operands[1:] for r in _registers(node, [])))
            if set(prod.sources) & set(writes):
                prod.stash = True
            pending.append(prod)
            carriers[_reg(instr.operands[0])] = (prod, False)
        if new_carrier is not None:
            carriers[new_carrier[0]] = new_carrier[1]
    for r, (prod, _) in carriers.items():
        if r in live_out:
            prod.blocked = True
    return pending


def _resolve(products: list[Product]) -> Plan:
    """Keep the products all of whose uses fuse; an add fed by two keeps its first source."""
    ok = {id(p) for p in products if p.uses and not p.blocked}
    changed = True
    while changed:
        changed = False
        by_add: dict[int, list] = {}
        for p in products:
            if id(p) in ok:
                for instr, i, _ in p.uses:
                    by_add.setdefault(id(instr), []).append((i, p))
        for pairs in by_add.values():
            if len(pairs) > 1:
                loser = max(pairs, key=lambda ip: ip[0])[1]
                ok.discard(id(loser))
                changed = True
    result = Plan()
    for p in products:
        if id(p) in ok:
            for instr, i, neg in p.uses:
                result.fused[id(instr)] = Fusion(p, i, neg)
            if p.stash:
                result.stashed[id(p.instr)] = p
    return result


# --------------------------------------------------------------------------- lowering


def _factor_function(kind: str, ftz: bool):
    """(sources...) -> (x, y): the two factors of the product's final multiply."""
    from ..semantics.families import approx

    if kind == "mul":
        return lambda a, b: (a, b)
    if kind == "div.full":
        return approx.div_full_factors(ftz)
    if kind == "div.approx":
        return approx.div_approx_factors(ftz)
    if kind == "rcp.approx":
        return approx.rcp_approx_factors()
    raise AssertionError(kind)


def _negate(t: str):
    if t in _SIGN:
        sign = np.dtype(f"u{_SIZE[t] // 8}").type(_SIGN[t])
        return lambda v: np.bitwise_xor(v, sign)
    return np.negative


def lower_fused(lowerer, instr: ast.Instruction, fusion: Fusion, scope) -> list:
    """The Op for an add/sub ptxas fused with its product: FMA(x, y, c) with the signs."""
    from ..isa import match as isa_match
    from ..semantics import lane_function
    from .core.operands import alu_runner
    from .core.machine import Op

    prod, t = fusion.product, fusion.product.type
    mods = _mods(instr)
    fma_mods = ("rn",) + (("ftz",) if "ftz" in mods else ()) + (("sat",) if "sat" in mods else ()) + (t,)
    fma_instr = ast.Instruction("fma", fma_mods, instr.operands[:1] * 4, None, instr.span)
    fma = lane_function(lowerer.spec(fma_instr, isa_match("fma", fma_mods)))
    factors = _factor_function(prod.kind, prod.ftz)
    neg = _negate(t)
    negate_product = fusion.negated ^ (instr.opcode == "sub" and fusion.index == 1)
    negate_addend = instr.opcode == "sub" and fusion.index == 0
    src_type = t if prod.kind == "mul" else "f32"
    if prod.stash:
        readers = [stash_reader(lowerer, prod, k) for k in range(len(prod.instr.operands) - 1)]
    else:
        readers = [lowerer.reader(node, src_type, scope) for node in prod.instr.operands[1:]]
    n = len(readers)
    readers.append(lowerer.reader(instr.operands[2 - fusion.index], t, scope))

    def lanes(*ops):
        x, y = factors(*ops[:n])
        c = ops[n]
        return fma(neg(x) if negate_product else x, y, neg(c) if negate_addend else c)

    writer = lowerer.writer(instr.operands[0], t, scope)
    return [Op(alu_runner(lanes, readers, [writer]))]


def _stash_slots(lowerer, prod: Product) -> list[int]:
    if prod.slots is None:
        t = prod.type if prod.kind == "mul" else "f32"
        prod.slots = [lowerer.regs.new(f"<contraction {prod.instr.span.line}.{k}>", t)
                      for k in range(len(prod.instr.operands) - 1)]
        lowerer.current.reg_slots.extend(prod.slots)
    return prod.slots


def stash_reader(lowerer, prod: Product, k: int):
    from .core.operands import register_reader

    slot = _stash_slots(lowerer, prod)[k]
    t = prod.type if prod.kind == "mul" else "f32"
    return register_reader(slot, lowerer.regs.dtypes[slot], t)


def wrap_stash(lowerer, instr: ast.Instruction, prod: Product, ops: list, scope) -> list:
    """The product's op, and in the same op its sources (as read before it runs) saved for the
    fused adds."""
    from .core.operands import register_writer

    t = prod.type if prod.kind == "mul" else "f32"
    slots = _stash_slots(lowerer, prod)
    pairs = [(lowerer.reader(node, t, scope), register_writer(s, lowerer.regs.dtypes[s], t))
             for node, s in zip(instr.operands[1:], slots)]
    inner = ops[0].run

    def run(ctx, lanes):
        values = [np.copy(r(ctx, lanes)) for r, _ in pairs]   # a register read may be a view
        inner(ctx, lanes)
        for (_, w), v in zip(pairs, values):
            w(ctx, lanes, v)

    ops[0].run = run
    return ops
