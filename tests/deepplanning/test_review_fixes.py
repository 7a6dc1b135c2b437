"""Review of issue 23, second round: the tool-call budget caps what a turn stores, task ids
are folder names only, tool arguments are checked against the schema, and ``score`` carries
on past a task whose database is missing."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.deepplanning.agent import run_episode
from planning_core.validators.deepplanning.chat_tools import ScriptedToolModel
from planning_core.validators.deepplanning.tasks import Task
from tests.deepplanning.fixtures import shopping, travel


@pytest.fixture(scope="module")
def travel_task(tmp_path_factory):
    t = travel(0, 3)
    folder = tmp_path_factory.mktemp("dp") / "id_3"
    t["db"].write(folder)
    e = t["entry"]
    return Task("travel", e["id"], e["query"], e["meta_info"], folder)


def test_calls_past_the_budget_are_not_executed_and_are_recorded_once(travel_task):
    n = 100_000
    many = ScriptedToolModel(lambda m, t: {"tool_calls": [
        {"id": f"c{i}", "name": "search_location", "arguments": '{"place_name": "x"}'}
        for i in range(n)]})
    ep = run_episode(many, travel_task, max_tool_calls=5)
    assert ep["status"] == "incomplete" and ep["tool_calls"] == 5
    tool_msgs = [m for m in ep["messages"] if m["role"] == "tool"]
    assert len(tool_msgs) == 6
    assert f"{n - 5} call(s) of this turn not executed" in tool_msgs[-1]["content"]
    turn = ep["messages"][2]
    # the turn keeps the executed calls and the first one refused, and counts the rest
    assert len(turn["tool_calls"]) == 6 and turn["tool_calls_not_executed"] == n - 5
    assert tool_msgs[-1]["tool_call_id"] == turn["tool_calls"][-1]["id"]
    assert str(n - 5) in ep["note"]


def test_a_turn_that_fits_the_budget_exactly_is_not_cut(travel_task):
    calls = iter([3, 0])
    agent = ScriptedToolModel(lambda m, t: (lambda k: {"content": "done", "tool_calls": [
        {"id": f"c{i}", "name": "search_location", "arguments": '{"place_name": "x"}'}
        for i in range(k)]})(next(calls)))
    ep = run_episode(agent, travel_task, max_tool_calls=3)
    assert ep["status"] == "answered" and ep["tool_calls"] == 3
    assert not any("tool_calls_not_executed" in m for m in ep["messages"])
