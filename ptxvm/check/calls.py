"""Calls and prototypes (ISA 9.7.13.3 `call`, 11.3 `.callprototype`/`.calltargets`), with ptxas
13.0's verdicts:

- `call f, (args)`: `f` a device function declared (or defined) before the call ("Call to 'f'
  requires call prototype" otherwise); a kernel is not a call target.
- `call %fptr, (args), proto`: an indirect call names a `.callprototype` or `.calltargets` label as
  its last operand ("Call target not recognized" otherwise).
- Argument and return lists have the callee's lengths ("Call has wrong number of parameters").
- Each argument is a `.param` variable declared in the calling function's body (not a kernel
  parameter, not a `.global`/`.local` variable), a register or a constant; a `.param` argument has
  the formal parameter's size, array shape and alignment, and a compatible type (bit-size and
  integer types of one size mix; `.s32` for `.f32` does not: "Type of argument does not match
  formal parameter").
"""
from __future__ import annotations

from typing import Optional

from ..isa.types import TYPES, operand_type_ok
from ..syntax import ast
from ..syntax.constexpr import ConstExprError, evaluate
from .decls import params_agree
from .names import label_kind


def check_call(walker, instr: ast.Instruction) -> list[tuple[int, str, str]]:
    """Problems of one call instruction, as (operand index, message, severity)."""
    out: list[tuple[int, str, str]] = []
    ops = instr.operands
    i = 0
    rets: Optional[ast.ParamList] = None
    if ops and isinstance(ops[0], ast.ParamList):
        rets = ops[0]
        i = 1
    if i >= len(ops):
        out.append((-1, "call needs a target function", "error"))
        return out
    target_index = i
    target = ops[i]
    i += 1
    args: Optional[ast.ParamList] = None
    args_index = -1
    if i < len(ops) and isinstance(ops[i], ast.ParamList):
        args = ops[i]
        args_index = i
        i += 1
    last = None
    last_index = -1
    if i < len(ops):
        last = ops[i]
        last_index = i
        i += 1
    if i < len(ops):
        out.append((i, "too many operands for call", "error"))
    scope = walker.scope
    signature = None  # (name, returns, params)
    if isinstance(target, ast.Immediate) and isinstance(target.expr, ast.SymbolRef):
        name = target.expr.name
        sym = scope.lookup(name)
        if sym is None:
            label = scope.label(name)
            if label is not None:
                out.append((target_index, f"call target '{name}' is a label, not a function", "error"))
            else:
                out.append((target_index, f"call to '{name}', which is not declared: declare or define the "
                                          "function before the call", "error"))
            return out
        if sym.kind != "func":
            out.append((target_index, f"call target '{name}' is a {sym.describe()}, not a function "
                                      "(an indirect call takes a register)", "error"))
            return out
        fn = sym.node
        if fn.kind == "entry":
            out.append((target_index, f"illegal call target: '{name}' is a kernel (.entry), not a device "
                                      "function", "error"))
            return out
        signature = (name, fn.returns, fn.params)
        if last is not None:
            out.append((last_index, "a direct call takes no prototype or target list", "error"))
    elif isinstance(target, ast.Register):
        shape = walker.shape(target)
        if shape[0] == "undef":
            out.append((target_index, f"'{target.name}' is not declared", "error"))
        elif shape[0] == "reg":
            t = shape[1].ptype
            if t is not None and (t.kind.value not in ("bit", "unsigned", "signed")):
                out.append((target_index, f"an indirect call target must be an integer register, not .{t.name}",
                            "error"))
        elif shape[0] == "sreg":
            out.append((target_index, "a special register cannot be a call target", "error"))
        proto = None
        if isinstance(last, ast.Immediate) and isinstance(last.expr, ast.SymbolRef):
            proto = scope.label(last.expr.name)
        if proto is None or label_kind(proto) not in ("proto", "ctargets"):
            where = last_index if last is not None else -1
            out.append((where, "an indirect call needs a .callprototype or .calltargets label as its last "
                               "operand", "error"))
            return out
        if label_kind(proto) == "proto":
            signature = ("_", proto.returns, proto.params)
        else:
            fn_syms = [scope.lookup(n) for n in proto.targets]
            fn_syms = [s for s in fn_syms if s is not None and s.kind == "func"]
            if fn_syms:
                f = fn_syms[0].node
                signature = (f.name, f.returns, f.params)
    else:
        out.append((target_index, "call target must be a function name or a register", "error"))
        return out
    if signature is None:
        return out
    name, formal_rets, formal_params = signature
    given_rets = rets.elements if rets is not None else ()
    given_args = args.elements if args is not None else ()
    if len(given_rets) != len(formal_rets):
        out.append((0 if rets is not None else target_index,
                    f"call has the wrong number of return parameters: '{name}' returns {len(formal_rets)}, the "
                    f"call takes {len(given_rets)}", "error"))
    else:
        for op, formal in zip(given_rets, formal_rets):
            out.extend(_argument(walker, op, formal, 0, ret=True))
    if len(given_args) != len(formal_params):
        out.append((args_index if args is not None else target_index,
                    f"call has the wrong number of arguments: '{name}' takes {len(formal_params)}, "
                    f"{len(given_args)} given", "error"))
    else:
        for op, formal in zip(given_args, formal_params):
            out.extend(_argument(walker, op, formal, args_index, ret=False))
    return out


