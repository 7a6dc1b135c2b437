"""One ACPBench Hard question, as the dataset stores it, and the verdict on one answer.

The dataset (Kokel et al., "ACPBench Hard", arXiv 2503.24378; ``ibm-research/acp_bench``
configs ``acp_<task>_gen``) gives every question as ``id, group, context, question,
answer, PDDL_domain, PDDL_problem``. The problem's ``:init`` is the question's current
state (for ``just``, the plan's initial state); ``answer`` is the stored evidence, whose
shape depends on the task (see ``shared/data/README.md``). :class:`Question` keeps those
fields untouched; the task name is derived from ``group``.

:class:`Score` is what every scorer returns: ``value`` 1 (right), 0 (wrong) or None (the
solver hit a limit, so nobody knows), a one-sentence ``reason`` and ``evidence`` naming
how the verdict was reached (:data:`EVIDENCE`), so a report can count verdicts by kind.
"""
from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any, Mapping

from planning_core.errors import PlanningError
from planning_core import safe_json
from planning_core.validators.acp.defaults import MAX_RESPONSE_BYTES

__all__ = ["EVIDENCE", "GROUPS", "MAX_RESPONSE_BYTES", "TASKS", "BadQuestion", "Question",
           "Score"]


#: Dataset ``group`` -> short task name (the paper's abbreviations).
GROUPS: dict[str, str] = {
    "applicable_actions_gen": "app",
    "progression_gen": "prog",
    "reachable_atom_gen": "reach",
    "reachable_action_gen": "areach",
    "validation_gen": "val",
    "action_justification_gen": "just",
    "landmarks_gen": "land",
    "goal_closer_gen": "nexta",
}

#: The eight tasks in the paper's order.
TASKS: tuple[str, ...] = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")

#: How a verdict was reached. A report groups verdicts by these names.
EVIDENCE: dict[str, str] = {
    "unparseable": "no answer of the task's shape could be read from the response",
    "ill-formed": "the answer names an undeclared predicate, action or object, or breaks "
                  "arity or types",
    "stored-yes": "the answer is in the dataset's set of known right answers",
    "stored-no": "the answer is in the dataset's set of known wrong answers",
    "stored-none": "a None answer, settled by the stored set: right iff it is empty",
    "computed-set": "compared with the set computed from the ground task",
    "stored-set": "the answer equals the dataset's stored set (app applicable actions, prog "
                  "effects: sound on every dev question)",
    "lifted-check": "one action checked in the state by the lifted simulator (no grounding): "
                    "a listed action that does not apply, or a missed one that does",
    "in-state": "true (or applicable) in the question's state",
    "static-true": "a static atom that holds in every state",
    "static-false": "a static atom or precondition that is false, so it never holds",
    "relaxed-unreachable": "unreachable even in the delete relaxation",
    "planner-solved": "a search found a plan that reaches it",
    "planner-unsolvable": "a complete search proved it unreachable",
    "simulation": "decided by simulating the plan (lifted, without grounding)",
    "trivial": "true in the state or part of the goal, hence not a non-trivial landmark",
    "landmark-test": "decided by the landmark test (is the task unsolvable without it?)",
    "not-applicable": "the action is not applicable in the state",
    "h-star": "decided by optimal plan costs h*(s) and h*(s')",
    "all-checked": "a None answer: every candidate was checked by computation, none qualifies",
    "limit": "a solver hit its time or node limit: the verdict is unknown",
    "bad-question": "the question's PDDL or text cannot be used: the verdict is unknown",
    "too-large": "the response is longer than --max-response-bytes: not read, unknown",
    "internal-error": "scoring this answer raised an unexpected error (a bug): unknown",
    "bad-input": "the answer row itself cannot be used (not JSON, no id, a repeated or "
                 "unknown id): nothing was scored",
}


class BadQuestion(PlanningError):
    """A question record that lacks a field or whose stored answer has the wrong shape."""


@dataclass(frozen=True, slots=True)
class Score:
    """The verdict on one answer: 1, 0 or None (unknown), why, and how it was decided."""

    value: int | None
    reason: str
    evidence: str

    def __post_init__(self) -> None:
        if self.value not in (0, 1, None):
            raise ValueError(f"a score is 1, 0 or None, got {self.value!r}")
        if self.evidence not in EVIDENCE:
            raise ValueError(f"unknown evidence kind {self.evidence!r}")

    @property
    def known(self) -> bool:
        return self.value is not None

    def to_json(self) -> dict:
        return {"score": self.value, "reason": self.reason, "evidence": self.evidence}


