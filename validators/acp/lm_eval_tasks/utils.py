"""lm-evaluation-harness glue for the ``planning_core_acp_*`` tasks.

The harness imports this file next to the YAML files (``!function utils.name``).

* :func:`load_questions` (``custom_dataset``): the questions of one task from a local file
  or folder (any format ``acp score --questions`` reads), named by the harness's
  ``--metadata '{"questions": PATH}'`` or the environment variable
  ``PLANNING_CORE_ACP_QUESTIONS``; there is no download.
* :func:`doc_to_text` / :func:`doc_to_target`: the same prompt and example answers as
  ``planning-core acp run`` (:mod:`planning_core.validators.acp.prompts`).
* ``paper_shots_<task>`` (``fewshot_config.samples``): the paper's two static examples of
  each task, as documents :func:`doc_to_text` and :func:`doc_to_target` render exactly as
  the built-in ``acp_*_gen`` tasks render theirs.
* :func:`process_results`: :func:`planning_core.validators.acp.scoring.score` on the
  response. It reports two metrics: ``score`` (1 right, 0 wrong, None when the scorer hit
  a limit) aggregated by :func:`mean_right` as right / answers -- the headline accuracy of
  ``acp run``, ``acp score`` and the Inspect tasks: an unknown is not right -- and
  ``unknown`` (1 when the verdict is unknown), the unknowns shown apart.
"""
from __future__ import annotations

import json
import os

__all__ = ["load_questions", "doc_to_text", "doc_to_target", "process_results",
           "mean_known", "mean_right", "paper_shots_app", "paper_shots_prog",
           "paper_shots_reach", "paper_shots_areach", "paper_shots_val", "paper_shots_just",
           "paper_shots_land", "paper_shots_nexta"]

ENV = "PLANNING_CORE_ACP_QUESTIONS"


def load_questions(task: str = "", questions: str | None = None, **_: object):
    import datasets

    from planning_core.errors import InputError
    from planning_core.validators.acp.dataset import load_questions as load

    path = questions or os.environ.get(ENV)
    if not path:
        raise InputError(f"say where the questions are: --metadata '{{\"questions\": PATH}}' "
                         f"or the environment variable {ENV}")
    rows = []
    for q in load(path):
        if q.task != task:
            continue
        rows.append({"id": q.id, "task": q.task, "context": q.context,
                     "question": q.question,
                     "record": json.dumps({"id": q.id, "group": q.group, "context": q.context,
                                           "question": q.question, "answer": q.answer,
                                           "PDDL_domain": q.domain_text,
                                           "PDDL_problem": q.problem_text})})
    if not rows:
        raise InputError(f"no {task} question found", file=str(path))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)})


def _question(doc: dict):
    from planning_core.validators.acp.records import Question

    return Question.from_record(json.loads(doc["record"]))


def doc_to_text(doc: dict) -> str:
    from planning_core.validators.acp.prompts import question_text

    if "record" not in doc:    # one of the paper's examples
        return doc["prompt"]
    return question_text(_question(doc))


def doc_to_target(doc: dict) -> str:
    from planning_core.validators.acp.prompts import shot_answer

    if "record" not in doc:
        return doc["answer"]
    return shot_answer(_question(doc))


def _paper_shots(task: str) -> list[dict]:
    from planning_core.validators.acp.prompts import paper_examples

    return [{"task": task, "prompt": prompt, "answer": answer}
            for prompt, answer in paper_examples(task)]


def paper_shots_app() -> list[dict]:
    return _paper_shots("app")


def paper_shots_prog() -> list[dict]:
    return _paper_shots("prog")


def paper_shots_reach() -> list[dict]:
    return _paper_shots("reach")


def paper_shots_areach() -> list[dict]:
    return _paper_shots("areach")


def paper_shots_val() -> list[dict]:
    return _paper_shots("val")


def paper_shots_just() -> list[dict]:
    return _paper_shots("just")


def paper_shots_land() -> list[dict]:
    return _paper_shots("land")


def paper_shots_nexta() -> list[dict]:
    return _paper_shots("nexta")


def process_results(doc: dict, results: list) -> dict:
    from planning_core.errors import PlanningError
    from planning_core.validators.acp.scoring import score

    response = results[0] if results else ""
    try:
        value = score(_question(doc), response).value
    except PlanningError:  # the question itself is unusable: nobody knows
        value = None
    return {"score": value, "unknown": 1 if value is None else 0}


def mean_right(values: list) -> float:
    """Right / answers: an unknown verdict (None) is not right (counted by ``unknown``)."""
    return sum(1 for v in values if v == 1) / len(values) if values else float("nan")


def mean_known(values: list) -> float:
    """The mean of the known verdicts (unknowns are counted by the ``unknown`` metric)."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else float("nan")
