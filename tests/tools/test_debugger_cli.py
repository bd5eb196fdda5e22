"""`ptxvm debug` driven by scripted stdin, on corpus kernels: a .func call chain, a barrier and
shared memory, a fault, a sanitizer error; exit status and written results."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ptxvm.cli import main

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
N = 40


def _words(text: str) -> str:
    return " ".join(text.split())


def _debug(args, script: str):
    result = CliRunner().invoke(main, ["debug", *args], input=script)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


@pytest.fixture()
def recursion(tmp_path):
    np.save(tmp_path / "n.npy", (np.arange(N) % 21).astype(np.int32))
    fib = tmp_path / "fib.npy"
    return [str(CORPUS / "recursion.sm_90-lineinfo.ptx"), "-k", "recursion_kernel", "-b", str(N),
            "-a", f"in:{tmp_path / 'n.npy'}", "-a", f"out:{tmp_path / 'f.npy'}:u64:{N}", "-a", f"out:{fib}:s32:{N}",
            "-a", f"out:{tmp_path / 'g.npy'}:u32:{N}", "-a", f"out:{tmp_path / 's.npy'}:s32:{N}", "-a", f"s32:{N}"], fib


def test_session_through_func_calls(recursion):
    args, fib = recursion
    code, out = _debug(args, """\
break recursion.cu:16 thread (5,0,0)
run
bt
print %r8
p/d %r8 + 1
print/d -warp %r8
info registers %r8 %p1
continue
bt
up
p/d %r8
down
down
delete 1
finish
next
info cuda warps
info cuda lanes
cuda thread (33,0,0)
cuda thread
x/1dw &recursion_kernel_param_5
continue
""")
    assert code == 0
    assert "Breakpoint 1 at _Z9fibonaccii at recursion.sm_90-lineinfo.ptx:96 (recursion.cu:16)" in out
    assert "[Switching focus to CUDA kernel recursion_kernel, block (0,0,0), thread (5,0,0), warp 0, lane 5]" in out
    assert "\nBreakpoint 1, _Z9fibonaccii at recursion.sm_90-lineinfo.ptx:96 (recursion.cu:16)\n96\tadd.s32 \t%r4, %r8, -1;" in out
    assert "#0  _Z9fibonaccii (_Z9fibonaccii_param_0=0x00000005) at recursion.sm_90-lineinfo.ptx:96 (recursion.cu:16)" in out
    assert "#1  recursion_kernel (" in out and "recursion_kernel_param_5=40) at recursion.sm_90-lineinfo.ptx:321 (recursion.cu:47)" in out
    assert "$1 = 0x00000005\n" in out and "$2 = 6\n" in out
    assert "lane  5 thread (5,0,0): 5\n" in out
    assert "%r8         0x00000005\n%p1         false" in out
    # the second hit is one call deeper
    assert "#1  _Z9fibonaccii (_Z9fibonaccii_param_0=0x00000005)" in out
    assert "Run till exit from _Z9fibonaccii" in out
    assert "(ptxvm) up\n#1  _Z9fibonaccii (_Z9fibonaccii_param_0=0x00000005)" in out and "$4 = 5\n" in out
    assert "error: Initial frame selected; you cannot go down." in out
    assert "* (0,0,0)" not in out  # (a blocks table was not asked for)
    assert "  Wp  Active Mask  Divergent  Waiting    Exited      PC  Location\n*   0  " in out
    assert "[Switching focus to CUDA kernel recursion_kernel, block (0,0,0), thread (33,0,0), warp 1, lane 1]" in out
    assert "thread (33,0,0)\n" in out
    assert ":\t40\n" in out  # x/1dw of the n parameter
    assert "[Kernel recursion_kernel exited normally:" in out
    assert "Traceback" not in out
    np.testing.assert_array_equal(np.load(fib)[:8], [0, 1, 1, 2, 3, 5, 8, 13])


def test_errors_are_messages_and_end_of_input_kills(recursion):
    args, fib = recursion
    code, out = _debug(args, """\
continue
print %r1
bogus
break nosuch
break recursion.cu:2
break 16 if %r8 ==
tbreak recursion.cu:47
run
print %nosuch
finish
x/2xw 0x10
cuda block (5,0,0)
info cuda blocks
info breakpoints
print 1/0
frame 99
x/4xw @nowhere 0
""")
    assert code == 0
    assert "error: The kernel is not being run (use run or start)." in out
    assert 'error: undefined command: "bogus". Try "help".' in out
    assert "error: no function named 'nosuch'" in out
    assert "error: no code at recursion.cu:2" in out
    assert "error: cannot parse expression '%r8 =='" in out
    assert "Temporary breakpoint 1, recursion_kernel at" in out
    assert "error: no register %nosuch in recursion_kernel" in out
    assert 'error: "finish" not meaningful in the outermost frame.' in out
    assert "error: cannot access memory at address 0x10" in out
    assert "error: block (5, 0, 0) is outside the launch's block dimensions" in out
    assert "* (0,0,0) 40 40 0 0" in _words(out)
    assert "No breakpoints or watchpoints." in out
    assert "error: division by zero" in out and "error: no frame #99 (the stack has 1 frame)" in out
    assert "error: unknown space @nowhere (spaces: generic, global, shared, local, const, param)" in out
    assert "[the launch was still stopped: killed; host arrays left untouched]" in out
    assert "Traceback" not in out
    assert not fib.exists()  # out: arrays are written only when the launch ran to its end


def test_barrier_and_shared_memory(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(600, dtype=np.float32))
    args = [str(CORPUS / "reduce_shared.sm_90-lineinfo.ptx"), "-k", "reduce_partial_f32", "-g", "2", "-b", "256",
            "-a", f"in:{tmp_path / 'x.npy'}", "-a", f"out:{tmp_path / 'p.npy'}:f32:2", "-a", "s32:600"]
    code, out = _debug(args, """\
