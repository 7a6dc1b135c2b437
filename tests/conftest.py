"""Shared test fixtures.

``shared_data`` gives the reference data folder ``../shared/data``. A user's fresh clone has
no such folder, so tests that need it skip with a clear reason; CI sets
``PLANNING_CORE_REQUIRE_SHARED=1`` so that the same tests fail instead of silently skipping.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# validate's parse cache (planning_core.pddl.parse_cache) is off in tests unless a test
# turns it on: a cache hit skips the parser, which tests of the parser's limits and errors
# must not depend on, and the tests must not write to the user's ~/.cache
os.environ.setdefault("PLANNING_CORE_PARSE_CACHE", "0")

# Hypothesis: the same examples on every machine and every run (derandomize, no example
# database), and no verdict from the clock (no per-example deadline, no too_slow health
# check): with random seeds CI tried examples no earlier run had tried, and on a loaded
# worker a 200 ms deadline or the generation-speed check failed tests that had no bug.
# ``HYPOTHESIS_PROFILE=explore`` searches with fresh random examples instead.
try:
    from hypothesis import HealthCheck, settings as _hypothesis_settings
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass
else:
    _hypothesis_settings.register_profile(
        "deterministic", derandomize=True, database=None, deadline=None,
        suppress_health_check=[HealthCheck.too_slow])
    _hypothesis_settings.register_profile(
        "explore", deadline=None, suppress_health_check=[HealthCheck.too_slow])
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
DOMAINS = ROOT / "domains"


def require_shared() -> Path:
    """Return the shared data folder, or skip (fail under PLANNING_CORE_REQUIRE_SHARED=1)."""
    if SHARED_DATA.is_dir():
        return SHARED_DATA
    reason = f"reference data not found at {SHARED_DATA}"
    if os.environ.get("PLANNING_CORE_REQUIRE_SHARED") == "1":
        pytest.fail(reason + " and PLANNING_CORE_REQUIRE_SHARED=1", pytrace=False)
    pytest.skip(reason)


@pytest.fixture
def shared_data() -> Path:
    return require_shared()
