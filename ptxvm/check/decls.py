"""Declarations and directives (ISA 5.4, 11.2-11.7), as ptxas 13.0 enforces them.

Variables:
- types: a known type, usable in that space (`.pred` only in `.reg`; `.bf16`, `.e4m3` and other
  instruction-only types nowhere; `.texref`/`.samplerref`/`.surfref` only at module scope or as
  kernel parameters; `.b128` needs PTX 8.3); vectors `.v2`/`.v4` of at most 128 bits;
- `.align` a power of two; array sizes integer literals (ptxas rejects expressions); `[]` only for
  `.extern` variables or with an initializer;
- initializers only in `.global` and `.const`, not on `.extern` variables; no more elements than
  the array holds; integer constants for integer variables, floating constants for floating ones,
  names of declared variables or functions (their addresses) anywhere; a list only for arrays and
  vectors;
- `.reg` variables not at module scope (the ABI); `.common` only for `.global`; linkage directives
  only at module scope; `.samplerref` only with `.target texmode_independent`.
Functions:
- `.entry` has no return parameters, its parameters are `.param`, it may not be `.noreturn`;
  `.ptr` attributes only on kernel parameters;
- performance directives (`.maxntid`, `.reqntid`, `.minnctapersm`, `.maxnreg`, cluster directives)
  only on `.entry`; `.maxntid` and `.reqntid` exclude each other; sizes are 1 to 3 positive
  integers; cluster directives need sm_90; `.local_maxnreg` (PTX 8.8, a positive count) on either kind;
- a function is defined once; every declaration agrees with the definition (parameter count,
  types, alignment); an `.extern` function has no body.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

from ..isa.types import TYPES, TypeKind
from ..syntax import ast
from .context import Context
from .limits import directive_limits
from .names import NAME
from .targets import requirement_text

OPAQUE = frozenset(("texref", "samplerref", "surfref"))
INIT_SPACES = frozenset(("global", "const"))
ENTRY_DIRECTIVES = frozenset(("maxntid", "reqntid", "minnctapersm", "maxnctapersm", "maxnreg", "explicitcluster",
                              "reqnctapercluster", "maxclusterrank", "blocksareclusters", "minperctamemory"))
# special registers a kernel reads only with a positive .minperctamemory (PTX 9.4; ptxas 13.5)
PER_CTA_MEMORY = frozenset(("%perctamemoryoffset", "%perctamemorysize"))
FUNC_DIRECTIVES = frozenset(("pragma", "abi_preserve", "abi_preserve_control", "noreturn", "local_maxnreg"))
CLUSTER_DIRECTIVES = frozenset(("explicitcluster", "reqnctapercluster", "maxclusterrank"))


def _pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def var_problems(ctx: Context, d: ast.VarDecl, where: str) -> list[str]:
    """The problems of a declaration apart from its initializer's contents; messages say NAME for
    the variable's name (they are memoized on the declaration's form, see check_var)."""
    out: list[str] = []
    space = d.space.split("[")[0]
    t = TYPES.get(d.type)
    if t is None:
        out.append(f"unknown type .{d.type} in the declaration of '{NAME}'")
        return out
    if where == "module" and space == "reg":
        out.append(f"module-scope .reg variables are not allowed ('{NAME}'; the ABI keeps registers in "
                   "functions)")
    if where == "module" and space == "param":
        out.append(f"module-scope .param variables are not allowed ('{NAME}'; parameters belong to a "
                   "function's parameter list or body)")
    if where == "entry-param" and space != "param":
        out.append(f"kernel parameter '{NAME}' must be in the .param state space")
    if where in ("func-param", "func-ret") and space not in ("param", "reg"):
        out.append(f"parameter '{NAME}' must be in the .param or .reg state space")
    if space == "sreg":
        out.append(f"variables cannot be declared in the .sreg state space ('{NAME}')")
    # ---- types
    if t.kind is TypeKind.PRED:
        if space != "reg":
            out.append(f"predicate variable '{NAME}' must be in the .reg state space")
    elif t.kind is TypeKind.OPAQUE:
        if space == "reg":
            out.append(f"'{NAME}': .{t.name} variables cannot be allocated in registers")
        elif where not in ("module", "entry-param"):
            out.append(f"'{NAME}': texture, sampler and surface variables must be at module scope or "
                       "kernel parameters")
        if t.name == "samplerref" and not ctx.texmode_independent and where == "module":
            out.append(f"'{NAME}': .samplerref variables need .target texmode_independent (this module "
                       "uses the unified texture mode)")
    elif space == "reg" and not t.reg:
        out.append(f"type .{t.name} cannot be used to declare registers")
    elif space != "reg" and (not t.var or not t.reg):
        out.append(f"type .{t.name} cannot be used to declare variables (it is an instruction type)")
    if t.name == "b128":
        for msg in requirement_text("type .b128", (8, 3), 70, ctx):
            out.append(msg)
    if d.vector is not None:
        if t.name == "pred":
            # ptxas 13.0/13.5: "Predicate type can only be used to define scalar register variables"
            out.append("predicates can only be scalar registers (no .v2/.v4 .pred)")
        elif d.vector not in (2, 4):
            out.append(f"illegal vector size .v{d.vector} (variables may be .v2 or .v4)")
        elif t.bits * d.vector > 128:
            out.append(f"vector type .v{d.vector} .{t.name} is {t.bits * d.vector} bits, over the 128-bit limit")
    if d.align is not None and not _pow2(d.align):
        out.append(f"alignment {d.align} is not a power of two")
    # ---- arrays
    if d.array_exprs:
        out.append(f"array size of '{NAME}' must be an integer literal (ptxas does not accept constant "
                   "expressions here)")
    for k, dim in enumerate(d.array):
        if dim is None and (k > 0 or (d.linkage != "extern" and d.init is None and where not in
                                      ("entry-param", "func-param", "func-ret", "proto"))):
            out.append(f"'{NAME}' has an incomplete array type (only .extern variables or variables with "
                       "an initializer may leave the size out)")
            break
    # ---- linkage
    if d.linkage is not None:
        if where != "module":
            out.append(f".{d.linkage} is only allowed at module scope")
        elif d.linkage == "common" and space != "global":
            out.append(f".common variables must be in the .global state space ('{NAME}')")
    if d.init is not None:
        if d.linkage == "extern":
            out.append(f"no initial value is allowed for the external variable '{NAME}'")
        elif space not in INIT_SPACES:
            out.append(f"no initial value is allowed for '{NAME}' in the .{space} state space")
    return out


def check_var(ctx: Context, d: ast.VarDecl, where: str, memo: Optional[dict] = None) -> list[str]:
    """Report the problems of declaration `d`; `where`: "module", "body", "entry-param",
    "func-param", "func-ret", "proto". Returns the names the initializer refers to (for the caller
    to resolve in its scope)."""
    key = (d.space, d.type, d.vector, d.array, d.align, d.linkage, where, bool(d.array_exprs), d.init is None,
           d.ptr, d.ptr_space, d.ptr_align)
    problems = memo.get(key) if memo is not None else None
    if problems is None:
        problems = var_problems(ctx, d, where)
        if memo is not None:
            memo[key] = problems
    for msg in problems:
        ctx.error(d.span, msg.replace(NAME, d.name))
    if d.init is not None and not problems:
        t = TYPES.get(d.type)
        if t is not None:
            return check_initializer(ctx, d, t)
    return []


def check_initializer(ctx: Context, d: ast.VarDecl, t) -> list[str]:
    """Check the initializer of `d` (of type `t`); the names it refers to (addresses of variables
    and functions) for the caller to resolve."""
    span = d.span
    init = d.init
    dims = list(d.array)
    if d.vector:
        dims.append(d.vector)
    names: list[str] = []
    if t.kind is TypeKind.OPAQUE:
        return names
    problems: list[str] = []
    _scan_init(init, dims, t, problems, names, d.name)
    for p in problems[:3]:
        ctx.error(span, p)
    return names


_IntLit, _FloatLit, _Initializer, _Unary = ast.IntLit, ast.FloatLit, ast.Initializer, ast.Unary


def _scan_init(item, dims: list, t, problems: list, names: list, name: str) -> None:
    ti = type(item)
    if ti is _Initializer:
        if not dims:
            problems.append(f"initial value type mismatch: '{name}' is a scalar, not an array or vector")
            return
        n = dims[0]
        items = item.items
        if n is not None and len(items) > n:
            problems.append(f"more elements in the initializer ({len(items)}) than in the array '{name}' ({n})")
        rest = dims[1:]
        is_float = t.kind is TypeKind.FLOAT
        for sub in items:
            ts = type(sub)
            if ts is _IntLit and not is_float and not rest:
                continue  # the common case: a table of integers
            if ts is _FloatLit and is_float and not rest:
                continue
            _scan_init(sub, rest, t, problems, names, name)
        return
    if ti is _IntLit or (ti is _Unary and type(item.operand) is _IntLit):
        if t.kind is TypeKind.FLOAT:
            problems.append(f"initial value type mismatch: integer constant for .{t.name} variable '{name}' "
                            "(write 0f3F800000 or 1.0)")
        return
    if ti is _FloatLit or (ti is _Unary and type(item.operand) is _FloatLit):
        if t.kind is not TypeKind.FLOAT and t.kind is not TypeKind.BIT:
            problems.append(f"initial value type mismatch: floating-point constant for .{t.name} variable '{name}'")
        return
    init_symbols(item, names)


def init_symbols(item, out: list) -> list:
    """Names an initializer or a constant expression refers to (variables, functions, labels)."""
    t = type(item)
    if t is ast.SymbolRef:
        out.append(item.name)
    elif t is ast.Initializer:
        for sub in item.items:
            init_symbols(sub, out)
    elif t is ast.Generic:
        out.append(item.name)
    elif t is ast.Mask:
        init_symbols(item.operand, out)
    elif t is ast.Binary:
        init_symbols(item.left, out)
        init_symbols(item.right, out)
    elif t is ast.Unary or t is ast.Cast:
        init_symbols(item.operand, out)
    elif t is ast.Conditional:
        init_symbols(item.cond, out)
        init_symbols(item.if_true, out)
        init_symbols(item.if_false, out)
    return out


# ====================================================================== functions


def _ints(ctx: Context, d: ast.Directive) -> Optional[list[int]]:
    from ..syntax import constexpr

    out = []
    for a in d.args:
        if isinstance(a, str):
            return None
        try:
            v = constexpr.evaluate(a)
        except Exception:
            return None
        if not isinstance(v, int):
            return None
        out.append(v)
    return out


def body_span(ctx: Context, fn: ast.Function):
    """Where ptxas reports a function's definition: its `{` (the function's name without a body)."""
    if fn.body is not None and fn.body.span.line > 0:
        return fn.body.span
    return fn.span


def end_span(ctx: Context, fn: ast.Function):
    """Where ptxas reports problems found once a function is complete: its closing `}`."""
    if fn.body is not None and fn.body.span.line > 0:
        return ctx.block_end(fn.body)
    return fn.span


def check_function_header(ctx: Context, fn: ast.Function) -> None:
    span = fn.span
    entry = fn.kind == "entry"
    if entry and fn.returns:
        ctx.error(span, f"kernel '{fn.name}' (.entry) cannot have return parameters")
    if entry and fn.noreturn:
        ctx.error(span, f".noreturn applies to .func, not to kernel '{fn.name}'")
    if fn.linkage == "extern" and fn.body is not None:
        ctx.error(end_span(ctx, fn), f"function definition conflicts with the .extern declaration of '{fn.name}'")
    if fn.linkage == "common":
        ctx.error(span, ".common applies to variables only")
    if fn.attributes and entry:
        pass
    names = {}
    directives = fn.directives
    for k, d in enumerate(directives):
        names.setdefault(d.name, d)
        dspan = d.span if d.span.line > 0 else span
        # ptxas reports a directive's bad value at the token after it: the next directive or the `{`
        after = directives[k + 1].span if k + 1 < len(directives) and directives[k + 1].span.line > 0 else \
            body_span(ctx, fn)
        if d.name in ENTRY_DIRECTIVES and not entry:
            ctx.error(dspan, f".{d.name} applies to kernels (.entry), not to .func '{fn.name}'")
            continue
        if d.name not in ENTRY_DIRECTIVES and d.name not in FUNC_DIRECTIVES:
            ctx.error(dspan, f"unknown or misplaced directive .{d.name} in the header of '{fn.name}'")
            continue
        if d.name == "maxnctapersm" and (not ctx.version_known or tuple(ctx.version) >= (2, 1)):
            ctx.error(dspan, ".maxnctapersm is deprecated and not supported as of PTX ISA 2.1 (use .maxntid with "
                             ".minnctapersm)")
            continue
        if d.name in CLUSTER_DIRECTIVES:
            for msg in requirement_text(f".{d.name}", (7, 8), 90, ctx):
                ctx.error(dspan, msg)
        if d.name in ("maxntid", "reqntid", "reqnctapercluster"):
            vals = _ints(ctx, d)
            if vals is None or not 1 <= len(vals) <= 3:
                ctx.error(dspan, f".{d.name} takes 1 to 3 integer sizes (x[, y[, z]])")
            elif any(v <= 0 for v in vals):
                ctx.error(after, f".{d.name}: sizes must be positive, non-zero integers")
        if d.name == "minperctamemory":
            for msg in requirement_text(".minperctamemory", (9, 4), 80, ctx):
                ctx.error(dspan, msg)
            vals = _ints(ctx, d)
            if vals is None or len(vals) != 1 or vals[0] < 0:
                ctx.error(dspan, ".minperctamemory takes one non-negative integer (bytes)")
        if d.name == "local_maxnreg":
            for msg in requirement_text(".local_maxnreg", (8, 8), 0, ctx):
                ctx.error(dspan, msg)
        if d.name in ("minnctapersm", "maxnctapersm", "maxnreg", "maxclusterrank", "local_maxnreg"):
            vals = _ints(ctx, d)
            if vals is None or len(vals) != 1:
                ctx.error(dspan, f".{d.name} takes one integer")
            elif vals[0] == 0 and d.name == "maxnreg":  # ptxas 13.0 and 13.5: at the directive
                ctx.error(dspan, ".maxnreg: the value must be a positive, non-zero integer")
            elif vals[0] <= 0:
                # ptxas reports a bad .local_maxnreg on its own line, the others at the token after them
                ctx.error(dspan if d.name == "local_maxnreg" else after,
                          f".{d.name}: the value must be a positive integer")
        elif d.name == "explicitcluster" and d.args:
            ctx.error(dspan, ".explicitcluster takes no arguments")
    if entry:
        directive_limits(ctx, fn, {n: _ints(ctx, d) for n, d in names.items()}, names)
    if entry and fn.body is not None:
        reserved = names.get("minperctamemory")
        vals = _ints(ctx, reserved) if reserved is not None else None
        if not vals or vals[0] <= 0:
            for instr in _reading(fn.body, PER_CTA_MEMORY):
                ctx.error(instr.span, ".minperctamemory directive required for using special registers "
                                      "%perctamemoryoffset and %perctamemorysize")
    if "maxntid" in names and "reqntid" in names:
        ctx.error(end_span(ctx, fn), "conflicting directives: .maxntid and .reqntid cannot both be specified")
    if "reqnctapercluster" in names and "maxclusterrank" in names:  # ptxas: at the later of the two
        later = max(names["reqnctapercluster"], names["maxclusterrank"], key=lambda d: (d.span.line, d.span.col))
        ctx.error(later.span if later.span.line > 0 else span,
                  "conflicting directives: .reqnctapercluster and .maxclusterrank cannot both be specified")
    if "minnctapersm" in names and "maxntid" not in names and "reqntid" not in names:
        d = names["minnctapersm"]
        ctx.warning(d.span if d.span.line > 0 else span,
                    ".minnctapersm is ignored when neither .maxntid nor .reqntid is specified")
    for p in fn.params:
        if (p.ptr or p.ptr_space or p.ptr_align) and not entry:
            ctx.error(p.span, f"'{p.name}': .ptr attributes apply to kernel parameters only")
        elif p.ptr_align is not None and not _pow2(p.ptr_align):
            ctx.error(p.span, f"'{p.name}': alignment {p.ptr_align} is not a power of two")


def _reading(block: ast.Block, names) -> list:
    """The instructions of `block` (nested blocks too) with a register operand named in `names`."""
    out = []
    for st in block.statements:
        if isinstance(st, ast.Block):
            out += _reading(st, names)
        elif isinstance(st, ast.Instruction) and any(_names_in(op) & names for op in st.operands):
            out.append(st)
    return out


def _names_in(node) -> set:
    """The register names an operand mentions (vectors, addresses and pairs searched through)."""
    if isinstance(node, ast.Register):
        return {node.name}
    found = set()
    if dataclasses.is_dataclass(node):
        for f in dataclasses.fields(node):
            v = getattr(node, f.name)
            for x in (v if isinstance(v, (tuple, list)) else (v,)):
                if dataclasses.is_dataclass(x):
                    found |= _names_in(x)
    return found


_SIGNATURES: dict[tuple, tuple] = {}


def param_signature(p: ast.VarDecl) -> tuple:
    """What must agree between a formal parameter and an argument or another declaration."""
    key = (p.space, p.type, p.vector, p.array, p.align)
    r = _SIGNATURES.get(key)
    if r is None:
        r = _SIGNATURES[key] = _param_signature(p)
    return r


def _param_signature(p: ast.VarDecl) -> tuple:
    t = TYPES.get(p.type)
    bits = (t.bits if t else 0) * (p.vector or 1)
    align = p.align if p.align is not None else max(1, bits // 8)
    return (p.space.split("[")[0], bits, tuple(p.array), align)


def type_class(tname: Optional[str]) -> str:
    t = TYPES.get(tname) if tname else None
    if t is None:
        return "?"
    if t.kind is TypeKind.FLOAT:
        return t.name
    if t.kind is TypeKind.PRED:
        return "pred"
    if t.kind is TypeKind.OPAQUE:
        return t.name
    return "int"  # bit-size and integer types of one size are interchangeable


def params_agree(a: ast.VarDecl, b: ast.VarDecl) -> tuple[bool, bool]:
    """(types agree, alignments agree) for two parameter declarations (ptxas: `.u32` for `.b32` is
    fine, `.s32` for `.f32`, `.b8 x[8]` for `.b64` or a different array size are not)."""
    sa, sb = param_signature(a), param_signature(b)
    ta, tb = TYPES.get(a.type), TYPES.get(b.type)
    bit = (ta is not None and ta.kind is TypeKind.BIT) or (tb is not None and tb.kind is TypeKind.BIT)
    types_ok = sa[1] == sb[1] and sa[2] == sb[2] and (type_class(a.type) == type_class(b.type) or bit)
    align_ok = sa[3] == sb[3]
    return types_ok, align_ok


def check_prototypes(ctx: Context, first: ast.Function, other: ast.Function) -> None:
    """A later declaration or the definition of a function against an earlier one."""
    span = body_span(ctx, other)
    for what, xs, ys in (("parameters", first.params, other.params), ("return parameters", first.returns,
                                                                     other.returns)):
        if len(xs) != len(ys):
            ctx.error(span, f"inconsistent prototypes of '{other.name}': the number of {what} differs "
                            f"({len(xs)} declared at line {first.span.line}, {len(ys)} here)")
            continue
        for x, y in zip(xs, ys):
            types_ok, align_ok = params_agree(x, y)
            if not types_ok:
                ctx.error(span, f"inconsistent prototypes of '{other.name}': the type of {what[:-1]} "
                                f"'{y.name}' differs from the declaration at line {first.span.line}")
            elif not align_ok:
                ctx.error(span, f"inconsistent prototypes of '{other.name}': the alignment of {what[:-1]} "
                                f"'{y.name}' differs from the declaration at line {first.span.line}")
    if first.kind != other.kind:
        ctx.error(span, f"'{other.name}' was declared as .{first.kind} at line {first.span.line}")
