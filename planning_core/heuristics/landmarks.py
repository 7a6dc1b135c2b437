"""Fact landmarks: the RHW landmark graph, and what makes a landmark trivial.

A *fact landmark* of a state ``s`` is an atom that is true at some point of every plan from
``s`` (Hoffmann, Porteous & Sebastia 2004). Atoms true in ``s`` and goal atoms are landmarks
by definition: they are *trivial* (``is_trivial_landmark``).

``rhw_landmarks`` approximates the landmarks with orderings as Richter, Helmert & Westphal
(2008) do, restricted to binary facts (their domain-transition-graph step needs SAS+
variables and is left out):

* goal atoms are landmarks;
* for a landmark ``L`` not true in ``s``, its *possible first achievers* are the operators
  adding ``L`` whose preconditions are relaxed-reachable from ``s`` without ever adding ``L``
  (exploration with ``L``'s achievers removed, ``relaxed.reachable(forbidden=...)``). A fact
  in the precondition of every possible first achiever must hold right before ``L`` is first
  reached: it is a landmark with the greedy-necessary ordering ``P ->gn L``;
* an atom added by every possible first achiever of ``L`` becomes true together with ``L``,
  so it is a landmark too (no ordering; this finds side effects such as a rover's full store
  after the sampling that a goal needs);
* optionally (``disjunctive=True``), when every possible first achiever has a precondition
  with the same predicate, the set of those preconditions is a disjunctive landmark
  (at most ``MAX_DISJUNCTION`` facts, none of them a fact landmark already);
* a landmark ``L'`` that is relaxed-unreachable without ``L`` gets the natural ordering
  ``L ->nat L'`` (``L`` must be reached strictly first), unless an operator that adds ``L``
  could also be the one that first adds ``L'`` (then they may appear together).

Conditional effects count as achievers with the effect condition as extra precondition;
axioms count as zero-cost achievers (a derived landmark's body is then needed in the *same*
state, not the one before).

The exact landmark test searches, so it lives in
:mod:`planning_core.search.exact_landmarks`.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Sequence

from planning_core.ground.facts import AtomLike, GroundAtom, atom_str, bits, parse_atom
from planning_core.ground.task import Task
from planning_core.heuristics.relaxed import _explore, relaxed_task
from planning_core.limits import Budget

MAX_DISJUNCTION = 4


@dataclass(frozen=True, slots=True)
class Landmark:
    """A fact landmark (one fact) or a disjunctive landmark (several facts)."""

    facts: tuple[int, ...]
    atoms: tuple[GroundAtom, ...]
    is_goal: bool = False
    is_true: bool = False  # holds in the state the graph was built for

    @property
    def disjunctive(self) -> bool:
        return len(self.facts) > 1

    def __str__(self) -> str:
        if len(self.atoms) == 1:
            return atom_str(self.atoms[0])
        return "(or " + " ".join(atom_str(a) for a in self.atoms) + ")"


@dataclass(frozen=True, slots=True)
class Ordering:
    """``first`` must be reached before ``second`` (indices into ``LandmarkGraph.landmarks``).
    ``kind`` is ``"gn"`` (greedy-necessary) or ``"nat"`` (natural)."""

    first: int
    second: int
    kind: str


@dataclass(frozen=True, slots=True)
class LandmarkGraph:
    landmarks: tuple[Landmark, ...]
    orderings: tuple[Ordering, ...]

    def fact_landmarks(self) -> tuple[GroundAtom, ...]:
        return tuple(lm.atoms[0] for lm in self.landmarks if not lm.disjunctive)

    def lines(self) -> tuple[str, ...]:
        """Deterministic text: one landmark per line, then one ordering per line."""
        out = []
        for i, lm in enumerate(self.landmarks):
            tags = [t for t, on in (("goal", lm.is_goal), ("true", lm.is_true)) if on]
            out.append(f"LM {i} {lm}" + (f" [{' '.join(tags)}]" if tags else ""))
        for o in self.orderings:
            out.append(f"{self.landmarks[o.first]} -{o.kind}-> {self.landmarks[o.second]}")
        return tuple(out)


def rhw_landmarks(task: Task, state: int | None = None, *, disjunctive: bool = False,
                  budget: Budget | None = None) -> LandmarkGraph:
    """The RHW landmark graph of ``state`` (default: the initial state); see the module doc.
    Each landmark costs a relaxed exploration; ``budget`` is checked before each one and
    raises ``LimitReached`` at its limit."""
    budget = budget if budget is not None else Budget()
    rt = relaxed_task(task)
    s = task.init if state is None else state
    achievers: dict[int, list[int]] = {}
    for o, adds in enumerate(rt.op_add):
        for f in adds:
            achievers.setdefault(f, []).append(o)
    atoms = task.facts.atoms
    keys: list[tuple[int, ...]] = []
    index: dict[tuple[int, ...], int] = {}
    edges: set[tuple[int, int, str]] = set()
    reach_without: dict[tuple[int, ...], int] = {}

    def add(facts: tuple[int, ...]) -> tuple[int, bool]:
        if facts in index:
            return index[facts], False
        index[facts] = len(keys)
        keys.append(facts)
        return index[facts], True

    queue = []
    for g in bits(task.goal_pos):
        k, _ = add((g,))
        queue.append(k)
    fact_lms = {g for g in bits(task.goal_pos)}
    while queue:
        budget.check(rss=True)
        k = queue.pop(0)
        facts = keys[k]
        if any(s >> f & 1 for f in facts):
            continue
        forbidden = 0
        for f in facts:
            forbidden |= 1 << f
        reached, _ = _explore(rt, s, rt.excluded_ops(forbidden))
        reach_without[facts] = reached
        first = sorted({o for f in facts for o in achievers.get(f, ())
                        if all(reached >> p & 1 for p in rt.op_pre[o])})
        if not first:
            continue  # unreachable: no plan exists, nothing more to learn
        shared = set(rt.op_pre[first[0]])
        for o in first[1:]:
            shared &= set(rt.op_pre[o])
        for p in sorted(shared):
            if p in facts:
                continue
            j, new = add((p,))
            fact_lms.add(p)
            edges.add((j, k, "gn"))
            if new:
                queue.append(j)
        if len(facts) == 1:
            common = rt.op_killmask[first[0]]
            for o in first[1:]:
                common &= rt.op_killmask[o]
            for e in bits(common & ~s):
                if e not in facts:
                    j, new = add((e,))
                    fact_lms.add(e)
                    if new:
                        queue.append(j)
        if disjunctive:
            for group in _disjunctions(task, rt, first, shared, fact_lms):
                j, new = add(group)
                edges.add((j, k, "gn"))
                if new:
                    queue.append(j)
    # natural orderings: L strictly before L' when L' is unreachable without L and no
    # operator that could add L' first adds L at the same time
    for k, facts in enumerate(keys):
        budget.check()
        reached = reach_without.get(facts)
        if reached is None:
            continue
        lmask = sum(1 << f for f in facts)
        for j, other in enumerate(keys):
            if j == k or any(reached >> f & 1 for f in other) \
                    or any(s >> f & 1 for f in other) or (k, j, "gn") in edges:
                continue
            together = any(rt.op_killmask[o] & lmask
                           and all(reached >> p & 1 for p in rt.op_pre[o])
                           for f in other for o in achievers.get(f, ()))
            if not together:
                edges.add((k, j, "nat"))
    # drop disjunctions that contain a fact landmark (implied, and so uninformative)
    keep = [k for k, facts in enumerate(keys)
            if len(facts) == 1 or not any(f in fact_lms for f in facts)]
    order = sorted(keep, key=lambda k: (len(keys[k]), [atoms[f] for f in keys[k]]))
    new_index = {k: i for i, k in enumerate(order)}
    goal = task.goal_pos
    landmarks = tuple(Landmark(keys[k], tuple(atoms[f] for f in keys[k]),
                               is_goal=len(keys[k]) == 1 and bool(goal >> keys[k][0] & 1),
                               is_true=any(s >> f & 1 for f in keys[k])) for k in order)
    orderings = tuple(sorted({Ordering(new_index[a], new_index[b], kind)
                              for a, b, kind in edges if a in new_index and b in new_index},
                             key=lambda o: (o.first, o.second, o.kind)))
    return LandmarkGraph(landmarks, orderings)


def _disjunctions(task: Task, rt, first: Sequence[int], shared: set[int],
                  fact_lms: set[int]) -> list[tuple[int, ...]]:
    """Preconditions grouped by predicate, one per possible first achiever (RHW 2008)."""
    atoms = task.facts.atoms
    by_pred: dict[str, set[int]] | None = None
    for o in first:
        mine: dict[str, set[int]] = {}
        for p in rt.op_pre[o]:
            if p not in shared:
                mine.setdefault(atoms[p][0], set()).add(p)
        if by_pred is None:
            by_pred = mine
        else:
            by_pred = {pred: by_pred[pred] | fs for pred, fs in mine.items() if pred in by_pred}
    out = []
    for pred in sorted(by_pred or {}):
        group = tuple(sorted(by_pred[pred]))
        if 1 < len(group) <= MAX_DISJUNCTION and not any(f in fact_lms for f in group):
            out.append(group)
    return out


def relaxed_landmarks(task: Task, state: int | None = None) -> int | None:
    """Every fact landmark of the delete relaxation from ``state``, as a bitmask (state and
    goal facts included), or None when the goal is relaxed-unreachable (no plan exists).

    A fact not true in ``state`` is in the mask exactly when the goal is relaxed-unreachable
    without the operators that would add it (``goal_relaxed_reachable(task, state, forbidden=1 << f)``
    is False), but all of them come from one label-propagation fixpoint (Zhu & Givan 2003;
    Keyder, Richter & Helmert 2010) instead of one exploration per fact: a fact's label is
    itself plus the intersection, over the operators that add it, of the union of their
    preconditions' labels and what the operator adds anyway (its ``killmask``: a
    conditional effect's operator also adds the action's unconditional effects), so the
    labels agree with the exclusion rule of :mod:`.relaxed`. Negative conditions are
    ignored, as everywhere in the relaxation.
    """
    rt = relaxed_task(task)
    state = task.init if state is None else state
    label: dict[int, int] = {f: 1 << f for f in bits(state)}
    pre, add, kill, pre_of = rt.op_pre, rt.op_add, rt.op_killmask, rt.pre_of
    # first in, first out: operators are then labelled roughly in the order the relaxed
    # exploration reaches them, so few labels shrink more than once (a stack re-labelled
    # the ops of big tasks many times over: 36 -> 3 ms on an 83-object alfred task)
    queue = deque(rt.free_ops)
    queue.extend(sorted({o for f in label for o in pre_of[f]}))
    queued = set(queue)
    while queue:
        o = queue.popleft()
        queued.discard(o)
        through = kill[o]
        for q in pre[o]:
            lab = label.get(q)
            if lab is None:
                break
            through |= lab
        else:
            for f in add[o]:
                old = label.get(f)
                new = through | (1 << f) if old is None else old & (through | (1 << f))
                if new != old:
                    label[f] = new
                    for o2 in pre_of[f]:
                        if o2 not in queued:
                            queued.add(o2)
                            queue.append(o2)
    out = 0
    for g in rt.goal_ids:
        lab = label.get(g)
        if lab is None:
            return None
        out |= lab
    return out


def is_trivial_landmark(task: Task, atom: AtomLike, *, state: int | None = None) -> bool:
    """True when ``atom`` holds in the state (statics included) or is a goal atom."""
    a = parse_atom(atom)
    if a in task.static_atoms:
        return True
    i = task.facts.get(a)
    if i is None:
        return False
    s = task.init if state is None else state
    return bool(s >> i & 1) or bool(task.goal_pos >> i & 1)
