"""Adaptive planning under progressively revealed constraints (AdaPlanBench, made exact).

Profiles of hidden world and user constraints (:mod:`.profile`), compiled to PDDL and PDDL3
(:mod:`.compile`), checked by the validator (:mod:`.check`), revealed turn by turn by the
environment (:mod:`.env`), built from diverse plans and proved solvable (:mod:`.build`),
scored with the paper's metrics (:mod:`.metrics`). See ``docs/adaptive.md``.
"""
from __future__ import annotations

from planning_core.lazy_exports import lazy_exports

# The names below are loaded on first use (PEP 562), so the ``planning-core`` console,
# which imports this package's cli module to register the ``adaptive`` commands, does not
# pay for the environment, the compiler and the grounder behind them at every start.
_EXPORTS = {"AdaptiveEnv": "env", "Episode": "env", "Turn": "env",
            "Constraint": "profile", "Profile": "profile", "ProfileError": "profile",
            "ProfileUnsolvable": "profile", "Tier": "profile", "load_profile": "profile",
            "loads_profile": "profile"}

__all__ = ["AdaptiveEnv", "Constraint", "Episode", "Profile", "ProfileError",
           "ProfileUnsolvable", "Tier", "Turn", "load_profile", "loads_profile"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__, globals())
