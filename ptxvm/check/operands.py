"""Operands: kinds, types and sizes against the instruction form (ISA 6.4, 9.4), immediates, vectors,
predicates and special registers.

An operand is first reduced to a *shape*: a small tuple that says everything the rules need and
nothing else (not the register's name: `%r1` and `%r2` of one `.reg .b32 %r<9>` declaration have
the same shape), so that instruction checks can be memoized on (spelling, shapes):

    ("reg", sym, component, negated)      a declared register (sym: names.Sym)
    ("sreg", SpecialReg, component, negated)
    ("undef", name, hint)                 an undeclared name (reported by the names rule)
    ("sym", sym, offset)                  a variable's or function's address, `var+4` (offset True)
    ("label", kind)                       a label ("label", "proto", "btargets", "ctargets")
    ("int", value) / ("flt", bits)        constants; bits 32 for 0f literals, 64 otherwise
    ("bad", message)                      a constant expression that does not evaluate
    ("sink",)                             `_`
    ("addr", base, offset)                `[base+offset]`; base a shape or None for `[imm]`
    ("vec", elements) ("pair", a, b) ("brk", elements) ("plist", elements) ("elem", sym, index)

The rules (ISA 9.4 and ptxas 13.0, each checked):
- Registers: `operand_type_ok` (same size, bit types match everything of their size, signed and
  unsigned integers interchangeable; `relaxed` forms (ld, st, cvt) take wider registers).
- Integer constants go with integer, bit-size and predicate operands; ptxas does not range-check
  them against the type (`add.u16 d, a, 70000` is accepted), only specific operands (barrier
  numbers, register counts...) are checked (instructions.py). Floating constants go with .f32/.f64
  operands (any spelling) and with bit-size operands of the literal's own size (`mov.b32 r, 0f...`,
  `mov.b64 rd, 1.0`); never with integer or half-precision operands.
- A variable's or function's name as a value (its address) only in mov and cvta (not cvta.to:
  "must be register" elsewhere); a label never. A .global variable's address (and cvta's generic
  one) needs the address size; .shared/.local/.const/.param offsets and functions fit 32 bits.
- Special registers only in mov and in integer cvt ("Special register argument not allowed"),
  read-only, vector ones (%tid) only with a component; the legacy 16-bit reads (mov.u16 %rs, %tid.x)
  and a .u32 read of %gridid are accepted.
- `!p` for any predicate source, never a destination nor a non-predicate; predicates where required
  (an integer constant is accepted as a predicate source, as ptxas does for selp).
- Vectors: `{a, b}` element count equals the .v2/.v4 of the instruction; a scalar for a .v2
  operand (or a vector for a scalar one) is an error; `{a}` for a scalar is accepted.
"""
from __future__ import annotations

from typing import Optional

from ..isa.table import Kind
from ..isa.types import TYPES, PtxType, TypeKind, operand_type_ok

SINK = ("sink",)

_B, _U, _S, _F, _P = TypeKind.BIT, TypeKind.UNSIGNED, TypeKind.SIGNED, TypeKind.FLOAT, TypeKind.PRED
_SCALAR_KINDS = (Kind.REG, Kind.RI, Kind.IMM, Kind.PRED)
_KIND_WORDS = {"f": "floating-point", "i": "integer", "p": "predicate"}

# Where ptxas 13.0 is looser than the form table's operand kinds and types (checked one by one):
# source operands the table gives as registers but ptxas also takes as constants,
IMMEDIATE_OK = frozenset((("*", "cache-policy"), ("createpolicy", "access-property"), ("istypep", "a"),
                          ("mbarrier", "state")))
# and operands ptxas types as .b32 (any 32-bit register) where the table says .u32.
AS_B32 = frozenset((("shfl", "b"), ("shfl", "c"), ("fns", "base"), ("fns", "offset")))
# operands ptxas types as integers even where the table says .b32/.b64: no floating-point registers
# or constants (names, or (opcode, name))
INTEGER_OPERANDS = frozenset(("membermask", "cache-policy", "state", "access-property", ("istypep", "a"), "a-desc",
                              "b-desc", ("match", "d"), ("cvt", "d")))
# operands ptxas wants in a register
REGISTER_ONLY = frozenset((("movmatrix", "a"),))


def has_undef(shape) -> bool:
    tag = shape[0]
    if tag == "undef":
        return True
    if tag in ("vec", "brk", "plist"):
        return any(has_undef(s) for s in shape[1])
    if tag == "pair":
        return has_undef(shape[1]) or has_undef(shape[2])
    if tag == "addr":
        return shape[1] is not None and has_undef(shape[1])
    if tag == "elem":
        return has_undef(shape[1]) or has_undef(shape[2])
    return False


