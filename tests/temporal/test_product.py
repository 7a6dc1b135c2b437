"""Product search for goal-and-formula against brute force and the direct semantics.

On a three-block task, every plan of up to ``DEPTH`` steps is enumerated and judged by the
direct semantics; breadth-first product search must find a plan of the shortest length
among them (or none, and then prove unsolvability), with and without relaxed pruning, and
every plan any search returns must satisfy the goal and the formula.
"""
from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

from planning_core.ground.grounder import ground
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.temporal import ltl
from planning_core.temporal.check import check_plan, execute, semantic_trace
from planning_core.temporal.parser import Vocabulary, parse_ltl
from planning_core.temporal.product import plan_ltl
from planning_core.temporal.semantics import holds
from tests.conftest import DOMAINS

DEPTH = 6
DOMAIN = parse_domain((DOMAINS / "blocksworld" / "domain.pddl").read_text())
PROBLEM = parse_problem(textwrap.dedent("""\
    (define (problem bw-3) (:domain blocksworld) (:objects a b c)
      (:init (ontable a) (on b a) (clear b) (ontable c) (clear c) (handempty))
      (:goal (and (on a b))))"""))
TASK = ground(DOMAIN, PROBLEM)
VOCAB = Vocabulary.of(DOMAIN, PROBLEM)


def _all_plans(depth: int):
    """Every executable action sequence of at most ``depth`` steps (as strings)."""
    out = [()]
    frontier = [((), TASK.init)]
    for _ in range(depth):
        nxt = []
        for plan, state in frontier:
            for a in TASK.applicable(state):
                p = plan + (str(a),)
                out.append(p)
                nxt.append((p, TASK.progress(state, a)))
        frontier = nxt
    return out


PLANS = _all_plans(DEPTH)
TRACES = {p: semantic_trace(TASK, p) for p in PLANS}
GOAL_PLANS = [p for p in PLANS if TASK.is_goal(execute(TASK, p)[0][-1])]

leaf = st.sampled_from([
    ltl.Atom("on", ("a", "b")), ltl.Atom("on", ("b", "c")), ltl.Atom("on", ("c", "a")),
    ltl.Atom("clear", ("a",)), ltl.Atom("holding", ("_",)), ltl.Atom("ontable", ("c",)),
    ltl.Occurs("stack", ("_", "_")), ltl.Occurs("pick-up", ("a",)), ltl.Occurs("unstack", ("b", "a")),
    ltl.Occurs("put-down", ("_",)),
])
formulas = st.recursive(leaf, lambda inner: st.one_of(
    st.builds(ltl.Not, inner), st.builds(ltl.Next, inner), st.builds(ltl.WeakNext, inner),
    st.builds(ltl.Eventually, inner), st.builds(ltl.Always, inner),
    st.builds(ltl.Until, inner, inner), st.builds(ltl.Release, inner, inner),
    st.builds(lambda a, b: ltl.And((a, b)), inner, inner),
    st.builds(lambda a, b: ltl.Or((a, b)), inner, inner),
    st.builds(ltl.Implies, inner, inner),
    # invariants and eventualities that the relaxed pruning reads
    st.builds(lambda a, f: ltl.And((f, ltl.Always(ltl.Not(a)))), leaf, inner),
    st.builds(lambda a, f: ltl.Or((f, ltl.Eventually(a))), leaf, inner)), max_leaves=6)


def _assert_plan_ok(formula, plan):
    assert TASK.is_goal(execute(TASK, plan)[0][-1])
    assert holds(formula, semantic_trace(TASK, plan)), (ltl.format_ltl(formula), plan)
    assert check_plan(TASK, formula, plan).holds


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(formulas)
def test_bfs_finds_shortest_plan_or_proves_none(formula):
    shortest = min((len(p) for p in GOAL_PLANS if holds(formula, TRACES[p])), default=None)
    pruned = plan_ltl(TASK, formula, search="bfs", time_limit=None)
    blind = plan_ltl(TASK, formula, search="bfs", time_limit=None, prune=False)
    assert pruned.status is blind.status
    event(f"{pruned.status.value}: {pruned.reason or 'plan'}, pruned {pruned.stat('pruned') > 0}")
    if pruned.status is Status.SOLVED:
        _assert_plan_ok(formula, pruned.plan)
        assert len(pruned.plan) == len(blind.plan)
        if shortest is not None:
            assert len(pruned.plan) == shortest
        else:
            assert len(pruned.plan) > DEPTH
    else:
        assert pruned.status is Status.UNSOLVABLE
        assert shortest is None
    for search in ("greedy", "astar"):
        other = plan_ltl(TASK, formula, search=search, time_limit=None)
        assert other.status is pruned.status
        if other.solved:
            _assert_plan_ok(formula, other.plan)
            if search == "astar":
                assert len(other.plan) == len(pruned.plan)


@pytest.mark.parametrize("text, status, length", [
    ("true", Status.SOLVED, 4),
    ("G !(holding a)", Status.UNSOLVABLE, None),          # a must be picked up
    ("G !@(stack a b)", Status.UNSOLVABLE, None),          # the only way to on(a, b)
    ("F (on b c)", Status.SOLVED, 4),                      # b goes onto c, not the table
    ("F (on c a)", Status.SOLVED, 6),                      # c ends on top of a
    ("!@(unstack b a) U (ontable b)", Status.UNSOLVABLE, None),  # b can only leave a by unstack
    ("F (holding c)", Status.SOLVED, 5),                   # last: the goal needs no free hand
    ("X X X X X X X X true", Status.SOLVED, 8),            # at least nine positions
    ("G (last -> (holding _))", Status.SOLVED, 5),
    ("G (last -> (holding a))", Status.UNSOLVABLE, None),  # a ends on b, not in the hand
])
def test_hand_cases(text, status, length):
    formula = parse_ltl(text, VOCAB)
    result = plan_ltl(TASK, formula, search="bfs")
    assert result.status is status, result
    if length is not None:
        assert len(result.plan) == length
        _assert_plan_ok(formula, result.plan)


def test_relaxed_pruning_proves_at_the_root():
    result = plan_ltl(TASK, parse_ltl("G !@(stack a _)", VOCAB), search="greedy")
    assert result.status is Status.UNSOLVABLE
    assert result.reason == "relaxed unreachable under the formula"
    assert result.stat("expanded") == 0


def test_limits_give_unknown():
    result = plan_ltl(TASK, parse_ltl("F (on c a) & F (on b c)", VOCAB), search="bfs",
                      node_limit=3)
    assert result.status is Status.UNKNOWN and result.reason == "node limit"


def test_unknown_search_is_rejected():
    with pytest.raises(ValueError, match="search must be one of"):
        plan_ltl(TASK, ltl.TRUE, search="dfs")


def test_plans_are_deterministic():
    """Two runs with fresh monitors (new ids everywhere) give the same plan and counters."""
    formula = parse_ltl("F (on c a) & G (@(stack _ _) -> X !(holding _))", VOCAB)
    runs = [plan_ltl(ground(DOMAIN, PROBLEM), formula, search=s)
            for s in ("greedy", "greedy", "astar", "astar")]
    assert runs[0].plan == runs[1].plan and runs[0].stats == runs[1].stats
    assert runs[2].plan == runs[3].plan and runs[2].stats == runs[3].stats
