"""State spaces of memory operands (ISA 5.1, 6.4.1), with ptxas 13.0's verdicts:

- The state space of an address must be the instruction's: `ld.global [p]` with `p` a `.param`,
  `ld.shared [g]` with `g` a `.global` are errors ("State space mismatch"). `.shared`,
  `.shared::cta` and `.shared::cluster` name one window; so do `.param`, `.param::entry` and
  `.param::func`. A generic access (no space) takes `.global`, `.shared` and `.local` variables, not
  `.const` nor `.param` ones.
- Spaces an instruction cannot name at all (`st.const`, `ldu.shared`, `atom.const`) come from the
  form table (the matcher rejects the spelling); this module words that error.
- Kernel and device-function input parameters are read-only (`st.param [p_out]`: "Illegal to write
  to function input parameter"), and return parameters are write-only ("Illegal to read function
  return parameter").
- Address registers are integer or bit-size registers ("Illegal to use symbol '%f2' of type .f32
  as address operand"). In a 64-bit module a 32-bit register may address `.shared`, `.local`,
  `.const` and `.param` (offsets in a window), but a `.global` or generic address of 32 bits means
  the 32-bit ABI, which sm_90 and later do not have.
- `[immediate]` addresses only for `.local` ("Immediate addresses allowed only for .local").
"""
from __future__ import annotations

from typing import Optional

from ..isa.types import TypeKind

SPACE_NAMES = frozenset(("const", "global", "local", "param", "param::entry", "param::func", "shared",
                         "shared::cta", "shared::cluster", "tex"))
_BASE = {"shared::cta": "shared", "shared::cluster": "shared", "param::entry": "param", "param::func": "param"}
# instructions that write through their address operand
WRITERS = frozenset(("st", "atom", "red", "mbarrier", "multimem", "stmatrix", "cp", "sust", "sured", "wmma"))
_WRITE_OPS = {"wmma": ("store",), "cp": ()}


def base_space(space: Optional[str]) -> Optional[str]:
    if space is None:
        return None
    space = space.split("[")[0]
    return _BASE.get(space, space)


def instruction_space(match) -> Optional[str]:
    """The state space named by the instruction's modifiers (None: generic addressing)."""
    for tok in match.modifiers:
        if tok in SPACE_NAMES:
            return tok
    return None


# instructions for which ptxas reads a 32-bit global/generic address register as the 32-bit ABI
ABI_CHECKED = frozenset(("ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu", "mbarrier"))


UNKNOWN = "?"


def address_rules(rules, match, addr_shape, ctx_bits: int, sm: int, single: bool = True,
                  space: Optional[str] = None, given: bool = True) -> list[tuple[str, str]]:
    """(severity, message) problems of one address operand. The state-space rules apply to
    instructions with one address operand (`single`), or with several whose spaces the modifiers
    name in order (`space`, cp.async.ca.shared.global [dst], [src]); the register rules to all.
    `given`: the module has .address_size. Without it PTX's default is 32 bits, and ptxas takes a
    module that addresses with 64-bit registers as 64-bit but one that addresses global memory
    with a 32-bit register as 32-bit code ("32-Bit ABI ... is not supported on sm_90 or higher")."""
    out: list[tuple[str, str]] = []
    opcode = match.form.opcode
    if single:
        space = instruction_space(match)
    elif space is not UNKNOWN and space is not None:
        single = None  # the space checks below apply, the instruction-wide ones do not
    tag = addr_shape[0]
    if tag == "elem":
        base, offset = addr_shape[1], None
    else:
        base, offset = addr_shape[1], addr_shape[2]
    if offset is not None and offset[0] == "bad":
        out.append(("error", offset[1]))
    elif offset is not None and offset[0] == "flt":
        out.append(("error", "an address offset must be an integer"))
    if base is None:
        if single is True and space != "local" and opcode in ("ld", "st"):
            out.append(("error", "immediate addresses are only allowed for the .local state space"))
        return out
    btag = base[0]
    if btag == "reg":
        sym = base[1]
        t = sym.ptype
        if t is None:
            return out
        if t.kind not in (TypeKind.BIT, TypeKind.UNSIGNED, TypeKind.SIGNED) or sym.vector and base[2] is None:
            out.append(("error", f"a .{t.name} register cannot hold an address (use an integer or bit-size "
                                 "register)"))
            return out
        if (single is True and t.bits < (ctx_bits if given else 64) and base_space(space) in (None, "global")
                and opcode in ABI_CHECKED and "mmio" not in match.modifiers
                and not (opcode == "red" and match.values.get("vec"))):
            where = f".{space}" if space else "generic"
            if given:
                msg = (f"{t.bits}-bit register as a {where} address in a module with .address_size {ctx_bits} "
                       "(32-bit addressing")
            else:
                msg = (f"{t.bits}-bit register as a {where} address in a module without .address_size, which "
                       "makes it 32-bit code (PTX's default; add .address_size 64 and 64-bit addresses) (32-bit "
                       "addressing")
            if sm >= 90:
                out.append(("error", msg + " is not supported on sm_90 and later targets)"))
            else:
                out.append(("warning", msg + ")"))
        return out
    if btag == "sreg":
        out.append(("error", f"special register {base[1].name} cannot be used as an address"))
        return out
    if btag == "label":
        out.append(("error", "a label cannot be used as an address"))
        return out
    if btag != "sym" or single is False:
        return out
    sym = base[1]
    if sym.kind == "func":
        out.append(("error", f"'{sym.name}' is a function, not a variable: it cannot be used as an address"))
        return out
    vspace = base_space(sym.space)
    ispace = base_space(space)
    if vspace == "reg":
        out.append(("error", f"'{sym.name}' is a register; registers have no address"))
        return out
    if ispace is None:
        if opcode == "mbarrier" and vspace != "shared":
            out.append(("error", f"illegal state space for an mbarrier: '{sym.name}' is a .{sym.space} variable "
                                 "(mbarrier objects live in .shared)"))
        elif vspace not in ("global", "shared", "local"):
            out.append(("error", f"state space mismatch: '{sym.name}' is a .{sym.space} variable, which a "
                                 f"generic {opcode} cannot address (write {opcode}.{vspace})"))
    elif vspace != ispace and not (ispace == "global" and vspace == "tex"):
        out.append(("error", f"state space mismatch: '{sym.name}' is a .{sym.space} variable but the "
                             f"instruction accesses .{space}"))
        return out
    if vspace == "param":
        writes = opcode in WRITERS and (opcode != "wmma" or "store" in match.modifiers)
        if writes and sym.role in ("entry-param", "func-param"):
            out.append(("error", f"illegal to write to function input parameter '{sym.name}'"))
        elif not writes and sym.role == "func-ret":
            out.append(("error", f"illegal to read function return parameter '{sym.name}'"))
    return out


def space_error_message(opcode: str, modifiers: tuple[str, ...], generic_message: str) -> str:
    """A clearer message when the matcher rejected a spelling because of its state space."""
    spaces = [m for m in modifiers if m in SPACE_NAMES]
    if spaces and ("not allowed" in generic_message or "unknown modifier" in generic_message):
        return f"state space .{spaces[0]} is not allowed for {opcode} ({generic_message})"
    return generic_message