def undef_names(shape, out: list) -> list:
    tag = shape[0]
    if tag == "undef":
        out.append((shape[1], shape[2]))
    elif tag in ("vec", "brk", "plist"):
        for s in shape[1]:
            undef_names(s, out)
    elif tag == "pair":
        undef_names(shape[1], out)
        undef_names(shape[2], out)
    elif tag == "addr" and shape[1] is not None:
        undef_names(shape[1], out)
    elif tag == "elem":
        undef_names(shape[1], out)
        undef_names(shape[2], out)
    return out


def type_name(t: Optional[PtxType]) -> str:
    return f".{t.name}" if t is not None else "untyped"


def float_imm_ok(t: PtxType, bits: int) -> bool:
    """A floating-point constant (32-bit 0f literal, or 64-bit 0d/decimal) for an operand of `t`."""
    if t.kind is _F:
        return t.name in ("f32", "f64") and not t.packed
    if t.kind is _B:
        return t.bits == bits
    return False


def int_imm_ok(t: PtxType) -> bool:
    return t.kind in (_B, _U, _S, _P)


class OperandRules:
    """The operand checks of one instruction spelling (one Match)."""

    def __init__(self, match, spelling: str, address_bits: int, version=(99, 0), sm: Optional[int] = None):
        self.m = match
        self.form = match.form
        self.opcode = match.form.opcode
        # ISA 9.4.1 relaxed types (ld, st, cvt); ptxas also lets cvt.pack write a wider register
        self.relaxed = bool(getattr(match.form, "relaxed", False)) or (
            match.form.opcode == "cvt" and "pack" in match.modifiers)
        self.spelling = spelling
        self.address_bits = address_bits
        types = match.type_list
        self.float_types = any(t.kind is _F for t in types)
        self.sreg_ok = self.opcode == "mov" or (self.opcode == "cvt" and not self.float_types
                                                 and "irnd" in match.form.slots)
        # SIMD video instructions (vadd2, vset4 ...): operands are registers (ptxas: "Incorrect video
        # selector" for a constant); the scalar ones (vadd, vmad) take constants
        self.simd_video = match.form.family == "video" and self.opcode[-1:] in ("2", "4")
        self.matrix = match.form.family == "matrix"
        self.vector_form = any(k.startswith("vec") and v for k, v in match.values.items())
        # the conversions of packed narrow floats (cvt.rn.satfinite.e4m3x2.f32 ...): their .b16/.b32
        # containers are bit-size registers for ptxas, not .u16/.s32
        self.bit_containers = (self.opcode == "cvt" and "irnd" not in match.form.slots and "pack" not in match.modifiers
                               and any(t.alt and (t.packed or t.bits < 16) for t in types))
        # ptxas types the .b32 operands of these newer instructions as integers: no .f32 registers
        self.strict_bits = self.opcode in ("bmsk", "szext", "redux")
        self.sym_ok = self.opcode in ("mov", "cvta")
        self.texture_handle = self.opcode in ("txq", "suq")  # [a] names a texture/surface/sampler
        self.cvta_to = self.opcode == "cvta" and "to" in match.modifiers
        self.version = tuple(version)
        self.sm = sm  # None: no sm target named (reported at .target)

    # ------------------------------------------------------------------ entry
    def check(self, ro, shape, index: int) -> list[str]:
        kind = ro.spec.kind
        tag = shape[0]
        if tag == "bad" and len(shape) > 2:  # a `%r + 4` that cannot be (walk.plus_constant_shape), `v.x|p`
            return [shape[1]]
        if tag == "reg" and len(shape) > 4:  # `%r + 4` (walk.plus_constant_shape)
            if ro.spec.is_dst:
                return [f"a destination must be a plain register, not 'register + constant' (operand of "
                        f"{self.spelling})"]
            if kind in (Kind.IMM, Kind.PRED, Kind.LABEL, Kind.SINK, Kind.BRACKET, Kind.PAIR, Kind.SYMBOL, Kind.PARAMS):
                return [f"'register + constant' is not allowed here (operand of {self.spelling})"]
            shape = shape[:4]
        if tag == "undef":
            return []  # reported once by the names rule
        if kind in _SCALAR_KINDS:
            if tag == "vec" and Kind.VEC in ro.spec.alt:
                if self.matrix:
                    return self.register_fragment(shape[1])  # wgmma: A in registers, not a descriptor
                return self.packed_vector(ro, shape)
            if tag == "addr" and Kind.ADDR in ro.spec.alt:
                return []
            if tag == "reg" and Kind.PRED in ro.spec.alt and shape[1].type == "pred":
                return self.predicate(shape)  # cp.async's ignore-src, in src-size's place
            return self.scalar(ro, shape)
        if kind is Kind.VEC:
            return self.vector(ro, shape)
        if kind is Kind.ADDR:
            if tag == "addr" or tag == "elem":
                if self.texture_handle and tag == "addr":
                    return self.bracket(ro, shape)
                return []
            if Kind.RI in ro.spec.alt or Kind.REG in ro.spec.alt:
                return self.scalar(ro, shape, Kind.RI if Kind.RI in ro.spec.alt else Kind.REG)
            return [f"an address in brackets ([reg], [var+offset]) is expected here (operand {index + 1} of "
                    f"{self.spelling})"]
        if kind is Kind.PAIR:
            if tag == "pair":
                out = self.scalar(ro, shape[1], Kind.REG)
                second = shape[2]
                if second[0] == "sink":
                    return out
                return out + self.predicate(second, dst=True)
            if ro.spec.second and not ro.spec.second_optional and ro.type is not None and ro.type.kind is not _P:
                # elect.sync d|p: ptxas wants the predicate ("Predicate output expected"); setp's p|q
                # may be written p alone
                return [f"{self.spelling} writes a predicate too: write the destination as d|p"]
            return self.scalar(ro, shape)
        if kind is Kind.LABEL:
            if tag == "label":
                return [] if shape[1] == "label" else [f"a branch target label is expected here, not a "
                                                      f"{shape[1]} label"]
            return [f"a label is expected as the branch target of {self.opcode}"]
        if kind is Kind.SINK:
            return [] if tag == "sink" else ["'_' is expected here"]
        if kind is Kind.BRACKET:
            return self.bracket(ro, shape)
        return []

    def warnings(self, ro, shape) -> list[str]:
        """Suspicious but accepted: an integer constant that does not fit the operand's size
        (ptxas takes it silently and keeps the low bits)."""
        if shape[0] != "int" or ro.spec.kind not in (Kind.RI, Kind.IMM):
            return []
        t = ro.type
        if t is None or t.kind not in (_B, _U, _S) or t.bits >= 64 or t.packed:
            return []
        v = shape[1]
        if -(1 << (t.bits - 1)) <= v < (1 << t.bits):
            return []
        return [f"constant {v} does not fit in .{t.name}; only its low {t.bits} bits are used"]

    # ------------------------------------------------------------------ scalars
    def scalar(self, ro, shape, kind: Optional[Kind] = None) -> list[str]:
        spec = ro.spec
        if kind is None:
            kind = spec.kind
        t: Optional[PtxType] = ro.type
        if (self.opcode, spec.name) in AS_B32:
            t = TYPES["b32"]
        dst = spec.is_dst
        tag = shape[0]
        if kind is Kind.PRED or (t is not None and t.kind is _P and kind is not Kind.IMM):
            return self.predicate(shape, dst=dst)
        if tag == "reg":
            sym, comp, neg = shape[1], shape[2], shape[3]
            out = []
            if kind is Kind.IMM:
                return [f"a constant is expected here, not a register (operand of {self.spelling})"]
            if neg == "-":
                if self.opcode != "vmad" or dst or spec.name not in ("a", "b", "c"):
                    out.append("'-' negates only vmad's sources a, b and c")
            elif neg:
                out.append("'!' negates predicates only")
            rt = sym.ptype
            if self.opcode == "set" and dst and t is not None and t.alt and rt is not None and rt.kind is not _F:
                t = TYPES.get(f"b{t.bits}", t)  # set.*.bf16: ptxas takes any 16-bit integer register
            if comp is not None and spec.selector and not sym.vector and len(comp) > 1:
                # a video instruction's byte/half-word selector (a.b1, d.h10): from the form's list
                if comp not in spec.selector_values:
                    return out + [f"'.{comp}' is not a selector of this operand (one of "
                                  f"{', '.join('.' + v for v in spec.selector_values[:8])}"
                                  f"{' ...' if len(spec.selector_values) > 8 else ''})"]
                comp = None
            if sym.vector and comp is None:
                return out + [f"vector register (.v{sym.vector}) used where a scalar is expected; "
                              "name one component (.x, .y, .z, .w)"]
            if comp is not None and not sym.vector:
                return out + [f"'.{comp}' applies to vector registers only"]
            if comp is not None and sym.vector and max("xyzw".find(comp), "rgba".find(comp)) >= sym.vector:
                # ptxas 13.0/13.5 accept writing v.z of a .v2 register and crash (SIGSEGV) reading it:
                # no meaning to give it
                return out + [f"component .{comp} is outside a .v{sym.vector} register"]
            if t is not None and rt is not None and not operand_type_ok(t, rt, relaxed=self.relaxed):
                out.append(self.type_mismatch(t, rt, dst))
            elif self.bit_containers and t is not None and t.kind is _B and rt is not None and rt.kind is not _B \
                    and rt.name != "f16x2":
                out.append(f".{rt.name} register where .{t.name} is expected (ptxas wants a bit-size register for "
                           "packed narrow floats)")
            elif rt is not None and rt.kind is _F and t is not None and t.kind is _B and (
                    self.strict_bits or self.own_type(spec)):
                # ptxas types member masks as integers: a .f32 register is a mismatch there
                out.append(f"floating-point register .{rt.name} where .{t.name} is expected (ptxas types this "
                           "operand as an integer)")
            return out
        if tag == "sreg":
            return self.special(ro, shape)
        if self.simd_video and not dst and tag in ("int", "flt", "sym"):
            return [f"{self.opcode} takes registers only (with optional byte/half selectors), not constants"]
        if tag == "sink":
            if spec.sink or dst:
                return []
            return ["'_' (sink) is only allowed as a destination"]
        if dst and kind is not Kind.IMM:
            return [f"destination must be a register (operand of {self.spelling})"]
        if not dst and (self.bit_containers and tag in ("int", "flt") and t is not None and t.kind is _B
                        or (self.opcode, spec.name) in REGISTER_ONLY and tag == "int"):
            return [f"{self.spelling} takes registers, not constants"]
        if kind is Kind.REG and tag in ("int", "flt") and (
                ("*", spec.name) in IMMEDIATE_OK or (self.opcode, spec.name) in IMMEDIATE_OK):
            kind = Kind.RI
        if tag == "int":
            if kind is Kind.REG:
                return [f"a register is expected here, not a constant (operand of {self.spelling})"]
            if t is not None and t.packed and t.is_int:
                return [f"packed .{t.name} operands take registers, not constants"]
            if t is not None and not int_imm_ok(t):
                hint = " (write it as 0f3F800000 or 1.0)" if t.name in ("f32", "f64") else ""
                return [f"integer constant where a {type_name(t)} operand is expected{hint}"]
            return []
        if tag == "flt":
            if kind is Kind.REG:
                return [f"a register is expected here, not a constant (operand of {self.spelling})"]
            if t is not None and (not float_imm_ok(t, shape[1])
                                  or (self.opcode == "redux" or self.own_type(spec)) and t.kind is _B):
                if t.kind is _B:
                    return [f"{shape[1]}-bit floating-point constant where a {type_name(t)} operand is expected"]
                return [f"floating-point constant where a {type_name(t)} operand is expected"]
            return []
        if tag == "bad":
            return [shape[1]]
        if tag == "sym":
            sym = shape[1]
            if kind is Kind.IMM:
                return [f"a constant is expected here, not the address of '{sym.name}'"]
            if not self.sym_ok or self.cvta_to:
                return [f"'{sym.name}' is a {sym.describe()}: {self.spelling} needs a register here "
                        "(only mov and cvta take a variable's address)"]
            if t is not None and t.kind in (_F, _P):  # ptxas: "Arguments mismatch"
                return [f"the address of '{sym.name}' is an integer: copy it with .u32/.u64 or .b32/.b64, not "
                        f".{t.name} ({self.spelling})"]
            if t is not None and t.bits < self.address_bits and t.kind is not _P and (
                    self.opcode == "cvta" or (sym.kind == "var" and sym.base_space == "global")):
                # ptxas: a 32-bit copy of a .global (or generic) address means the 32-bit ABI; offsets in
                # the .shared/.local/.const/.param windows and function addresses fit in 32 bits
                return [f"the address of '{sym.name}' is {self.address_bits} bits wide, not {t.bits} (32-bit "
                        f"addressing is not supported with .address_size {self.address_bits})"]
            return []
        if tag == "label":
            return [f"a label cannot be used as a value (operand of {self.spelling})"]
        if tag == "vec":
            return [f"vector operand where a scalar is expected (operand of {self.spelling})"]
        if tag == "elem" and self.sym_ok and shape[1][0] == "sym":  # `mov.u64 r, tab[%i]`: the element's address
            return self.scalar(ro, shape[1], kind)
        if tag in ("addr", "elem"):
            return [f"address operand where a register or constant is expected (operand of {self.spelling})"]
        if tag in ("brk", "plist", "pair"):
            return [f"unexpected operand form (operand of {self.spelling})"]
        return []

    def own_type(self, spec) -> bool:
        """Whether an operand is an integer of its own (a member mask, a cache policy, an mbarrier
        state) rather than data of the instruction's type: ptxas then takes no floating-point
        register for its bit-size type (`.b32 membermask`), where data (`and.b32`) may be one."""
        return spec.name in INTEGER_OPERANDS or (self.opcode, spec.name) in INTEGER_OPERANDS

    def type_mismatch(self, t: PtxType, rt: PtxType, dst: bool) -> str:
        what = "destination" if dst else "operand"
        if self.relaxed and rt.bits < t.bits:
            return f"{what} register .{rt.name} is narrower than the instruction type .{t.name}"
        if rt.bits != t.bits and rt.kind is not _P and t.kind is not _P:
            return (f"{what} register .{rt.name} ({rt.bits} bits) does not match the instruction type .{t.name} "
                    f"({t.bits} bits)")
        return f"{what} register .{rt.name} does not match the instruction type .{t.name}"

    def predicate(self, shape, dst: bool = False) -> list[str]:
        """ptxas accepts `!p` for every predicate source (selp, mov.pred, and.pred ...), none for
        a destination."""
        tag = shape[0]
        if tag == "reg":
            sym, neg = shape[1], shape[3]
            if sym.type != "pred":
                return [f"a .pred register is expected here, not .{sym.type}"]
            if neg and dst:
                return ["a destination predicate cannot be negated"]
            return []
        if tag == "sreg":
            if shape[1].type != "pred":
                return [f"a .pred register is expected here, not special register {shape[1].name}"]
            if dst:
                return [f"special register {shape[1].name} is read-only"]
            return []
        if tag == "undef":
            return []
        if tag == "sink" and dst:
            return []
        if tag == "int" and not dst:
            return []
        return ["a predicate register is expected here"]

    def special(self, ro, shape) -> list[str]:
        sreg, comp = shape[1], shape[2]
        out = []
        if ro.spec.is_dst:
            return [f"special register {sreg.name} is read-only and cannot be a destination"]
        if shape[3]:
            out.append("'!' negates predicates only")
        if sreg.components and comp is None:
            return out + [f"special register {sreg.name} is a vector: name a component ({sreg.name}.x)"]
        if comp is not None and comp not in sreg.components:
            return out + [f"special register {sreg.name} has no component .{comp}"]
        if not self.sreg_ok:
            return out + [f"special registers cannot be operands of {self.spelling} (copy them with mov first)"]
        if self.version < tuple(sreg.min_ptx):
            out.append(f"special register {sreg.name} requires PTX ISA {sreg.min_ptx[0]}.{sreg.min_ptx[1]} or later")
        if self.sm is not None and self.sm < sreg.min_sm:
            out.append(f"special register {sreg.name} requires .target sm_{sreg.min_sm} or higher")
        t = ro.type
        if t is not None:
            st = TYPES.get(sreg.type)
            ok = st is not None and (
                (t.kind is _P) == (st.kind is _P)
                and (t.kind is not _F)
                and (t.bits == st.bits or any(TYPES[a].bits == t.bits for a in sreg.alt_types if a in TYPES)
                     or (self.relaxed and t.bits <= st.bits)))
            if not ok:
                out.append(f"special register {sreg.name} (.{sreg.type}) cannot be read as {type_name(t)}")
        return out

    # ------------------------------------------------------------------ vectors
    def vector(self, ro, shape) -> list[str]:
        tag = shape[0]
        count = ro.count
        spec = ro.spec
        if tag == "pair" and spec.second:  # tex/tld4 {d...}|p: the vector, then the residency predicate
            out = self.vector(ro, shape[1])
            return out if shape[2][0] == "sink" else out + self.predicate(shape[2], dst=True)
        if tag == "vec":
            elems = shape[1]
            if count == 1 and len(elems) > 1 and Kind.VEC in spec.alt:
                if self.matrix:
                    return self.register_fragment(elems)  # wgmma: A in registers instead of a descriptor
                return self.packed_vector(ro, shape)  # mov.b64 d, {a, b} (no .vec: packing)
            out = []
            if count is not None and len(elems) != count:
                if count == 1:
                    out.append(f"vector operand of {len(elems)} elements where a scalar is expected "
                               f"(add .v{len(elems)} to the instruction?)")
                else:
                    out.append(f"vector operand has {len(elems)} elements; {self.spelling} needs {count}")
            elif spec.count is not None and count is None and len(elems) != spec.count:
                out.append(f"vector operand has {len(elems)} elements; {self.spelling} needs {spec.count}")
            if self.matrix and ro.type is not None and ro.type.alt and elems and all(
                    e[0] == "reg" and e[1].ptype is not None and e[1].ptype.kind is _F for e in elems):
                # a .tf32 fragment of .f32 registers only is a mismatch for ptxas; one .b32 among them
                # makes the vector untyped and acceptable
                out.append(f"a .{ro.type.name} fragment in .f32 registers only: use .b32 registers")
            return out + self.vector_elements(ro, elems)
        if tag == "reg" and shape[1].vector and shape[2] is None:
            v = shape[1].vector
            if count is None or count == v:
                return self.element(ro, ("reg", shape[1], "x", shape[3]))
            return [f"vector register .v{v} where {self.spelling} needs "
                    + (f"{count} elements" if count > 1 else "a scalar")]
        if count is not None and count > 1:
            return [f"{self.spelling} needs a vector operand of {count} elements ({{a, b, ...}}), not a scalar"]
        if not spec.vec_slot and not any(k in _SCALAR_KINDS for k in spec.alt) and tag != "sink":
            # fragments and fixed-size vectors (mma, wmma, ldmatrix .x1) are written in braces, even of one
            return [f"{self.spelling} needs a vector operand in braces ({{a}}, {{a, b}} ...)"]
        for k in spec.alt:
            if k in _SCALAR_KINDS:
                return self.scalar(ro, shape, k)
        if tag == "sink":
            return []
        return self.element(ro, shape)

    def vector_elements(self, ro, elems) -> list[str]:
        """The elements of a braced vector, the way ptxas 13.0 types them (measured):
        - each element against the one before it: a floating-point, an integer and a predicate
          register (or constant) next to one another are "Vector with elements of different types"
          (bit-size registers go with anything: {%b, %u, %b, %f} passes, {%f, %u} does not);
        - registers of different sizes are "Incompatible elements" (not checked for atom/red);
        - the vector as a whole has the registers' type when they all have one, else it is a
          bit-size vector; that type is checked against the instruction type (ld.v2.u32 {%f, %f}
          is a mismatch, {%f, %b} is not).
        Constants, sinks and special registers are checked one by one."""
        spec = ro.spec
        t = ro.type
        out: list[str] = []

        def kind_of(e):
            """"f" floating point, "i" integer, "p" predicate; None: goes with anything."""
            if e[0] == "reg" and e[1].ptype is not None:
                return {_F: "f", _U: "i", _S: "i", _P: "p"}.get(e[1].ptype.kind)
            if e[0] == "int":
                return "i"
            if e[0] == "flt":
                return "f"
            return None

        for x, y in zip(elems, elems[1:]):
            kx, ky = kind_of(x), kind_of(y)
            if kx is not None and ky is not None and kx != ky:
                out.append(f"the elements of a vector operand of {self.opcode} mix "
                           + " and ".join(sorted({_KIND_WORDS[kx], _KIND_WORDS[ky]})) + " values")
                break
        regs = [e[1] for e in elems if e[0] == "reg" and e[1].ptype is not None]
        vector_regs = [r for r in regs if r.vector]
        if vector_regs:
            out.append("vector registers cannot be elements of a vector operand")
        elif not spec.is_dst and any(e[0] == "reg" and e[2] is not None for e in elems) and any(
                e[0] in ("int", "flt") for e in elems):
            # ptxas 13.0/13.5: `{v.y, 3}` is "must be register or constant" ({%r1, 3} and {v.y, %r1} pass)
            out.append("a vector register's element and a constant cannot share a source vector")
        scalars = [r.ptype for r in regs if not r.vector]
        loose = self.opcode in ("red", "atom") and self.vector_form
        sized = [r for r in scalars if r.kind is not _P or not (self.relaxed or self.matrix)]
        if len({r.bits for r in sized}) > 1 and not loose:
            out.append("incompatible elements in a vector operand: registers of different sizes")
        elif scalars and t is not None and not loose:
            names = {r.name for r in scalars}
            sizes = [r.bits for r in scalars if r.kind is not _P] or [scalars[0].bits]
            whole = scalars[0] if len(names) == 1 else TYPES.get(f"b{sizes[0]}") or scalars[0]
            if t.kind is _F and whole.kind in (_U, _S) and whole.bits == t.bits and not self.matrix:
                # ptxas 13.0/13.5 take a vector of integer registers for a float type as untyped
                # (ld.v2.f32 {%r1, %r2}, st.v4.f32 [a], {%s...}), not the other way round
                whole = TYPES.get(f"b{whole.bits}") or whole
            if not self.element_type_ok(t, whole):
                out.append(self.type_mismatch(t, whole, spec.is_dst))
            elif self.matrix and spec.pack and t.kind is _B and whole.kind is not _B and (
                    self.opcode == "mma" or self.m.types.get(spec.type_slot or "", t).name in ("bf16", "bf16x2")
                    or whole.kind is _F and self.m.types.get(spec.type_slot or "", t).is_int):
                # packed mma fragments and .bf16 wmma ones: .b32 registers (or mixes ptxas reads as
                # untyped), not .s32/.f32 ones
                out.append(f"a packed fragment of {self.opcode} in .{whole.name} registers: use .b32 registers")
        seen = set(out)
        for e in elems:
            if e[0] == "sink":
                if not (spec.sink or spec.is_dst):
                    out.append("'_' is not allowed in a source vector")
                continue
            if e[0] == "reg" and not e[1].vector:
                if e[3]:
                    msg = "'!' negates predicates only"
                    if msg not in seen:
                        seen.add(msg)
                        out.append(msg)
                continue
            for msg in self.element(ro, e, True):
                if msg not in seen:
                    seen.add(msg)
                    out.append(msg)
        return out

    def element(self, ro, shape, in_braces: bool = False) -> list[str]:
        tag = shape[0]
        if in_braces and tag in ("int", "flt") and not ro.spec.is_dst:
            return []  # ptxas types no constant in a braced vector (only against its neighbours)
        if self.matrix and tag == "sreg":
            return []  # nor special registers in matrix fragments
        if tag in ("vec", "addr", "elem", "brk", "plist", "pair"):
            return ["vector elements must be registers"]
        if tag == "undef":
            return []
        t = ro.type
        if ro.spec.is_dst and tag not in ("reg", "sink"):
            if tag == "sreg":
                return [f"special register {shape[1].name} is read-only and cannot be a destination"]
            return ["destination vector elements must be registers"]
        if t is not None and t.kind is _P:
            return self.predicate(shape, dst=ro.spec.is_dst)
        if tag == "reg":
            sym = shape[1]
            rt = sym.ptype
            if shape[3]:
                return ["'!' negates predicates only"]
            if sym.vector and shape[2] is None:
                return ["vector register used as a vector element"]
            if t is not None and rt is not None and not self.element_type_ok(t, rt):
                return [self.type_mismatch(t, rt, ro.spec.is_dst)]
            return []
        if tag == "sreg":
            return self.special(ro, shape)
        if tag == "int":
            if t is None or int_imm_ok(t):
                return []
            return [f"integer constant where a {type_name(t)} element is expected"]
        if tag == "flt":
            return [] if t is None or float_imm_ok(t, shape[1]) else [
                f"floating-point constant where a {type_name(t)} element is expected"]
        if tag == "sym":
            return [f"'{shape[1].name}' is a {shape[1].describe()}, not a register"]
        if tag == "label":
            return ["a label cannot be a vector element"]
        if tag == "bad":
            return [shape[1]]
        return []

    def element_type_ok(self, t: PtxType, rt: PtxType) -> bool:
        if self.matrix:
            # matrix fragments are containers: ptxas takes any register of the element's size
            # (a .u32 for a .tf32 element, a .b32 for two .f16 ...); see vector() for .tf32
            return (t.kind is _P) == (rt.kind is _P) and rt.bits == t.bits
        return operand_type_ok(t, rt, relaxed=self.relaxed)

    def register_fragment(self, elems) -> list[str]:
        """wgmma.mma_async with A in registers: four 32-bit registers per thread, any shape."""
        if len(elems) != 4:
            return [f"A in registers is a vector of 4 registers, not {len(elems)}"]
        for e in elems:
            if e[0] != "reg" or (e[1].ptype is not None and (e[1].ptype.bits != 32 or e[1].ptype.kind is _P)):
                return ["A in registers takes 32-bit registers"]
        return []

    def packed_vector(self, ro, shape) -> list[str]:
        """mov.b64 d, {a, b} / mov.b64 {a, b}, d: elements that together make the instruction type."""
        t = ro.type
        elems = shape[1]
        if len(elems) not in (2, 4):
            return [f"a packing vector has 2 or 4 elements, not {len(elems)}"]
        if t is None:
            return []
        if t.kind is not _B and t.name not in ("f16x2", "bf16x2"):
            return [f"packing and unpacking with mov needs a bit-size type (.b32, .b64, .b128), not .{t.name}"]
        part = t.bits // len(elems)
        for e in elems:
            if e[0] == "sink":
                if not ro.spec.is_dst:
                    return ["'_' is only allowed when unpacking"]
                continue
            if e[0] == "reg":
                rt = e[1].ptype
                if rt is not None and rt.bits != part:
                    return [f"elements of a {len(elems)}-element vector packed into .{t.name} must be {part} bits "
                            f"wide, not .{rt.name}"]
            elif e[0] in ("int", "flt") and not ro.spec.is_dst:
                continue
            elif e[0] != "undef":
                return ["vector elements must be registers"]
        return []

    # ------------------------------------------------------------------ texture / surface brackets
    def bracket(self, ro, shape) -> list[str]:
        tag = shape[0]
        if tag == "addr":
            base = shape[1]
            if base is None:
                return ["a texture, sampler or surface is expected in the brackets"]
            return self.handle(base, shape[2])
        if tag != "brk":
            return ["a bracketed operand list ([tex, {coordinates}]) is expected here"]
        elems = shape[1]
        out = self.handle(elems[0]) if elems else []
        for e in elems[1:]:
            if e[0] in ("label", "plist", "pair", "addr"):
                out.append("unexpected element in a bracketed operand list")
        return out

    def handle(self, shape, offset=None) -> list[str]:
        tag = shape[0]
        if offset is not None:
            return ["a texture, sampler or surface reference takes no offset"]
        if tag == "sym":
            sym = shape[1]
            if sym.type not in ("texref", "samplerref", "surfref") and not (sym.kind == "var" and sym.space == "param"):
                return [f"'{sym.name}' is not a texture, sampler or surface reference"]
            return []
        if tag == "reg":
            rt = shape[1].ptype
            if rt is not None and (rt.bits != 64 or rt.kind not in (_B, _U, _S)):
                return [f"a texture or surface handle register must be 64 bits, not .{rt.name}"]
            return []
        if tag in ("undef",):
            return []
        return ["a texture, sampler or surface reference is expected here"]


