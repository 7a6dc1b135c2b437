"""Inspect AI tasks: one ``@task`` per ACPBench Hard task, scored by planning_core.

``inspect eval <path of this file>@acp_app --model openai-api/local/NAME`` (with
``LOCAL_BASE_URL``/``LOCAL_API_KEY``) or ``--model mockllm/model`` runs one task; the
questions come from ``-T questions=PATH`` or the environment variable
``PLANNING_CORE_ACP_QUESTIONS`` (no download). Each sample's input is the prompt of
``planning-core acp run`` (:mod:`planning_core.validators.acp.prompts`); the scorer calls
:func:`planning_core.validators.acp.scoring.score` on the completion.

Verdicts map to Inspect's ``CORRECT``/``INCORRECT``, and an unknown verdict (a scorer
limit) to ``NOANSWER`` with ``metadata["unknown"]``: the ``known_accuracy`` metric averages
the known verdicts only and ``unknown_rate`` counts the rest, so an unknown is never a
silent 0. ``pip install 'planning-core[inspect]'`` installs Inspect.
"""
from __future__ import annotations

import os

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState, generate

from planning_core.errors import InputError, PlanningError
from planning_core.validators.acp.dataset import load_questions
from planning_core.validators.acp.prompts import question_text
from planning_core.validators.acp.scoring import AnswerScorer

__all__ = ["acp_task", "planning_core_score", "acp_app", "acp_prog", "acp_reach",
           "acp_areach", "acp_val", "acp_just", "acp_land", "acp_nexta"]

ENV = "PLANNING_CORE_ACP_QUESTIONS"


def _dataset(task_name: str, questions: str | None) -> MemoryDataset:
    path = questions or os.environ.get(ENV)
    if not path:
        raise InputError(f"say where the questions are: -T questions=PATH or {ENV}")
    samples = [Sample(input=question_text(q), id=f"{q.task}-{q.id}",
                      metadata={"task": q.task, "id": q.id, "domain": q.domain_name})
               for q in load_questions(path) if q.task == task_name]
    if not samples:
        raise InputError(f"no {task_name} question found", file=str(path))
    return MemoryDataset(samples, name=f"acpbench_hard_{task_name}")


def _verdict(item) -> int | None:
    """1, 0 or None (unknown) from a metric's item: a ``SampleScore`` or a ``Score``, whose
    value Inspect may already have turned into a number."""
    score = getattr(item, "score", item)
    if (score.metadata or {}).get("unknown") or score.value == NOANSWER:
        return None
    return 1 if score.value in (CORRECT, 1, 1.0) else 0


@metric
def known_accuracy():
    """Accuracy over the samples whose verdict is known."""
    def compute(scores) -> float:
        known = [v for v in map(_verdict, scores) if v is not None]
        return sum(known) / len(known) if known else float("nan")
    return compute


@metric
def unknown_rate():
    def compute(scores) -> float:
        return sum(_verdict(s) is None for s in scores) / len(scores) if scores else 0.0
    return compute


@scorer(metrics=[known_accuracy(), unknown_rate(), accuracy()])
def planning_core_score(questions: str | None = None, time_limit: float = 10.0):
    """planning_core's scorer for the sample's question (looked up by task and id)."""
    path = questions or os.environ.get(ENV)
    index = {(q.task, q.id): q for q in load_questions(path)} if path else {}
    scorer_ = AnswerScorer(time_limit=time_limit)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        q = index[(meta["task"], meta["id"])]
        answer = state.output.completion
        try:
            verdict = scorer_(q, answer)
        except PlanningError as err:
            return Score(value=NOANSWER, answer=answer, explanation=str(err),
                         metadata={"unknown": True, "evidence": "bad-question"})
        value = {1: CORRECT, 0: INCORRECT, None: NOANSWER}[verdict.value]
        return Score(value=value, answer=answer, explanation=verdict.reason,
                     metadata={"unknown": verdict.value is None,
                               "evidence": verdict.evidence})
    return score


def acp_task(task_name: str, questions: str | None = None, max_tokens: int = 1000) -> Task:
    from inspect_ai.model import GenerateConfig

    return Task(dataset=_dataset(task_name, questions), solver=generate(),
                scorer=planning_core_score(questions),
                config=GenerateConfig(temperature=0.0, max_tokens=max_tokens))


@task
def acp_app(questions: str | None = None) -> Task:
    return acp_task("app", questions)


@task
def acp_prog(questions: str | None = None) -> Task:
    return acp_task("prog", questions)


@task
def acp_reach(questions: str | None = None) -> Task:
    return acp_task("reach", questions)


@task
def acp_areach(questions: str | None = None) -> Task:
    return acp_task("areach", questions)


@task
def acp_val(questions: str | None = None) -> Task:
    return acp_task("val", questions)


@task
def acp_just(questions: str | None = None) -> Task:
    return acp_task("just", questions)


@task
def acp_land(questions: str | None = None) -> Task:
    return acp_task("land", questions)


@task
def acp_nexta(questions: str | None = None) -> Task:
    return acp_task("nexta", questions)
