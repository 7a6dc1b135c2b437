"""``ast.literal_eval`` of one printed line, metered: a long line is read in bounded pieces.

A sandboxed z3 program may print its plan as one Python literal on one line (up to the
1 MB output cap). ``ast.literal_eval`` builds the whole syntax tree in one C call that no
budget tick can interrupt: a 1 MB one-line list of tuples takes about 0.5 CPU-s, and it
overran a 0.5 s limit by 0.15 s (issue 19). Here a line of at most :data:`CHUNK`
characters still goes to ``literal_eval`` whole (every ordinary plan line does), and a
longer one is split by a scanner that ticks the active budget
(:func:`planning_core.limits.tick_active`) at every bracket, comma and string: its
top-level items are evaluated in batches of at most :data:`CHUNK` characters, an item
longer than that is read the same way one level down, and each piece of text is
charged a tick per two characters handed to ``literal_eval``, so the clock is read after
at most about 8 KB of it (``CHECK_EVERY`` ticks, about 5 ms). So the time spent past a
limit is a few milliseconds (measured: under 8 ms on 1 MB lines at a 0.5 s limit, where
one ``literal_eval`` call overran it by 0.15 s).

The value is the one ``literal_eval`` gives, or :class:`NotLiteral` where it raises, with
one exception, on purpose: a piece over :data:`CHUNK` characters that is neither made of
brackets and commas nor only of string literals (a number, a sum) is not a literal here.
No such piece is a plan (an ``int`` over 4,300 digits is refused by Python itself), and
``literal_eval`` can spend a quarter of a second refusing one (``1+1+...+1``, 800 KB).
"""
from __future__ import annotations

import ast
import re

from planning_core.limits import tick_active

__all__ = ["CHUNK", "NotLiteral", "metered_literal_eval"]

#: Longest text handed to ``ast.literal_eval`` in one call (about 1.5 ms of CPU).
CHUNK = 4096
#: Nesting deeper than this is not read (CPython's parser refuses 200 levels anyway).
MAX_DEPTH = 200

_SPECIAL = re.compile(r"""['"\[\](){},:#]""")
# string literals, loops unrolled so that a 1 MB string is one fast scan (no alternation
# per character); a backslash escapes the next character, raw strings included
_STRING_BODY = "|".join([
    r"'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''",
    r'"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""',
    r"'[^'\\]*(?:\\.[^'\\]*)*'",
    r'"[^"\\]*(?:\\.[^"\\]*)*"',
])
_STRING = re.compile(_STRING_BODY, re.S)
_STRINGS_ONLY = re.compile(r"(?:\s*[rRbBuUfF]{0,2}(?:%s))+\s*" % _STRING_BODY, re.S)
_CLOSING = {"[": "]", "(": ")", "{": "}"}
_ERRORS = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError, OverflowError)


class NotLiteral(Exception):
    """The text is not a Python literal (``literal_eval`` would raise)."""


def metered_literal_eval(text: str):
    """``ast.literal_eval(text)`` read in bounded, metered pieces (see the module doc);
    raises :class:`NotLiteral` for text that is not a literal, and
    :class:`~planning_core.limits.LimitReached` when the active budget runs out."""
    if len(text) <= CHUNK:
        return _eval(text)
    try:
        return _frame_value(text, _scan(text), 0)
    except RecursionError:     # 200 levels of big groups in a deep caller
        raise NotLiteral from None


