"""ISA 9.7.2 Extended-precision integer arithmetic (the carry flag CC.CF)."""
from ..table import builder

F = builder("extended")

T = ("u32", "s32", "u64", "s64")
R64 = {"type=u64|s64": "4.3 sm_20"}

F("add.cc.type d, a, b", type=T, since="1.2", req=R64)
F("addc{.cc}.type d, a, b", type=T, since="1.2", req=R64)
F("sub.cc.type d, a, b", type=T, since="1.2", req=R64)
F("subc{.cc}.type d, a, b", type=T, since="1.2", req=R64)
F("mad.hilo.cc.type d, a, b, c", hilo=("hi", "lo"), type=T, since="3.0 sm_20", req={"type=u64|s64": "4.3 sm_20"})
F("madc.hilo{.cc}.type d, a, b, c", hilo=("hi", "lo"), type=T, since="3.0 sm_20",
  req={"type=u64|s64": "4.3 sm_20"})
