"""ACPBench Hard prompts, built as the paper's generative evaluation builds them.

Kokel et al., "ACPBench Hard" (arXiv 2503.24378), and the lm-evaluation-harness
``acp_*_gen`` tasks ask every question as one text::

    **Question**: <context> <question> <task instruction> **Final Answer**:

where the task instruction tells the model the answer's shape (a list of actions, two lists
of propositions, one proposition or None, an index, ...). :data:`INSTRUCTIONS` holds those
per-task sentences.

The paper's setting is 2-shot: "2-shot prompting with static examples from outside the
evaluation set. The two examples come from the grid and logistics domains, one each per
task." :func:`paper_examples` holds them (``paper_shots.json``: context, question and answer
of each, as lm-evaluation-harness's built-in ``acp_*_gen`` tasks hold them), and
:func:`conversation` lays them out as those tasks do under a chat template
(``--apply_chat_template``, few-shot as multi-turn): one user turn per example question,
one assistant turn with its answer, then the user turn of the question asked. The other
source of examples (``shot_source="questions"``) is the question file itself: the first
``shots`` other questions of the same task, answered with their gold answer
(:func:`planning_core.validators.acp.gold.gold_answer`) written as the harness writes answers
(lists in brackets, separated by commas), in the same turn layout.

:data:`STOP_SEQUENCES` are the paper's stop sequences (the built-in tasks' ``until``);
:data:`SENT_STOP` the four of them a request carries (OpenAI-compatible APIs take at most
four; lm-evaluation-harness's chat-completions client sends the same first four).

:func:`prompt_hash` names a prompt in result rows, so a resumed run knows which questions
were already asked with exactly this prompt.
"""
from __future__ import annotations

import functools
import json
import re
from typing import Sequence

TYPE_CHECKING = False   # typing.TYPE_CHECKING: the gold scorer (the grounder, lark) is
if TYPE_CHECKING:       # imported by shot_answer when a prompt needs a shot, not by
    from planning_core.validators.acp.problem import ProblemCache   # `acp run --help`
    from planning_core.validators.acp.records import Question

__all__ = ["INSTRUCTIONS", "STOP_SEQUENCES", "SENT_STOP", "PAPER_SHOTS", "SHOT_SOURCES",
           "question_text", "shot_answer", "build_prompt", "choose_shots", "prompt_hash",
           "paper_examples", "conversation", "conversation_hash"]

#: The paper's stop sequences (lm-evaluation-harness ACPBench Hard tasks, ``until``).
STOP_SEQUENCES: tuple[str, ...] = ("\n\n\n\n", "\n\n", "**Question**:", "**Question:**",
                                   "Q:")
#: What a request carries: the first four (the API's limit, and what the harness sends).
SENT_STOP: tuple[str, ...] = STOP_SEQUENCES[:4]
#: The number of solved examples in the paper's setting.
PAPER_SHOTS = 2
#: Where few-shot examples come from: the paper's static ones, or the question file.
SHOT_SOURCES = ("paper", "questions")

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
    return _text(q.task, q.context, q.question)


def _text(task: str, context: str, question: str) -> str:
    parts = [f"**Question**: {context}", question]
    if INSTRUCTIONS.get(task):
        parts.append(INSTRUCTIONS[task])
    parts.append("**Final Answer**:")
    return " ".join(parts)


def shot_answer(q: Question, cache: ProblemCache | None = None) -> str:
    """The gold answer written as the harness's examples write it."""
    from planning_core.validators.acp.gold import gold_answer
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


@functools.cache
def _paper_shots() -> dict[str, tuple[tuple[str, str, str], ...]]:
    from importlib import resources   # here: ~10 ms that `acp run --help` need not pay
    data = json.loads(resources.files("planning_core.validators.acp")
                      .joinpath("paper_shots.json").read_text(encoding="utf-8"))
    return {task: tuple((e["context"], e["question"], e["answer"]) for e in examples)
            for task, examples in data["examples"].items()}


def paper_examples(task: str) -> tuple[tuple[str, str], ...]:
    """The paper's two examples of ``task`` as ``(prompt, answer)`` pairs (grid, then
    logistics)."""
    return tuple((_text(task, c, q), a) for c, q, a in _paper_shots()[task])


def conversation(q: Question, shots: int = PAPER_SHOTS, source: str = "paper",
                 pool: Sequence[Question] = (), cache: ProblemCache | None = None
                 ) -> list[dict[str, str]]:
    """The chat messages asking ``q`` with ``shots`` solved examples as user/assistant turns
    in front (``source``: ``paper`` -- at most the paper's two -- or ``questions``, from
    ``pool``)."""
    if source == "paper":
        available = paper_examples(q.task)
        if shots > len(available):
            raise ValueError(f"the paper has {len(available)} examples per task, not {shots}")
        pairs = list(available[:shots])
    elif source == "questions":
        pairs = [(question_text(e), shot_answer(e, cache)) for e in choose_shots(q, pool, shots)]
    else:
        raise ValueError(f"shot source must be one of {SHOT_SOURCES}, not {source!r}")
    messages: list[dict[str, str]] = []
    for prompt, answer in pairs:
        messages += [{"role": "user", "content": prompt},
                     {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": question_text(q)})
    return messages


def conversation_hash(messages: Sequence[dict]) -> str:
    """:func:`prompt_hash` of a conversation: of the text itself when it is one user turn
    (as zero-shot rows have always been named), else of the turns as JSON."""
    if len(messages) == 1 and messages[0]["role"] == "user":
        return prompt_hash(messages[0]["content"])
    return prompt_hash(json.dumps(list(messages), ensure_ascii=False, sort_keys=True))


def build_prompt(q: Question, examples: Sequence[Question] = (),
                 cache: ProblemCache | None = None) -> str:
    """The prompt for ``q`` with ``examples`` solved in front of it."""
    blocks = [f"{question_text(e)} {shot_answer(e, cache)}" for e in examples]
    blocks.append(question_text(q))
    return "\n\n".join(blocks)


def prompt_hash(prompt: str) -> str:
    import hashlib
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:16]
