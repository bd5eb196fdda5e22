"""ISA 9.7.13 Control flow: bra, brx.idx, call, ret, exit."""
from ..table import builder

F = builder("control")

F("bra{.uni} tgt", since="1.0", note="tgt is a label (or, PTX 1.x, a register: not supported)")
F("brx.idx{.uni} index, tlist", ops={"index": "ri u32", "tlist": "symbol"}, since="6.0 sm_30",
  undefined="index out of range of the .branchtargets list")
# call: direct (func is a symbol) or indirect (fptr register with a .calltargets list or .callprototype);
# the return list and the argument list are optional: one form, operands told apart by their kind.
F("call{.uni} (ret-param), func, (param-list), flist", nodst=True,
  ops={"ret-param": "out opt", "func": "symbol |reg", "param-list": "opt", "flist": "symbol opt"},
  req={"operand:flist": "2.1 sm_20"}, since="1.0",
  note="call (r), f, (a, b); call f, (a); call f; indirect: call (r), %fptr, (a), flist_or_prototype")
F("ret{.uni}", since="1.0")
F("exit", since="1.0")
