"""Adaptive planning under progressively revealed constraints (AdaPlanBench, made exact).

Profiles of hidden world and user constraints (:mod:`.profile`), compiled to PDDL and PDDL3
(:mod:`.compile`), checked by the validator (:mod:`.check`), revealed turn by turn by the
environment (:mod:`.env`), built from diverse plans and proved solvable (:mod:`.build`),
scored with the paper's metrics (:mod:`.metrics`). See ``docs/adaptive.md``.
"""
from planning_core.validators.adaptive.env import AdaptiveEnv, Episode, Turn
from planning_core.validators.adaptive.profile import Constraint, Profile, ProfileError, \
    ProfileUnsolvable, Tier, load_profile, loads_profile

__all__ = ["AdaptiveEnv", "Constraint", "Episode", "Profile", "ProfileError",
           "ProfileUnsolvable", "Tier", "Turn", "load_profile", "loads_profile"]
