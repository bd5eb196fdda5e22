"""The list schedule's register rule (ptxvm/timing/pressure.py, schedule.RegisterCount): a straight
run may not hold more values live than the kernel has registers. Structural checks only; the
comparison with ptxas's SASS is benchmarks/timing/sass/pressure.py (results/sass_pressure_ptxas13.json)."""
import json
import os
import sys

import numpy as np
import pytest

from ptxvm.timing.pressure import RunLimit, run_limits, uniform_registers, units_of_type
from ptxvm.timing.schedule import block_orders, schedule_run

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "benchmarks", "timing", "sass")


def _loads_then_stores(n):
    """n global loads (value ids 1..n from base id 0) then n shared stores of them (PTX order)."""
    reads = {i: (0,) for i in range(n)}
    writes = {i: (i + 1,) for i in range(n)}
    for i in range(n):
        reads[n + i] = (n + 1, i + 1)  # shared base, value
        writes[n + i] = ()
    kinds = np.array([1] * n + [2] * n, np.int8)
    space = np.array([2] * n + [1] * n, np.int8)  # global loads, shared stores
    lat = np.array([300.0] * n + [20.0] * n)
    return reads, writes, kinds, space, lat


def _in_flight(order, n):
    """Most loads whose store has not issued yet (order None: PTX order)."""
    order = range(2 * n) if order is None else order
    out = most = 0
    for i in order:
        out += 1 if i < n else -1
        most = max(most, out)
    return most


def test_widths_b16_takes_a_register_b64_two_predicates_none():
    assert units_of_type("b16") == units_of_type("f16") == units_of_type("u32") == 1
    assert units_of_type("b64") == units_of_type("f64") == units_of_type("s64") == 2
    assert units_of_type("pred") == 0
    assert units_of_type("b128") == 4


@pytest.mark.parametrize("budget", [4, 10, 24])
def test_budget_caps_the_loads_in_flight_and_stores_free_registers(budget):
    n = 32
    reads, writes, kinds, space, lat = _loads_then_stores(n)
    units = {i: 1 for i in range(n + 2)}
    free = schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space)
    assert _in_flight(free, n) == n  # every load hoisted above the stores
    limit = RunLimit(budget, units, frozenset((0, n + 1)), frozenset())
    perm = schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space, limit)
    assert sorted(perm.tolist()) == list(range(2 * n))
    assert _in_flight(perm, n) == budget
    # each store after its own load (register dependence kept)
    pos = {int(i): k for k, i in enumerate(perm)}
    assert all(pos[i] < pos[n + i] for i in range(n))


def test_a_wide_budget_changes_nothing():
    n = 16
    reads, writes, kinds, space, lat = _loads_then_stores(n)
    units = {i: 1 for i in range(n + 2)}
    free = schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space)
    limit = RunLimit(255, units, frozenset((0, n + 1)), frozenset())
    assert schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space, limit) is free is None


def test_b64_values_count_twice():
    n = 16
    reads, writes, kinds, space, lat = _loads_then_stores(n)
    units = {i: 2 for i in range(n + 2)}
    limit = RunLimit(12, units, frozenset((0, n + 1)), frozenset())
    perm = schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space, limit)
    assert _in_flight(perm, n) == 6


def test_past_the_budget_the_schedule_still_completes():
    # values live into the run already exceed the budget: every load still issues (ptxas spills)
    n = 8
    reads, writes, kinds, space, lat = _loads_then_stores(n)
    units = {i: 1 for i in range(n + 2)}
    limit = RunLimit(0, units, frozenset(), frozenset())
    perm = schedule_run(0, 2 * n, np.zeros(2 * n, bool), lat, reads, writes, kinds, space, limit)
    assert sorted(perm.tolist()) == list(range(2 * n))
    assert _in_flight(perm, n) <= 2  # a load that frees its base register fits whatever the count


def test_run_limits_takes_off_what_the_loop_keeps_but_not_what_waits_for_its_end():
    # one warp: pc 0 defines r0 (read in the loop) and r1 (read only after the loop); the loop
    # (pcs 1..3, two trips) reads r0; pc 4 reads r1
    reads = {0: (), 1: (0,), 2: (), 3: (), 4: (1,)}
    writes = {0: (0, 1), 1: (2,), 2: (3,), 3: (), 4: ()}
    pc = np.array([0, 1, 2, 3, 1, 2, 3, 4])
    row = np.zeros(pc.size, np.int64)
    units = {0: 2, 1: 1, 2: 1, 3: 1}
    (lim,) = run_limits(pc, row, np.array([1]), np.array([3]), np.array([4]), reads, writes, units, 40)
    assert lim.across == frozenset((0,)) and lim.budget == 40 - 4 - 2  # 4: occupancy.RESERVED_REGS
    (once,) = run_limits(pc, row, np.array([1]), np.array([3]), np.array([-1]), reads, writes, units, 40)
    assert once.across == frozenset((0, 1)) and once.budget == 40 - 4 - 3


