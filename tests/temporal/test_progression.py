"""Progression (Bacchus & Kabanza) against the direct finite-trace semantics.

Hypothesis draws formulas over three atoms and two actions (with wildcard leaves) and traces
of one to six positions; the verdict of ``Monitor.accepts`` must equal ``semantics.holds``
at position 0, and the monitor's verdict at every suffix must equal ``holds`` there.
Hand cases pin the finite-trace conventions (X false at the end, WX true, at end = last).
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planning_core.temporal import ltl
from planning_core.temporal.parser import parse_ltl
from planning_core.temporal.progression import Alphabet, Monitor
from planning_core.temporal.semantics import Trace, holds

FACTS = (("p",), ("q",), ("r", "a"), ("r", "b"))
ACTIONS = (("go", "a"), ("go", "b"), ("stop",))
ALPHABET = Alphabet(FACTS, ACTIONS, static=(("s",),))

leaf = st.sampled_from([
    ltl.Atom("p"), ltl.Atom("q"), ltl.Atom("r", ("a",)), ltl.Atom("r", ("_",)), ltl.Atom("s"),
    ltl.Occurs("go", ("a",)), ltl.Occurs("go", ("_",)), ltl.Occurs("stop"), ltl.TRUE, ltl.FALSE,
])


def _extend(inner):
    unary = st.sampled_from([ltl.Not, ltl.Next, ltl.WeakNext, ltl.Eventually, ltl.Always])
    binary = st.sampled_from([ltl.Until, ltl.Release, ltl.WeakUntil, ltl.Implies, ltl.Iff])
    return st.one_of(
        st.builds(lambda op, f: op(f), unary, inner),
        st.builds(lambda op, a, b: op(a, b), binary, inner, inner),
        st.builds(lambda parts: ltl.And(tuple(parts)), st.lists(inner, min_size=2, max_size=3)),
        st.builds(lambda parts: ltl.Or(tuple(parts)), st.lists(inner, min_size=2, max_size=3)),
    )


formulas = st.recursive(leaf, _extend, max_leaves=12)


@st.composite
def traces(draw):
    n = draw(st.integers(min_value=1, max_value=6))
    masks = draw(st.lists(st.integers(0, 2 ** len(FACTS) - 1), min_size=n, max_size=n))
    acts = draw(st.lists(st.integers(0, len(ACTIONS) - 1), min_size=n - 1, max_size=n - 1))
    return masks, acts


def _trace(masks, acts) -> Trace:
    states = [frozenset(FACTS[i] for i in range(len(FACTS)) if m >> i & 1) | {("s",)}
              for m in masks]
    return Trace.of(states, [ACTIONS[k] for k in acts])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, traces())
def test_progression_agrees_with_direct_semantics(formula, trace_data):
    masks, acts = trace_data
    trace = _trace(masks, acts)
    monitor = Monitor(formula, ALPHABET)
    labels = [monitor.labels[k] for k in acts]
    for start in range(len(masks)):
        ok, _ = monitor.accepts(masks[start:], labels[start:])
        assert ok == holds(formula, trace, start), (ltl.format_ltl(formula), masks, acts, start)


@settings(max_examples=150, deadline=None)
@given(formulas)
def test_format_parse_round_trip(formula):
    assert parse_ltl(ltl.format_ltl(formula)) == formula


def _check(text: str, masks, acts) -> tuple[bool, bool]:
    formula = parse_ltl(text)
    monitor = Monitor(formula, ALPHABET)
    ok, _ = monitor.accepts(masks, [monitor.labels[k] for k in acts])
    return ok, holds(formula, _trace(masks, acts))


P, Q = 1, 2


@pytest.mark.parametrize("text, masks, acts, expected", [
    ("X true", [P], [], False),                 # X is false at the last position
    ("WX false", [P], [], True),                # WX is true there ("last")
    ("last", [P, P], [0], False),
    ("X (q)", [P, Q], [0], True),
    ("F (last & (q))", [Q, P], [0], False),      # PDDL3 at end: only the final state counts
    ("F (last & (q))", [P, Q], [0], True),
    ("(p) U (q)", [P, P, 0], [0, 1], False),      # strong until needs q eventually
    ("(p) W (q)", [P, P, P], [0, 1], True),       # weak until does not
    ("(q) R (p)", [P, P], [0], True),
    ("G @(go _)", [0, 0], [0], False),            # the last position has no action
    ("G (!last -> @(go _))", [0, 0, 0], [0, 1], True),
    ("G(@(go a) -> X (q))", [0, Q], [0], True),   # an action's effect is seen next
    ("G(@(go a) -> X (q))", [0, P], [0], False),
    ("F @(stop)", [0, 0], [0], False),
    ("(s)", [0], [], True),                       # a static atom always holds
])
def test_finite_trace_conventions(text, masks, acts, expected):
    assert _check(text, masks, acts) == (expected, expected)


def test_progressed_formulas_are_finite_and_shared():
    formula = parse_ltl("G((p) -> F (q)) & G(@(go a) -> X @(go b))")
    monitor = Monitor(formula, ALPHABET)
    seen = {monitor.init}
    frontier = [monitor.init]
    while frontier:
        q = frontier.pop()
        for mask in range(2 ** len(FACTS)):
            for label in set(monitor.labels):
                nxt = monitor.step(q, mask, label)
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
    # G(p -> F q) & G(go a -> X go b): init, waiting for q, owing go b, both, false
    assert len(seen) <= 6
    assert Monitor.FALSE in seen


def test_violation_position_is_reported():
    monitor = Monitor(parse_ltl("G !(q)"), ALPHABET)
    assert monitor.accepts([0, 0, Q, 0], [0, 0, 0]) == (False, 2)
    assert monitor.accepts([0, Q], [0]) == (False, 1)
