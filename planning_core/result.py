"""The answer every solver gives: a status, and a plan when there is one.

``UNKNOWN`` is a first-class answer (see DESIGN.md): a solver that hits a time or memory
limit says so, with the limit in ``reason``, instead of pretending the task is unsolvable.
``UNSOLVABLE`` is reserved for proofs (relaxed unreachability, a complete search with a safe
heuristic that exhausted the state space), so a scorer can trust it.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Status(Enum):
    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class SolveResult:
    """One solver run.

    ``plan`` holds one step per entry, written ``"(name arg ...)"`` in lower case, and is
    ``None`` unless ``status`` is ``SOLVED`` (an empty tuple is the empty plan).
    ``stats`` is a tuple of ``(key, value)`` pairs sorted by key so that results stay
    hashable and print deterministically; values are ints, floats or strings.
    ``reason`` says why a run is ``UNKNOWN`` or ``UNSOLVABLE`` ("time limit",
    "memory limit", "search exhausted", "relaxed unreachable", ...).
    """

    status: Status
    plan: tuple[str, ...] | None
    cost: float | None
    engine: str
    time_s: float
    stats: tuple[tuple[str, object], ...] = ()
    reason: str = ""

    def __post_init__(self) -> None:
        if self.status is Status.SOLVED and self.plan is None:
            raise ValueError("a SOLVED result needs a plan (use () for the empty plan)")
        if self.status is not Status.SOLVED and self.plan is not None:
            raise ValueError(f"a {self.status.value} result cannot carry a plan")

    @property
    def solved(self) -> bool:
        return self.status is Status.SOLVED

    def stat(self, key: str, default: object = None) -> object:
        """The value of one statistic, or ``default`` when the engine did not report it."""
        for name, value in self.stats:
            if name == key:
                return value
        return default

    def to_json(self) -> dict:
        """A JSON-ready dict: status, plan, cost, engine, time_s, reason and stats."""
        return {
            "status": self.status.value,
            "plan": list(self.plan) if self.plan is not None else None,
            "cost": self.cost,
            "engine": self.engine,
            "time_s": round(self.time_s, 6),
            "reason": self.reason,
            "stats": {name: value for name, value in self.stats},
        }