def test_a_register_the_run_rewrites_is_not_held_across_it():
    # loop trip: pc 1 reads r0 (accumulator) into r2, pc 2 writes r0 from r2: r0 is live at both
    # ends of the run but is two values inside it
    reads = {0: (), 1: (0,), 2: (2,), 3: ()}
    writes = {0: (0,), 1: (2,), 2: (0,), 3: ()}
    pc = np.array([0, 1, 2, 1, 2, 3])
    row = np.zeros(pc.size, np.int64)
    units = {0: 1, 2: 1}
    (lim,) = run_limits(pc, row, np.array([1]), np.array([2]), np.array([3]), reads, writes, units, 10)
    assert lim.across == frozenset() and lim.budget == 6


def test_uniform_values_do_not_count_while_the_uniform_registers_hold_them():
    reads = {0: (), 1: (0, 1)}
    writes = {0: (0, 1), 1: (2,)}
    pc = np.array([0, 1, 1])
    row = np.zeros(pc.size, np.int64)
    units = {0: 2, 1: 1, 2: 1}
    (lim,) = run_limits(pc, row, np.array([1]), np.array([1]), np.array([2]), reads, writes, units, 20,
                        uniform=frozenset((0,)))
    assert lim.budget == 20 - 4 - 1 and 0 in lim.across


def test_uniform_registers_follow_parameters_not_thread_ids():
    from ptxvm.engine.trace.info import InstrInfo, MemInfo

    param = MemInfo("param", 8, 1, True, False)
    code = [InstrInfo(0, 1, "ld.param.u64 %rd1, [p];", "ld", "uniform", (), ("%rd1",), param),
            InstrInfo(1, 2, "mov.u32 %r1, %ctaid.x;", "mov", "int", (), ("%r1",), sreg=True),
            InstrInfo(2, 3, "mov.u32 %r2, %tid.x;", "mov", "int", (), ("%r2",), sreg=True),
            InstrInfo(3, 4, "add.s32 %r3, %r1, 8;", "add", "int", ("%r1",), ("%r3",)),
            InstrInfo(4, 5, "add.s32 %r4, %r3, %r2;", "add", "int", ("%r3", "%r2"), ("%r4",)),
            InstrInfo(5, 6, "cvt.rn.f32.u32 %f1, %r3;", "cvt", "conv", ("%r3",), ("%f1",)),
            # a loop counter: uniform until a per-thread value reaches it
            InstrInfo(6, 7, "add.s32 %r5, %r5, %r3;", "add", "int", ("%r5", "%r3"), ("%r5",)),
            InstrInfo(7, 8, "add.s32 %r6, %r6, 1;", "add", "int", ("%r6",), ("%r6",)),
            InstrInfo(8, 9, "add.s32 %r6, %r6, %r4;", "add", "int", ("%r6", "%r4"), ("%r6",))]
    assert uniform_registers(code) == {"%rd1", "%r1", "%r3", "%r5"}


def test_block_orders_applies_the_budget_per_run():
    n = 24
    reads, writes, kinds, space, lat = _loads_then_stores(n)
    m = 2 * n
    ctrl = np.zeros(m + 1, bool)
    ctrl[m] = True  # a branch ends the run
    reads[m], writes[m] = (), ()
    kinds = np.append(kinds, 0).astype(np.int8)
    space = np.append(space, 0).astype(np.int8)
    lat = np.append(lat, 1.0)
    pc = np.arange(m + 1)
    row = np.zeros(m + 1, np.int64)
    units = {i: 1 for i in range(n + 2)}
    free = block_orders(pc, row, ctrl, lat, reads, writes, kinds, space)
    tight = block_orders(pc, row, ctrl, lat, reads, writes, kinds, space, units, 10)
    assert _in_flight(free[:m], n) == n
    # registers live across: none here (the base and shared address are dead after the run)
    assert _in_flight(tight[:m], n) <= 10 and tight[m] == m


def _bench():
    if BENCH not in sys.path:
        sys.path.insert(0, BENCH)
    import pressure

    return pressure


def test_microbenchmark_points_where_ptxas_limits_loads_the_model_does_too():
    """The stored ptxas sweep: where ptxas kept fewer than all N loads in flight, the model's rule
    (with ptxas's register count) keeps fewer too, within 4; where ptxas hoisted all, so does the model."""
    pressure = _bench()
    with open(os.path.join(ROOT, "benchmarks", "timing", "results", "sass_pressure_ptxas13.json")) as f:
        data = json.load(f)
    bound = [p for p in data["points"] if p["max_in_flight"] < p["loads"]]
    assert bound, "the sweep has points where registers bind"
    for p in bound[:3] + [q for q in data["points"] if q["max_in_flight"] == q["loads"]][-1:]:
        m = pressure.model_point(p["loads"], p["live"], p["maxnreg"], p["registers"])
        assert abs(m["max_in_flight"] - p["max_in_flight"]) <= 4, (p, m)
