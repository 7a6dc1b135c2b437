"""Normalisation, relaxed reachability and grounding of PDDL tasks into a ``Task``.

Public API: ``ground``, ``GroundingCache``, ``Task`` and, from :mod:`.facts`,
``GroundAction``, ``CondEffect``, ``Axiom``, ``FactIndex``, ``UnknownAtomError``.
"""
from planning_core.ground.grounder import GroundingCache, ground
from planning_core.ground.facts import Axiom, CondEffect, FactIndex, GroundAction, UnknownAtomError
from planning_core.ground.task import Task

__all__ = ["ground", "GroundingCache", "Task", "GroundAction", "CondEffect", "Axiom",
           "FactIndex", "UnknownAtomError"]
