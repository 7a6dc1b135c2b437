"""Markdown code fences in a model's answer, found in one linear pass.

The SMT, LTL and PDDL formalization readers all look for fenced blocks (```` ```python ````,
```` ```ltl ````, ``~~~``). A regular expression with a lazy body and a back-reference to
the opening fence retries from every opening line that is never closed, so a response of
``"```python\\nx\\n" * 3000`` (32 KB) took 10 s of CPU. Here the fence lines are found once,
each opening line is paired with the next line that closes it (the first closing line of
the same fence after it, as the lazy pattern did), and an opening line that no later line
closes is treated as text, as the pattern's retry from the following line did.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Fenced", "fenced_blocks"]

_FENCE_LINE = {
    "run": re.compile(r"^[ \t]*(```+|~~~+)([^\n]*)$", re.MULTILINE),
    "three": re.compile(r"^[ \t]*(```|~~~)([^\n]*)$", re.MULTILINE),
}
_LANG = re.compile(r"[ \t]*([\w+-]*)")


@dataclass(frozen=True, slots=True)
class Fenced:
    """One fenced block: the word after the opening fence, and where its body lies."""

    lang: str
    start: int
    end: int
    body: str


def fenced_blocks(text: str, *, fence: str = "run") -> list[Fenced]:
    """Fenced blocks of ``text``, left to right, none inside another.

    ``fence`` is ``"run"`` (any run of three or more backticks or tildes; the closing line
    repeats it exactly) or ``"three"`` (exactly three; longer runs open a block whose
    closing line is three). The body runs from the line after the opening one to the
    start of the closing line (its last newline included).
    """
    lines = list(_FENCE_LINE[fence].finditer(text))
    # closing-capable lines: the fence alone on its line (blanks around it)
    closer = [m.group(2).strip(" \t") == "" for m in lines]
    next_close: list[int | None] = [None] * len(lines)
    latest: dict[str, int] = {}
    for i in range(len(lines) - 1, -1, -1):
        next_close[i] = latest.get(lines[i].group(1))
        if closer[i]:
            latest[lines[i].group(1)] = i
    blocks: list[Fenced] = []
    i = 0
    while i < len(lines):
        opening = lines[i]
        j = next_close[i]
        if j is None or opening.end() >= len(text):   # an opening line needs its newline
            i += 1
            continue
        body_start, body_end = opening.end() + 1, lines[j].start()
        lang = _LANG.match(opening.group(2)).group(1)
        blocks.append(Fenced(lang, body_start, body_end, text[body_start:body_end]))
        i = j + 1
    return blocks
