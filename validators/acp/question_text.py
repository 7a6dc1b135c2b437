"""What a question's text tells beyond the PDDL: the plan (val, just) and the action (prog).

The plan of a ``val`` or ``just`` question is quoted in the question: ``... sequence of
actions: "(board c2 l0) (debark c2 l0) ..."?``. The reference scorer cuts it out at
fixed character offsets (``question[19:-147]``), which breaks on any rewording; here the
first double-quoted run of parenthesised actions is read.

A ``prog`` question names its action in English (``"debark car c2 to location l1 from the
ferry"``), never in PDDL. The action is recovered from the objects the text mentions:
among the actions applicable in the state, those whose arguments are all mentioned and
that cover the most mentioned objects; then those whose name words appear in the text;
the stored effects break any tie that is left (they are the dataset's description of the
same action). Two candidates with the same effects are the same answer, so a remaining
tie between them does not matter.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.records import BadQuestion, Question

if TYPE_CHECKING:   # not imported at run time: val and just questions never ground
    from planning_core.ground.facts import GroundAction
    from planning_core.ground.task import Task

__all__ = ["action_words", "choose_action", "effects_of", "prog_action", "question_plan",
           "stored_effects"]

_QUOTED = re.compile(r'"([^"]*\([^"]*)"')
_ACTION = re.compile(r"\(([^()]*)\)")
_WORD = re.compile(r"[A-Za-z0-9_\-]+")


def question_plan(q: Question) -> tuple[GroundName, ...]:
    """The quoted plan of a val or just question, as ground names (lower case)."""
    match = _QUOTED.search(q.question)
    if match is None:
        raise BadQuestion(f"question {q.id}: no quoted plan in the question text")
    steps = tuple(GroundName.from_text(m.group(1)) for m in _ACTION.finditer(match.group(1))
                  if m.group(1).strip())
    if not steps:
        raise BadQuestion(f"question {q.id}: the quoted plan has no action")
    return steps


def effects_of(task: Task, state: int, action: GroundAction
               ) -> tuple[frozenset[tuple[str, ...]], frozenset[tuple[str, ...]]]:
    """Atoms that become true and atoms that become false when ``action`` is applied.

    Conditional effects are evaluated in ``state`` and deletes precede adds
    (``Task.progress``), so an atom both deleted and added stays true and is in neither set.
    """
    from planning_core.ground.facts import bits

    after = task.progress(state, action)
    changed = after ^ state
    atom = task.facts.atom
    return (frozenset(atom(i) for i in bits(changed & after)),
            frozenset(atom(i) for i in bits(changed & state)))


def stored_effects(q: Question) -> tuple[frozenset, frozenset]:
    """The stored positive and negative effects as atom keys."""

    def atoms(items) -> frozenset:
        out = set()
        for text in items or ():
            name = GroundName.from_text(str(text))
            out.add((name.name, *name.args))
        return frozenset(out)
    return atoms(q.answer.get("pos")), atoms(q.answer.get("neg"))


def action_words(q: Question) -> tuple[str, set[str]]:
    """The English text naming a prog question's action (lower case) and its words."""
    match = re.search(r'action\s+"([^"]+)"', q.question) or re.search(r'"([^"]+)"', q.question)
    text = (match.group(1) if match else q.question).lower()
    return text, set(_WORD.findall(text))


def choose_action(q: Question, text: str, words: set[str], applicable: list,
                  effects: Callable[[object], tuple]) -> object:
    """Among ``applicable`` (actions with ``name`` and ``args`` all mentioned in ``words``,
    in the ground task's order), the one the question describes; ``effects(action)`` gives
    its (positive, negative) effects (see the module docstring)."""
    if not applicable:
        raise BadQuestion(f"question {q.id}: no applicable action matches {text!r}")
    best = max(len(set(a.args)) for a in applicable)
    candidates = [a for a in applicable if len(set(a.args)) == best]
    if len(candidates) > 1:
        named = [a for a in candidates
                 if set(w for w in re.split(r"[-_]", a.name) if w) <= words]
        candidates = named or candidates
    found = {a: effects(a) for a in candidates}
    if len(set(found.values())) > 1:
        stored = stored_effects(q)
        agreeing = [a for a in candidates if found[a] == stored]
        if not agreeing:
            listed = ", ".join(str(a) for a in candidates[:4])
            raise BadQuestion(f"question {q.id}: {text!r} may be any of {listed}, and none "
                              "has the stored effects")
        candidates = agreeing
    return candidates[0]


def prog_action(q: Question, task: Task) -> GroundAction:
    """The applicable action a prog question describes (see the module docstring)."""
    text, words = action_words(q)
    state = task.init
    applicable = [a for a in task.applicable(state) if set(a.args) <= words]
    return choose_action(q, text, words, applicable, lambda a: effects_of(task, state, a))
