"""Reading tool sets, tasks and model outputs: every wrapping, and located errors."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.toolplans import ToolSpecError, parse_output, parse_task, parse_tools
from planning_core.validators.toolplans.spec import load_json, read_tools

from tests.toolplans.toolplans_fixtures import TASK, TOOLS

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def test_three_wrappings_read_alike():
    chat = [{"type": "function", "function": {"name": "find", "description": "d",
                                                "parameters": SCHEMA},
             "x-planning": {"produces": ["hit"]}}]
    flat = [{"name": "find", "description": "d", "parameters": SCHEMA,
             "x-planning": {"produces": ["hit"]}}]
    mcp = {"tools": [{"name": "find", "description": "d", "inputSchema": SCHEMA,
                      "x-planning": {"produces": ["hit"]}}]}
    assert parse_tools(chat) == parse_tools(flat) == parse_tools(mcp)
    (tool,) = parse_tools(flat)
    assert tool.name == "find" and tool.produces == ("hit",)
    assert tool.params[0].data_type == "q" and tool.params[0].required
    # the declared spelling is kept: calls must use it exactly (paper line 623)
    (upper,) = parse_tools([dict(flat[0], name="Find")])
    assert upper.name == "find" and upper.spelling == "Find" and upper != tool


def test_data_types_free_and_enum_parameters():
    (t,) = parse_tools([{"name": "t", "parameters": {"type": "object", "properties": {
        "a": {"type": "string", "x-data-type": "city"}, "b": {"type": "integer"},
        "c": {"type": "string", "enum": ["x", "y"]}, "d": {"type": "string", "x-free": True},
        "e": {"type": ["string", "null"]}}, "required": ["a", "b", "c"]},
        "x-planning": {"inputs": {"b": "count"}}}])
    types = {p.name: p.data_type for p in t.params}
    assert types == {"a": "city", "b": "count", "c": None, "d": None, "e": "e"}
    assert [p.name for p in t.data_params] == ["a", "b"]


def test_not_json_is_located_by_line_and_column(tmp_path):
    f = tmp_path / "tools.json"
    f.write_text('[\n  {"name": "a",\n   "parameters": {,}}\n]')
    with pytest.raises(ToolSpecError) as err:
        read_tools(f)
    assert (err.value.line, err.value.column) == (3, 19)
    assert str(err.value).startswith(f"{f}:3:19: not JSON")


@pytest.mark.parametrize("tools,pointer,match", [
    ({"x": 1}, "", "expected a list"),
    ([{"description": "no name"}], "/0", "needs a 'name'"),
    ([{"name": "9lives"}], "/0/name", "must start with a letter"),
    ([{"name": "and"}], "/0/name", "reserved word"),
    ([{"name": "a"}, {"name": "A"}], "/1/name", "defined twice"),
    ([{"name": "a", "parameters": {"type": "array"}}], "/0/parameters/type", "type 'object'"),
    ([{"name": "a", "parameters": {"type": "object", "properties": {}, "required": ["q"]}}],
     "/0/parameters/required/0", "not in 'properties'"),
    ([{"name": "a", "parameters": {"type": "object", "properties": {"q": {"type": "text"}}}}],
     "/0/parameters/properties/q/type", "unknown JSON type"),
    ([{"name": "a", "x-planning": {"makes": []}}], "/0/x-planning/makes", "unknown annotation"),
    ([{"name": "a", "x-planning": {"cost": -1}}], "/0/x-planning/cost", "whole number"),
    ([{"name": "a"}, {"name": "b", "x-planning": {"after": ["c"]}}], "/1", "after 'c'"),
    ([{"type": "function", "function": {"name": "a", "parameters": {"type": "object",
       "properties": {"q/x": {"type": "string"}}}}}],
     "/0/function/parameters/properties/q~1x", "parameter name"),
])
def test_schema_faults_carry_a_json_pointer(tools, pointer, match):
    with pytest.raises(ToolSpecError, match=match) as err:
        parse_tools(tools, file="t.json")
    assert err.value.pointer == pointer
    assert f"at {pointer or '/'}:" in str(err.value)


@pytest.mark.parametrize("change,pointer,match", [
    ({"goal": []}, "/goal", "names no output"),
    ({"broken": ["nope"]}, "/broken/0", "no tool 'nope'"),
    ({"constraints": [{"kind": "never"}]}, "/constraints/0/kind", "expected one of"),
    ({"constraints": [{"kind": "at_most", "n": "two"}]}, "/constraints/0/n", "whole number"),
    ({"constraints": [{"kind": "not_before", "tool": "pay"}]}, "/constraints/0", "needs 'until'"),
    ({"items": [{"name": "a", "type": "city"}, {"name": "A", "type": "city"}]}, "/items/1/name",
     "given twice"),
    ({"items": [{"name": "a"}]}, "/items/0", "needs a 'type'"),
])
def test_task_faults_carry_a_json_pointer(change, pointer, match):
    with pytest.raises(ToolSpecError, match=match) as err:
        parse_task({**TASK, **change})
    assert err.value.pointer == pointer


def test_task_without_goal_or_tools():
    with pytest.raises(ToolSpecError, match="needs a 'goal'"):
        parse_task({"items": [], "tools": TOOLS})
    with pytest.raises(ToolSpecError, match="no 'tools'"):
        parse_task({"goal": ["x"]})


def test_load_json_error():
    with pytest.raises(ToolSpecError, match="<input>:1:6: not JSON"):
        load_json('{"a" 1}')


# ------------------------------------------------------------------ model outputs

def test_line_format_with_numbering_references_and_literals():
    out = parse_output('1. search(origin="Paris", n=2, ok=true, x=null, ids=[1, 2])\n'
                       "2) book(offer=$1.offer, who='Ana')\n- pay(amount: $book.fare)")
    assert [c.name for c in out.calls] == ["search", "book", "pay"]
    assert out.calls[0].arguments == {"origin": "Paris", "n": 2, "ok": True, "x": None,
                                      "ids": [1, 2]}
    assert out.calls[1].arguments == {"offer": "$1.offer", "who": "Ana"}
    assert out.calls[2].arguments == {"amount": "$book.fare"}
    assert [c.line for c in out.calls] == [1, 2, 3]


def test_fenced_json_and_refusals():
    out = parse_output('Plan:\n```json\n[{"name": "a", "arguments": {}}]\n```')
    assert [c.name for c in out.calls] == ["a"]
    assert parse_output("REFUSE: no tool can do it").refused
    assert parse_output({"refuse": True, "reason": "x"}).refusal == "x"
    assert parse_output({"role": "assistant", "refusal": "sorry"}).refused
    assert parse_output("[]").calls == () and parse_output("[]").error is None


@pytest.mark.parametrize("text,match", [
    ("   ", "empty"),
    ("search(origin=)", "line 1, column 15"),
    ("ok\nsearch(a=1) extra", "line 1"),
    ('[{"name": 3}]', "needs a 'name'"),
    ('[1]', "must be an object"),
    ('{"tool_calls": [{"function": {"name": "a", "arguments": "{x"}}]}', "not JSON"),
    ('[{"name": "a", "arguments": [1]}]', "expected an object"),
    ("a(x=1, x=2)", "given twice"),
    ('"just text"', "not a tool call"),
])
def test_bad_outputs_are_errors_not_exceptions(text, match):
    out = parse_output(text)
    assert out.error is not None and match in out.error


def test_output_as_python_json_value():
    calls = [{"name": "a", "arguments": json.dumps({"k": 1})}]
    assert parse_output(calls).calls[0].arguments == {"k": 1}
