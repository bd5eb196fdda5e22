"""ISA 9.7.2 Extended-precision integer arithmetic (the carry flag CC.CF)."""
from ..table import builder

F = builder("extended")

T = ("u32", "s32", "u64", "s64")


def _cc64(v):
    """64-bit with .cc"""
    return v.get("type") in ("u64", "s64") and bool(v.get("cc"))


# The ISA notes say the 64-bit forms came with PTX 4.3. ptxas 13.0 agrees when .cc is written and
# accepts addc/subc/madc without .cc from the opcode's own version on; the table follows ptxas
# (docs/isa-table.md, "Where the table follows ptxas").
R64 = {_cc64: "4.3 sm_20"}

F("add.cc.type d, a, b", type=T, since="1.2", req=R64)
F("addc{.cc}.type d, a, b", type=T, since="1.2", req=R64)
F("sub.cc.type d, a, b", type=T, since="1.2", req=R64)
F("subc{.cc}.type d, a, b", type=T, since="1.3", req=R64)
F("mad.hilo.cc.type d, a, b, c", hilo=("hi", "lo"), type=T, since="3.0 sm_20", req=R64)
F("madc.hilo{.cc}.type d, a, b, c", hilo=("hi", "lo"), type=T, since="3.0 sm_20", req=R64)
