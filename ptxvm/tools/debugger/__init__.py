"""ptxvm's debugger: breakpoints, stepping and inspection of a launch on the CPU engine.

    dbg = ptxvm.Debugger(kernel, grid, block, args)      # or `ptxvm debug FILE -k KERNEL ...`
    dbg.break_at("saxpy.cu:12"); stop = dbg.run(); print(dbg.print("%f3", warp=True))

session.py holds the API, hooks.py where a running launch stops, commands.py the cuda-gdb-style
command language of `ptxvm debug`; docs/debugger.md describes them.
"""
from .program import DebuggerError
from .session import Breakpoint, CtaState, Debugger, Frame, Stop, WarpState, Watchpoint

__all__ = ["Debugger", "DebuggerError", "Stop", "Breakpoint", "Watchpoint", "Frame", "WarpState", "CtaState"]