def _argument(walker, op, formal: ast.VarDecl, index: int, ret: bool) -> list[tuple[int, str, str]]:
    what = "return value" if ret else "argument"
    if isinstance(op, ast.Immediate) and isinstance(op.expr, ast.SymbolRef):
        sym = walker.scope.lookup(op.expr.name)
        if sym is None:
            return [(index, f"unknown symbol '{op.expr.name}' in the call's {what}s", "error")]
        if sym.kind != "var" or sym.base_space != "param":
            return [(index, f"call {what} '{sym.name}' has an illegal state space (a .param variable declared "
                            "in the calling function, a register or a constant is expected)", "error")]
        if sym.role in ("entry-param", "func-param", "func-ret"):
            return [(index, f"parameter '{sym.name}' of the calling function cannot be passed to a call; copy "
                            "it into a local .param variable", "error")]
        types_ok, align_ok = params_agree(sym.node, formal)
        out = []
        if not types_ok:
            out.append((index, f"type of {what} '{sym.name}' does not match formal parameter '{formal.name}'",
                        "error"))
        elif not align_ok:
            out.append((index, f"alignment of {what} '{sym.name}' does not match formal parameter "
                               f"'{formal.name}'", "error"))
        return out
    if isinstance(op, ast.Register):
        shape = walker.shape(op)
        if shape[0] == "undef":
            return [(index, f"'{op.name}' is not declared", "error")]
        if shape[0] == "sreg":  # ptxas: "Call argument '%smid' has illegal state space"
            return [(index, f"call {what} '{op.name}' is a special register; copy it into a register first",
                     "error")]
        if formal.array and formal.space == "param":
            # ptxas 13.0/13.5: "Inconsistent state space for parameter"
            return [(index, f"a register cannot stand for the aggregate .param parameter '{formal.name}' "
                            "(pass a .param variable)", "error")]
        if shape[0] == "vec":  # a whole vector register
            if ret and formal.space != "reg":
                # ptxas 13.0/13.5 crash (SIGSEGV) on it; as an argument it is accepted
                return [(index, f"a vector register cannot receive the .param return value '{formal.name}'",
                         "error")]
            ft = TYPES.get(formal.type)
            elements = [e[1].ptype for e in shape[1] if e[0] == "reg"]
            if ft is not None and elements and elements[0] is not None:
                n, et = len(elements), elements[0]
                if formal.space == "reg":
                    ok = formal.vector == n and operand_type_ok(ft, et)
                else:
                    ok = n * et.bits == ft.bits * (formal.vector or 1)
                if not ok:
                    return [(index, f"vector register .v{n} .{et.name} does not match formal parameter "
                                    f"'{formal.name}'", "error")]
            return []
        if shape[0] == "reg":
            rt = shape[1].ptype
            ft = TYPES.get(formal.type)
            if formal.vector and formal.space == "reg":
                return [(index, f"formal parameter '{formal.name}' is a .v{formal.vector} register; "
                                "pass a vector register", "error")]
            if rt is not None and ft is not None and not formal.array and not operand_type_ok(ft, rt):
                return [(index, f"register of type .{rt.name} does not match formal parameter '{formal.name}' "
                                f"(.{ft.name})", "error")]
        return []
    if isinstance(op, ast.Immediate):
        if ret:
            return [(index, "a call's return values must be .param variables or registers", "error")]
        try:  # ptxas: "syntax error" for `(+ a)`, `(a + 4)`
            evaluate(op.expr)
        except ConstExprError as e:
            return [(index, f"a call argument must be a .param variable, a register or a constant ({e})", "error")]
        return []
    return [(index, f"unexpected call {what}", "error")]
