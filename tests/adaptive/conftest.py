"""Shared fixtures: household p01 and a hand-written profile with every constraint kind."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.validators.adaptive.profile import loads_profile

ROOT = Path(__file__).resolve().parents[2]
HOUSEHOLD = ROOT / "domains" / "household"

# household p01: the window (kitchen) is dirty; the vacuum is in the kitchen, the sponge and
# the cloth in the hall; the robot starts in the kitchen.
PLAN_VACUUM = "(pick-up vacuum kitchen)\n(clean vacuum window kitchen)"
PLAN_SPONGE = ("(move kitchen hall)\n(pick-up sponge hall)\n(move hall kitchen)\n"
               "(clean sponge window kitchen)")
PLAN_CLOTH = ("(move kitchen hall)\n(pick-up cloth hall)\n(move hall kitchen)\n"
              "(clean cloth window kitchen)")

CONSTRAINTS = [
    {"id": "w1", "kind": "object_unavailable", "object": "vacuum"},
    {"id": "w2", "kind": "limited_use", "object": "sponge", "limit": 1},
    {"id": "w3", "kind": "action_unusable", "action": "move"},
    {"id": "u1", "kind": "avoid_attribute", "attribute": "noisy", "predicate": "holding",
     "formal": "(always (forall (?t - tool) (imply (noisy ?t) (not (holding ?t)))))"},
    {"id": "u2", "kind": "order", "first": "(holding cloth)", "then": "(clean window)",
     "formal": "(sometime-before (clean window) (holding cloth))"},
    {"id": "u3", "kind": "avoid_fact", "fact": "(robot-at hall)",
     "formal": "(always (not (robot-at hall)))"},
    {"id": "u4", "kind": "at_most_once", "fact": "(robot-at kitchen)",
     "formal": "(at-most-once (robot-at kitchen))"},
    {"id": "u5", "kind": "avoid_attribute_use", "attribute": "noisy"},
]


def profile_json(tiers=None, constraints=None) -> dict:
    return {"format": "planning-core-adaptive-profile/1",
            "domain": str(HOUSEHOLD / "domain.pddl"), "problem": str(HOUSEHOLD / "p01.pddl"),
            "attributes": {"noisy": ["vacuum"]},
            "constraints": constraints if constraints is not None else CONSTRAINTS,
            "tiers": tiers or [{"name": "main", "constraints": ["w1", "w2", "u1", "u2"]}]}


@pytest.fixture(scope="session")
def task():
    return (parse_domain_file(HOUSEHOLD / "domain.pddl"),
            parse_problem_file(HOUSEHOLD / "p01.pddl"))


@pytest.fixture
def profile():
    return loads_profile(json.dumps(profile_json()), "hand.json")
