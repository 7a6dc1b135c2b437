"""The land scorer's relaxed test comes before the search for a plan (issue 32): same
verdicts and reasons as the order plan-then-test, and no plan search for an atom that the
relaxed test proves a landmark."""
from __future__ import annotations

import pytest

from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.result import Status
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import goal_plan, right, unknown, wrong
from planning_core.validators.acp.scorers.land import landmark_verdict
from planning_core.validators.acp.scorers.queries import is_landmark
from planning_core.validators.acp.scoring import AnswerScorer

from tests.acp.acp_fixtures import PROBLEM, record

STUCK = PROBLEM.replace("(door r1 r2)", "")        # the goal room cannot be entered


def _plan_then_test(ctx, fact: tuple[str, ...]) -> Score:
    """The order the scorer had before: the plan from the state first, then the exact test
    (trivial and ill-formed atoms are not asked here)."""
    text = "(" + " ".join(fact) + ")"
    task = ctx.info.task
    i = task.facts.get(fact)
    status, on_plan = goal_plan(ctx)
    if i is None or task.never_true(fact):
        if status is Status.SOLVED:
            return wrong(f"{text} can never be true, and the goal is reachable without it",
                         "landmark-test")
        if status is Status.UNSOLVABLE:
            return right(f"no plan exists, so {text} is (vacuously) a landmark",
                         "landmark-test")
        return unknown("limit")
    if status is Status.SOLVED and not on_plan >> i & 1:
        return wrong(f"a plan reaches the goal without ever making {text} true",
                     "landmark-test")
    verdict = is_landmark(task, i, task.init, budget=ctx.budget)
    if verdict:
        return right(f"every plan makes {text} true: the task without it is unsolvable",
                     "landmark-test")
    return wrong(f"a plan reaches the goal without ever making {text} true",
                 "landmark-test")


def _atoms(ctx) -> list[tuple[str, ...]]:
    """Every non-trivial atom of the task's facts, plus one that can never be true."""
    info = ctx.info
    facts = [f for f in sorted(info.task.facts)
             if f not in info.init_atoms and f not in (info.goal_atoms or ())]
    return facts + [("in", "g", "r0")]


@pytest.mark.parametrize("problem", [PROBLEM, STUCK], ids=["solvable", "unsolvable"])
def test_same_verdicts_as_plan_then_test(problem):
    q = Question.from_record(record("land", problem=problem))
    atoms = _atoms(AnswerScorer().context(q))
    assert len(atoms) >= 6
    kinds = set()
    for fact in atoms:
        # a fresh context per atom: nothing memoised from another atom's verdict
        got = landmark_verdict(AnswerScorer().context(q), fact)
        want = _plan_then_test(AnswerScorer().context(q), fact)
        assert (got.value, got.evidence, got.reason) == (want.value, want.evidence,
                                                         want.reason), fact
        kinds.add((got.value, got.reason.split(" ", 1)[1]))
    # both verdicts occur on the solvable task, and the vacuous one on the other
    values = {v for v, _ in kinds}
    assert values == ({0, 1} if problem == PROBLEM else {1})


def test_a_relaxed_landmark_needs_no_plan_search():
    q = Question.from_record(record("land"))
    ctx = AnswerScorer().context(q)
    s = landmark_verdict(ctx, ("holding", "k"))          # k must be carried to r2
    assert (s.value, s.evidence) == (1, "landmark-test")
    assert ctx.info.goal_plan is None                    # the greedy search never ran
    s = landmark_verdict(ctx, ("holding", "c"))          # c may stay where it is
    assert (s.value, s.evidence) == (0, "landmark-test")
    assert ctx.info.goal_plan is not None


def test_relaxed_checked_skips_only_the_relaxed_test():
    q = Question.from_record(record("land"))
    task = AnswerScorer().context(q).info.task
    searched = 0
    for fact in sorted(task.facts):
        i = task.facts.id(fact)
        if task.init >> i & 1:
            continue
        full = is_landmark(task, i, task.init)
        if goal_relaxed_reachable(task, task.init, forbidden=1 << i):
            searched += 1
            assert is_landmark(task, i, task.init, relaxed_checked=True) == full, fact
    assert searched >= 3


def test_answers_to_one_question_share_its_plan_and_questions_do_not_leak():
    scorer = AnswerScorer()
    first = [scorer(record("land"), a) for a in ("(holding c)", "(holding k)", "(lit r2)")]
    fresh = [AnswerScorer()(record("land"), a) for a in ("(holding c)", "(holding k)",
                                                          "(lit r2)")]
    assert [(s.value, s.reason) for s in first] == [(s.value, s.reason) for s in fresh]
    info = scorer.cache.get(*_texts(record("land")))
    assert info.goal_plan is not None and info.goal_plan[0] is Status.SOLVED
    # a question on another state (the goal room shut) is judged on its own problem
    stuck = scorer(record("land", problem=STUCK, answer={"yes": [], "no": []}), "(holding c)")
    assert (stuck.value, stuck.evidence) == (1, "landmark-test")
    assert stuck.reason.startswith("every plan makes (holding c) true")
    # proved by the relaxed test alone: no plan search on that problem, and the first
    # question's plan is untouched
    assert scorer.cache.get(*_texts(record("land", problem=STUCK))).goal_plan is None
    assert info.goal_plan[0] is Status.SOLVED
    again = scorer(record("land"), "(holding c)")
    assert (again.value, again.reason) == (first[0].value, first[0].reason)


def _texts(row: dict) -> tuple[str, str]:
    return row["PDDL_domain"], row["PDDL_problem"]
