"""Scoring one answer: the registry of the eight scorers and the public ``score`` call.

``score(record, response_text) -> Score`` is all an evaluation harness needs: ``record`` is
a dataset row (dict, as ``datasets`` yields it) or a :class:`Question`, ``response_text``
the model's output. For lm-evaluation-harness, a ``process_results`` function can return
``{"score": score(doc, results[0]).value or 0}`` (unknowns counted as wrong there, or
filtered out by the caller).

Parsed and ground problems are kept in a module-level :class:`ProblemCache`, so scoring
many answers to one question, or many questions on one problem, parses and grounds once;
the problem is parsed only when a scorer first needs it (stored data settles many answers
without PDDL). An :class:`AnswerScorer` holds its own cache and search budget for batch use.
"""
from __future__ import annotations

import importlib
from collections.abc import MutableMapping
from typing import Iterator, Mapping

from planning_core.limits import LimitReached
from planning_core.validators.acp.problem import ProblemCache
from planning_core.validators.acp.records import MAX_RESPONSE_BYTES, Question, Score
from planning_core.validators.acp.scorers.base import (DEFAULT_BUDGET, DEFAULT_TIME_LIMIT,
                                                       ScoreContext, Scorer, unknown)

__all__ = ["MAX_RESPONSE_BYTES", "SCORERS", "AnswerScorer", "as_question", "oversize",
           "score"]

#: Task name -> (module of ``planning_core.validators.acp.scorers``, scorer), in the
#: paper's order.
_SCORER_AT = {
    "app": ("state", "score_app"),
    "prog": ("state", "score_prog"),
    "reach": ("reach", "score_reach"),
    "areach": ("reach", "score_areach"),
    "val": ("plan", "score_val"),
    "just": ("plan", "score_just"),
    "land": ("land", "score_land"),
    "nexta": ("nexta", "score_nexta"),
}


class _Scorers(MutableMapping):
    """Task name -> scorer, in the paper's order, each scorer's module imported when its
    task is first scored: an ``acp score`` run over val or just answers never imports the
    grounder, the searches and the heuristics (about 30-50 ms of a process's start). Setting
    an item replaces that task's scorer (tests do); deleting it restores the default."""

    def __init__(self) -> None:
        self._loaded: dict[str, Scorer] = {}

    def __getitem__(self, task: str) -> Scorer:
        found = self._loaded.get(task)
        if found is None:
            module, name = _SCORER_AT[task]
            found = getattr(importlib.import_module(
                f"planning_core.validators.acp.scorers.{module}"), name)
            self._loaded[task] = found
        return found

    def __setitem__(self, task: str, scorer: Scorer) -> None:
        if task not in _SCORER_AT:
            raise KeyError(task)
        self._loaded[task] = scorer

    def __delitem__(self, task: str) -> None:
        if task not in _SCORER_AT:
            raise KeyError(task)
        self._loaded.pop(task, None)

    def __iter__(self) -> Iterator[str]:
        return iter(_SCORER_AT)

    def __len__(self) -> int:
        return len(_SCORER_AT)


#: Task name -> scorer, in the paper's order (modules imported on first use).
SCORERS: MutableMapping[str, Scorer] = _Scorers()


def as_question(record: Question | Mapping) -> Question:
    return record if isinstance(record, Question) else Question.from_record(record)


def oversize(response: object, limit: int) -> Score | None:
    """The ``too-large`` verdict for a response longer than ``limit`` UTF-8 bytes, else None.

    Measured without encoding when the character count already decides (a character is
    at most four bytes).
    """
    if not isinstance(response, str) or len(response) * 4 <= limit:
        return None
    size = len(response.encode("utf-8", "surrogatepass"))
    if size <= limit:
        return None
    return Score(None, f"the response is {size} bytes, longer than the limit of {limit} "
                       "(--max-response-bytes); it was not read", "too-large")


class AnswerScorer:
    """Scores answers with a shared problem cache and a per-search budget (expanded states;
    deterministic). ``time_limit`` is an optional wall-clock safety net (seconds, default
    off) for users who need a run to end; hitting it gives unknown verdicts. A response
    longer than ``max_response_bytes`` is not read (:func:`oversize`)."""

    def __init__(self, *, time_limit: float | None = DEFAULT_TIME_LIMIT,
                 budget: int = DEFAULT_BUDGET, cache: ProblemCache | None = None,
                 trust_stored_none: bool = False,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.time_limit = time_limit
        self.budget = budget
        self.trust_stored_none = trust_stored_none
        self.max_response_bytes = max_response_bytes
        self.cache = cache if cache is not None else ProblemCache()

    def context(self, q: Question) -> ScoreContext:
        """The question's context; its problem is parsed on first use (lazily)."""
        return ScoreContext(lambda: self.cache.get(q.domain_text, q.problem_text),
                            self.time_limit, self.trust_stored_none, self.budget)

    def __call__(self, record: Question | Mapping, response: object) -> Score:
        q = as_question(record)
        too_large = oversize(response, self.max_response_bytes)
        if too_large is not None:
            return too_large
        return _judged(q, response, self.context(q))


def _judged(q: Question, response: object, ctx: ScoreContext) -> Score:
    """The scorer's verdict, or unknown when the engine hit a limit outside a search
    (grounding the problem: ``ProblemInfo.task``)."""
    try:
        return SCORERS[q.task](q, response, ctx)
    except LimitReached as err:
        return unknown(f"grounding the problem hit the {err.limit} ({err.detail})")


_DEFAULT = AnswerScorer()


def score(record: Question | Mapping, response_text: object, *,
          time_limit: float | None = None) -> Score:
    """The verdict on ``response_text`` as an answer to the question ``record``.

    Raises :class:`planning_core.errors.PlanningError` (``BadQuestion``, a PDDL syntax
    error) when the question itself is unusable; a bad *answer* is a 0 score, never an
    exception.
    """
    if time_limit is None:
        return _DEFAULT(record, response_text)
    q = as_question(record)
    too_large = oversize(response_text, MAX_RESPONSE_BYTES)
    if too_large is not None:
        return too_large
    ctx = ScoreContext(lambda: _DEFAULT.cache.get(q.domain_text, q.problem_text), time_limit)
    return _judged(q, response_text, ctx)