_FIELDS = ("id", "group", "context", "question", "answer", "PDDL_domain", "PDDL_problem")


@dataclass(frozen=True, slots=True)
class Question:
    """A question record. ``answer`` is kept as stored (list, dict, int or str)."""

    id: str
    task: str
    group: str
    context: str
    question: str
    answer: Any
    domain_text: str
    problem_text: str

    @property
    def domain_name(self) -> str:
        """The ``(domain NAME)`` of the PDDL domain (lower case), read without parsing."""
        return _domain_name(self.domain_text)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, where: str = "<record>") -> Question:
        """Build from a dataset row (JSON object, parquet row as dict).

        The answer may also arrive JSON-encoded as a string (some exports store every
        answer as text); it is decoded when its task expects a list or a dict.
        """
        if not isinstance(record, Mapping):
            raise BadQuestion(f"{where}: a question is a JSON object, got "
                              f"{type(record).__name__}")
        missing = [f for f in _FIELDS if f not in record]
        if missing:
            raise BadQuestion(f"{where}: missing field(s) {', '.join(missing)}")
        group = str(record["group"])
        task = GROUPS.get(group) or (group if group in TASKS else None)
        if task is None:
            raise BadQuestion(f"{where}: unknown group {group!r} (expected one of "
                              f"{', '.join(sorted(GROUPS))})")
        answer = _decode_answer(task, record["answer"], where)
        return cls(id=str(record["id"]), task=task, group=group,
                   context=str(record["context"] or ""), question=str(record["question"]),
                   answer=answer, domain_text=str(record["PDDL_domain"]),
                   problem_text=str(record["PDDL_problem"]))

    def to_record(self) -> dict:
        return {"id": self.id, "group": self.group, "context": self.context,
                "question": self.question, "answer": self.answer,
                "PDDL_domain": self.domain_text, "PDDL_problem": self.problem_text}


def _domain_name(text: str) -> str:
    lowered = text.lower()
    i = lowered.find("(domain")
    if i < 0:
        return "?"
    rest = lowered[i + len("(domain"):].split(None, 1)
    return rest[0].rstrip(")") if rest else "?"


def _plain(value: Any) -> Any:
    """numpy arrays and other sequences from parquet readers -> plain lists."""
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    tolist = getattr(value, "tolist", None)
    if tolist is not None:
        return _plain(tolist())
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _decode_text(text: str) -> Any:
    """A stored answer kept as text: JSON, else a Python literal (Hugging Face parquet
    exports write ``"['(a x)', '(b y)']"`` and ``"{'pos': [...]}"``), read with
    ``ast.literal_eval``, which builds only literals and never runs code."""
    try:
        return safe_json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        pass
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise ValueError("neither JSON nor a Python literal") from None


def _decode_answer(task: str, answer: Any, where: str) -> Any:
    answer = _plain(answer)
    if isinstance(answer, str) and task != "val":
        try:
            answer = _plain(_decode_text(answer))
        except ValueError:
            raise BadQuestion(f"{where}: the stored answer of a {task} question is text "
                              "that is neither JSON nor a Python literal") from None
    if task in ("prog",) and not (isinstance(answer, dict) and {"pos", "neg"} <= set(answer)):
        raise BadQuestion(f"{where}: a prog answer is {{'pos': [...], 'neg': [...]}}")
    if task == "land" and not (isinstance(answer, dict) and "yes" in answer):
        raise BadQuestion(f"{where}: a land answer is {{'yes': [...], 'no': [...]}}")
    if task == "nexta" and not (isinstance(answer, dict) and "yes" in answer):
        raise BadQuestion(f"{where}: a nexta answer is {{'yes', 'no', 'maybe', 'opt'}}")
    if task in ("app", "reach", "areach", "just") and not isinstance(answer, list):
        raise BadQuestion(f"{where}: a {task} answer is a list")
    if task == "val":
        try:
            answer = int(answer)
        except (TypeError, ValueError):
            raise BadQuestion(f"{where}: a val answer is an index, got {answer!r}") from None
    return answer
