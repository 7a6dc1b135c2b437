"""Where in a PDDL file a position is, for error messages.

Only used when something went wrong, so it re-scans the text up to the error instead of
tracking context during the (hot) parse: "action 'move' > :precondition" tells a user which
part of a long file to look at, as Fast Downward's parser does.
"""
from __future__ import annotations

import re

_TOKEN = re.compile(r";[^\n]*|\(|\)|[^\s()]+")
_NAMED = {":action": "action", ":derived": "derived predicate", ":durative-action": "action"}
_PARTS = {":parameters", ":precondition", ":effect", ":condition", ":duration"}


def _offset(text: str, line: int, column: int) -> int:
    idx = 0
    for _ in range(line - 1):
        nxt = text.find("\n", idx)
        if nxt < 0:
            return len(text)
        idx = nxt + 1
    return min(len(text), idx + max(column - 1, 0))


def breadcrumb(text: str, line: int, column: int) -> str:
    """The nesting at (line, column): e.g. ``action 'move' > :precondition``."""
    end = _offset(text, line, column)
    stack: list[list[str]] = []
    for m in _TOKEN.finditer(text, 0, end):
        tok = m.group()
        if tok.startswith(";"):
            continue
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if stack:
                stack.pop()
        elif stack:
            frame = stack[-1]
            if tok.lower() in _PARTS:
                frame[:] = [x for x in frame if x.lower() not in _PARTS]
            frame.append(tok)
    crumbs: list[str] = []
    for frame in stack:
        if not frame:
            continue
        head = frame[0].lower()
        if head in _NAMED and len(frame) > 1:
            crumbs.append(f"{_NAMED[head]} '{frame[1]}'")
            crumbs.extend(x for x in frame[2:] if x.lower() in _PARTS)
        elif head.startswith(":"):
            crumbs.append(head)
        elif head in ("domain", "problem") and len(frame) > 1:
            crumbs.append(f"{head} '{frame[1]}'")
    return " > ".join(crumbs)


def unclosed_paren(text: str) -> tuple[int, int] | None:
    """Line and column of the outermost '(' that is never closed, if any."""
    stack: list[int] = []
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == "(":
            stack.append(m.start())
        elif tok == ")" and stack:
            stack.pop()
    if not stack:
        return None
    # the innermost unclosed paren is the most useful place to look
    idx = stack[-1]
    line = text.count("\n", 0, idx) + 1
    return line, idx - (text.rfind("\n", 0, idx) + 1) + 1
