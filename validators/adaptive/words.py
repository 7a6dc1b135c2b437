"""The words condition: the task as a household request, the plan in words, a reader that
maps it onto the domain's actions, and what the user says.

AdaPlanBench's agent gets the user's query in words, the dialogue and the feedback (Figure
18, L377); the action space is open (L19, L464, L476) and the plan is text. In the words
condition (``condition="words"``) the environment shows the request only
(:func:`request_in_words`: the jobs, no list of usable tools or materials), and a plan in
words is mapped onto the domain's actions by a **reader** before it is checked exactly as
a PDDL plan is:

* :class:`ModelReader` asks a model (the shared model client). It sees the whole task (the
  environment's knowledge, never shown to the agent) and the numbered steps, and answers
  in JSON which actions each step stands for (the walking and picking up a step implies
  included) or why it cannot be mapped. Every mapping is kept in the turn's row; a step
  it cannot map, and any answer that is not such JSON, makes the step (or the whole plan)
  *unreadable*, and the feedback says which step could not be followed.
* :class:`RulesReader` maps the fixed step sentences :func:`say` writes (``pick up: iron,
  hall``) back to actions: the reader of the scripted agents, the project's, not the
  paper's.

:func:`spoken` is what a user says about a disclosed constraint ("There is no iron at
home.", "I'd rather not use anything high-heat on the shirt."): no constraint id, no plan
step, and never which object has the attribute (the paper hides attributes, L39).
"""
from __future__ import annotations

import json
import re

from planning_core import safe_json
from planning_core.pddl import ast as pddl
from planning_core.pddl.writer import write_domain, write_problem

__all__ = ["request_in_words", "say", "words_plan", "split_steps", "RulesReader",
           "ModelReader", "reader_prompt", "parse_mapping", "spoken", "MAX_WORD_STEPS",
           "simulator_prompt", "parse_simulated"]

#: Most steps read from a plan in words (each costs the reader's attention); more make
#: the turn unreadable.
MAX_WORD_STEPS = 200
MAX_READER_CHARS = 200_000
MAX_STEP_CHARS = 1_000
KEPT_CHARS = 500
_ACTION = re.compile(r"^\(\s*[A-Za-z][\w-]*(\s+[\w-]+)*\s*\)$")
_NUMBER = re.compile(r"^\s*(?:step\s*)?\d+\s*[.):]\s*|^\s*[-*•]\s+", re.I)


def _words(name: str) -> str:
    return name.replace("-", " ").replace("_", " ")


def request_in_words(problem: pddl.Problem) -> str:
    """The household request of a problem: its jobs in words (``remove the wrinkles from
    the shirt``) for the generated household-jobs tasks, the goal's facts in words for any
    other task. No object beyond those of the goal is named."""
    from planning_core.validators.adaptive.household_catalog import JOBS

    item_job = {item: words for _, (_, _, items, words) in JOBS.items() for item in items}
    jobs = []
    for atom in _goal_atoms(problem.goal):
        if atom.predicate == "done" and len(atom.args) == 1 and atom.args[0] in item_job:
            jobs.append(f"{item_job[atom.args[0]]} the {_words(atom.args[0])}")
        else:
            jobs.append("make it true that " + " ".join(
                _words(x) for x in (atom.predicate, *atom.args)))
    what = jobs[0] if len(jobs) == 1 else ", ".join(jobs[:-1]) + " and " + jobs[-1]
    return (f"You are at home and want to {what}. How do you do it? Write the plan as "
            "numbered steps in words, one step a line.")


def _goal_atoms(goal) -> list:
    if isinstance(goal, pddl.Atom):
        return [goal]
    return [a for part in getattr(goal, "parts", ()) for a in _goal_atoms(part)]


def say(step: str) -> str:
    """One PDDL step as the scripted agents write it in words: ``(pick-up iron hall)`` ->
    ``pick up: iron, hall``."""
    words = step.strip().strip("()").split()
    if not words:
        return ""
    return f"{_words(words[0])}: {', '.join(words[1:])}"