def assign(specs, shapes, match=None) -> Optional[list[int]]:
    """Which spec each written operand goes to: indexes into `specs`, or None when the count is
    impossible. Optional operands are dropped so that the kinds fit best, then so that the form's
    rules on optional operands hold (`.multicast` goes with ctaMask, `.L2::cache_hint` with the
    cache policy), rightmost first."""
    n, k = len(shapes), len(specs)
    if n == k:
        return list(range(k))
    required = [i for i, s in enumerate(specs) if not s.spec.optional]
    if n > k or n < len(required):
        return None
    if n == len(required):
        return required
    optional = [i for i, s in enumerate(specs) if s.spec.optional]
    drop = k - n
    best = None
    from itertools import combinations

    for dropped in combinations(reversed(optional), drop):
        chosen = [i for i in range(k) if i not in dropped]
        # a misfit counts 2; a scalar in a vector slot 1 (tex's `[t, {x, y}], f`: f, the depth
        # compare, not e, the offsets vector)
        score = sum(0 if _kind_fits(specs[i].spec.kind, shapes[j]) and not (
            specs[i].spec.kind is Kind.VEC and specs[i].spec.optional and shapes[j][0] != "vec") else
            1 if _kind_fits(specs[i].spec.kind, shapes[j]) else 2 for j, i in enumerate(chosen))
        rules = 0
        if match is not None and match.form.operand_rules:
            present = [specs[i].spec.name for i in chosen if specs[i].spec.optional]
            rules = len(match.form.operand_problems(match.values, present))
        if best is None or (score, rules) < best[0]:
            best = ((score, rules), chosen)
            if best[0] == (0, 0):
                break
    return best[1] if best else None


def _kind_fits(kind: Kind, shape) -> bool:
    tag = shape[0]
    if kind is Kind.ADDR:
        return tag in ("addr", "elem")
    if kind is Kind.VEC:
        return tag in ("vec", "reg", "sink")
    if kind is Kind.BRACKET:
        return tag in ("brk", "addr")
    if kind is Kind.PARAMS:
        return tag == "plist"
    if kind in (Kind.LABEL, Kind.SYMBOL):
        return tag in ("label", "sym", "undef")
    if kind is Kind.PRED:
        return tag in ("reg", "sreg", "int", "undef")
    return tag not in ("addr", "brk", "plist")
