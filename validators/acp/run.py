"""``acp run``: ask a model every question, score each answer as it arrives, keep every row.

Each question becomes a prompt (:mod:`planning_core.validators.acp.prompts`), the prompts go
to the model ``concurrency`` at a time (threads: the work is waiting on the network), and
every response is scored in the calling thread by the ordinary scorers the moment it
arrives. :func:`run_questions` yields one row per question, in completion order:

* a success row: ``id, task, domain, prompt_hash, shots, shot_source`` (the examples in
  front; ``asked`` holds the shots and source the run asked for when fewer were
  available), ``response``, the
  :class:`~planning_core.validators.models.completion.Completion` fields (model, base URL,
  parameters, token usage, latency, cache hit, attempts) and the score (``score, reason,
  evidence``, as ``acp score`` writes them). ``finish_reason`` says why the answer ended;
  one cut off by the token limit (``truncated``, possibly empty: a reasoning model that
  spent its budget reasoning) is scored as the answer it is;
* a failure row: the same keys up to ``shot_source``, the model, base URL and parameters,
  then ``error`` (one line). A request that failed after its retries (a 400, a connection
  the server keeps dropping) is recorded and the run goes on.

A question with examples is sent as a conversation
(:func:`planning_core.validators.acp.prompts.conversation`): the examples as user/assistant
turns, then the question.

Every row records the scorer's ``budget`` (written by the command's loop,
:mod:`planning_core.validators.models.run_loop`); :func:`rescored` scores a stored answer
again under a larger one.

Resuming: a question counts as done when a success row with its ``(task, id,
prompt_hash)`` exists, so a rerun asks only what failed or was never asked. The command
checks first that the file's rows were produced with the same setting (model, base URL,
parameters, shots; :mod:`planning_core.validators.models.run_setting`) and the same prompts. Rows are appended and flushed one at a time by the
caller, and the response cache holds every response before its row is written, so killing a
run loses no completed response and a rerun duplicates none. :func:`latest_rows` reduces a
results file to one row per question (a success beats a failure, a later row an earlier).

A :class:`~planning_core.validators.models.completion.ModelUnavailable` error (bad key,
unknown model, server unreachable, or -- the run's circuit breaker,
:mod:`planning_core.validators.models.breaker` -- the first requests all failing at the
transport level with no answer before them) stops the run: pending requests are cancelled, the
answers already received are still yielded, then the error is raised.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

from planning_core.errors import PlanningError
from planning_core.executor import Executor, TaskFailed, worker_state
from planning_core.validators.acp.batch import result_row
from planning_core.validators.acp.problem import ProblemCache
from planning_core.validators.acp.prompts import conversation, conversation_hash
from planning_core.validators.acp.records import Question, Score
from planning_core.validators.acp.defaults import DEFAULT_BUDGET
from planning_core.validators.acp.scoring import AnswerScorer
from planning_core.validators.models.breaker import DEFAULT_THRESHOLD, arm
from planning_core.validators.models.client import ask_messages
from planning_core.validators.models.completion import (
    Completion,
    ModelError,
    ModelUnavailable,
)
from planning_core.validators.models.run_loop import ask_each

__all__ = ["RunItem", "plan_items", "rescored", "row_key", "run_questions", "latest_rows"]


@dataclass(frozen=True, slots=True)
class RunItem:
    question: Question
    prompt: str          # the last user turn: the question's own prompt
    prompt_hash: str     # of the whole conversation
    shots: int
    messages: tuple = ()     # the conversation sent (examples as turns, then the prompt)
    shot_source: str | None = None
    #: the shots and source the run asked for, when fewer examples were available
    asked: tuple = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.question.task, self.question.id, self.prompt_hash)

    @property
    def conversation(self) -> list[dict]:
        return [dict(m) for m in self.messages] or [{"role": "user", "content": self.prompt}]


def plan_items(questions: Sequence[Question], shots: int = 0,
               pool: Sequence[Question] | None = None,
               source: str = "questions") -> list[RunItem]:
    """One item per question, with ``shots`` examples as turns in front: the paper's
    (``source="paper"``, at most 2) or other questions of ``pool`` (default: the questions
    themselves)."""
    pool = questions if pool is None else pool
    cache = ProblemCache(16)
    items = []
    for q in questions:
        messages = conversation(q, shots, source, pool, cache)
        n = (len(messages) - 1) // 2
        asked = (("shots", shots), ("shot_source", source if shots else None))
        items.append(RunItem(q, messages[-1]["content"], conversation_hash(messages), n,
                             tuple(messages), source if n else None,
                             asked if n != shots else ()))
    return items


def row_key(row: dict) -> tuple[str, str, str]:
    """The item a row answers: ``(task, id, prompt_hash)``."""
    return (str(row.get("task")), str(row.get("id")), str(row.get("prompt_hash")))


def latest_rows(rows: Iterable[dict]) -> list[dict]:
    """One row per ``(task, id, prompt_hash)``: the last success, else the last failure."""
    from planning_core.validators.models.run_setting import latest_rows_by

    return latest_rows_by(rows, row_key)


def _head(item: RunItem) -> dict:
    q = item.question
    head = {"id": q.id, "task": q.task, "domain": q.domain_name,
            "prompt_hash": item.prompt_hash, "shots": item.shots,
            "shot_source": item.shot_source}
    if item.asked:      # fewer examples than asked: the setting is what was asked
        head["asked"] = dict(item.asked)
    return head


def _failed(item: RunItem, model, err: Exception | str) -> dict:
    from planning_core.validators.models.run_setting import setting_of

    setting = setting_of(model)
    return {**_head(item), "model": setting["model"], "base_url": setting["base_url"],
            "params": setting["params"], **_system(model), "error": str(err)}


def _system(model) -> dict:
    """The system prompt sent in front of every conversation, when there is one, and the
    run's ``sample`` index when it is sample K > 0 of a sampling model (both part of the
    run's setting: a rerun with another is not resumed from these rows)."""
    from planning_core.validators.models.run_setting import sample_field

    system = getattr(model, "system", None)
    return {**({"system": system} if system else {}), **sample_field(model)}


