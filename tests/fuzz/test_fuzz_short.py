"""The short fuzzing run: every reader of untrusted text, under the contract of
:mod:`tests.fuzz.targets`, on inputs Hypothesis makes by mutating the target's seeds.

Derandomized (conftest's ``deterministic`` profile): the same inputs on every run. The long,
coverage-guided run (atheris, >= 100,000 inputs per target) is ``benchmarks/fuzz_bench.py``;
every contract break it found is kept under ``tests/fuzz/regressions/<target>/`` and
replayed here.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fuzz.targets import NAMES, REGRESSIONS, TARGETS, ContractBroken, check, seeds

#: inputs per target (a few milliseconds each: about a second per target)
EXAMPLES = 120

#: bytes that readers give meaning to, spliced in by the mutations
TOKENS = [b"(", b")", b"\n", b"\r", b"\x00", b"{", b"}", b"[", b"]", b'"', b"'", b",", b":",
          b";", b"-", b"?", b"=", b"$", b"`", b"```", b"\\", b" ", b"\t", b"#", b"0", b"-1",
          b"1e999", b"9" * 40, b"NaN", b"null", b"true", b"\xff", b"\xed\xa0\x80",
          b"\xef\xbb\xbf", b"(and", b"(not", b"(:", b"define", b"forall", b"either", b"- ",
          b"; ", b"\x1e", b"REJECT", b"None", b"Answer:", b"(" * 64, b"[" * 64, b"{" * 64,
          b"X ", b"U ", b"G ", b"F ", b"!", b"&", b"|", b"->", b"@", "\u00e9".encode()]


@st.composite
def mutated(draw, corpus: list[bytes]) -> bytes:
    """A seed under a few random edits (insert a token, delete or duplicate a span, cross
    over with another seed, flip a byte), the moves a byte fuzzer makes."""
    data = bytearray(draw(st.sampled_from(corpus)) if corpus else b"")
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(("insert", "delete", "dup", "cross", "flip", "cut")))
        at = draw(st.integers(0, len(data))) if data else 0
        if op == "insert":
            data[at:at] = draw(st.sampled_from(TOKENS) | st.binary(max_size=6))
        elif op == "delete" and data:
            del data[at:at + draw(st.integers(1, 32))]
        elif op == "dup" and data:
            span = bytes(data[at:at + draw(st.integers(1, 64))])
            data[at:at] = span * draw(st.integers(1, 8))
        elif op == "cross" and corpus:
            other = draw(st.sampled_from(corpus))
            start = draw(st.integers(0, len(other)))
            data[at:] = other[start:start + draw(st.integers(0, 256))]
        elif op == "flip" and data:
            data[min(at, len(data) - 1)] ^= 1 << draw(st.integers(0, 7))
        elif op == "cut":
            del data[at:]
    return bytes(data)


LIVE = [name for name in NAMES if TARGETS[name].pending is None]


@pytest.mark.parametrize("name", LIVE)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_reader_keeps_the_contract(name, data):
    target = TARGETS[name]
    corpus = _corpus(name)
    text = data.draw(mutated(corpus), label="input")
    check(target, text)


_CORPORA: dict[str, list[bytes]] = {}


def _corpus(name: str) -> list[bytes]:
    if name not in _CORPORA:
        _CORPORA[name] = seeds(TARGETS[name])
    return _CORPORA[name]


@pytest.mark.parametrize("name", LIVE)
def test_every_seed_keeps_the_contract(name):
    corpus = _corpus(name)
    assert corpus, f"{name} has no seeds"
    outcomes = {check(TARGETS[name], data) for data in corpus}
    assert outcomes <= {"verdict", "error", "limit"}


def _regression_cases():
    return sorted((folder.name, path) for folder in REGRESSIONS.iterdir() if folder.is_dir()
                  for path in folder.iterdir()) if REGRESSIONS.is_dir() else []


@pytest.mark.parametrize("name,path", _regression_cases(),
                         ids=[f"{n}/{p.name}" for n, p in _regression_cases()])
def test_kept_crash_inputs_keep_the_contract(name, path):
    """Each input the long run found breaking the contract (fixed since) stays fixed."""
    assert name in NAMES
    check(TARGETS[name], path.read_bytes())


def test_the_timed_plan_target_runs_on_timed_seeds():
    target = TARGETS["timed-plan"]
    assert target.pending is None and "timed" in target.reader.lower()
    assert set(NAMES) == set(TARGETS)
    timed = [s for s in seeds(target) if b"[" in s and b"]" in s]
    assert timed, "no timed plan among the seeds"


# ---------------------------------------------------------- the contract itself fires

def _target(run, errors=(), located=False):
    from tests.fuzz.targets import Target
    return Target("probe", "probe", run, errors, lambda: [b""], located=located)


def test_an_unexpected_exception_breaks_the_contract():
    def boom(text, budget):
        return {}[text]
    with pytest.raises(ContractBroken, match="KeyError"):
        check(_target(boom), b"x")


def test_an_unlocated_pddl_error_breaks_the_contract():
    from planning_core.errors import PDDLSyntaxError

    def unlocated(text, budget):
        raise PDDLSyntaxError("bad", file="d.pddl")
    with pytest.raises(ContractBroken, match="unlocated"):
        check(_target(unlocated, (PDDLSyntaxError,), located=True), b"x")

    def located(text, budget):
        raise PDDLSyntaxError("bad", file="d.pddl", line=1, column=2)
    assert check(_target(located, (PDDLSyntaxError,), located=True), b"x") == "error"


def test_a_reader_past_its_budget_that_never_checks_it_is_a_hang():
    def spin(text, budget):
        while True:
            pass
    with pytest.raises(ContractBroken, match="still running"):
        check(_target(spin), b"x", hang_cpu_s=0.2)


def test_a_reader_stopped_by_its_budget_keeps_the_contract():
    def metered(text, budget):
        while True:
            budget.tick()
    assert check(_target(metered), b"x") == "limit"


def test_the_cache_entry_target_reads_marshal_sizes_as_marshal_does():
    """The cache-entry target keeps marshal from declared sizes above MARSHAL_MAX_DECLARED
    (what the entry's digest does for damaged entries): its reader follows marshal's own
    layout, so a big list after strings, numbers, dicts, sets and references is seen."""
    import marshal
    import random

    from tests.fuzz.targets import marshal_sizes_fit

    rng = random.Random(7)

    def value(depth):
        kind = rng.randrange(10 if depth < 4 else 7)
        return [lambda: rng.random(), lambda: "s" * rng.randrange(300),
                lambda: "\u00e9" * rng.randrange(5), lambda: b"x" * rng.randrange(5),
                lambda: None, lambda: complex(1, 2), lambda: rng.randrange(-5, 5),
                lambda: tuple(value(depth + 1) for _ in range(rng.randrange(4))),
                lambda: {str(i): value(depth + 1) for i in range(rng.randrange(4))},
                lambda: frozenset(range(rng.randrange(4)))][kind]()

    for _ in range(500):
        inner, n = value(0), rng.randrange(4, 9)
        data = marshal.dumps(("shared", inner, "shared", [0] * n, inner))
        before = marshal.dumps(("shared", inner, "shared"))   # the sizes met before the list
        sizes = sum(1 for k in range(len(before) + 1) if not marshal_sizes_fit(before, k))
        assert marshal_sizes_fit(data, sizes + n) and not marshal_sizes_fit(data, sizes + n - 1)
    assert not marshal_sizes_fit(b"(" + (400_000_000).to_bytes(4, "little"))
    assert marshal_sizes_fit(b"(" + (400_000_000).to_bytes(4, "little"), 400_000_000)
    nested = b"(\x00\x00\x00\x01" * 200    # 200 tuples of 2**24 items, each the first item
    assert not marshal_sizes_fit(nested)
