"""The landmark scorer (land).

Semantics of Kokel et al., "ACPBench Hard" (arXiv 2503.24378), "Answer Evaluation": an
atom is right iff it is non-trivial (false in the state and not a goal atom) and a fact
landmark of the state: every plan from the state makes it true at some point. The test is
exact: the atom is a landmark iff the task in which the atom may never become true has no
plan. An atom that can never be true is a landmark only of an unsolvable task. ``None`` is
right iff the state has no non-trivial fact landmark: a stored landmark refutes it,
otherwise a witness is searched (:mod:`.witness`). The stored landmarks are trusted (every
one in the dev split passes the exact test); the stored *non*-landmarks are not: in the dev
split the exact test, confirmed by brute-force search, finds true landmarks among them
(e.g. ``(holding block_3)`` when block_3 sits on a block that the goal puts on block_3), so
every atom outside the stored landmarks is decided by the test. The reference scorer
accepts only the stored landmarks and rejects every other atom without looking.
"""
from __future__ import annotations

from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.result import Status

from planning_core.validators.acp.problem import atom_key
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import (ScoreContext, goal_plan,
                                                       memoized_verdict,
                                                       parse_or_score, right, stored_names,
                                                       unknown, wrong)
from planning_core.validators.acp.scorers.queries import is_landmark
from planning_core.validators.acp.scorers.witness import none_verdict

__all__ = ["landmark_verdict", "score_land"]


def _is_goal_atom(ctx: ScoreContext, fact: tuple[str, ...]) -> bool:
    goal = ctx.info.goal_atoms
    if goal is not None:
        return fact in goal
    task = ctx.info.task
    i = task.facts.get(fact)
    return i is not None and bool(task.goal_pos >> i & 1)


def landmark_verdict(ctx: ScoreContext, fact: tuple[str, ...]) -> Score:
    """Right when the (well-formed) atom ``fact`` is a non-trivial landmark of the state."""
    return memoized_verdict(ctx, ("land", fact), lambda: _landmark_verdict(ctx, fact))


def _landmark_verdict(ctx: ScoreContext, fact: tuple[str, ...]) -> Score:
    info = ctx.info
    text = "(" + " ".join(fact) + ")"
    if fact in info.init_atoms:
        return wrong(f"{text} is true in the current state: a trivial landmark", "trivial")
    if _is_goal_atom(ctx, fact):
        return wrong(f"{text} is a goal atom: a trivial landmark", "trivial")
    task = info.task
    i = task.facts.get(fact)
    if i is None or task.never_true(fact):
        status, _ = goal_plan(ctx)
        if status is Status.SOLVED:
            return wrong(f"{text} can never be true, and the goal is reachable without it",
                         "landmark-test")
        if status is Status.UNSOLVABLE:
            return right(f"no plan exists, so {text} is (vacuously) a landmark",
                         "landmark-test")
        return unknown(f"deciding whether the task is solvable ran out of "
                       f"{ctx.limit_text()}")
    # One relaxed exploration without the fact's achievers first: when the goal is then
    # relaxed-unreachable, every plan makes the fact true (a landmark) and the search for a
    # plan from the state (goal_plan: a greedy search, most of a question's cost) is not
    # needed. The same verdict and reason as the order plan-then-test gives: a plan found
    # would contain the fact, and is_landmark's own first check is this one.
    if not goal_relaxed_reachable(task, task.init, forbidden=1 << i):
        return right(f"every plan makes {text} true: the task without it is unsolvable",
                     "landmark-test")
    status, on_plan = goal_plan(ctx)
    if status is Status.SOLVED and not on_plan >> i & 1:
        return wrong(f"a plan reaches the goal without ever making {text} true",
                     "landmark-test")
    verdict = is_landmark(task, i, task.init, budget=ctx.budget, time_limit=ctx.time_limit,
                          relaxed_checked=True)
    if verdict is None:
        return unknown(f"the landmark test for {text} ran out of {ctx.limit_text()}")
    if verdict:
        return right(f"every plan makes {text} true: the task without it is unsolvable",
                     "landmark-test")
    return wrong(f"a plan reaches the goal without ever making {text} true",
                 "landmark-test")


def score_land(q: Question, response: object, ctx: ScoreContext) -> Score:
    answer, failed = parse_or_score("land", response)
    if failed:
        return failed
    yes = stored_names(q.answer.get("yes"))
    if answer is None:
        return none_verdict("land", ctx, yes, "non-trivial landmark",
                            lambda c, a: landmark_verdict(c, (a.name, *a.args)))
    if answer in yes:
        return right(f"{answer} is a known landmark", "stored-yes")
    problem = ctx.info.atom_problem(answer)
    if problem is not None:
        return wrong(problem, "ill-formed")
    return landmark_verdict(ctx, atom_key(answer))
