"""Inspect AI tasks: one ``@task`` per ACPBench Hard task, scored by planning_core.

``inspect eval planning_core/acp_app --model openai-api/local/NAME`` (with
``LOCAL_BASE_URL``/``LOCAL_API_KEY``) or ``--model mockllm/model`` runs one task, and
``planning_core/acp_hard`` all eight as one task with an aggregate score (the package
registers these tasks as an Inspect entry point, so the names work from any folder); the
questions come from ``-T questions=PATH`` or the environment variable
``PLANNING_CORE_ACP_QUESTIONS`` (no download). Each sample's input is the conversation of
``planning-core acp run`` (:mod:`planning_core.validators.acp.prompts`): by default the
paper's setting, its two static examples as user/assistant turns (``-T shots=0`` for
zero-shot), with the paper's stop sequences, temperature 0 and 1000 tokens; the scorer calls
:func:`planning_core.validators.acp.scoring.score` on the completion.

Verdicts map to Inspect's ``CORRECT``/``INCORRECT``, and an unknown verdict (a scorer
limit) to ``NOANSWER`` with ``metadata["unknown"]``. The headline metric is the one of
``acp run`` and the lm-eval tasks, ``accuracy`` = right / answers (an unknown is not right),
and ``unknown_rate`` shows the unknowns apart; ``known_accuracy`` (right / known) is kept
beside them. ``pip install 'planning-core[inspect]'`` installs Inspect.
"""
from __future__ import annotations

import os

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    SampleScore,
    Score,
    Target,
    accuracy,
    metric,
    scorer,
)
from inspect_ai.solver import TaskState, generate

from planning_core.errors import InputError, PlanningError
from planning_core.validators.acp.dataset import load_questions
from planning_core.validators.acp.prompts import PAPER_SHOTS, SENT_STOP, conversation
from planning_core.validators.acp.scoring import AnswerScorer

__all__ = ["acp_task", "planning_core_score", "generate_config", "acp_hard", "acp_app", "acp_prog", "acp_reach",
           "acp_areach", "acp_val", "acp_just", "acp_land", "acp_nexta"]

ENV = "PLANNING_CORE_ACP_QUESTIONS"


def _messages(q, shots: int) -> list:
    turns = conversation(q, shots, "paper")
    return [ChatMessageUser(content=t["content"]) if t["role"] == "user"
            else ChatMessageAssistant(content=t["content"]) for t in turns]


def _dataset(task_names, questions: str | None, shots: int = PAPER_SHOTS) -> MemoryDataset:
    path = questions or os.environ.get(ENV)
    if not path:
        raise InputError(f"say where the questions are: -T questions=PATH or {ENV}")
    names = (task_names,) if isinstance(task_names, str) else tuple(task_names)
    samples = [Sample(input=_messages(q, shots), id=f"{q.task}-{q.id}",
                      metadata={"task": q.task, "id": q.id, "domain": q.domain_name})
               for q in load_questions(path) if q.task in names]
    if not samples:
        raise InputError(f"no {', '.join(names)} question found", file=str(path))
    return MemoryDataset(samples, name="acpbench_hard" + (f"_{names[0]}" if len(names) == 1
                                                          else ""))


def _verdict(item: SampleScore) -> int | None:
    """1, 0 or None (unknown) from a metric's item, whose value Inspect may already have
    turned into a number."""
    score = item.score
    if (score.metadata or {}).get("unknown") or score.value == NOANSWER:
        return None
    return 1 if score.value in (CORRECT, 1, 1.0) else 0


@metric
def known_accuracy():
    """Accuracy over the samples whose verdict is known."""
    def compute(scores: list[SampleScore]) -> float:
        known = [v for v in map(_verdict, scores) if v is not None]
        return sum(known) / len(known) if known else float("nan")
    return compute


@metric
def unknown_rate():
    """The share of samples whose verdict is unknown (a solver limit ran out)."""
    def compute(scores: list[SampleScore]) -> float:
        return sum(_verdict(s) is None for s in scores) / len(scores) if scores else 0.0
    return compute


@scorer(metrics=[accuracy(), unknown_rate(), known_accuracy()])
def planning_core_score(questions: str | None = None, time_limit: float | None = None):
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


def generate_config(max_tokens: int = 1000) -> GenerateConfig:
    """The paper's generation settings: greedy, 1000 tokens, its stop sequences (the four a
    request carries, as ``acp run`` and lm-eval send them)."""
    return GenerateConfig(temperature=0.0, max_tokens=max_tokens, stop_seqs=list(SENT_STOP))


def acp_task(task_name, questions: str | None = None, max_tokens: int = 1000,
             shots: int = PAPER_SHOTS) -> Task:
    """One task (or several: a list of names) in the paper's setting."""
    if not 0 <= int(shots) <= PAPER_SHOTS:
        raise InputError(f"shots must be between 0 and {PAPER_SHOTS} (the paper's examples)")
    return Task(dataset=_dataset(task_name, questions, int(shots)), solver=generate(),
                scorer=planning_core_score(questions), config=generate_config(max_tokens))


@task
def acp_hard(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    """All eight tasks as one; the aggregate score is over every question."""
    from planning_core.validators.acp.records import TASKS

    return acp_task(list(TASKS), questions, shots=shots)


@task
def acp_app(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("app", questions, shots=shots)


@task
def acp_prog(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("prog", questions, shots=shots)


@task
def acp_reach(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("reach", questions, shots=shots)


@task
def acp_areach(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("areach", questions, shots=shots)


@task
def acp_val(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("val", questions, shots=shots)


@task
def acp_just(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("just", questions, shots=shots)


@task
def acp_land(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("land", questions, shots=shots)


@task
def acp_nexta(questions: str | None = None, shots: int = PAPER_SHOTS) -> Task:
    return acp_task("nexta", questions, shots=shots)