def words_plan(pddl_plan: str) -> str:
    """A PDDL plan as numbered steps in words (:func:`say`)."""
    steps = [s for s in pddl_plan.splitlines() if s.strip() and not s.strip().startswith(";")]
    return "\n".join(f"{i}. {say(s)}" for i, s in enumerate(steps, start=1))


def split_steps(text: str) -> list[str]:
    """The steps of a plan in words: its non-empty lines, numbering and bullets removed."""
    out = []
    for line in (text or "").splitlines():
        line = _NUMBER.sub("", line.strip(), count=1).strip()
        if line:
            out.append(line[:MAX_STEP_CHARS])
    return out


def _step_record(step: str, actions=None, unreadable: str | None = None) -> dict:
    if unreadable is not None:
        return {"step": step, "unreadable": unreadable[:KEPT_CHARS]}
    return {"step": step, "actions": list(actions)}


class RulesReader:
    """Reads the sentences of :func:`say` (``pick up: iron, hall``) back as actions of the
    domain; anything else is an unreadable step."""

    name = "rules"

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem) -> None:
        self.actions = {_words(a.name): a for a in domain.actions}

    def __call__(self, steps: list[str]) -> dict:
        mapping = []
        for step in steps:
            head, sep, rest = step.partition(":")
            action = self.actions.get(head.strip().lower())
            args = [a.strip().lower() for a in rest.split(",") if a.strip()]
            if not sep or action is None:
                mapping.append(_step_record(step, unreadable="not of the form 'action: "
                                                             "argument, argument'"))
            elif len(args) != len(action.parameters):
                mapping.append(_step_record(step, unreadable=f"{action.name} takes "
                                                             f"{len(action.parameters)} "
                                                             "argument(s)"))
            else:
                mapping.append(_step_record(step, [f"({action.name} {' '.join(args)})"]))
        return {"reader": self.name, "steps": mapping}


def reader_prompt(domain: pddl.Domain, problem: pddl.Problem, steps: list[str]) -> str:
    numbered = "\n".join(f"{i}. {s}" for i, s in enumerate(steps, start=1))
    return ("You map a household plan written in words onto the actions of a PDDL domain. "
            "For each numbered step, give the ground actions (action name and objects of "
            "the problem, in PDDL syntax) it stands for, in order, including the walking "
            "between rooms, picking up and putting down that the step implies from where "
            "things are. A step that says nothing to do gives an empty list. A step that "
            "needs something the problem does not have, or that you cannot map, is "
            "unreadable: give the reason in a few words. Do not repair or improve the "
            "plan: map what it says.\n\n"
            f"Domain:\n{write_domain(domain)}\nProblem:\n{write_problem(problem)}\n"
            f"Plan in words:\n{numbered}\n\n"
            "Answer with one JSON object and nothing else: {\"steps\": [{\"step\": 1, "
            "\"actions\": [\"(action arg ...)\", ...]}, {\"step\": 2, \"unreadable\": "
            "\"reason\"}, ...]} with one entry per step, in order.")


