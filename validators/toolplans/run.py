"""``toolplans run``: ask a model every APB case in its setting, score each answer, keep rows.

Line numbers refer to ``/work/shared/seeds/001_25509288ef9c2098.txt`` (the APB paper).

Each case of ``toolplans generate`` becomes its setting's prompt (:mod:`.prompts`), the
prompts go to the model ``concurrency`` at a time through the shared client
(:mod:`planning_core.validators.models`: OpenAI-compatible endpoints or ``--command``, the
response cache, retries, the circuit breaker), and every answer is scored the moment it
arrives by the checker (:func:`.apb_report.check_case`, the same verdict ``toolplans batch``
gives the case with that ``output``). :func:`run_cases` yields one row per case, in
completion order:

* a success row: the case's fields (``id, setting, domain, base, k, n_e, kind, ...``),
  ``prompt_hash``, ``response``, the completion's fields (model, base URL, parameters,
  usage, latency, cache hit, attempts, finish reason) and the checker's result row;
* with ``refine`` (C.7, lines 742-767): the initial answer and its result under
  ``initial``, the reflection (by the model itself, or by the ``critic``) under
  ``reflection``, and the refined answer as the row's ``response`` and result;
* a failure row: the case's fields, the model, base URL and parameters, and ``error``.

Resume: a case counts as done when a success row with its ``(id, prompt_hash)`` exists; the
command checks that the file's rows come from the same setting (model, base URL,
parameters, refinement mode and critic; :mod:`planning_core.validators.models.run_setting`).
"""
from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from planning_core.errors import PlanningError
from planning_core.validators.models.breaker import arm
from planning_core.validators.models.client import ask_messages
from planning_core.validators.models.completion import Completion
from planning_core.validators.models.run_loop import ask_each
from planning_core.validators.toolplans.prompts import (case_prompt, prompt_hash,
                                                        reflection_prompt, refine_prompt)

__all__ = ["RunItem", "plan_items", "rescored", "row_key", "latest_rows", "run_cases",
           "Scorer"]

#: case fields copied to every row
_CASE_FIELDS = ("id", "setting", "domain", "base", "k", "n_e", "kind", "replacement",
                "broken_tool")
#: a success row's fields that are not the checker's result: the prompt, the answer, the
#: completion's fields (``Completion.to_json``), the refinement and the run's setting
_ANSWER_FIELDS = ("prompt_hash", "response", "model", "base_url", "params", "usage",
                  "latency_s", "cache_hit", "attempts", "finish_reason", "truncated",
                  "reasoning", "system", "sample", "initial", "reflection",
                  "reflection_model", "refine", "critic")


@dataclass(frozen=True, slots=True)
class RunItem:
    case: dict
    messages: tuple
    prompt_hash: str

    @property
    def key(self) -> tuple[str, str]:
        return (str(self.case.get("id")), self.prompt_hash)


def plan_items(cases: Sequence[dict], refine: str | None = None) -> list[RunItem]:
    """One item per case: its prompt as one user turn (the refinement mode enters the hash:
    a refined answer is another answer)."""
    items = []
    for case in cases:
        messages = ({"role": "user", "content": case_prompt(case)},)
        h = prompt_hash([list(messages), refine])
        items.append(RunItem(case, messages, h))
    return items


def row_key(row: dict) -> tuple[str, str]:
    """The item a row answers: ``(id, prompt_hash)``."""
    return (str(row.get("id")), str(row.get("prompt_hash")))


def latest_rows(rows: Iterable[dict]) -> list[dict]:
    """One row per ``(id, prompt_hash)``: the last success, else the last failure."""
    from planning_core.validators.models.run_setting import latest_rows_by

    return latest_rows_by(rows, row_key)


def _head(item: RunItem) -> dict:
    head = {k: item.case[k] for k in _CASE_FIELDS if k in item.case}
    head["prompt_hash"] = item.prompt_hash
    return head


def _failed(item: RunItem, model, err) -> dict:
    from planning_core.validators.models.run_setting import sample_field, setting_of

    s = setting_of(model)
    system = getattr(model, "system", None)
    return {**_head(item), "model": s["model"], "base_url": s["base_url"],
            "params": s["params"], **({"system": system} if system else {}),
            **sample_field(model), "error": str(err)}


