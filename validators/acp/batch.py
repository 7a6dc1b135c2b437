"""Batch evaluation: match answers to questions, score them, stream result rows.

Answers are grouped by problem (domain and problem text) so that one worker parses and
grounds each problem once and shares h* values and search results across the answers to
it (:class:`planning_core.validators.acp.problem.ProblemCache`). The groups run on an
executor (:mod:`planning_core.executor`: local worker processes, or a Dask cluster).
:func:`score_arrivals` yields rows as they are computed (``acp score`` gives them to
:class:`~planning_core.results_file.ResultsWriter`, which puts them in order);
:func:`score_jobs` yields them in the order of the answers file. Either way the output does
not depend on the executor or the number of workers. A group whose worker keeps dying
gives unknown rows (``worker-died``) instead of ending the run.

One answer never stops the run: a question whose PDDL cannot be parsed gives an unknown
row (``bad-question``) for each of its answers, a response longer than
``max_response_bytes`` an unknown row (``too-large``) without being read, and any other
exception while scoring an answer an unknown row (``internal-error``) with the message.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from planning_core.errors import PlanningError
from planning_core.executor import Executor, TaskFailed, in_input_order, make_executor, \
    split_items, worker_state
from planning_core.executor.local import SerialExecutor

from planning_core.validators.acp.dataset import (Answer, BadRow, DatasetError, question_index,
                                                 response_hash)
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.scorers.base import DEFAULT_BUDGET, DEFAULT_TIME_LIMIT
from planning_core.validators.acp.scoring import MAX_RESPONSE_BYTES, AnswerScorer

__all__ = ["Job", "ScoreSettings", "check_gold", "failed_row", "gold_group", "match_answers",
           "problem_groups", "result_row", "score_arrivals", "score_group", "score_jobs"]


# answers grouped by problem at a time: a group's rows can only be written when every answer
# before them is, so a window bounds what waits in memory (about 1 kB a row); each worker
# parses a problem again once per window at most
HOLD_LIMIT = 50_000
# answers a task should carry at least, problems permitting (see problem_groups)
PACK = 32


@dataclass(frozen=True, slots=True)
class Job:
    """One answer to score: its position in the answers file, its question, its text."""

    index: int
    question: Question
    response: str


def match_answers(questions: Iterable[Question], answers: Sequence[Answer],
                  answers_file: str | None = None, bad: list[BadRow] | None = None
                  ) -> list[Job]:
    """Pair every answer with its question (by ``(task, id)``, or ``id`` alone when unique).

    Ids are not unique across tasks in the released data (one id can name an app and a prog
    question), so an answer to such an id must say its ``task``. An answer that matches no
    question, or several, raises :class:`DatasetError`; when ``bad`` is a list it is
    appended there as a :class:`BadRow` instead and the others are matched.
    """
    index = question_index(questions)
    by_id: dict[str, list[Question]] = {}
    for q in index.values():
        by_id.setdefault(q.id, []).append(q)
    jobs: list[Job] = []
    missing: list[str] = []
    for k, a in enumerate(answers):
        if a.task is not None:
            q = index.get((a.task, a.id))
            if q is None:
                missing.append(f"{a.task}/{a.id}")
                continue
        else:
            found = by_id.get(a.id, [])
            if not found:
                missing.append(a.id)
                continue
            if len(found) > 1:
                tasks = ", ".join(sorted(q.task for q in found))
                message = (f"answer id {a.id} matches questions of several tasks "
                           f"({tasks}); add \"task\" to the answer")
                if bad is None:
                    raise DatasetError(message, file=answers_file)
                bad.append(BadRow(a.source or str(answers_file), message, a.id, a.task))
                continue
            q = found[0]
        jobs.append(Job(k, q, a.response))
    if missing and bad is not None:
        named = {f"{a.task}/{a.id}" if a.task is not None else a.id: a for a in answers}
        for name in missing:
            a = named[name]
            bad.append(BadRow(a.source or str(answers_file), f"answer {name} matches no "
                              "question", a.id, a.task))
    elif missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise DatasetError(f"{len(missing)} answer(s) match no question: {shown}",
                           file=answers_file)
    return jobs


def result_row(q: Question, s: Score, *, response: str | None = None,
               cpu_s: float | None = None) -> dict:
    """A results row. With ``response``, its hash (``response_sha256``, what a resumed run
    compares to find edited answers); with ``cpu_s``, the CPU seconds scoring took."""
    row = {"id": q.id, "task": q.task, "domain": q.domain_name, "score": s.value,
           "reason": s.reason, "evidence": s.evidence}
    if response is not None:
        row["response_sha256"] = response_hash(response)
    if cpu_s is not None:
        row["cpu_s"] = round(cpu_s, 6)
    return row


def _score_one(scorer: AnswerScorer, job: Job, provenance: bool = False) -> dict:
    t0 = time.process_time()
    try:
        s = scorer(job.question, job.response)
    except PlanningError as err:
        s = Score(None, f"the question cannot be used: {err}", "bad-question")
    except Exception as err:  # noqa: BLE001 - one answer must never end the batch
        s = Score(None, f"internal error while scoring: {type(err).__name__}: {err}",
                  "internal-error")
    # CPU of this process only: the scorers start no child processes
    if not provenance:
        return result_row(job.question, s)
    return result_row(job.question, s, response=job.response, cpu_s=time.process_time() - t0)


@dataclass(frozen=True, slots=True)
class ScoreSettings:
    """What every task of one scoring run shares; a worker builds its scorer from it once
    (:func:`~planning_core.executor.worker_state`) and keeps its per-problem cache."""

    time_limit: float | None = DEFAULT_TIME_LIMIT
    budget: int = DEFAULT_BUDGET
    trust_stored_none: bool = False
    provenance: bool = False
    max_response_bytes: int = MAX_RESPONSE_BYTES

    def scorer(self) -> AnswerScorer:
        return AnswerScorer(time_limit=self.time_limit, budget=self.budget,
                            trust_stored_none=self.trust_stored_none,
                            max_response_bytes=self.max_response_bytes)


def score_group(settings: ScoreSettings, group: Sequence[Job]) -> list[tuple[int, dict]]:
    """One executor task: score a group of answers that share a problem."""
    scorer = worker_state(settings, settings.scorer)
    return [(job.index, _score_one(scorer, job, settings.provenance)) for job in group]


def failed_row(job: Job, failure: TaskFailed, provenance: bool) -> dict:
    """The row of an answer whose task produced nothing (its worker kept dying, or the
    task raised): unknown, with why, so the run goes on, and ``retry: true``: not final, a
    rerun scores the answer again (a worker killed once by the out-of-memory killer of a
    busy machine says nothing about the answer)."""
    evidence = "worker-died" if failure.kind == "worker-died" else "internal-error"
    s = Score(None, f"not scored: {failure.message}", evidence)
    if not provenance:
        return dict(result_row(job.question, s), retry=True)
    return dict(result_row(job.question, s, response=job.response, cpu_s=0.0), retry=True)


def problem_groups(jobs: Sequence[Job], workers: int) -> list[Sequence[Job]]:
    """Answers grouped by problem (domain and problem text), so a worker parses and grounds
    each problem once. A group larger than a fair share of the work is split so that no
    worker is left with a straggler while the others idle; groups smaller than ``PACK``
    answers are packed together (still whole) up to that size, so that a task carries
    enough work to be worth its round trip (about 10 ms on Dask, where one answer to a
    problem seen for the first time costs about 3 ms)."""
    by_problem: dict[tuple[str, str], list[Job]] = {}
    for job in jobs:
        key = (job.question.domain_text, job.question.problem_text)
        by_problem.setdefault(key, []).append(job)
    share = max(8, -(-len(jobs) // (4 * max(1, workers))))
    parts = [part for group in by_problem.values() for part in split_items(group, share)]
    pack = min(PACK, share)
    tasks: list[Sequence[Job]] = []
    small: list[Job] = []
    for part in parts:
        if len(part) >= pack:
            tasks.append(part)
            continue
        if len(small) + len(part) > pack:
            tasks.append(small)
            small = []
        small.extend(part)
    if small:
        tasks.append(small)
    return tasks


def score_arrivals(jobs: Sequence[Job], settings: ScoreSettings, executor: Executor,
                   on_done: Callable[[int], None] | None = None
                   ) -> Iterator[tuple[int, dict]]:
    """Score ``jobs`` on ``executor``, grouped by problem; yield ``(k, row)`` for
    ``jobs[k]`` as rows are computed, in completion order (``acp score`` hands them to
    :class:`~planning_core.results_file.ResultsWriter`, which journals them and writes them
    in input order). ``on_done(n)`` is called as answers finish (for a progress bar)."""
    position = {job.index: k for k, job in enumerate(jobs)}
    # grouped within windows of the input, so the rows held back for input order stay
    # bounded however long the answers file is: a window starts when the last one is done
    for start in range(0, len(jobs), HOLD_LIMIT):
        groups = problem_groups(jobs[start:start + HOLD_LIMIT], executor.workers)
        for g, result in executor.run(score_group, settings, groups):
            if isinstance(result, TaskFailed):
                result = [(job.index, failed_row(job, result, settings.provenance))
                          for job in groups[g]]
            if on_done:
                on_done(len(result))
            for index, row in result:
                yield position[index], row


def score_jobs(jobs: Sequence[Job], *, time_limit: float | None = DEFAULT_TIME_LIMIT,
               budget: int = DEFAULT_BUDGET, workers: int = 1, scorer: AnswerScorer | None = None,
               trust_stored_none: bool = False, provenance: bool = False,
               max_response_bytes: int = MAX_RESPONSE_BYTES,
               on_done: Callable[[int], None] | None = None,
               executor: Executor | None = None,
               on_row: Callable[[Job, dict], None] | None = None
               ) -> Iterator[tuple[Job, dict]]:
    """Score ``jobs``; yield ``(job, row)`` in the order of ``jobs``.

    The work runs on ``executor`` (:mod:`planning_core.executor`: local processes or a Dask
    cluster; default: ``workers`` local processes, or this process when ``workers <= 1``),
    through :func:`score_arrivals`. ``on_done(n)`` is called as answers finish (for a
    progress bar), in completion order, and ``on_row(job, row)`` for every row the moment
    it is computed, before it may be held back for input order.
    With ``provenance`` each row also names the response it scored (``response_sha256``,
    what a resumed ``acp score`` compares) and the CPU seconds its scoring took (``cpu_s``,
    which, unlike the verdict, varies from run to run).
    """
    jobs = list(jobs)
    settings = ScoreSettings(time_limit, budget, trust_stored_none, provenance,
                             max_response_bytes)
    owned = executor is None
    if executor is None:
        executor = make_executor("local", workers=1 if len(jobs) <= 1 else workers)
    try:
        if isinstance(executor, SerialExecutor) and scorer is not None:
            # the caller's own scorer, in input order: every row is yielded as it is made
            # (without one, the serial executor takes the grouped path below too, so an
            # answers file that cycles through more problems than the scorer's cache holds
            # still parses and grounds each problem once)
            for job in jobs:
                row = _score_one(scorer, job, provenance)
                if on_row:
                    on_row(job, row)
                if on_done:
                    on_done(1)
                yield job, row
            return

        def arrived() -> Iterator[tuple[int, dict]]:
            for k, row in score_arrivals(jobs, settings, executor, on_done):
                if on_row:
                    on_row(jobs[k], row)
                yield k, row

        for k, row in in_input_order(arrived(), len(jobs)):
            yield jobs[k], row
    finally:
        if owned:
            executor.close()


def gold_group(settings: ScoreSettings, group: Sequence[Job]) -> list[tuple[int, dict]]:
    """One ``acp check-gold`` task: build and score the gold answer of each question of a
    group that shares a problem (the jobs' responses are unused)."""
    from planning_core.validators.acp.gold import gold_answer

    scorer = worker_state(settings, settings.scorer)
    out = []
    for job in group:
        q = job.question
        try:
            answer = gold_answer(q, scorer.cache)
            s = scorer(q, answer)
            value, reason = s.value, s.reason
        except PlanningError as err:
            answer, value, reason = None, None, f"cannot score: {err}"
        except Exception as err:  # noqa: BLE001 - one question must never end the check
            answer, value, reason = None, None, (f"internal error while scoring: "
                                                 f"{type(err).__name__}: {err}")
        out.append((job.index, {"id": q.id, "task": q.task, "domain": q.domain_name,
                                "gold": answer, "score": value, "reason": reason}))
    return out


def check_gold(questions: Sequence[Question], settings: ScoreSettings, executor: Executor,
               on_done: Callable[[int], None] | None = None) -> list[dict]:
    """The gold answer of every question built and scored on ``executor``, grouped by
    problem; one result per question, in the order of ``questions``."""
    jobs = [Job(k, q, "") for k, q in enumerate(questions)]
    groups = problem_groups(jobs, executor.workers)
    results: dict[int, dict] = {}
    for g, result in executor.run(gold_group, settings, groups):
        if isinstance(result, TaskFailed):
            result = [(job.index, {"id": job.question.id, "task": job.question.task,
                                   "domain": job.question.domain_name, "gold": None,
                                   "score": None, "reason": f"not checked: {result.message}"})
                      for job in groups[g]]
        results.update(result)
        if on_done:
            on_done(len(result))
    return [results[k] for k in range(len(jobs))]