break reduce_shared.cu:28 thread (0,0,0) if %r18 >= 512
run
info cuda warps
info cuda blocks
print %f12
delete
cuda block (1,0,0) thread (0,0,0)
watch _ZZ14block_tree_sumIfET_S0_E5sdata 4
continue
x/2fw @shared 1024
quit
""")
    assert code == 0
    assert "3 0x00000000 0x00000000 0xffffffff 0x00000000 25" in _words(out)  # warp 3 waits at __syncthreads
    assert "* (0,0,0) 256 256 168 0" in _words(out)
    assert "$1 = 0.0" in out  # v = x[0] before its second trip adds x[512]
    assert "Hardware watchpoint 2: _ZZ14block_tree_sumIfET_S0_E5sdata (4 bytes of .shared at 0x400)" in out
    assert "Old value = 0x" in out and "written by reduce_partial_f32 at" in out
    assert "0x400:\t" in out
    assert "Traceback" not in out


def _vector_add(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(64, dtype=np.float32))
    return [str(CORPUS / "vector_add.sm_90-lineinfo.ptx"), "-k", "vector_add_f32", "-b", "96",
            "-a", f"in:{tmp_path / 'a.npy'}", "-a", f"in:{tmp_path / 'a.npy'}",
            "-a", f"out:{tmp_path / 'c.npy'}:f32:64", "-a", "s32:96"]


def test_post_mortem_at_a_fault_exits_1(tmp_path):
    code, out = _debug(_vector_add(tmp_path), "run\nprint %r1\nprint/x %rd8\ncontinue\n")
    assert code == 1
    assert "Kernel fault: out-of-bounds global access (0 bytes past the end of a 256-byte allocation" in out
    assert ") (address 0x7f" in out
    assert "post-mortem at vector_add_f32 at vector_add.sm_90-lineinfo.ptx:51 (vector_add.cu:10)" in out
    assert "$1 = 0x00000040" in out
    assert "[Kernel vector_add_f32 faulted: out-of-bounds global access (0 bytes past the end of a 256-byte allocation at 0x7f" in out
    assert "); host arrays left untouched]" in out
    assert not (tmp_path / "c.npy").exists()


def test_sanitizer_stops_exit_1(tmp_path):
    code, out = _debug(["--sanitize", "memcheck", *_vector_add(tmp_path)], "run\ncontinue\ncontinue\ncontinue\n")
    assert code == 1
    assert out.count("memcheck error (compute-sanitizer's report):") == 3
    assert "    Invalid __global__ read of size 4 bytes\n        at vector_add_f32+51 in vector_add.cu:10\n" in out
    assert "    Invalid __global__ write of size 4 bytes" in out
    assert "... and 31 more of this instruction's records" in out
    assert "memcheck: ERROR SUMMARY: 96 errors" in out
    assert not (tmp_path / "c.npy").exists()


def test_command_file_and_bad_arguments(tmp_path, recursion):
    args, fib = recursion
    cmds = tmp_path / "cmds.txt"
    cmds.write_text("tbreak recursion.cu:48\nrun\nprint %r1\ncontinue\n")
    code, out = _debug([*args, "-x", str(cmds)], "")
    assert code == 0 and "(ptxvm) print %r1" in out and "exited normally" in out
    assert fib.exists()
    code, out = _debug([args[0], "-k", "nosuch"], "")
    assert code == 1 and "Traceback" not in out
    code, out = _debug(args[:5] + ["-a", "s32:1"], "")
    assert code == 1 and "error: kernel recursion_kernel takes 6 arguments, 1 given" in out


def test_real_process_with_stdin_redirected(tmp_path):
    """`ptxvm debug ... < cmds.txt` in a real process: scripted stdin, no terminal."""
    cmds = tmp_path / "cmds.txt"
    cmds.write_text("start\ninfo line\nstepi 2\nkill\nquit\n")
    with open(cmds) as stdin:
        r = subprocess.run([sys.executable, "-m", "ptxvm.cli", "debug", *_vector_add(tmp_path)], stdin=stdin,
                           capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Temporary breakpoint 1, vector_add_f32 at vector_add.sm_90-lineinfo.ptx:" in r.stdout
    assert "[the launch was killed; host arrays were left untouched]" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_interactive_prompt_through_prompt_toolkit():
    """At a terminal the lines come from prompt_toolkit (here through a pipe): an empty line
    repeats the last command, Ctrl-D ends the input."""
    pytest.importorskip("prompt_toolkit", reason="prompt_toolkit is not installed (pip install 'ptxvm[debug]')")
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from ptxvm.cli_debug import prompted, reader

    with create_pipe_input() as pipe:
        pipe.send_text("break 12\r\r   \rinfo cuda warps\r\x04")
        lines = list(prompted(reader(input=pipe, output=DummyOutput(), history=InMemoryHistory())))
    assert lines == ["break 12", "break 12", "break 12", "info cuda warps"]


def test_input_without_prompt_toolkit():
    from ptxvm.cli_debug import prompted

    script = iter(["stepi", "", KeyboardInterrupt, "next", EOFError])

    def read():
        item = next(script)
        if isinstance(item, type):
            raise item()
        return item

    assert list(prompted(read)) == ["stepi", "stepi", "next"]
