"""What every scorer shares: the context it runs in and small verdict helpers.

A scorer is a function ``(question, response, ctx) -> Score``. ``ctx`` carries the
question's :class:`ProblemInfo` (parsed, ground, memoised) and the budget for any search; a
scorer never parses PDDL or grounds on its own, so answers to one question share that work
(:class:`planning_core.validators.acp.problem.ProblemCache`). ``ctx.info`` is built on first
use: an answer that the stored data settles (a stored right answer, a ``None`` refuted by a
stored set) is decided without parsing the PDDL at all.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Iterable

from planning_core.result import Status

from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS
from planning_core.validators.acp.answers.values import GroundName, UnparseableAnswer
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.defaults import DEFAULT_BUDGET

__all__ = ["DEFAULT_BUDGET", "DEFAULT_TIME_LIMIT", "ScoreContext", "Scorer", "goal_plan",
           "listed", "parse_or_score", "right", "unknown", "wrong"]

#: The default wall-clock safety limit of a search: none. Verdicts are bounded by the
#: deterministic ``budget`` (expanded states) instead, so they do not depend on machine load.
DEFAULT_TIME_LIMIT: float | None = None


@dataclass(frozen=True)
class ScoreContext:
    """Where a scorer runs.

    ``source`` is the question's :class:`ProblemInfo`, or a function building it (called on
    first use of :attr:`info`, at most once). ``budget``: expanded states per search before a
    verdict is unknown (deterministic). ``time_limit``: optional wall-clock seconds per
    search, a safety net for the user only (default off; when set and hit, the verdict is
    unknown). ``trust_stored_none``: take an empty stored set as proof that None is right
    (the dataset's and the reference scorer's verdict) instead of searching for a witness.
    """

    source: ProblemInfo | Callable[[], ProblemInfo]
    time_limit: float | None = DEFAULT_TIME_LIMIT
    trust_stored_none: bool = False
    budget: int = DEFAULT_BUDGET

    @cached_property
    def info(self) -> ProblemInfo:
        return self.source if isinstance(self.source, ProblemInfo) else self.source()

    def limit_text(self) -> str:
        """The limit a search ran into, for an unknown verdict's reason."""
        text = f"its budget of {self.budget:,} expanded states"
        if self.time_limit is not None:
            text += f" (or the {self.time_limit:g} s safety limit)"
        return text


Scorer = Callable[[Question, object, ScoreContext], Score]


def right(reason: str, evidence: str) -> Score:
    return Score(1, reason, evidence)


def wrong(reason: str, evidence: str) -> Score:
    return Score(0, reason, evidence)


def unknown(reason: str) -> Score:
    return Score(None, reason, "limit")


def parse_or_score(task: str, response: object) -> tuple[object, Score | None]:
    """The parsed answer, or a 0 score saying why nothing could be read."""
    try:
        return ANSWER_PARSERS[task](response), None
    except UnparseableAnswer as err:
        return None, wrong(f"unparseable answer: {err.reason}", "unparseable")


def listed(items: Iterable, limit: int = 3) -> str:
    """``(a), (b), (c) and 2 more`` for a reason text (sorted, deterministic)."""
    shown = sorted(str(i) if isinstance(i, GroundName) else "(" + " ".join(i) + ")"
                   for i in items)
    head = ", ".join(shown[:limit])
    return head + (f" and {len(shown) - limit} more" if len(shown) > limit else "")


def stored_names(items) -> frozenset[GroundName]:
    """The dataset's own spellings (``"(sail l0 l1)"``, ``"at a0 l0-2"``) as ground names."""
    return frozenset(GroundName.from_text(str(x)) for x in items or () if str(x).strip())


def memoized_verdict(ctx: "ScoreContext", key: tuple[str, object],
                     compute: Callable[[], Score]) -> Score:
    """A verdict kept per problem under ``key`` = (task, atom or action) in
    ``ProblemInfo.verdicts``; unknown verdicts are not kept, so a later answer (perhaps with a
    longer time limit) tries again."""
    verdicts = ctx.info.verdicts
    found = verdicts.get(key)
    if found is None:
        found = compute()
        if found.known:
            verdicts[key] = found
    return found


def goal_plan(ctx: ScoreContext) -> tuple[Status, int]:
    """Whether the goal is reachable from the state, and the facts along one plan (memoised
    per problem; an unknown outcome is not kept)."""
    found = ctx.info.goal_plan
    if found is None:
        # here: the scorers that never search (val, just, app) do not import the searches
        from planning_core.validators.acp.scorers.queries import plan_facts

        task = ctx.info.task
        found = plan_facts(task, task.init, budget=ctx.budget, time_limit=ctx.time_limit)
        if found[0] is not Status.UNKNOWN:
            ctx.info.goal_plan = found
    return found
