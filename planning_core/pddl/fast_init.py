"""The fast path for a problem's flat ``:init`` section.

In IPC and ACPBench problems the initial state is most of the file and is nothing but flat
atoms and ``(= (f ...) n)`` facts; one regex reads those about ten times faster than the LALR
grammar. :func:`flat_init` reads the section and blanks it (newlines kept, so every
position stays right); the parser then parses the rest and puts the atoms back.
"""
from __future__ import annotations

import re

from planning_core.pddl import ast as A

__all__ = ["FAST_INIT_MIN", "FlatInit", "flat_init"]

#: Characters: below this the grammar alone reads the file. The regex pays off on small
#: problems too: the 269 distinct problems of the ACPBench Hard dev split (median 744
#: characters) parse in 0.37 CPU s with it and 0.99 s without (issue 12), so only trivial
#: texts skip it.
FAST_INIT_MIN = 200
_INIT_HEAD = re.compile(r"\(\s*:init(?![a-z0-9_\-])")
_INIT_ITEM = re.compile(
    r"\s+|;[^\n]*"                                                     # layout
    r"|\(\s*([a-z][a-z0-9_\-]*)((?:\s+[a-z][a-z0-9_\-]*)*)\s*\)"        # (p a b)
    r"|\(\s*=\s*\(\s*([a-z][a-z0-9_\-]*)((?:\s+[a-z][a-z0-9_\-]*)*)\s*\)"
    r"\s*(-?\d+(?:\.\d+)?)\s*\)"                                         # (= (f a) 3)
    r"|(\))")                                                           # end of section


class FlatInit:
    """The ``:init`` atoms and numeric facts read, and the text with the section blanked."""

    __slots__ = ("atoms", "numeric", "blanked")

    def __init__(self, atoms, numeric, blanked) -> None:
        self.atoms, self.numeric, self.blanked = atoms, numeric, blanked


def flat_init(text: str) -> FlatInit | None:
    """Read a problem's ``:init`` with one regex instead of the LALR parser.

    In big IPC problems the initial state is most of the file and is nothing but flat
    atoms and ``(= (f ...) n)`` facts; a regex reads those about ten times faster than the
    grammar. The section's content is then blanked (newlines kept, so every position
    stays right) and the grammar parses the rest. Anything else in the section (a ``not``,
    a variable, a stray token) makes this return None and the grammar reads the whole
    file, so errors are reported exactly as without the fast path.
    """
    head = _INIT_HEAD.search(text)
    if head is None:
        return None
    atoms: list[A.Atom] = []
    numeric: list[A.NumericInit] = []
    pos = head.end()
    size = len(text)
    line, line_start, counted = 1 + text.count("\n", 0, pos), text.rfind("\n", 0, pos) + 1, pos
    match, count, rfind = _INIT_ITEM.match, text.count, text.rfind
    while pos < size:
        m = match(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m.group(6):  # the section's closing parenthesis
            break
        name = m.group(1) or m.group(3)
        if name is None:
            continue
        start = m.start(1) if m.group(1) else m.start(3)
        newlines = count("\n", counted, start)
        if newlines:  # items come in order, so the line number is kept incrementally
            line += newlines
            line_start = rfind("\n", counted, start) + 1
        counted = start
        where = A.Pos(line, start - line_start + 1)
        if m.group(1):
            atoms.append(A.Atom(name, tuple(m.group(2).split()), where))
        else:
            numeric.append(A.NumericInit(A.FunctionTerm(name, tuple(m.group(4).split()), where),
                                         float(m.group(5)), where))
    else:
        return None
    body_start, body_end = head.end(), pos - 1
    body = text[body_start:body_end]
    blanked = (text[:body_start] + "\n".join(" " * len(x) for x in body.split("\n"))
               + text[body_end:])
    return FlatInit(tuple(atoms), tuple(numeric), blanked)