def parse_mapping(text, steps: list[str]) -> list[dict]:
    """The reader's answer as one record per step; :class:`ValueError` (why) when the
    answer is not the JSON asked for. A step whose entry is missing or malformed, or whose
    actions are not of the form ``(name arg ...)``, is an unreadable step."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty answer")
    if len(text) > MAX_READER_CHARS:
        raise ValueError(f"the answer is too long ({len(text)} characters)")
    start = text.find("{")
    value = None
    while start >= 0:
        try:
            value, _ = safe_json.raw_decode(text, start)
            if isinstance(value, dict) and isinstance(value.get("steps"), list):
                break
        except (json.JSONDecodeError, ValueError):
            pass
        value = None
        start = text.find("{", start + 1)
    if value is None:
        raise ValueError("no JSON object with a list of steps")
    by_index: dict[int, dict] = {}
    for n, entry in enumerate(value["steps"], start=1):
        if not isinstance(entry, dict):
            continue
        index = entry.get("step", n)
        if isinstance(index, int) and not isinstance(index, bool) and index not in by_index:
            by_index[index] = entry
    out = []
    for i, step in enumerate(steps, start=1):
        entry = by_index.get(i)
        if entry is None:
            out.append(_step_record(step, unreadable="the reader gave no mapping"))
        elif "unreadable" in entry:
            out.append(_step_record(step, unreadable=str(entry["unreadable"])))
        elif isinstance(entry.get("actions"), list) and all(
                isinstance(a, str) and _ACTION.match(a.strip()) for a in entry["actions"]):
            out.append(_step_record(step, [a.strip().lower() for a in entry["actions"]]))
        else:
            out.append(_step_record(step, unreadable="the reader's mapping is not a list "
                                                     "of actions"))
    return out


class ModelReader:
    """A model (the shared model client, ``prompt -> text``) as the reader."""

    def __init__(self, model, domain: pddl.Domain, problem: pddl.Problem,
                 name: str = "model") -> None:
        self.model, self.domain, self.problem, self.name = model, domain, problem, name

    def __call__(self, steps: list[str]) -> dict:
        answer = self.model(reader_prompt(self.domain, self.problem, steps))
        try:
            return {"reader": self.name, "steps": parse_mapping(answer, steps)}
        except ValueError as err:
            kept = answer if isinstance(answer, str) else repr(answer)
            return {"reader": self.name, "error": str(err), "answer": kept[:KEPT_CHARS],
                    "steps": [_step_record(s, unreadable="the reader's answer could not "
                                                         "be read") for s in steps]}


def spoken(c) -> str:
    """What the user says about constraint ``c`` (no id, no step, no object's attribute):
    the paper's examples are "there is no iron at home" and "I am concerned about using
    tools that generate high heat" (L36, L39)."""
    if c.kind == "object_unavailable":
        return f"There is no {_words(c.object)} at home."
    if c.kind == "avoid_attribute_use" and c.target:
        return f"I'd rather not use anything {_words(c.attribute)} on the " \
               f"{_words(c.target)}."
    if c.kind == "avoid_attribute_use":
        return f"I'd rather not use anything {_words(c.attribute)}."
    if c.kind == "action_unusable":
        return f"Nobody can {_words(c.action)} here."
    if c.kind == "limited_use":
        times = "once" if c.limit == 1 else f"{c.limit} times"
        return f"The {_words(c.object)} can be used at most {times}."
    return c.text.split(":")[0].rstrip(".") + "."


MAX_SIMULATED_CHARS = 4_000


def simulator_prompt(new: list[str], repeated: list[str]) -> str:
    """The user simulator's prompt (the paper's Figure 15, L308, L313): only what the user
    says about the constraints selected this turn (:func:`spoken`), new ones and those
    told before, to be said to the assistant in the user's own words."""
    parts = ["You are a person at home talking to an assistant that proposed a plan for "
             "your household task. Tell the assistant, briefly and in your own words as the "
             "user, why the plan does not work for you. Say only what is listed below; add "
             "no other reason and no suggestion."]
    if new:
        parts.append("What you tell it now:\n" + "\n".join(f"- {s}" for s in new))
    if repeated:
        parts.append("What you told it before and it ignored again (remind it that you "
                     "said so already):\n" + "\n".join(f"- {s}" for s in repeated))
    parts.append("Answer with what you say to the assistant, nothing else.")
    return "\n\n".join(parts)


def parse_simulated(text) -> str:
    """The simulator's words; :class:`ValueError` for an empty or oversized answer."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty answer")
    if len(text) > MAX_SIMULATED_CHARS:
        raise ValueError(f"the answer is too long ({len(text)} characters, limit "
                         f"{MAX_SIMULATED_CHARS})")
    return text.strip()
