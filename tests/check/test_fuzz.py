"""Fuzzing: whatever PTX comes in, ptxvm answers with PtxError, KernelFault or LaunchError.

Two sources of input (tests/check/fuzzing.py): real PTX from tests/corpus and the verifier's
snippets, mutated at token level (tokens deleted, duplicated, swapped, replaced by numbers,
registers, identifiers, opcodes and modifiers of the ISA table) and at line level (lines deleted,
duplicated, swapped, moved); and kernels of random instruction forms of the ISA table with
modifiers and operands of the right kinds. Each case is parsed, verified, loaded and every kernel
launched on a small grid with an instruction budget, under a wall-time limit. Hypothesis runs are
derandomized so CI sees the same cases every time; `python benchmarks/fuzz_frontend.py` is the
long run.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from ptxvm.check import verify
from ptxvm.errors import PtxSyntaxError
from ptxvm.frontend import parse

from .fuzzing import generated, mutant, run_case, time_limit

CASE_SECONDS = 20  # wall time of one case; the instruction budget should stop every launch long before
FUZZ = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(st.randoms(use_true_random=False))
def test_corpus_mutations_raise_only_ptx_errors(rng):
    text = mutant(rng)
    note(text)
    with time_limit(CASE_SECONDS):
        run_case(text)


@FUZZ
@given(st.randoms(use_true_random=False))
def test_isa_table_streams_raise_only_ptx_errors(rng):
    text = generated(rng)
    note(text)
    with time_limit(CASE_SECONDS):
        run_case(text)


def test_generated_streams_mostly_load_and_run():
    """The generator is worth its time only if most kernels get past the verifier and run."""
    import random

    outcomes = [run_case(generated(random.Random(i))) for i in range(60)]
    assert sum(o in ("ran", "fault") for o in outcomes) >= 15, outcomes


# Minimized inputs of crashes the fuzzer found (tests/check/fuzz_regressions/*.ptx; the first line
# names the crash); each raised a Python exception before its fix.
REGRESSIONS = sorted((Path(__file__).parent / "fuzz_regressions").glob("*.ptx"))


@pytest.mark.parametrize("path", REGRESSIONS, ids=[p.stem for p in REGRESSIONS])
def test_regression(path):
    with time_limit(10):  # each runs in well under a second; bulk_copy_huge_size took 20 s before its fix
        assert run_case(path.read_text(), path.name) in ("ran", "fault", "launch", "load", "verify", "syntax")


def test_verifier_never_fails_internally_on_parsed_mutants():
    """The verifier's own guard turns an exception inside a rule into 'internal verifier error';
    none of the mutants may reach it (run_case also raises on one)."""
    import random

    for i in range(40):
        text = mutant(random.Random(i))
        try:
            tree = parse(text, "fuzz.ptx")
        except PtxSyntaxError:
            continue
        bad = [d.format() for d in verify(tree, text) if "internal verifier error" in d.message]
        assert not bad, "\n".join(bad) + "\n--- module ---\n" + text


def test_recursive_call_keeps_b128_registers():
    """The regression input above, checked for values: each activation's .b128 register survives
    the recursive call (helper(x) = x + 1 from x = 3 on, else helper(x + 1) + x)."""
    import numpy as np

    import ptxvm

    path = Path(__file__).parent / "fuzz_regressions" / "recursive_call_saves_b128.ptx"
    out = np.zeros((32, 3), np.uint64)
    ptxvm.load(path)["k"].launch(1, 32, [out])

    def helper(x):
        return x + 1 if x >= 3 else helper(x + 1) + x

    lane = np.arange(32) % 4
    assert (out[:, 0] == lane).all() and (out[:, 1] == lane + 0x1122334455667788).all()
    assert list(out[:, 2]) == [helper(int(x)) for x in lane]


def test_global_arena_grows_by_whole_words():
    """Found by the long run (seed 3): once an allocation of odd size grew the global arena to
    `end + guard` bytes, every later 4-byte access in the process failed with NumPy's 'When
    changing to a larger dtype...' ValueError (the arena is viewed as u32, u64...)."""
    import numpy as np

    from ptxvm.engine.core.memory import GlobalMemory

    mem = GlobalMemory(capacity=1024)
    a = mem.allocate(3001)
    assert mem.arena.size % 16 == 0
    mem.store(np.array([a.base], np.uint64), np.array([7], np.uint32), np.dtype(np.uint32))
    assert mem.load(np.array([a.base], np.uint64), np.dtype(np.uint64))[0] == 7
