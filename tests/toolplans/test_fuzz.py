"""Property tests: no tool file, task or model output makes the toolplans code fail with
anything but the project's own error (or a verdict). Derandomized, as the other fuzzers."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planning_core.errors import PlanningError
from planning_core.validators.toolplans import check_output, parse_task, parse_tools

from tests.toolplans.toolplans_fixtures import TASK, VALID, mini

SETTINGS = settings(max_examples=80, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=6)
                    | st.sampled_from(["string", "object", "$1", "$1.offer", "Paris", "name"]),
                    lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(["name", "type", "parameters", "properties",
                                                       "required", "x-planning", "produces",
                                                       "function", "arguments", "goal", "items",
                                                       "kind", "tool", "n", "value", "tools"]),
                                      inner, max_size=5), max_leaves=20)
CTX = mini()


@SETTINGS
@given(JSON)
def test_any_json_as_tools_or_task(data):
    for parse in (parse_tools, lambda d: parse_task(d)):
        try:
            parse(data)
        except PlanningError:
            pass


@SETTINGS
@given(st.lists(st.sampled_from(VALID.splitlines() + ["(", ")", "=", ",", '"', "$", "$9",
                                                      "x(", "REFUSE", "[", "{", "}", "]",
                                                      "book(offer=$1, passenger=1.5)"]),
                max_size=8).map("\n".join))
def test_any_text_as_model_output(text):
    rep = check_output(CTX, text, grade=False)
    assert rep.correct in (True, False)


@SETTINGS
@given(JSON)
def test_any_json_as_model_output(data):
    rep = check_output(CTX, json.dumps(data), grade=False)
    assert rep.correct in (True, False)


def test_mutated_task_fields():
    """Each top-level field of the fixture replaced by odd values."""
    for key in TASK:
        for odd in (None, 3, "x", [], {}, [None], [{"name": 1}]):
            try:
                parse_task({**TASK, key: odd})
            except PlanningError:
                pass
