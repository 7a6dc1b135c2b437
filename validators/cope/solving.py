"""The one place where CoPE code asks planning_core for a plan.

Both the ground-truth check and the PDDL formalizer solve with the same engine and the same
settings, so that "our solver found a plan" means the same thing everywhere. Plans are
satisficing (``optimal=False``): CoPE asks whether *a* plan exists and whether a given plan
is valid, never for an optimal one, and greedy search finds plans in constrained
BlocksWorld tasks far faster than A* with an admissible heuristic. Unsolvability is still a
proof: planning_core only answers ``UNSOLVABLE`` after relaxed unreachability or an
exhausted complete search.
"""
from __future__ import annotations

from planning_core.pddl import ast as A
from planning_core.result import SolveResult

DEFAULT_TIME_LIMIT = 60.0


def solve_task(domain: A.Domain, problem: A.Problem, *,
               time_limit: float = DEFAULT_TIME_LIMIT) -> SolveResult:
    """Solve with planning_core's ``solve`` (engine chosen by task size).

    Raises :class:`planning_core.errors.EngineError` or ``UnsupportedFeature`` when the task
    cannot be handed to an engine at all; limits come back as ``Status.UNKNOWN``.
    """
    from planning_core.solve import solve

    return solve(domain, problem, optimal=False, time_limit=time_limit)
