"""The direct finite-trace semantics of LTLf: the definition, evaluated position by position.

This module is the reference that formula progression (:mod:`.progression`) is tested
against: it shares no code with it and follows the textbook definitions literally
(De Giacomo & Vardi 2013) on the conventions of :mod:`planning_core.temporal.ltl`. A
:class:`Trace` holds the states ``s0 .. sn`` as sets of ground atoms (static atoms included)
and the actions ``a1 .. an``; position ``i`` sees ``si`` and, when ``i < n``, ``a(i+1)``:

* ``X f`` at ``i``: ``i < n`` and ``f`` at ``i + 1``; ``WX f``: ``i = n`` or ``f`` at ``i + 1``
* ``f U g`` at ``i``: some ``j`` in ``[i, n]`` has ``g``, and ``f`` holds on ``[i, j)``
* ``f R g`` at ``i``: every ``j`` in ``[i, n]`` has ``g`` or some ``k`` in ``[i, j)`` has ``f``
* ``f W g``: ``(f U g) | G f``; ``F``/``G``: some/every ``j`` in ``[i, n]``.

Evaluation is memoised on (subformula, position), so a check costs O(|f| * n^2) at worst;
it is meant for tests and for explaining a verdict, not for search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from planning_core.temporal import ltl

__all__ = ["Trace", "holds", "leaf_matches"]

GroundAtom = tuple  # (predicate, *args)


@dataclass(frozen=True, slots=True)
class Trace:
    """States ``s0 .. sn`` (frozensets of ground atoms) and actions ``a1 .. an``, each
    ``(name, *args)``."""

    states: tuple[frozenset, ...]
    actions: tuple[tuple[str, ...], ...] = ()

    def __post_init__(self) -> None:
        if not self.states:
            raise ValueError("a trace has at least the initial state")
        if len(self.actions) != len(self.states) - 1:
            raise ValueError(f"{len(self.states)} states need {len(self.states) - 1} "
                             f"actions, not {len(self.actions)}")

    @classmethod
    def of(cls, states: Iterable[Iterable[GroundAtom]],
           actions: Iterable[tuple[str, ...]] = ()) -> "Trace":
        return cls(tuple(frozenset(tuple(a) for a in s) for s in states),
                   tuple(tuple(a) for a in actions))

    @property
    def last(self) -> int:
        return len(self.states) - 1


def leaf_matches(pattern_name: str, pattern_args: tuple[str, ...], name: str,
                 args: tuple[str, ...]) -> bool:
    """Whether ``(name args)`` is an instance of the pattern (``_`` matches any object)."""
    return name == pattern_name and len(args) == len(pattern_args) and all(
        p == ltl.WILDCARD or p == a for p, a in zip(pattern_args, args))


def _atom_holds(leaf: ltl.Atom, state: frozenset) -> bool:
    if ltl.WILDCARD not in leaf.args:
        return (leaf.predicate,) + leaf.args in state
    return any(leaf_matches(leaf.predicate, leaf.args, a[0], a[1:]) for a in state)


def holds(f: ltl.Formula, trace: Trace, i: int = 0) -> bool:
    """Whether ``f`` holds at position ``i`` of ``trace`` (see the module docstring)."""
    if not 0 <= i <= trace.last:
        raise IndexError(f"position {i} is outside the trace 0..{trace.last}")
    memo: dict[tuple[int, int], bool] = {}
    n = trace.last

    def at(g: ltl.Formula, j: int) -> bool:
        key = (id(g), j)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = value(g, j)
        return hit

    def value(g: ltl.Formula, j: int) -> bool:
        if isinstance(g, ltl.Atom):
            return _atom_holds(g, trace.states[j])
        if isinstance(g, ltl.Occurs):
            if j == n:
                return False
            act = trace.actions[j]
            return leaf_matches(g.action, g.args, act[0], act[1:])
        if isinstance(g, ltl.Const):
            return g.value
        if isinstance(g, ltl.Not):
            return not at(g.body, j)
        if isinstance(g, ltl.And):
            return all(at(p, j) for p in g.parts)
        if isinstance(g, ltl.Or):
            return any(at(p, j) for p in g.parts)
        if isinstance(g, ltl.Implies):
            return not at(g.left, j) or at(g.right, j)
        if isinstance(g, ltl.Iff):
            return at(g.left, j) == at(g.right, j)
        if isinstance(g, ltl.Next):
            return j < n and at(g.body, j + 1)
        if isinstance(g, ltl.WeakNext):
            return j == n or at(g.body, j + 1)
        if isinstance(g, ltl.Eventually):
            return any(at(g.body, k) for k in range(j, n + 1))
        if isinstance(g, ltl.Always):
            return all(at(g.body, k) for k in range(j, n + 1))
        if isinstance(g, ltl.Until):
            return any(at(g.right, k) and all(at(g.left, m) for m in range(j, k))
                       for k in range(j, n + 1))
        if isinstance(g, ltl.Release):
            return all(at(g.right, k) or any(at(g.left, m) for m in range(j, k))
                       for k in range(j, n + 1))
        if isinstance(g, ltl.WeakUntil):
            until = any(at(g.right, k) and all(at(g.left, m) for m in range(j, k))
                        for k in range(j, n + 1))
            return until or all(at(g.left, k) for k in range(j, n + 1))
        raise TypeError(f"not an LTL formula: {g!r}")

    return at(f, i)
