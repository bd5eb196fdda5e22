"""A conformance case: one instruction form, its operands, its inputs, and the PTX kernel for it.

The kernel each case generates:

    idx = ctaid.x * ntid.x + tid.x;  if (idx >= n) return;
    load every source operand from its input array (predicates: u8 0/1, turned into a predicate
    with setp; a .cc carry-in from a u8 array through add.cc / sub.cc);
    run the instruction under test;
    store every destination (predicates as u8 0/1; the carry-out of .cc forms via addc/subc
    into a register; sub-word destinations as their whole 16-bit register).

Kernel parameters, in order: one .u64 pointer per source array, one per destination array, one
per memory array (read-write, indexed by the case's own code), one 128-byte tensor map per
`TensorMapArg` (`.param .align 64 .b8 tmap_<name>[128]`, a __grid_constant__ CUtensorMap over
one of the memory arrays; its generic address is in %tm_<name>), one .u64 handle per texture or
surface object (`res_<name>`, resources.py; loaded into %x_<name>), then `.u32 n`.

This module only builds text.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Optional

from . import types as T

VERSION_MIN = "7.8"  # the lowest PTX ISA version that targets sm_90


@dataclass(frozen=True)
class Operand:
    """A register operand. `type` is the PTX type of its value; `count` > 1 makes it a vector
    ({x0, x1, ...}) read from / written to `count` consecutive elements per lane."""

    name: str
    type: str
    count: int = 1

    @property
    def reg(self) -> str:
        return "%o_" + self.name

    def regs(self) -> list[str]:
        if self.count == 1:
            return [self.reg]
        return [f"{self.reg}{i}" for i in range(self.count)]

    def text(self) -> str:
        r = self.regs()
        return r[0] if self.count == 1 else "{" + ", ".join(r) + "}"

    def load_bytes(self) -> int:
        """Bytes per element of this operand's input array."""
        return T.type_bytes(self.type)

    def store_bits(self, byte_regs: bool = False) -> int:
        """Bits per element of this operand's output array: predicates as u8 0/1; 8-bit values
        keep their whole 16-bit register (so the sign/zero extension of sub-word results shows)."""
        if self.type == "pred" or (byte_regs and T.width(self.type) == 8):
            return 8
        return max(16, T.width(self.type))

    def array_dtype(self, role: str, byte_regs: bool = False):
        import numpy as np
        if role == "in":
            return T.storage_dtype(self.type)
        return np.dtype(np.uint8 if self.store_bits(byte_regs) == 8 else T.UINT[self.store_bits(byte_regs)])


@dataclass(frozen=True)
class Memory:
    """A read-write array the case's own code indexes (atomics, shared-memory staging...).
    Its initial contents are an input, its final contents an output."""

    name: str
    type: str
    length: int
    init: str = "random"   # random | small (small integers, also as floats) | zero | iota

    @property
    def reg(self) -> str:
        return "%m_" + self.name


