"""The parts of a ground task: atoms, fact ids, bitmask helpers, ground actions and axioms.

A state is an ``int`` whose bit ``i`` is fact ``i`` (see :mod:`planning_core.ground.task`
for why); this module holds everything that describes facts and operators in those terms,
so that the task, its successor generator and its axiom evaluator all build on it without
importing one another.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Union

from planning_core.errors import PlanningError

__all__ = ["AtomLike", "Axiom", "CondEffect", "FactIndex", "GroundAction", "GroundAtom",
           "UnknownAtomError", "atom_str", "bits", "mask_of", "parse_atom"]

GroundAtom = tuple  # (predicate, *args), all str
AtomLike = Union[tuple, str, object]  # a GroundAtom, "(p a b)", or an ast.Atom


class UnknownAtomError(PlanningError):
    """An atom or action name that the ground task does not know."""


def atom_str(atom: GroundAtom) -> str:
    return "(" + " ".join(atom) + ")"


def parse_atom(text: AtomLike) -> GroundAtom:
    """Accept ``("on", "a", "b")``, ``"(on a b)"``, ``"on a b"`` or an ``ast.Atom``."""
    if isinstance(text, tuple):
        return tuple(str(x).lower() for x in text)
    predicate = getattr(text, "predicate", None)
    if predicate is not None:
        return (predicate,) + tuple(getattr(text, "args"))
    if isinstance(text, str):
        parts = text.strip().strip("()").split()
        if parts:
            return tuple(p.lower() for p in parts)
    raise UnknownAtomError(f"not an atom: {text!r}")


def bits(mask: int) -> tuple[int, ...]:
    """Ids of the set bits of ``mask``, ascending (scans ``bin`` in C, then ``str.find``)."""
    if not mask:
        return ()
    if not mask & (mask - 1):  # one bit (most masks of the successor tree and of LM-cut)
        return (mask.bit_length() - 1,)
    text = bin(mask)
    top = len(text) - 1
    out = []
    i = text.find("1", 2)
    while i != -1:
        out.append(top - i)
        i = text.find("1", i + 1)
    out.reverse()
    return tuple(out)


def mask_of(ids: Iterable[int]) -> int:
    m = 0
    for i in ids:
        m |= 1 << i
    return m


# --------------------------------------------------------------------------- facts

class FactIndex:
    """Atoms <-> ints. Ids follow sorted ``(predicate, args)`` order, so two groundings of
    the same task give identical ids (Fast Downward keeps the same determinism test)."""

    __slots__ = ("_atoms", "_ids")

    def __init__(self, atoms: Iterable[GroundAtom]) -> None:
        self._atoms: tuple[GroundAtom, ...] = tuple(sorted(set(atoms)))
        self._ids: dict[GroundAtom, int] = {a: i for i, a in enumerate(self._atoms)}

    def __len__(self) -> int:
        return len(self._atoms)

    def __iter__(self) -> Iterator[GroundAtom]:
        return iter(self._atoms)

    def __contains__(self, atom: object) -> bool:
        return atom in self._ids

    def id(self, atom: GroundAtom) -> int:
        try:
            return self._ids[atom]
        except KeyError:
            raise UnknownAtomError(f"unknown fact {atom_str(atom)}") from None

    def get(self, atom: GroundAtom, default: int | None = None) -> int | None:
        return self._ids.get(atom, default)

    def atom(self, fact_id: int) -> GroundAtom:
        return self._atoms[fact_id]

    @property
    def atoms(self) -> tuple[GroundAtom, ...]:
        return self._atoms

    def __str__(self) -> str:
        return f"FactIndex({len(self)} facts)"


# ------------------------------------------------------------------------- actions

@dataclass(frozen=True, slots=True)
class CondEffect:
    """``when cond_pos & ~cond_neg hold in the pre-state: delete, then add`` (bitmasks)."""

    cond_pos: int
    cond_neg: int
    add: int
    delete: int


@dataclass(frozen=True, slots=True)
class GroundAction:
    """One ground operator. Masks are for speed; the ``*_ids`` tuples for heuristics.

    ``name``/``args`` are what a plan prints. ``schema`` is the lifted action it came from;
    ``variant`` numbers the disjuncts when a disjunctive precondition was split (DNF), so
    several ground actions can share one printed name.
    """

    name: str
    args: tuple[str, ...]
    schema: str
    pre_pos: int
    pre_neg: int
    add: int
    delete: int
    pre_pos_ids: tuple[int, ...]
    pre_neg_ids: tuple[int, ...]
    add_ids: tuple[int, ...]
    delete_ids: tuple[int, ...]
    cond_effects: tuple[CondEffect, ...] = ()
    cost: float = 1
    variant: int = 0

    def __str__(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"

    def applicable(self, state: int) -> bool:
        return not (self.pre_pos & ~state) and not (self.pre_neg & state)


@dataclass(frozen=True, slots=True)
class Axiom:
    """Ground derived-predicate rule ``head <- body_pos, not body_neg`` in stratum ``layer``.

    Negated bodies only mention basic facts or derived facts of strictly lower layers
    (stratification), so a layer can be evaluated as a monotone fixpoint.
    """

    head: int
    body_pos: int
    body_neg: int
    body_pos_ids: tuple[int, ...]
    body_neg_ids: tuple[int, ...]
    layer: int = 0
