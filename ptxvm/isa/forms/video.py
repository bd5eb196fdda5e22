"""ISA 9.7.17 Video instructions: scalar (vadd ... vset, vmad) and SIMD (vadd2 ... vset4)."""
from ..table import builder

F = builder("video")

US = ("u32", "s32")
SEL = ("b0", "b1", "b2", "b3", "h0", "h1")
SC = dict(dtype=US, atype=US, btype=US, dsel=SEL, asel=SEL, bsel=SEL)
OP2 = ("add", "min", "max")
DOPS = {"a": "=atype", "b": "=btype", "c": "=dtype"}
# d.dsel merges into c, so it needs c; c without d.dsel (and without .op2) is accepted by ptxas and
# ignored: the H200 gives the two-operand result (tests/engine/test_hw_gaps.py, *_c probes)
MERGE_NEEDS_C = (lambda v, ops: "dsel" not in ops or "c" in ops, "the merge selector d.dsel needs a third operand c")
for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax"):
    # with .op2 a secondary operation with c; without, an optional data merge d.dsel with c
    F(f"{op}.dtype.atype.btype{{.sat}} d{{.dsel}}, a{{.asel}}, b{{.bsel}}{{, c}}", ops=DOPS, since="2.0 sm_20", **SC,
      orule=[MERGE_NEEDS_C])
    F(f"{op}.dtype.atype.btype{{.sat}}.op2 d, a{{.asel}}, b{{.bsel}}, c", op2=OP2, ops=DOPS, since="2.0 sm_20", **SC)
for op in ("vshl", "vshr"):
    SH = dict(SC, btype=("u32",), mode=("clamp", "wrap"))
    F(f"{op}.dtype.atype.btype{{.sat}}.mode d{{.dsel}}, a{{.asel}}, b{{.bsel}}{{, c}}", ops=DOPS, since="2.0 sm_20",
      orule=[MERGE_NEEDS_C], **SH)
    F(f"{op}.dtype.atype.btype{{.sat}}.mode.op2 d, a{{.asel}}, b{{.bsel}}, c", op2=OP2, ops=DOPS, since="2.0 sm_20",
      **SH)
F("vmad.dtype.atype.btype{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel}, {-}c", scale=("shr7", "shr15"),
  ops=DOPS, since="2.0 sm_20", **SC)
F("vmad.dtype.atype.btype.po{.sat}{.scale} d, a{.asel}, b{.bsel}, c", scale=("shr7", "shr15"), ops=DOPS,
  since="2.0 sm_20", **SC)
CMP = ("eq", "ne", "lt", "le", "gt", "ge")
F("vset.atype.btype.cmp d{.dsel}, a{.asel}, b{.bsel}{, c}", atype=US, btype=US, cmp=CMP, dsel=SEL, asel=SEL,
  bsel=SEL, ops={"d": "u32", "c": "u32"}, since="2.0 sm_20",
  orule=[MERGE_NEEDS_C])
F("vset.atype.btype.cmp.op2 d, a{.asel}, b{.bsel}, c", atype=US, btype=US, cmp=CMP, op2=OP2, asel=SEL, bsel=SEL,
  ops={"d": "u32", "c": "u32"}, since="2.0 sm_20")

H2 = tuple(f"h{x}{y}" for x in range(4) for y in range(4))
B4 = tuple(f"b{x}{y}{z}{w}" for x in range(8) for y in range(8) for z in range(8) for w in range(8))
M2 = ("h0", "h1", "h10")
M4 = ("b0", "b1", "b10", "b2", "b20", "b21", "b210", "b3", "b30", "b31", "b310", "b32", "b320", "b321", "b3210")
for n, sel, mask in (("2", H2, M2), ("4", B4, M4)):
    S = dict(dtype=US, atype=US, btype=US, mask=mask, asel=sel, bsel=sel)
    for op in ("vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"):
        F(f"{op}{n}.dtype.atype.btype{{.sat}} d{{.mask}}, a{{.asel}}, b{{.bsel}}, c", ops=DOPS, since="3.0 sm_30",
          **S)
        F(f"{op}{n}.dtype.atype.btype.add d{{.mask}}, a{{.asel}}, b{{.bsel}}, c", ops=DOPS, since="3.0 sm_30", **S)
    F(f"vset{n}.atype.btype.cmp d{{.mask}}, a{{.asel}}, b{{.bsel}}, c", atype=US, btype=US, cmp=CMP, mask=mask,
      asel=sel, bsel=sel, ops={"d": "u32", "c": "u32"}, since="3.0 sm_30")
    F(f"vset{n}.atype.btype.cmp.add d{{.mask}}, a{{.asel}}, b{{.bsel}}, c", atype=US, btype=US, cmp=CMP, mask=mask,
      asel=sel, bsel=sel, ops={"d": "u32", "c": "u32"}, since="3.0 sm_30")