@dataclass(frozen=True)
class TensorMapArg:
    """A tiled tensor map over the memory array `memory`, passed by value: the recorder encodes it
    with cuTensorMapEncodeTiled, the checker with ptxvm.tensor_map. Shapes in NumPy order."""

    name: str
    memory: str
    dtype: str                                   # CUtensorMapDataType name as ptxvm.tensor_map takes it
    shape: tuple
    box: tuple
    element_strides: Optional[tuple] = None
    swizzle: str = "none"                        # none | 32B | 64B | 128B
    oob_fill: str = "none"                       # none | nan

    def spec(self) -> dict:
        return {"name": self.name, "memory": self.memory, "dtype": self.dtype, "shape": list(self.shape),
                "box": list(self.box), "element_strides": list(self.element_strides or (1,) * len(self.shape)),
                "swizzle": self.swizzle, "oob_fill": self.oob_fill}


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    opcode: str
    modifiers: tuple[str, ...]
    dsts: tuple[Operand, ...]
    srcs: tuple[Operand, ...]
    inputs: str                                  # key of an input generator (see inputs.py)
    asm: Optional[str] = None                    # instruction text; {name} -> operand registers
    version: str = VERSION_MIN
    target: str = "sm_90"
    undefined: Optional[str] = None              # why the ISA leaves the result undefined
    carry_in: Optional[str] = None               # "add" | "sub": CC.CF comes from input 'ci'
    carry_out: Optional[str] = None              # "add" | "sub": CC.CF stored to output 'cf'
    memory: tuple[Memory, ...] = ()
    resources: tuple = ()                        # texture / surface objects (resources.Resource)
    tmaps: tuple[TensorMapArg, ...] = ()         # tensor maps over memory arrays (kernel parameters)
    decls: str = ""                              # extra declarations (.shared arrays, registers)
    prelude: str = ""                            # module-level text before the kernel (.func, .global)
    entry_directives: str = ""                   # between the parameter list and the body (.reqnctapercluster)
    block: int = 256
    lanes_multiple: int = 1                      # warp-wide cases need whole warps
    truncatable: bool = True                     # the first k lanes alone give the same results
    ci: bool = False                             # part of the quick tier
    byte_regs: bool = False                      # 8-bit operands in .b8 registers (bf16 <-> 8-bit cvt)
    expect_reject: Optional[str] = None          # ptxas refuses it for sm_90: why (documents the form)
    expect_fault: Optional[str] = None           # the launch is expected to stop with an error: why
    note: str = ""

    # ------------------------------------------------------------------------------ operands
    def source_operands(self) -> tuple[Operand, ...]:
        s = self.srcs
        if self.carry_in:
            s = s + (Operand("ci", "pred"),)
        return s

    def dest_operands(self) -> tuple[Operand, ...]:
        d = self.dsts
        if self.carry_out:
            d = d + (Operand("cf", "u32"),)
        return d

    @property
    def instruction(self) -> str:
        """The instruction spelling, e.g. add.rn.ftz.f32."""
        return ".".join((self.opcode,) + tuple(self.modifiers))

    def asm_text(self) -> str:
        if self.asm is not None:
            fmt = self.asm
        else:
            ops = ", ".join("{%s}" % o.name for o in self.dsts + self.srcs)
            fmt = self.instruction + " " + ops + ";"
        names = {o.name: o.text() for o in self.dsts + self.srcs}
        names.update({m.name: m.reg for m in self.memory})
        names.update({r.name: r.reg for r in self.resources})
        names.update({t.name: "%tm_" + t.name for t in self.tmaps})
        return fmt.format(**names)

    # ------------------------------------------------------------------------------- the PTX
    def ptx(self) -> str:
        return build_ptx(self)

    def ptx_hash(self) -> str:
        return hashlib.sha256(self.ptx().encode()).hexdigest()[:16]

    def kernel_name(self) -> str:
        return "conf_" + "".join(c if c.isalnum() else "_" for c in self.id)

    def param_names(self) -> list[str]:
        return ([f"in_{o.name}" for o in self.source_operands()]
                + [f"out_{o.name}" for o in self.dest_operands()]
                + [f"mem_{m.name}" for m in self.memory] + [f"tmap_{t.name}" for t in self.tmaps]
                + [r.param for r in self.resources] + ["n"])


def effective_version(v: str) -> str:
    """The case's version, raised to the lowest one that can target sm_90."""
    key = lambda x: tuple(int(p) for p in x.split("."))
    return max(v, VERSION_MIN, key=key)


def _reg_decl(o: Operand, byte_regs: bool = False) -> str:
    rt = "b8" if (byte_regs and o.type != "pred" and T.width(o.type) == 8) else T.reg_type(o.type)
    if o.count == 1:
        return f"  .reg .{rt} {o.reg};"
    return f"  .reg .{rt} {o.reg}<{o.count}>;"


