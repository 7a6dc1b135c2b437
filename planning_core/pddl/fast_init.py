"""The fast paths for a problem's flat ``:init`` section and its conjunctive goal.

In IPC and ACPBench problems the initial state is most of the file and is nothing but flat
atoms and ``(= (f ...) n)`` facts; one regex reads those about ten times faster than the LALR
grammar. :func:`flat_init` reads the section and blanks it (newlines kept, so every
position stays right); the parser then parses the rest and puts the atoms back.
:func:`flat_goal` does the same for a goal ``(and (p a) ...)`` of flat atoms.
"""
from __future__ import annotations

import re

from planning_core.limits import active_budget
from planning_core.pddl import ast as pddl

__all__ = ["FAST_INIT_MIN", "FlatGoal", "FlatInit", "flat_goal", "flat_init"]

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


def _scan(text: str, pos: int, item: re.Pattern, end_group: int, name_groups: tuple[int, ...]
          ) -> tuple[list[tuple[re.Match, pddl.Pos]], int] | None:
    """The items of a section from ``pos`` to its closing parenthesis (the match of group
    ``end_group`` of ``item``), each with the position of its name (the first of
    ``name_groups`` that matched), and the end of that parenthesis; None when something
    that ``item`` does not match comes first, or the text ends."""
    out = []
    size = len(text)
    line, line_start, counted = 1 + text.count("\n", 0, pos), text.rfind("\n", 0, pos) + 1, pos
    match, count, rfind = item.match, text.count, text.rfind
    budget = active_budget()       # a 10 MB :init takes seconds: count it (limits.metering)
    while pos < size:
        if budget is not None:
            budget.tick()
        m = match(text, pos)
        if m is None:
            return None
        pos = m.end()
        if m.group(end_group):
            return out, pos
        group = next((g for g in name_groups if m.group(g)), None)
        if group is None:  # layout or a comment
            continue
        start = m.start(group)
        newlines = count("\n", counted, start)
        if newlines:  # items come in order, so the line number is kept incrementally
            line += newlines
            line_start = rfind("\n", counted, start) + 1
        counted = start
        out.append((m, pddl.Pos(line, start - line_start + 1)))
    return None


def _blank(text: str, start: int, end: int) -> str:
    """``text`` with ``text[start:end]`` replaced by spaces, its newlines kept."""
    body = text[start:end]
    return text[:start] + "\n".join(" " * len(x) for x in body.split("\n")) + text[end:]


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
    scanned = _scan(text, head.end(), _INIT_ITEM, 6, (1, 3))
    if scanned is None:
        return None
    items, end = scanned
    atoms: list[pddl.Atom] = []
    numeric: list[pddl.NumericInit] = []
    budget = active_budget()
    for m, where in items:
        if budget is not None:
            budget.tick()
        if m.group(1):
            atoms.append(pddl.Atom(m.group(1), tuple(m.group(2).split()), where))
        else:
            value = float(m.group(5))
            if value in (_INF, -_INF):    # beyond a float: the grammar reports it, located
                return None
            numeric.append(pddl.NumericInit(pddl.FunctionTerm(m.group(3), tuple(m.group(4).split()),
                                                        where), value, where))
    blanked = _blank(text, head.end(), end - 1)
    return FlatInit(tuple(atoms), tuple(numeric), blanked)


_INF = float("inf")
_GOAL_HEAD = re.compile(r"\(\s*:goal(?![a-z0-9_\-])\s*\(\s*and(?![a-z0-9_\-])")
_GOAL_ITEM = re.compile(
    r"\s+|;[^\n]*"                                                     # layout
    r"|\(\s*([a-z][a-z0-9_\-]*)((?:\s+[a-z][a-z0-9_\-]*)*)\s*\)"        # (p a b)
    r"|(\))")                                                           # end of the and
#: Words the grammar reads as connectives or keywords: an item named so is left to it.
_KEYWORDS = frozenset({"and", "or", "not", "imply", "exists", "forall", "when", "either",
                       "always", "sometime", "sometime-after", "sometime-before",
                       "at-most-once", "increase", "define", "domain", "problem", "end"})


class FlatGoal:
    """The atoms of a goal ``(and (p a) ...)`` and the text with the conjunction's body
    blanked."""

    __slots__ = ("atoms", "blanked")

    def __init__(self, atoms, blanked) -> None:
        self.atoms, self.blanked = atoms, blanked


def flat_goal(text: str) -> FlatGoal | None:
    """Read a goal that is a conjunction of flat atoms with one regex, as :func:`flat_init`
    reads ``:init``.

    Most problems' goals are ``(:goal (and (at p0 l1) (at p1 l0) ...))``; after the
    ``:init`` fast path the goal is most of what the grammar still reads (in ACPBench
    problems, more tokens than everything else together). The conjunction's body is
    blanked (newlines kept), the grammar parses ``(and )`` and the parser puts the atoms
    back. Anything else in the conjunction (a ``not``, a nested formula, a variable, a
    keyword as a name), or a second ``:goal``, makes this return None and the grammar
    reads the goal, so errors are reported exactly as without the fast path.
    """
    head = _GOAL_HEAD.search(text)
    if head is None or text.count(":goal") != 1:
        return None
    scanned = _scan(text, head.end(), _GOAL_ITEM, 3, (1,))
    if scanned is None or not scanned[0]:
        return None
    items, end = scanned
    atoms: list[pddl.Atom] = []
    for m, where in items:
        name, args = m.group(1), tuple(m.group(2).split())
        if name in _KEYWORDS or (name == "at" and args[:1] == ("end",)):
            return None
        atoms.append(pddl.Atom(name, args, where))
    blanked = _blank(text, head.end(), end - 1)
    return FlatGoal(tuple(atoms), blanked)
