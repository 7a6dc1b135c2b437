"""ACPBench Hard prompts, built as the paper's generative evaluation builds them.

Kokel et al., "ACPBench Hard" (arXiv 2503.24378), and the lm-evaluation-harness
``acp_*_gen`` tasks ask every question as one text::

    **Question**: <context> <question> <task instruction> **Final Answer**:

where the task instruction tells the model the answer's shape (a list of actions, two lists
of propositions, one proposition or None, an index, ...). :data:`INSTRUCTIONS` holds those
per-task sentences. The few-shot variant (the paper's main setting uses two shots) puts
solved examples in front, each written ``<prompt> <answer>`` and separated by a blank line.
The examples here are other questions of the same task from the question file itself (the
first ``shots`` of them in file order, never the question being asked), answered with their
gold answer (:func:`planning_core.validators.acp.gold.gold_answer`) written as the harness
writes answers: lists in brackets, separated by commas.

:func:`prompt_hash` names a prompt in result rows, so a resumed run knows which questions
were already asked with exactly this prompt.
"""
from __future__ import annotations

import hashlib
import re
from typing import Sequence

from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.problem import ProblemCache
from planning_core.validators.acp.records import Question

__all__ = ["INSTRUCTIONS", "question_text", "shot_answer", "build_prompt", "choose_shots",
           "prompt_hash"]

#: Task -> the sentence that follows the question (the answer format the scorer reads).
INSTRUCTIONS: dict[str, str] = {
    "app": "Each action starts with an opening parenthesis and ends with closing "
           "parenthesis. Provide only the actions.",
    "prog": "Provide only the two lists with the ground propositions.",
    "reach": "Provide one proposition or None.",
    "areach": "Each action starts with an opening parenthesis and ends with closing "
              "parenthesis. Provide one action or None.",
    "val": "Provide only the index of the action.",
    "just": "",
    "land": "Provide only the ground proposition or None.",
    "nexta": "Each action starts with an opening parenthesis and ends with closing "
             "parenthesis. Provide only the action.",
}

_ATOM = re.compile(r"\([^()]*\)")


def question_text(q: Question) -> str:
    """The zero-shot prompt of one question."""
    parts = [f"**Question**: {q.context}", q.question]
    if INSTRUCTIONS.get(q.task):
        parts.append(INSTRUCTIONS[q.task])
    parts.append("**Final Answer**:")
    return " ".join(parts)


def shot_answer(q: Question, cache: ProblemCache | None = None) -> str:
    """The gold answer written as the harness's examples write it."""
    text = gold_answer(q, cache)
    if q.task in ("app", "just"):
        return "[" + ", ".join(_ATOM.findall(text)) + "]"
    return text


def choose_shots(q: Question, pool: Sequence[Question], shots: int) -> list[Question]:
    """The first ``shots`` questions of ``q``'s task in ``pool``, other than ``q``."""
    if shots <= 0:
        return []
    same = [p for p in pool if p.task == q.task and p.id != q.id]
    return same[:shots]


def build_prompt(q: Question, examples: Sequence[Question] = (),
                 cache: ProblemCache | None = None) -> str:
    """The prompt for ``q`` with ``examples`` solved in front of it."""
    blocks = [f"{question_text(e)} {shot_answer(e, cache)}" for e in examples]
    blocks.append(question_text(q))
    return "\n\n".join(blocks)


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]
