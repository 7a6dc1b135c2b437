"""Gold answers built from a question's stored data, written as a model would write them.

``check-gold`` scores these with the ordinary scorers, so it tests the parsers, the
scorers and the dataset's consistency together: every gold answer must score 1.

* app -- the stored applicable actions; prog -- ``[pos] [neg]``; reach, areach, land --
  the first stored right answer, or ``None`` when the stored set is empty; val -- the
  stored index; nexta -- the first stored optimal action.
* just -- the stored answer lists removable pieces (one action, or two consecutive ones),
  not positions that are reliable: the gold plan is the question's plan with the first
  occurrence of the first piece whose removal leaves a valid plan (checked by simulation).
"""
from __future__ import annotations

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.problem import ProblemCache
from planning_core.validators.acp.question_text import question_plan
from planning_core.validators.acp.records import BadQuestion, Question
from planning_core.validators.acp.scorers.base import ScoreContext
from planning_core.validators.acp.scorers.plan import simulate

__all__ = ["gold_answer"]


def _one(items) -> str:
    for item in items or ():
        text = str(item).strip()
        if text:
            return text if text.startswith("(") else f"({text})"
    return "None"


def _just(q: Question, cache: ProblemCache) -> str:
    plan = question_plan(q)
    info = cache.get(q.domain_text, q.problem_text)
    ctx = ScoreContext(info)
    for piece in q.answer:
        steps = tuple(GroundName.from_text(s) for s in piece if str(s).strip().startswith("("))
        if not steps:
            continue
        for start in range(len(plan) - len(steps) + 1):
            if plan[start:start + len(steps)] == steps:
                shorter = plan[:start] + plan[start + len(steps):]
                if simulate(ctx, shorter).valid:
                    return " ".join(str(s) for s in shorter)
    raise BadQuestion(f"question {q.id}: no stored piece can be removed from the plan")


def gold_answer(q: Question, cache: ProblemCache | None = None) -> str:
    """The stored answer of ``q`` as answer text (see the module docstring)."""
    a = q.answer
    if q.task == "app":
        return " ".join(str(x) for x in a) if a else "[]"
    if q.task == "prog":
        pos = ", ".join(str(x) for x in a.get("pos") or ())
        neg = ", ".join(str(x) for x in a.get("neg") or ())
        return f"[{pos}] [{neg}]"
    if q.task in ("reach", "areach"):
        return _one(a)
    if q.task == "val":
        return str(a) if int(a) >= 0 else "None"
    if q.task == "just":
        return _just(q, cache if cache is not None else ProblemCache(8))
    if q.task == "land":
        return _one(a.get("yes"))
    if q.task == "nexta":
        found = _one(a.get("yes"))
        if found == "None":
            raise BadQuestion(f"question {q.id}: no stored next action")
        return found
    raise BadQuestion(f"question {q.id}: unknown task {q.task!r}")
