"""The debugger's Python API (ptxvm.Debugger) on corpus kernels: a .func call chain (recursion),
divergence (collatz), a CTA barrier and shared memory (reduce_shared), a fault (vector_add past
its arrays), a sanitizer error, watchpoints, stepping, focus, kill."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ptxvm
from ptxvm.engine.core.memory import RESERVED_SHARED  # the H200's reserved KiB before a CTA's variables
from ptxvm import Debugger, DebuggerError

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"


def _load(name: str, kernel: str):
    return ptxvm.load(str(CORPUS / f"{name}.sm_90-lineinfo.ptx")).kernel(kernel)


# ---------------------------------------------------------------------------- recursion: .func calls
N = 40


def _recursion_args():
    n_in = (np.arange(N) % 21).astype(np.int32)
    return [n_in, np.zeros(N, np.uint64), np.zeros(N, np.int32), np.zeros(N, np.uint32), np.zeros(N, np.int32), N]


def _fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.fixture(scope="module")
def recursion():
    return _load("recursion", "recursion_kernel")


def test_breakpoint_at_source_line_with_thread_filter_and_backtrace(recursion):
    args = _recursion_args()
    with Debugger(recursion, 1, N, args) as d:
        bp = d.break_at("recursion.cu:16", thread=(5, 0, 0))  # fibonacci's recursive call
        stop = d.run()
        assert stop.reason == "breakpoint" and stop.breakpoint is bp and bp.hits == 1
        assert stop.thread == (5, 0, 0) and stop.cta == (0, 0, 0)
        assert d.focus == ((0, 0, 0), (5, 0, 0))
        assert d.info.function_at(d.pc).name == "_Z9fibonaccii"
        assert d.evaluate("%r8") == 5  # the argument n (fibonacci(5 % 13))
        frames = d.backtrace()
        assert [f.function for f in frames] == ["_Z9fibonaccii", "recursion_kernel"]
        assert frames[0].source == ("recursion.cu", 16) and frames[1].source == ("recursion.cu", 47)
        assert frames[0].args == [("_Z9fibonaccii_param_0", "0x00000005")]
        # the recursion goes one deeper at the next hit: fibonacci(4) called from fibonacci(5)
        stop = d.cont()
        frames = d.backtrace()
        assert [f.function for f in frames] == ["_Z9fibonaccii", "_Z9fibonaccii", "recursion_kernel"]
        assert [f.args[0][1] for f in frames[:2]] == ["0x00000004", "0x00000005"]
        assert d.evaluate("%r8") == 4
        d.delete(bp.number)
        stop = d.finish()  # back in fibonacci(5), after the call
        assert stop.reason == "finish" and len(d.backtrace()) == 2 and d.evaluate("%r8") == 5
        stop = d.cont()
        assert stop.reason == "exited" and stop.finished and d.results_written
    # the launch ran to its end: results written back as kernel.launch writes them
    np.testing.assert_array_equal(args[2], [_fib(int(n) % 13) for n in args[0]])


def test_outer_frames_of_a_recursion_show_their_own_registers_and_parameters(recursion):
    with Debugger(recursion, 1, N, _recursion_args()) as d:
        d.break_at("recursion.cu:16", thread=(5, 0, 0))
        for _ in range(3):
            d.cont() if d.started else d.run()
        assert [f.args[0][1] for f in d.backtrace()[:3]] == ["0x00000003", "0x00000004", "0x00000005"]
        assert d.evaluate("%r8") == 3
        for level, n in [(1, 4), (2, 5)]:
            d.select_frame(level)  # the caller's registers, as its call saved them in its frame
            assert d.evaluate("%r8") == n and d.register("%r8") == n
            assert d.print("_Z9fibonaccii_param_0") == f"0x{n:08x}"  # its .param, in its frame
        with pytest.raises(DebuggerError, match="frame #0"):
            d.print("%r8", warp=True)
        with pytest.raises(DebuggerError, match="no frame #9"):
            d.select_frame(9)
        d.set_focus(thread=(6, 0, 0))  # a focus change selects frame 0 again
        assert d.frame_level == 0 and d.evaluate("%r8") == 4


def test_step_into_and_next_over_calls(recursion):
    with Debugger(recursion, 1, N, _recursion_args()) as d:
        d.break_at("recursion.cu:46", thread=(3, 0, 0))  # fact_out[i] = factorial(...)
        d.run()
        depth = len(d.backtrace())
        stop = d.step()  # into factorial
        assert stop.reason == "step" and d.info.function_at(d.pc).name == "_Z9factorialj"
        assert len(d.backtrace()) == depth + 1
        d.finish()
        assert len(d.backtrace()) == depth
        stop = d.next()  # over the rest of line 46 to line 47 (fibonacci's call), not into fibonacci
        assert d.info.function_at(d.pc).name == "recursion_kernel"
        assert d.info.where(d.pc)[2] == ("recursion.cu", 47)
        stop = d.next()
        assert d.info.function_at(d.pc).name == "recursion_kernel"
        assert d.info.where(d.pc)[2][1] >= 48
        pc = d.pc
        d.stepi()
        assert d.pc != pc


def test_conditional_breakpoint_over_registers(recursion):
    with Debugger(recursion, 1, N, _recursion_args()) as d:
        d.break_at("_Z9fibonaccii", condition="%tid.x == 99 || !(%laneid < 32)")  # never true
        d.break_at("recursion.cu:16", condition="%r8 == 7 && %tid.x > 20")
        stop = d.run()
        assert stop.breakpoint.number == 2
        assert d.evaluate("%r8") == 7 and d.evaluate("%tid.x") > 20
        assert d.focus[1] == (28, 0, 0)  # n_in = i % 21 == 7 for i = 7 and 28; tid > 20
        assert d.evaluate("%r8 * 2 + 1") == 15
        with pytest.raises(DebuggerError, match="cannot parse"):
            d.break_at(16, condition="%r8 ==")
        with pytest.raises(DebuggerError, match="no register %r99 in _Z9fibonaccii, where the breakpoint is"):
            d.break_at("recursion.cu:16", condition="%r99 > 1")
        # a condition that cannot be evaluated where it is reached stops there, saying why
        d.delete()
        d.break_at("recursion.cu:16", condition="%r8 / 0 > 1")
        stop = d.cont()
        assert stop.reason == "breakpoint" and "division by zero" in stop.message


def test_print_typed_per_lane_and_memory(recursion):
    args = _recursion_args()
    with Debugger(recursion, 1, N, args) as d:
        d.break_at("recursion.cu:16", lane=6)
        d.run()
        assert d.focus[1] == (6, 0, 0)
        assert d.print("%r8") == "0x00000006"  # .b32: hex
        assert d.print("%r8", fmt="d") == "6"
        assert d.print("%p1") == "false"
        lanes = d.register("%r8", warp=True)
        assert len(lanes) == 32 and lanes[6] == 6
        text = d.print("%r8", fmt="d", warp=True).splitlines()
        assert len(text) == 32 and text[6] == "lane  6 thread (6,0,0): 6"
        # the kernel's parameter, by name, from inside fibonacci (the outermost frame's symbols)
        assert d.print("recursion_kernel_param_5") == "40"
        addr = int.from_bytes(d.read_memory("recursion_kernel_param_0", 8), "little")
        assert np.frombuffer(d.read_memory(addr, 16, "global"), np.int32).tolist() == args[0][:4].tolist()
        assert np.frombuffer(d.read_memory(hex(addr), 8), np.int32).tolist() == [0, 1]  # generic = global
        with pytest.raises(DebuggerError, match="cannot access memory"):
            d.read_memory(8, 4, "global")
        with pytest.raises(DebuggerError, match="no register"):
            d.print("%nosuch")


def test_global_watchpoint_reports_old_and_new_value(recursion):
    args = _recursion_args()
    with Debugger(recursion, 1, N, args) as d:
        d.start()
        assert d.pc == d.info.entry.entry_pc
        fib_out = int.from_bytes(d.read_memory("recursion_kernel_param_2", 8), "little")
        w = d.watch(fib_out + 4 * 10, 4)  # fib_out[10]
        stop = d.cont()
        assert stop.reason == "watchpoint" and stop.watchpoint is w
        assert int.from_bytes(stop.old, "little") == 0 and int.from_bytes(stop.new, "little") == _fib(10)
        assert stop.thread == (10, 0, 0)
        assert d.info.code[stop.writer_pc].text.startswith("st.global")
        d.delete()
        assert d.cont().reason == "exited"


def test_kill_leaves_host_arrays_untouched(recursion):
    args = _recursion_args()
    d = Debugger(recursion, 1, N, args)
    d.break_at("recursion.cu:48")
    d.run()
    stop = d.kill()
    assert stop.reason == "killed" and d.finished and not d.results_written
    assert not args[2].any()
    with pytest.raises(DebuggerError, match="not running"):
        d.print("%r1")
    with pytest.raises(DebuggerError, match="started already"):
        d.run()


def test_interrupt_stops_at_the_next_instruction(recursion):
    with Debugger(recursion, 1, N, _recursion_args()) as d:
        d.start()
        d.interrupt()
        pc = d.pc
        stop = d.cont()
        assert stop.reason == "interrupt" and stop.pc != pc


def test_resolve_locations(recursion):
    d = Debugger(recursion, 1, N, _recursion_args())
    pcs, where = d.resolve("recursion.sm_90-lineinfo.ptx:101")  # a .param declaration: moves on to the call
    assert where.endswith(":102") and d.info.code[pcs[0]].text.startswith("call")
    assert d.resolve(102)[0] == pcs
    assert d.resolve("_Z9factorialj")[0] == [d.info.function("_Z9factorialj").entry_pc]
    assert d.resolve("*3")[0] == [3]
    with pytest.raises(DebuggerError, match="no code at recursion.cu:2"):
        d.resolve("recursion.cu:2")
    with pytest.raises(DebuggerError, match="no function"):
        d.resolve("nosuch")
    with pytest.raises(DebuggerError, match="not being run"):
        d.cont()


# ---------------------------------------------------------------------------- divergence


def test_divergent_warp_state_and_stepping():
    k = _load("collatz", "collatz_steps")
    start = np.arange(1, 33, dtype=np.uint64)
    steps = np.zeros(32, np.int32)
    with Debugger(k, 1, 32, [start, steps, 32]) as d:
        d.break_at("collatz.cu:20", lane=1)  # start value 2: one step, leaves the loop first
        stop = d.run()
        assert stop.thread == (1, 0, 0)
        (w,) = d.warps()
        assert w.focus and w.active & 0b11 == 0b11  # lanes 0 (start 1) and 1 (start 2) are past the loop
        assert w.divergent == 0xFFFFFFFF & ~w.active and w.exited == 0 and w.barrier == 0
        lanes = d.lanes()
        assert lanes[1][2] == "active" and lanes[5][2] == "divergent"
        assert d.info.where(lanes[5][3])[2][1] in (13, 14, 15, 17, 18)  # still in the loop
        assert d.evaluate("%r12") == 1
        # the focus warp is stepped as a warp: the next instruction it issues may be the loop's
        stop = d.stepi()
        assert stop.reason == "step" and stop.cta == (0, 0, 0)
        assert d.cont().reason == "exited"
    expected = []
    for x in range(1, 33):
        s = 0
        while x > 1:
            x = 3 * x + 1 if x & 1 else x >> 1
            s += 1
        expected.append(s)
    np.testing.assert_array_equal(steps, expected)


# ---------------------------------------------------------------------------- a barrier, shared memory


def test_barrier_shared_memory_and_focus():
    k = _load("reduce_shared", "reduce_partial_f32")
    n = 600  # grid stride 512: threads 0-87 of block 0 take a second trip through the loop
    x = np.arange(n, dtype=np.float32)
    partial = np.zeros(2, np.float32)
    with Debugger(k, 2, 256, [x, partial, n]) as d:
        # thread 0 in its second trip: threads 88-255 of its block already wait at __syncthreads
        d.break_at("reduce_shared.cu:28", thread=(0, 0, 0), condition="%r18 >= 512")
        stop = d.run()
        assert stop.cta == (0, 0, 0) and d.evaluate("%r18") == 512
        warps = d.warps()
        assert [w.barrier for w in warps] == [0, 0, 0xFF000000] + [0xFFFFFFFF] * 5
        assert warps[0].active == 0xFFFFFFFF and warps[0].focus
        assert warps[3].pc == d.resolve("reduce_shared.cu:13")[0][0]  # the bar.sync
        assert d.ctas()[0].at_barrier == 256 - 88  # (block 1 took one trip each: past its barrier already)
        d.delete()
        d.break_at("reduce_shared.cu:17", cta=(1, 0, 0), condition="%r19 == 64")  # the loop's __syncthreads
        stop = d.cont()
        assert stop.cta == (1, 0, 0) and d.evaluate("%r19") == 64
        assert [c.focus for c in d.ctas()] == [False, True]
        # shared memory of the focus block by name and by address, after the 128 and 64 steps
        sdata = np.frombuffer(d.read_memory("_ZZ14block_tree_sumIfET_S0_E5sdata", 16), np.float32)
        b1 = x[256:512]
        np.testing.assert_array_equal(sdata, (b1[:128] + b1[128:])[:64][:4] + (b1[:128] + b1[128:])[64:68])
        assert d.print("_ZZ14block_tree_sumIfET_S0_E5sdata").startswith("{0x")  # a .b8 array: bytes
        d.set_focus(cta=(0, 0, 0))
        b0 = np.concatenate([x[:256], np.zeros(0, np.float32)])
        b0[:88] += x[512:600]
        s0 = np.frombuffer(d.read_memory(RESERVED_SHARED, 8, "shared"), np.float32)  # block 0 is one step behind (s = 128 done)
        np.testing.assert_array_equal(s0, (b0[:128] + b0[128:])[:2])
        assert d.read_memory("_ZZ14block_tree_sumIfET_S0_E5sdata", 8) == s0.tobytes()
        d.set_focus(cta=(1, 0, 0), thread=(0, 0, 0))
        d.delete()
        w = d.watch("_ZZ14block_tree_sumIfET_S0_E5sdata", 4)  # sdata[0] of block 1
        assert w.space == "shared" and w.type == "b32"
        stop = d.cont()
        assert stop.reason == "watchpoint" and stop.cta == (1, 0, 0) and stop.thread == (0, 0, 0)
        old, new = (np.frombuffer(b, np.float32)[0] for b in (stop.old, stop.new))
        assert new > old
        d.delete()
        assert d.cont().reason == "exited"
    b0 = x[:256].copy()
    b0[:88] += x[512:]
    np.testing.assert_allclose(partial, [b0.sum(), x[256:512].sum()], rtol=1e-6)


# ---------------------------------------------------------------------------- faults and the sanitizer


def _vector_add_args(n_threads=96, n=64):
    a = np.arange(n, dtype=np.float32)
    return [a, a.copy(), np.zeros(n, np.float32), n_threads]


def test_post_mortem_at_a_fault():
    k = _load("vector_add", "vector_add_f32")
    args = _vector_add_args()
    with Debugger(k, 1, 96, args) as d:
        stop = d.run()
        assert stop.reason == "fault" and not stop.finished
        assert stop.thread == (64, 0, 0) and "out-of-bounds" in stop.fault.reason
        assert d.info.code[d.pc].text.startswith("ld.global")
        assert d.info.where(d.pc)[2] == ("vector_add.cu", 10)
        assert d.evaluate("%r1") == 64  # i
        addr = d.evaluate("%rd8")
        assert addr == stop.fault.address
        stop = d.cont()
        assert stop.reason == "faulted" and d.fault is stop.fault
    assert not args[2].any()  # untouched, as after a KernelFault


def test_no_stop_at_a_fault_when_asked():
    k = _load("vector_add", "vector_add_f32")
    with Debugger(k, 1, 96, _vector_add_args(), stop_on_fault=False) as d:
        assert d.run().reason == "faulted"


def test_stop_at_a_sanitizer_error():
    k = _load("vector_add", "vector_add_f32")
    args = _vector_add_args()
    with Debugger(k, 1, 96, args, sanitize="memcheck") as d:
        stop = d.run()
        assert stop.reason == "sanitizer" and stop.thread == (64, 0, 0)
        assert stop.records[0].headline == "Invalid __global__ read of size 4 bytes"
        assert len(stop.records) == 32  # every lane of the warp, as compute-sanitizer counts them
        assert d.info.code[d.pc].text.startswith("ld.global")
        assert d.evaluate("%r1") == 64
        reasons = []
        while not stop.finished:
            stop = d.cont()
            reasons.append(stop.reason)
        assert reasons == ["sanitizer", "sanitizer", "exited"]
        assert d.report.summary() == "ERROR SUMMARY: 96 errors"
        assert not d.results_written
    assert not args[2].any()


def test_a_later_wave():
    k = _load("vector_add", "vector_add_f32")
    n = 4300  # one thread per block: more blocks than one wave holds (132 SMs x 32 blocks)
    a = np.arange(n, dtype=np.float32)
    c = np.zeros(n, np.float32)
    with Debugger(k, n, 1, [a, a, c, n]) as d:
        d.break_at("vector_add.cu:10", cta=(4299, 0, 0))
        stop = d.run()
        assert stop.cta == (4299, 0, 0) and d.wave == 1
        assert d.evaluate("%r1") == 4299
        with pytest.raises(DebuggerError, match="not resident"):
            d.set_focus(cta=(0, 0, 0))
        assert d.cont().reason == "exited"
    np.testing.assert_array_equal(c, 2 * a)


def test_bad_arguments_raise_before_anything_runs(recursion):
    with pytest.raises(ptxvm.LaunchError):
        Debugger(recursion, 1, N, _recursion_args()[:3])
    with pytest.raises(ValueError, match="unknown sanitizer tool"):
        Debugger(recursion, 1, N, _recursion_args(), sanitize="nope")
    import gc

    gc.collect()  # device arrays of earlier tests in this process are freed now, not between the two reads
    free = ptxvm.device_memory_info()[0]
    d = Debugger(recursion, 1, N, _recursion_args())
    assert ptxvm.device_memory_info()[0] < free  # the arguments' device copies
    with pytest.raises(DebuggerError, match="outside the launch"):
        d.break_at(16, thread=(99, 0, 0))
    d.close()  # never started: the copies are freed
    assert ptxvm.device_memory_info()[0] == free


def test_post_mortem_of_a_deadlock_shows_the_barrier_waits():
    k = ptxvm.load(str(Path(__file__).with_name("debugger_deadlock.ptx"))).kernel("deadlock")
    out = np.zeros(1, np.uint32)
    with Debugger(k, 1, 64, [out]) as d:
        stop = d.run()
        assert stop.reason == "fault" and "deadlock" in stop.fault.reason
        w0, w1 = d.warps()
        assert (w0.barrier, w1.barrier) == (0xFFFFFFFF, 0xFFFFFFFF) and w0.active == w1.active == 0
        assert d.info.code[w0.pc].text == "bar.sync 0;" and d.info.code[w1.pc].text == "bar.sync 1;"
        assert d.ctas()[0].at_barrier == 64
        assert {state for _, _, state, _ in d.lanes()} == {"waiting"}
        assert d.cont().reason == "faulted"
    assert out[0] == 0


def test_racecheck_stops_at_the_first_hazard_of_each_pair():
    planted = ptxvm.load(str(Path(__file__).with_name("sanitizer") / "planted.ptx"))
    with Debugger(planted["race_raw"], 1, 64, [np.zeros(128, np.int32), np.arange(64, dtype=np.int32)],
                  sanitize="racecheck") as d:
        stop = d.run()
        assert stop.reason == "sanitizer" and stop.records[0].access == "RAW"
        assert stop.records[0].lines()[0] == "Error: Race reported between Write access at race_raw+539 in planted.cu:85"
        assert d.info.code[d.pc].text.startswith("ld.shared")  # the second access of the pair
        assert d.cont().reason == "exited"
        assert d.report.summary() == "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
    with Debugger(planted["race_raw_ok"], 1, 64, [np.zeros(128, np.int32), np.arange(64, dtype=np.int32)],
                  sanitize="racecheck") as d:
        assert d.run().reason == "exited" and d.report.ok and d.results_written


def test_synccheck_stops_at_a_divergent_barrier():
    planted = ptxvm.load(str(Path(__file__).with_name("sanitizer") / "planted.ptx"))
    with Debugger(planted["divergent_barrier"], 1, 32, [np.zeros(128, np.int32)], sanitize="synccheck") as d:
        stop = d.run()
        assert stop.reason == "sanitizer"
        assert stop.records[0].headline == "Barrier error detected. Divergent thread(s) in warp."
        assert d.info.where(d.pc)[2] == ("planted.cu", 167)
        (w,) = d.warps()
        assert (w.barrier, w.exited) == (0x0000FFFF, 0xFFFF0000)  # lanes 0-15 wait, 16-31 exited
        assert d.cont().reason == "exited"


def test_const_and_local_memory_by_name():
    k = _load("constant_mem", "conv1d_const")
    taps = np.array([0.02, 0.05, 0.09, 0.12, 0.44, 0.12, 0.09, 0.05, 0.02], np.float32)
    with Debugger(k, 1, 32, [np.ones(32, np.float32), np.zeros(32, np.float32), 32]) as d:
        d.start()
        np.testing.assert_array_equal(np.frombuffer(d.read_memory("c_taps", 36), np.float32), taps)
        from ptxvm.tools.debugger.commands import Commands

        out = []
        Commands(d, out.append).execute("x/2fw &c_taps")
        assert out == ["0x0:\t0.02\t0.05"]
    with Debugger(_load("recursion", "recursion_kernel"), 1, N, _recursion_args()) as d:
        d.break_at("recursion.cu:52", thread=(7, 0, 0))  # after `local[k] = n * k + i` for k < 12
        d.run()
        local = np.frombuffer(d.read_memory("__local_depot4", 48), np.int32)
        np.testing.assert_array_equal(local, 7 * np.arange(12) + 7)  # n = i = 7
        d.set_focus(thread=(8, 0, 0))
        np.testing.assert_array_equal(np.frombuffer(d.read_memory("__local_depot4", 48), np.int32), 8 * np.arange(12) + 8)