class Scorer:
    """Checks answers against cases; one compiled task per distinct task, shared by the
    threads of a run (compiling is done under a lock, checking is not shared state)."""

    def __init__(self, time_limit: float = 30.0) -> None:
        self.time_limit = time_limit
        self._lock = threading.Lock()
        self._contexts: dict[str, object] = {}

    def context(self, case: dict):
        from planning_core.validators.toolplans.context import TaskContext
        from planning_core.validators.toolplans.spec import parse_task

        key = json.dumps(case["task"], sort_keys=True)
        with self._lock:
            ctx = self._contexts.get(key)
            if ctx is None:
                ctx = TaskContext(parse_task(case["task"]))
                self._contexts[key] = ctx
        return ctx

    def __call__(self, case: dict, text: str) -> dict:
        """The answer's result, under a budget of its own (``time_limit`` CPU seconds of
        this thread, made active): compiling and grounding the case's task when it is the
        first answer on it, and every search and h* call; a limit is an ``unknown`` row
        naming it (as in ``toolplans batch``)."""
        from planning_core.limits import LimitReached, Limits, metering
        from planning_core.validators.toolplans.apb_report import check_case

        budget = Limits(time_s=self.time_limit).budget()
        try:
            with metering(budget):
                ctx = self.context(case)
                with self._lock:     # the task's caches (h*, feasibility) are filled in place
                    return check_case(ctx, case, text, time_limit=self.time_limit)
        except PlanningError as err:
            return {"verdict": "error", "correct": None, "check_error": str(err)}
        except LimitReached as stop:
            return {"verdict": "unknown", "correct": None, "limit": stop.limit,
                    "check_error": f"checking stopped at the {stop.limit} ({stop.detail}); "
                                   "no verdict"}


def _result_fields(result: dict) -> dict:
    return {k: v for k, v in result.items() if k not in ("id", "setting", "base")}


def answer_case(model, item: RunItem, *, refine: str | None = None, critic=None
                ) -> tuple[Completion, dict]:
    """Ask ``model`` the case (and refine the answer when asked): the final completion and
    the refinement's record (empty without refinement)."""
    first = ask_messages(model, list(item.messages))
    if not refine:
        return first, {}
    metric = refine.endswith("+")
    reviewer = critic if refine.startswith("critic") else model
    reflection = ask_messages(reviewer, reflection_prompt(item.case, first.text, metric))
    final = ask_messages(model, refine_prompt(item.case, first.text, reflection.text))
    return final, {"initial_response": first.text, "reflection": reflection.text,
                   "reflection_model": reflection.model}


def _scored(item: RunItem, completion: Completion, extra: dict, scorer: Scorer,
            model) -> dict:
    from planning_core.validators.models.run_setting import sample_field

    row = _head(item)
    row["response"] = completion.text
    row.update(completion.to_json())
    system = getattr(model, "system", None)
    if system:
        row["system"] = system
    row.update(sample_field(model))
    if extra:
        row["initial"] = _initial(item, extra["initial_response"], scorer)
        row["reflection"] = extra["reflection"]
        row["reflection_model"] = extra["reflection_model"]
    row.update(_result_fields(scorer(item.case, completion.text)))
    return row


def _initial(item: RunItem, text: str, scorer: Scorer) -> dict:
    """The refinement's initial answer and its result (Table 4)."""
    initial = scorer(item.case, text)
    return {"response": text, "correct": initial.get("correct"),
            "grade": initial.get("grade"), "classes": initial.get("classes", {})}


def rescored(item: RunItem, row: dict, scorer: Scorer) -> dict:
    """A success row's stored answer checked again by ``scorer`` (a larger time limit): the
    row's model fields as they were (the model is not asked again), the checker's result
    (and a refined row's initial answer's) replaced, ``rescored`` set; the limit it records
    is the new one (written by the run loop)."""
    from planning_core.results_file import LIMIT_FIELD

    result = scorer(item.case, str(row.get("response") or ""))
    new = {k: v for k, v in row.items()
           if k != LIMIT_FIELD and (k in _CASE_FIELDS or k in _ANSWER_FIELDS)}
    if isinstance(row.get("initial"), dict) and "response" in row["initial"]:
        new["initial"] = _initial(item, str(row["initial"]["response"]), scorer)
    new.update(_result_fields(result))
    new["rescored"] = True
    return new


def run_cases(model, items: Sequence[RunItem], *, refine: str | None = None, critic=None,
              concurrency: int = 4, time_limit: float = 30.0) -> Iterator[dict]:
    """Ask and score every item; yield rows as they complete (see the module doc). A
    :class:`ModelUnavailable` (of the model or the critic) stops the run after the rows
    already answered are yielded."""
    scorer = Scorer(time_limit)
    arm(model, len(items))
    if critic is not None and critic is not model:
        arm(critic, len(items))
    def ask(item):
        return answer_case(model, item, refine=refine, critic=critic)

    for item, answered, err in ask_each(ask, items, concurrency=concurrency,
                                        thread_name="toolplans-run"):
        if err is not None:
            yield _failed(item, model, err)
        else:
            completion, extra = answered
            yield _scored(item, completion, extra, scorer, model)
