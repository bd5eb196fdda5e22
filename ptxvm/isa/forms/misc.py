"""ISA 9.7.19 Miscellaneous instructions, and the launch-control ones."""
from ..table import builder

F = builder("misc")

F("brkpt", since="1.0 sm_11")
F("nanosleep.u32 t", ops={"t": "ri u32"}, since="6.2 sm_70")
F("pmevent a", ops={"a": "imm u32"}, since="1.4", note="a is an event number 0..15")
F("pmevent.mask a", ops={"a": "imm u16"}, since="3.0 sm_20", note="a is a 16-bit mask of events")
F("trap", since="1.0")
F("setmaxnreg.action.sync.aligned.u32 imm-reg-count", action=("inc", "dec"), since="8.0 sm_90a",
  note="imm-reg-count is a multiple of 8 in 24..256")
F("griddepcontrol.action", action=("launch_dependents", "wait"), since="7.8 sm_90")
