"""Constructed wrong answers: four per question, each of which must score 0.

They exercise every path of the scorers, not only the stored sets: a reachable atom that is
one action away (decided by search), an action that becomes applicable after one step, an
undeclared action or predicate, an effect moved between the two lists, an index off by
one, the unchanged and the reversed plan, a stored non-landmark (one the landmark test
confirms: the stored set has errors) and a goal atom, a stored non-optimal action. The tests assert they all score 0; the benchmark times them next to
the gold answers.
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.problem import ProblemInfo
from planning_core.validators.acp.question_text import question_plan
from planning_core.validators.acp.records import Question
from planning_core.validators.acp.scorers.base import ScoreContext
from planning_core.validators.acp.scorers.land import landmark_verdict
from planning_core.validators.acp.scorers.plan import first_inapplicable

__all__ = ["Perturbation", "perturbations"]

UNDECLARED_ACTION = "(teleport-everything x0 y0)"
UNDECLARED_ATOM = "(levitating x0)"


@dataclass(frozen=True, slots=True)
class Perturbation:
    kind: str
    response: str


def _text(atom: tuple[str, ...]) -> str:
    return "(" + " ".join(atom) + ")"


def _one_step(info: ProblemInfo):
    """(atom made true by an applicable action, action applicable only after one step)."""
    task = info.task
    state = task.init
    now = {str(a) for a in task.applicable(state)}
    atom = action = None
    for a in task.applicable(state):
        after = task.progress(state, a)
        new = after & ~state
        if atom is None and new:
            atom = task.facts.atom((new & -new).bit_length() - 1)
        if action is None:
            later = [str(b) for b in task.applicable(after) if str(b) not in now]
            action = later[0] if later else None
        if atom is not None and action is not None:
            break
    return atom, action


def _app(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    truth = sorted(_text(n) for n in info.applicable_names())
    task = info.task
    other = next((str(a) for a in task.actions if (a.name, *a.args) not in info.applicable_names()),
                 UNDECLARED_ACTION)
    return [Perturbation("drop-one", " ".join(truth[1:]) or "None"),
            Perturbation("add-undeclared", " ".join(truth + [UNDECLARED_ACTION])),
            Perturbation("add-inapplicable", " ".join(truth + [other])),
            Perturbation("only-first", truth[0] if len(truth) > 1 else "None")]


def _prog(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    pos = [str(x) for x in q.answer.get("pos") or ()]
    neg = [str(x) for x in q.answer.get("neg") or ()]
    fmt = lambda p, n: f"[{', '.join(p)}] [{', '.join(n)}]"  # noqa: E731
    out = []
    if pos:
        out.append(Perturbation("pos-to-neg", fmt(pos[1:], neg + pos[:1])))
    if neg:
        out.append(Perturbation("neg-to-pos", fmt(pos + neg[:1], neg[1:])))
    out.append(Perturbation("swapped", fmt(neg, pos)))
    out.append(Perturbation("extra-atom", fmt(pos + [UNDECLARED_ATOM], neg)))
    if len(out) < 4:
        out.append(Perturbation("no-effects", "[] []"))
    return out[:4]


def _reach(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    atom, _ = _one_step(info)
    in_state = sorted(a for a in info.init_atoms if not info.is_static(a[0]))
    out = []
    if atom is not None:
        out.append(Perturbation("reachable-in-one-step", _text(atom)))
    else:  # no applicable action adds an atom: the initial state is a dead end
        notes.append("reachable-in-one-step left out: no action applicable in the initial "
                     "state makes a new atom true")
    if in_state:
        out.append(Perturbation("true-now", _text(in_state[0])))
    else:
        notes.append("true-now left out: the initial state has no fluent atom")
    out.append(Perturbation("undeclared", UNDECLARED_ATOM))
    if q.answer:
        out.append(Perturbation("none", "None"))
    elif in_state:
        out.append(Perturbation("true-now-bare", " ".join(in_state[0])))
    return out


def _areach(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    _, later = _one_step(info)
    now = sorted(_text(n) for n in info.applicable_names())
    if not now:
        notes.append("applicable-after-one-step, applicable-now and wrong-arity left out: "
                     "no action is applicable in the initial state")
        return [Perturbation("undeclared", UNDECLARED_ACTION)] + \
            ([Perturbation("none", "None")] if q.answer else [])
    return [Perturbation("applicable-after-one-step", later or now[-1]),
            Perturbation("applicable-now", now[0]),
            Perturbation("undeclared", UNDECLARED_ACTION),
            Perturbation("none" if q.answer else "wrong-arity",
                         "None" if q.answer else now[0][:-1] + " extra)")]


def _val(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    truth = first_inapplicable(q, ScoreContext(info))
    n = len(question_plan(q))
    if truth is None:
        return [Perturbation(f"index-{k}", str(k)) for k in (0, 1, n - 1, n)]
    below = truth - 1 if truth > 0 else truth + 2
    return [Perturbation("plus-one", str(truth + 1)), Perturbation("minus-one", str(below)),
            Perturbation("none", "None"), Perturbation("last", str(n if truth != n else n + 1))]


def _just(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    plan = [str(s) for s in question_plan(q)]
    return [Perturbation("unchanged", " ".join(plan)),
            Perturbation("reversed", " ".join(reversed(plan))),
            Perturbation("undeclared-step", " ".join(plan[:-2] + [UNDECLARED_ACTION])),
            Perturbation("empty", "[]")]


def _land(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    goal = sorted(info.goal_atoms or ())
    in_state = sorted(a for a in info.init_atoms if not info.is_static(a[0]))
    out = []
    # the stored non-landmarks include true landmarks (see scorers.land): take the first
    # one that the landmark test confirms
    ctx = ScoreContext(info)
    for text in q.answer.get("no") or ():
        name = GroundName.from_text(str(text))
        if landmark_verdict(ctx, (name.name, *name.args)).value == 0:
            out.append(Perturbation("stored-no", str(text)))
            break
    if goal:
        out.append(Perturbation("goal-atom", _text(goal[0])))
    if in_state:
        out.append(Perturbation("true-now", _text(in_state[0])))
    else:
        notes.append("true-now left out: the initial state has no fluent atom")
    out.append(Perturbation("undeclared", UNDECLARED_ATOM))
    if q.answer.get("yes"):
        out.append(Perturbation("none", "None"))
    return out[:4]


def _nexta(q: Question, info: ProblemInfo, notes: list[str]) -> list[Perturbation]:
    no = [str(x) for x in q.answer.get("no") or ()]
    task = info.task
    inapplicable = next((str(a) for a in task.actions if not a.applicable(task.init)),
                        UNDECLARED_ACTION)
    out = [Perturbation("stored-no", n) for n in no[:2]]
    out += [Perturbation("inapplicable", inapplicable),
            Perturbation("undeclared", UNDECLARED_ACTION), Perturbation("none", "None"),
            Perturbation("wrong-arity", str(task.actions[0])[:-1] + " extra)")]
    return out[:4]


_MAKERS = {"app": _app, "prog": _prog, "reach": _reach, "areach": _areach, "val": _val,
           "just": _just, "land": _land, "nexta": _nexta}


def perturbations(q: Question, info: ProblemInfo,
                  notes: list[str] | None = None) -> tuple[Perturbation, ...]:
    """Up to four wrong answers to ``q`` (never the gold answer itself).

    A perturbation the problem cannot give (a reach question whose initial state has no
    action that makes a new atom true has no one-step-reachable atom) is left out, with a
    sentence saying so appended to ``notes`` when the caller passes a list."""
    gold = gold_answer(q)
    made = [p for p in _MAKERS[q.task](q, info, [] if notes is None else notes)
            if p.response != gold]
    return tuple(made[:4])
