"""ptxvm's debugger: breakpoints, stepping and inspection of a launch on the CPU engine.

    dbg = ptxvm.Debugger(kernel, grid, block, args)      # or `ptxvm debug FILE -k KERNEL ...`
    dbg.break_at("saxpy.cu:12"); stop = dbg.run(); print(dbg.print("%f3", warp=True))

session.py holds the API (the Debugger, assembled from control.py, breakpoints.py, focus.py,
registers.py, memory.py and threads.py; state.py the records it returns), hooks.py where a
running launch stops, commands.py the cuda-gdb-style command language of `ptxvm debug`;
docs/debugger.md describes them.
"""
from .program import DebuggerError
from .session import Debugger
from .state import Breakpoint, CtaState, Frame, Stop, WarpState, Watchpoint

__all__ = ["Debugger", "DebuggerError", "Stop", "Breakpoint", "Watchpoint", "Frame", "WarpState", "CtaState"]
