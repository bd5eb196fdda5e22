"""ast.Module -> canonical PTX text.

One statement per line, tabs for indentation, labels one level out (as nvcc writes them).
Integers print in decimal (`U` when unsigned), floats as exact 0f/0d bit patterns, and
expressions with the parentheses their precedence needs. Printing is a fixed point: parsing the
output and printing again gives the same text.
"""
from __future__ import annotations

from typing import Union

from . import ast
from ._exprs import BINARY_PRECEDENCE

_TERNARY = 0
_UNARY = 11
_PRIMARY = 12
_NAME_START = frozenset("%$_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


# ------------------------------------------------------------------------ expressions


def print_expr(e: ast.Expr, context: int = _TERNARY) -> str:
    """`e` as PTX text, parenthesized when its precedence is below `context`."""
    precedence, text = _expr(e)
    return f"({text})" if precedence < context else text


def _expr(e) -> tuple[int, str]:
    t = type(e)
    if t is ast.IntLit:
        return _PRIMARY, f"{e.value}U" if e.unsigned else str(e.value)
    if t is ast.SymbolRef:
        return _PRIMARY, e.name
    if t is ast.FloatLit:
        return _PRIMARY, f"0f{e.bits:08X}" if e.is_f32 else f"0d{e.bits:016X}"
    if t is ast.Unary:
        return _UNARY, e.op + _unary_operand(e.operand)
    if t is ast.Cast:
        return _UNARY, f"(.{e.type})" + _unary_operand(e.operand)
    if t is ast.Binary:
        precedence = BINARY_PRECEDENCE[e.op]
        left = print_expr(e.left, precedence)
        right = print_expr(e.right, precedence + 1)
        return precedence, f"{left} {e.op} {right}"
    if t is ast.Conditional:
        cond = print_expr(e.cond, _TERNARY + 1)
        return _TERNARY, f"{cond} ? {print_expr(e.if_true)} : {print_expr(e.if_false)}"
    raise TypeError(f"not an expression: {e!r}")


def _unary_operand(operand) -> str:
    # `-(-1)` rather than `--1`: nested prefix operators stay visibly separate
    if type(operand) in (ast.Unary, ast.Cast):
        return f"({print_expr(operand)})"
    return print_expr(operand, _UNARY)


# ------------------------------------------------------------------------ operands


def print_operand(op: ast.Operand) -> str:
    t = type(op)
    if t is ast.Register:
        text = op.name if op.component is None else f"{op.name}.{op.component}"
        if op.offset is not None:
            offset = print_expr(op.offset)
            return f"{text} + {offset}" if type(op.offset) is ast.IntLit else f"{text} + ({offset})"
        return "!" + text if op.negated else "-" + text if op.minus else text
    if t is ast.Immediate:
        return print_expr(op.expr)
    if t is ast.Address:
        suffix = ".unified" if op.unified else ""
        if op.base is None:
            text = print_expr(op.offset)
            # `[(x + 4)]`, not `[x + 4]`, which would read as base x with offset 4
            return (f"[({text})]" if text[0] in _NAME_START else f"[{text}]") + suffix
        base = print_operand(op.base) if type(op.base) is ast.Register else op.base.name
        return (f"[{base}]" if op.offset is None else f"[{base}+{print_expr(op.offset)}]") + suffix
    if t is ast.Sink:
        return "_"
    if t is ast.VectorOperand:
        return "{" + ", ".join(map(print_operand, op.elements)) + "}"
    if t is ast.BracketList:
        return "[" + ", ".join(map(print_operand, op.elements)) + "]"
    if t is ast.ParamList:
        return "(" + ", ".join(map(print_operand, op.elements)) + ")"
    if t is ast.PredPair:
        return f"{print_operand(op.first)}|{print_operand(op.second)}"
    if t is ast.ArrayElement:
        index = print_operand(op.index) if type(op.index) is ast.Register else print_expr(op.index)
        return f"{op.base.name}[{index}]"
    raise TypeError(f"not an operand: {op!r}")


def print_instruction(insn: ast.Instruction) -> str:
    text = insn.name
    if insn.guard is not None:
        text = f"@{'!' if insn.guard.negated else ''}{insn.guard.register} {text}"
    if insn.operands:
        text += " " + ", ".join(map(print_operand, insn.operands))
    return text + ";"


# ------------------------------------------------------------------------ declarations


def print_init(item: ast.InitItem) -> str:
    t = type(item)
    if t is ast.Initializer:
        return "{" + ", ".join(map(print_init, item.items)) + "}"
    if t is ast.Generic:
        text = f"generic({item.name})"
        return text if item.offset is None else f"{text}+{print_expr(item.offset)}"
    if t is ast.Mask:
        return f"0x{item.mask:X}({print_init(item.operand)})"
    if t is ast.FieldInit:
        return f"{item.field} = {print_expr(item.value)}"
    return print_expr(item)


def print_var(decl: ast.VarDecl) -> str:
    """A declaration without the final `;` (parameters are printed this way too)."""
    words = []
    if decl.linkage:
        words.append("." + decl.linkage)
    words.append("." + decl.space)
    if decl.attributes:
        words.append(".attribute(" + ", ".join("." + a for a in decl.attributes) + ")")
    if decl.align is not None:
        words.append(f".align {decl.align}")
    if decl.vector is not None:
        words.append(f".v{decl.vector}")
    words.append("." + decl.type)
    words.extend("." + w for w in decl.extra)
    if decl.ptr:
        ptr = ".ptr" + (f".{decl.ptr_space}" if decl.ptr_space else "")
        words.append(ptr + (f".align {decl.ptr_align}" if decl.ptr_align is not None else ""))
    name = decl.name
    if decl.count is not None:
        name += f"<{decl.count}>"
    if decl.array_exprs:
        name += "".join("[]" if d is None else f"[{print_expr(d)}]" for d in decl.array_exprs)
    else:
        name += "".join("[]" if d is None else f"[{d}]" for d in decl.array)
    words.append(name)
    if decl.init is not None:
        words.append("= " + print_init(decl.init))
    return " ".join(words)


def _param_list(params) -> str:
    return "(" + ", ".join(map(print_var, params)) + ")"


def _directive_args(args) -> str:
    return ", ".join(f'"{a}"' if isinstance(a, str) else print_expr(a) for a in args)


def print_directive(d: ast.Directive, terminated: bool = True) -> str:
    text = "." + d.name
    if d.args:
        text += " " + _directive_args(d.args)
    return text + ";" if terminated else text


def print_loc(loc: ast.Loc) -> str:
    text = f".loc {loc.file} {loc.line} {loc.col}"
    if loc.function_name is not None:
        text += f", function_name {loc.function_name}"
        if loc.function_offset is not None:
            text += f"+{loc.function_offset}"
    if loc.inlined_at is not None:
        file, line, col = loc.inlined_at
        text += f", inlined_at {file} {line} {col}"
    return text


def _header_directives(directives) -> list[str]:
    return [print_directive(d, terminated=d.name == "pragma") for d in directives]


def print_callprototype(p: ast.CallPrototype) -> str:
    words = [f"{p.name}: .callprototype"]
    if p.returns:
        words.append(_param_list(p.returns))
    words.append("_")
    if p.params:
        words.append(_param_list(p.params))
    if p.noreturn:
        words.append(".noreturn")
    words.extend(_header_directives(p.directives))
    return " ".join(words) + ";"


# ------------------------------------------------------------------------ statements


def print_statement(stmt: ast.Statement, indent: int = 1) -> str:
    """`stmt` as lines of text (a Block spans several), indented by `indent` tabs."""
    tabs = "\t" * indent
    t = type(stmt)
    if t is ast.Instruction:
        return tabs + print_instruction(stmt)
    if t is ast.Label:
        return "\t" * (indent - 1) + stmt.name + ":"
    if t is ast.VarDecl:
        return tabs + print_var(stmt) + ";"
    if t is ast.Loc:
        return tabs + print_loc(stmt)
    if t is ast.Directive:
        return tabs + print_directive(stmt)
    if t is ast.Block:
        return "\n".join(_block_lines(stmt, indent))
    if t is ast.BranchTargets:
        return f"{tabs}{stmt.name}: .branchtargets {', '.join(stmt.targets)};"
    if t is ast.CallTargets:
        return f"{tabs}{stmt.name}: .calltargets {', '.join(stmt.targets)};"
    if t is ast.CallPrototype:
        return tabs + print_callprototype(stmt)
    raise TypeError(f"not a statement: {stmt!r}")


def _block_lines(block: ast.Block, indent: int) -> list[str]:
    """A nested block: braces at `indent`, contents one level in."""
    tabs = "\t" * indent
    return [tabs + "{", *(print_statement(s, indent + 1) for s in block.statements), tabs + "}"]


def print_function(f: ast.Function) -> str:
    head = []
    if f.linkage:
        head.append("." + f.linkage)
    head.append("." + f.kind)
    if f.attributes:
        head.append(".attribute(" + ", ".join("." + a for a in f.attributes) + ")")
    if f.returns:
        head.append(_param_list(f.returns))
    head.append(f.name)
    if f.params:
        lines = [" ".join(head) + "(", ",\n".join("\t" + print_var(p) for p in f.params), ")"]
    else:
        lines = [" ".join(head) + "()"]
    if f.noreturn:
        lines.append(".noreturn")
    lines.extend(_header_directives(f.directives))
    if f.body is None:
        lines.append(";")
    else:
        lines.append("{")
        lines.extend(print_statement(s, 1) for s in f.body.statements)
        lines.append("}")
    return "\n".join(lines)


def print_section(s: ast.Section) -> str:
    head = ".section " + s.name + "".join(", " + a for a in s.attributes)
    lines = [head, "{"]
    for entry in s.entries:
        if entry.directive == "label":
            lines.append(f"{entry.values[0].name}:")
        else:
            lines.append(f"\t.{entry.directive} " + ", ".join(print_expr(v) for v in entry.values))
    lines.append("}")
    return "\n".join(lines)


def print_toplevel(item: Union[ast.TopLevel, ast.Statement]) -> str:
    t = type(item)
    if t is ast.Function:
        return print_function(item)
    if t is ast.VarDecl:
        return print_var(item) + ";"
    if t is ast.Alias:
        return f".alias {item.alias}, {item.aliasee};"
    if t is ast.FileDirective:
        text = f'.file {item.index} "{item.path}"'
        if item.timestamp is not None:
            text += f", {item.timestamp}, {item.size}"
        return text
    if t is ast.Section:
        return print_section(item)
    if t is ast.Dwarf:
        return f"@@DWARF {item.text}"
    if t is ast.Directive:
        return print_directive(item, terminated=item.name != "target")
    raise TypeError(f"not a module-level item: {item!r}")


def print_module(m: ast.Module) -> str:
    lines = [f".version {m.version[0]}.{m.version[1]}"]
    if m.target:
        lines.append(".target " + ", ".join(m.target))
    if m.address_size is not None:
        lines.append(f".address_size {m.address_size}")
    lines.append("")
    previous = None
    for item in m.items:
        is_function = type(item) is ast.Function
        if previous is not None and (is_function or previous is ast.Function):
            lines.append("")
        lines.append(print_toplevel(item))
        previous = type(item)
    return "\n".join(lines) + "\n"