def _eval(piece: str):
    # a tick per 2 characters: the budget looks at its clock every CHECK_EVERY (4,096)
    # ticks, i.e. after at most about 8 KB of literal_eval (about 5 ms), also over many
    # short lines; a short line alone never reaches a clock reading
    tick_active(1 + len(piece) // 2)
    try:
        return ast.literal_eval(piece)
    except _ERRORS:
        raise NotLiteral from None


class _Frame:
    """A bracket group (``opener`` ``[``, ``(`` or ``{``; None for the whole line) that
    opens at ``open`` and closes at ``close``, split into items at its commas: item ``k``
    spans ``[starts[k], ends[k])``, has its first ``:`` at ``colons[k]`` (-1: none), and
    ``children[k]`` lists the groups over :data:`CHUNK` characters directly inside it.
    Plain lists of ints: a 1 MB line has 250,000 items, and as objects they cost the
    garbage collector tens of milliseconds that no tick sees."""

    __slots__ = ("opener", "open", "close", "starts", "ends", "colons", "children")

    def __init__(self, opener: str | None, open_at: int) -> None:
        self.opener, self.open, self.close = opener, open_at, None
        self.starts, self.ends, self.colons = [open_at + 1], [open_at + 1], [-1]
        self.children: dict[int, list[_Frame]] = {}


def _scan(text: str) -> _Frame:
    """The line's bracket structure in one pass: brackets matched, strings skipped, commas
    and colons found per level, a top-level ``#`` comment dropped. Only groups over
    :data:`CHUNK` characters are kept (a smaller one is handed to ``literal_eval`` whole).
    Ticks the active budget per bracket, comma, colon and string."""
    top = _Frame(None, -1)
    stack = [top]
    hi = len(text)
    pos = 0
    while True:
        m = _SPECIAL.search(text, pos)
        if m is None:
            break
        tick_active()
        c, at = m.group(), m.start()
        if c in "'\"":
            s = _STRING.match(text, at)
            if s is None:
                raise NotLiteral        # an unterminated string
            tick_active(len(s.group()) // 64)
            pos = s.end()
            continue
        pos = at + 1
        frame = stack[-1]
        if c in "[({":
            if len(stack) > MAX_DEPTH:
                raise NotLiteral
            stack.append(_Frame(c, at))
        elif c in "])}":
            if len(stack) == 1 or _CLOSING[frame.opener] != c:
                raise NotLiteral
            stack.pop()
            frame.close = frame.ends[-1] = at
            if at + 1 - frame.open > CHUNK:     # the group is text[open:at + 1]
                parent = stack[-1]
                parent.children.setdefault(len(parent.starts) - 1, []).append(frame)
        elif c == "#":
            if len(stack) > 1:
                raise NotLiteral        # the comment runs to the end: brackets stay open
            hi = at
            break
        elif c == ",":
            frame.ends[-1] = at
            frame.starts.append(at + 1)
            frame.ends.append(at + 1)
            frame.colons.append(-1)
        elif frame.colons[-1] < 0:
            frame.colons[-1] = at
    if len(stack) > 1:
        raise NotLiteral
    top.ends[-1] = hi
    return top


def _bounds(text: str, a: int, b: int) -> tuple[int, int]:
    """``[a, b)`` without its surrounding blanks (a tick: called once per item)."""
    tick_active()
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _span_value(text: str, a: int, b: int, children, depth: int):
    """The value of ``text[a:b]``: one item of a group, or a dict item's key or value."""
    a, b = _bounds(text, a, b)
    if b - a <= CHUNK:
        return _eval(text[a:b])
    for child in children or ():
        if child.open == a and child.close + 1 == b:
            return _frame_value(text, child, depth + 1)
    if _STRINGS_ONLY.fullmatch(text, a, b):
        return _eval(text[a:b])                # adjacent strings: one linear C call
    raise NotLiteral                           # a long number or sum: not a plan


def _frame_value(text: str, frame: _Frame, depth: int):
    if frame.opener in (None, "(") and len(frame.starts) == 1:
        a, b = _bounds(text, frame.starts[0], frame.ends[0])
        if a == b:
            if frame.opener is None:
                raise NotLiteral
            return ()
        return _span_value(text, a, b, frame.children.get(0), depth)   # parentheses only
    values = _elements(text, frame, depth)
    return values if frame.opener in ("[", "{") else tuple(values)


def _elements(text: str, frame: _Frame, depth: int):
    """The values of a group's items: small neighbours evaluated together (at most
    :data:`CHUNK` characters a call), a long item read by :func:`_span_value`; a dict or a
    set for ``{``."""
    opener, colons = frame.opener, frame.colons
    count = len(frame.starts)
    lows, highs = [], []
    for k in range(count):
        a, b = _bounds(text, frame.starts[k], frame.ends[k])
        lows.append(a)
        highs.append(b)
    if count > 1 and lows[-1] == highs[-1]:
        count -= 1                              # a trailing comma
    elif count == 1 and lows[0] == highs[0]:
        return {} if opener == "{" else []
    is_dict = opener == "{" and colons[0] >= 0
    for k in range(count):
        tick_active()
        if lows[k] == highs[k]:
            raise NotLiteral                    # ", ,"
        if (colons[k] >= 0) != is_dict:
            raise NotLiteral                    # a colon outside a dict, or a set mixed in
    values: list = []
    k = 0
    while k < count:
        a, b = lows[k], highs[k]
        if b - a > CHUNK:
            children = frame.children.get(k)
            if is_dict:
                values.append((_span_value(text, a, colons[k], children, depth),
                               _span_value(text, colons[k] + 1, b, children, depth)))
            else:
                values.append(_span_value(text, a, b, children, depth))
            k += 1
            continue
        j = k + 1          # neighbours up to CHUNK characters, one literal_eval call
        while j < count and highs[j] - a <= CHUNK:
            j += 1
        end = highs[j - 1]
        if is_dict:
            values.extend(_eval("{" + text[a:end] + "}").items())
        else:
            values.extend(_eval("[" + text[a:end] + "]"))
        k = j
    try:
        if is_dict:
            return dict(values)
        return set(values) if opener == "{" else values
    except TypeError:                           # an unhashable key or element
        raise NotLiteral from None