def _verdict(item: RunItem, text: str, scorer: AnswerScorer) -> dict:
    """``score, reason, evidence`` of an answer, as ``acp score`` writes them."""
    try:
        s = scorer(item.question, text)
    except PlanningError as err:
        s = Score(None, f"the question cannot be used: {err}", "bad-question")
    scored = result_row(item.question, s)
    return {k: scored[k] for k in ("score", "reason", "evidence")}


def _scored(item: RunItem, completion: Completion, scorer: AnswerScorer,
            model=None) -> dict:
    row = _head(item)
    row["response"] = completion.text
    row.update(completion.to_json())
    row.update(_system(model))
    row.update(_verdict(item, completion.text, scorer))
    return row


def rescored(item: RunItem, row: dict, scorer: AnswerScorer) -> dict:
    """A success row's stored response scored again by ``scorer`` (a larger budget): the
    row as it was (the model is not asked again), its verdict replaced and ``rescored``
    set; the budget it records is the new one (written by the run loop)."""
    new = {k: v for k, v in row.items() if k != "budget"}
    new.update(_verdict(item, str(row.get("response") or ""), scorer))
    new["rescored"] = True
    return new


def run_questions(model, items: Sequence[RunItem], *, scorer: AnswerScorer | None = None,
                  concurrency: int = 4) -> Iterator[dict]:
    """Ask and score every item; yield rows as they complete (see the module doc)."""
    scorer = scorer or AnswerScorer()
    arm(model, len(items))
    def ask(item: RunItem) -> Completion:
        return ask_messages(model, item.conversation)

    for item, completion, err in ask_each(ask, items, concurrency=concurrency,
                                          thread_name="acp-run"):
        if err is not None:
            yield _failed(item, model, err)
        else:
            yield _scored(item, completion, scorer, model)


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What every question of one ``acp run`` on an executor shares: the model options (a
    worker builds its own client from them) and the scorer's limit."""

    model_options: tuple[tuple[str, object], ...]
    time_limit: float | None = None
    budget: int = DEFAULT_BUDGET

    def setup(self):
        from planning_core.validators.models.options import model_from_options

        model = model_from_options(self.model_options)
        arm(model, DEFAULT_THRESHOLD)   # each worker's own breaker
        return model, AnswerScorer(time_limit=self.time_limit, budget=self.budget)


def run_item_task(settings: RunSettings, item: RunItem) -> dict:
    """One executor task: ask one question and score the answer, on a worker.
    ``{"row": ...}``, or ``{"unavailable": message}`` when the endpoint cannot answer."""
    model, scorer = worker_state(settings, settings.setup)
    try:
        completion = ask_messages(model, item.conversation)
    except ModelUnavailable as err:
        return {"unavailable": str(err)}
    except ModelError as err:
        return {"row": _failed(item, model, err)}
    return {"row": _scored(item, completion, scorer, model)}


def run_on_executor(executor: Executor, settings: RunSettings,
                    items: Sequence[RunItem]) -> Iterator[dict]:
    """As :func:`run_questions`, one executor task per question (``--workers N`` local
    processes or a Dask cluster, each worker asking the model itself); rows as they
    complete. A question whose worker keeps dying gets an error row, asked again on a
    rerun; an unusable endpoint raises :class:`ModelUnavailable` and ends the run."""
    for index, result in executor.run(run_item_task, settings, items):
        if isinstance(result, TaskFailed):
            yield {**_head(items[index]), "error": f"not run: {result.message}"}
        elif "unavailable" in result:
            raise ModelUnavailable(result["unavailable"])
        else:
            yield result["row"]
