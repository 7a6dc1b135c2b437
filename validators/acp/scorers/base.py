"""What every scorer shares: the context it runs in and small verdict helpers.

A scorer is a function ``(question, response, ctx) -> Score``. ``ctx`` carries the
question's :class:`ProblemInfo` (parsed, ground, memoised) and the time limit for any
search; a scorer never parses PDDL or grounds on its own, so answers to one question share
that work (:class:`planning_core.validators.acp.problem.ProblemCache`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS
from planning_core.validators.acp.answers.values import GroundName, UnparseableAnswer
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.records import Question, Score

__all__ = ["DEFAULT_TIME_LIMIT", "ScoreContext", "Scorer", "listed", "parse_or_score",
           "right", "unknown", "wrong"]

#: Seconds a single search may take before the verdict is "unknown".
DEFAULT_TIME_LIMIT = 10.0


@dataclass(frozen=True, slots=True)
class ScoreContext:
    """``trust_stored_none``: take an empty stored set as proof that None is right (the
    dataset's and the reference scorer's verdict) instead of searching for a witness."""

    info: ProblemInfo
    time_limit: float = DEFAULT_TIME_LIMIT
    trust_stored_none: bool = False


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
