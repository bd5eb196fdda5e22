"""PTX text <-> AST: `parse` (text -> ast.Module), `print_module` (ast.Module -> canonical text),
`evaluate` (constant expressions) and `operand_span` (an operand's position, for diagnostics)."""
from .constexpr import ConstExprError, evaluate
from .parser import parse
from .printer import print_module
from .spans import operand_span

__all__ = ["ConstExprError", "evaluate", "operand_span", "parse", "print_module"]