def build_ptx(case: Case) -> str:
    L: list[str] = []
    name = case.kernel_name()
    params = case.param_names()
    L.append(f".version {effective_version(case.version)}")
    L.append(f".target {case.target}")
    L.append(".address_size 64")
    L.append("")
    L.append(f"// conformance case {case.id}")
    if case.prelude:
        L.append(case.prelude.strip())
        L.append("")
    plist = ",\n".join(f"  .param .align 64 .b8 {p}[128]" if p.startswith("tmap_") else f"  .param .u64 {p}"
                        for p in params[:-1]) + ",\n  .param .u32 n"
    L.append(f".visible .entry {name}(\n{plist}\n)")
    if case.entry_directives:
        L.append(case.entry_directives)
    L.append("{")
    L.append("  .reg .pred %t_p;")
    L.append("  .reg .b32 %t_idx, %t_n, %t_r<4>, %t_cy;")
    L.append("  .reg .b16 %t_h;")
    L.append("  .reg .b64 %t_base, %t_off, %t_addr, %t_rd<4>;")
    for o in case.source_operands() + case.dest_operands():
        L.append(_reg_decl(o, case.byte_regs))
    for m in case.memory:
        L.append(f"  .reg .b64 {m.reg};")
    for r in case.resources:
        L.append(f"  .reg .b64 {r.reg};")
    for t in case.tmaps:
        L.append(f"  .reg .b64 %tm_{t.name};")
    if case.decls:
        L.append(case.decls.rstrip())
    L.append("")
    L.append("  mov.u32 %t_r0, %ctaid.x;")
    L.append("  mov.u32 %t_r1, %ntid.x;")
    L.append("  mov.u32 %t_r2, %tid.x;")
    L.append("  mad.lo.u32 %t_idx, %t_r0, %t_r1, %t_r2;")
    L.append("  ld.param.u32 %t_n, [n];")
    L.append("  setp.ge.u32 %t_p, %t_idx, %t_n;")
    L.append("  @%t_p bra $L_done;")

    def address(param: str, o: Operand, size: int) -> None:
        stride = size * o.count
        L.append(f"  ld.param.u64 %t_base, [{param}];")
        L.append("  cvta.to.global.u64 %t_base, %t_base;")
        L.append(f"  mul.wide.u32 %t_off, %t_idx, {stride};")
        L.append("  add.s64 %t_addr, %t_base, %t_off;")

    for m in case.memory:
        L.append(f"  ld.param.u64 {m.reg}, [mem_{m.name}];")
        L.append(f"  cvta.to.global.u64 {m.reg}, {m.reg};")
    for r in case.resources:
        L.append(f"  ld.param.u64 {r.reg}, [{r.param}];")
    for t in case.tmaps:
        L.append(f"  mov.u64 %tm_{t.name}, tmap_{t.name};")
        L.append(f"  cvta.param.u64 %tm_{t.name}, %tm_{t.name};")
    for o in case.source_operands():
        size = o.load_bytes()
        address(f"in_{o.name}", o, size)
        for i, r in enumerate(o.regs()):
            off = f"+{i * size}" if i else ""
            if o.type == "pred":
                L.append(f"  ld.global.u8 %t_h, [%t_addr{off}];")
                L.append(f"  setp.ne.u16 {r}, %t_h, 0;")
            else:
                L.append(f"  ld.global.{T.mem_type(o.type)} {r}, [%t_addr{off}];")
    if case.carry_in == "add":
        # CC.CF = ci: ci + 0xFFFFFFFF carries out exactly when ci is 1
        L.append("  selp.u32 %t_r3, 1, 0, %o_ci;")
        L.append("  add.cc.u32 %t_r3, %t_r3, -1;")
    elif case.carry_in == "sub":
        # CC.CF (borrow) = ci: 0 - ci borrows exactly when ci is 1
        L.append("  selp.u32 %t_r3, 1, 0, %o_ci;")
        L.append("  sub.cc.u32 %t_r3, 0, %t_r3;")
    L.append("  // ---- instruction under test")
    for line in case.asm_text().splitlines():
        L.append("  " + line.strip())
    L.append("  // ----")
    if case.carry_out == "add":
        L.append("  addc.u32 %o_cf, 0, 0;")
    elif case.carry_out == "sub":
        L.append("  subc.u32 %o_cf, 0, 0;")
    for o in case.dest_operands():
        size = o.store_bits(case.byte_regs) // 8
        address(f"out_{o.name}", o, size)
        for i, r in enumerate(o.regs()):
            off = f"+{i * size}" if i else ""
            if o.type == "pred":
                L.append(f"  selp.u16 %t_h, 1, 0, {r};")
                L.append(f"  st.global.u8 [%t_addr{off}], %t_h;")
            elif case.byte_regs and T.width(o.type) == 8:
                L.append(f"  st.global.u8 [%t_addr{off}], {r};")
            else:
                L.append(f"  st.global.b{o.store_bits()} [%t_addr{off}], {r};")
    L.append("$L_done:")
    L.append("  ret;")
    L.append("}")
    return "\n".join(L) + "\n"
