"""Shared generated tasks (cached per session: generation is deterministic in the seed)."""
from __future__ import annotations

import copy
import functools

from planning_core.validators.deepplanning.shopping_gen import generate_case
from planning_core.validators.deepplanning.travel_gen import generate_task


@functools.lru_cache(maxsize=None)
def _travel(seed: int, index: int, days: int | None):
    return generate_task(seed, index, days)


def travel(seed: int = 0, index: int = 3, days: int | None = None):
    """A fresh copy of a generated travel task (entry, db, proof, plan)."""
    t = _travel(seed, index, days)
    return {"entry": copy.deepcopy(t["entry"]), "db": copy.deepcopy(t["db"]),
            "proof": t["proof"], "plan": copy.deepcopy(t["plan"])}


@functools.lru_cache(maxsize=None)
def _travel_with(kinds: tuple[str, ...], seed: int, days: int) -> tuple[int, int, int]:
    for index in range(120):
        hard = _travel(seed, index, days)["entry"]["meta_info"]["hard_constraints"]
        if all(k in hard for k in kinds):
            return seed, index, days
    raise LookupError(f"no generated task of seed {seed} with {kinds}")


def travel_with(*kinds: str, seed: int = 0, days: int = 2):
    """A fresh copy of the first small generated task (``days`` days) that has ``kinds``."""
    return travel(*_travel_with(kinds, seed, days))


@functools.lru_cache(maxsize=None)
def _shopping(seed: int, level: int, index: int):
    return generate_case(seed, level, index)


def shopping(seed: int = 0, level: int = 3, index: int = 0):
    t = _shopping(seed, level, index)
    return {"entry": t["entry"], "spec": copy.deepcopy(t["spec"]),
            "case": copy.deepcopy(t["case"]), "proof": t["proof"],
            "oracle_cart": copy.deepcopy(t["oracle_cart"])}
