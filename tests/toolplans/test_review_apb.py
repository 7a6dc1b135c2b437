"""Review of issue 22 (APB): hostile answers in the paper's formats and the bounds of the
checker. Paper: /work/shared/seeds/001_25509288ef9c2098.txt (line numbers)."""
from __future__ import annotations

import json
import sys

from planning_core.validators.toolplans import check_output

from tests.toolplans.toolplans_fixtures import mini


def entry(name, desc, reason="because"):
    return {"name": name, "parameter_description": desc, "reason": reason}


def _line_events(fn) -> int:
    """Python line events while ``fn`` runs: a deterministic measure of work (every loop
    iteration, comprehensions included, is one), never wall-clock."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def test_long_chains_are_checked_in_linear_work():
    # every call lacks the offer and the token its maker would give: each one asked "is
    # the maker called later?" and "which earlier call made it?" used to scan the chain
    ctx = mini()
    book = entry("book", {"offer": "the offer from the search", "passenger": "Ana"})

    def work(n):
        text = json.dumps({"plan": "p", "tool_chain": [book] * n})
        return _line_events(lambda: check_output(ctx, text, grade=False))
    work(1)
    small, large = work(150), work(300)
    assert large / small < 2.3, (small, large)
