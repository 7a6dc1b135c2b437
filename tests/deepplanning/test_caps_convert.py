"""Caps (the paper's tool calls, the released agents' model calls) and the conversion step
(free text -> itinerary JSON with the model), driven by a --command stub model."""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

import pytest

from planning_core.console import main

STUB = textwrap.dedent('''
    import json, sys
    request = json.load(sys.stdin)
    plan = open(sys.argv[1], encoding="utf-8").read()
    mode = sys.argv[2]
    if not request["tools"]:        # the conversion call
        print(json.dumps({"content": "Here it is: <JSON>" + plan + "</JSON>"}))
    elif mode == "loop":            # never answers
        print(json.dumps({"content": None, "tool_calls": [
            {"id": "a", "name": "recommend_attractions", "arguments": "{\\"city\\": \\"x\\"}"},
            {"id": "b", "name": "search_location", "arguments": "{\\"place_name\\": \\"x\\"}"}]}))
    else:                           # answers in free text at once
        print(json.dumps({"content": "Day 1: go there. Day 2: come back."}))
''')


@pytest.fixture(scope="module")
def travel_tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("caps")
    assert main(["deepplanning", "generate", "travel", "--n", "1", "--seed", "5",
                 "--out", str(d)]) == 0
    return d


def _run(capsys, tmp_path, tasks, mode, *extra):
    script = tmp_path / "stub.py"
    script.write_text(STUB)
    plan = tasks / "database_en" / "id_0" / "oracle_plan.json"
    out = tmp_path / f"{mode}{''.join(extra)}.jsonl"
    code = main(["deepplanning", "run", "--domain", "travel", "--tasks", str(tasks),
                 "--command", f"{sys.executable} {script} {plan} {mode}", "--out", str(out),
                 *extra])
    text = capsys.readouterr().out
    return code, [json.loads(l) for l in out.read_text().splitlines()], text


def test_the_conversion_step_turns_free_text_into_the_scored_json(travel_tasks, tmp_path,
                                                                  capsys):
    code, rows, text = _run(capsys, tmp_path, travel_tasks, "text")
    assert text.startswith("[1/1] run 0 travel:")      # progress: finished/total
    assert rows[0]["score"]["case_acc"] == 0 and rows[0]["score"]["parse_error"]
    assert "conversions" not in rows[0]
    code, rows, _ = _run(capsys, tmp_path, travel_tasks, "text", "--convert")
    row = rows[0]
    assert row["final"] == "Day 1: go there. Day 2: come back."
    assert row["conversions"][0]["ok"] and row["conversions"][0]["reply"].startswith(
        "Here it is: <JSON>")
    plan = json.loads((travel_tasks / "database_en" / "id_0" / "oracle_plan.json").read_text())
    assert row["converted"] == plan
    assert row["score"]["case_acc"] == 1 and row["score"]["parse_error"] is None


def test_caps_tool_calls_by_default_or_model_calls(travel_tasks, tmp_path, capsys):
    code, rows, _ = _run(capsys, tmp_path, travel_tasks, "loop", "--max-tool-calls", "5")
    assert rows[0]["tool_calls"] == 5 and rows[0]["cap"] == {"tool_calls": 5}
    assert rows[0]["status"] == "incomplete"
    code, rows, _ = _run(capsys, tmp_path, travel_tasks, "loop", "--max-model-calls", "3")
    assert rows[0]["turns"] == 3 and rows[0]["tool_calls"] == 6
    assert rows[0]["cap"] == {"model_calls": 3} and rows[0]["status"] == "incomplete"
    out = tmp_path / "r.jsonl"
    out.write_text(json.dumps(rows[0]) + "\n")
    assert main(["deepplanning", "report", str(out)]) == 0
    assert "Caps per task: travel: 3 model calls" in capsys.readouterr().out


def test_the_released_model_call_caps_and_the_paper_default():
    from planning_core.validators.deepplanning.cli import _caps
    ns = lambda **kw: argparse.Namespace(**{"max_tool_calls": None,  # noqa: E731
                                            "max_model_calls": None, **kw})
    assert _caps(ns(), "travel") == (400, None)
    assert _caps(ns(max_model_calls="released"), "travel") == (None, 150)
    assert _caps(ns(max_model_calls="released"), "shopping") == (None, 400)
    assert _caps(ns(max_model_calls="7", max_tool_calls=9), "shopping") == (9, 7)


@pytest.mark.parametrize("command", ["run", "score", "generate"])
def test_every_option_has_help(command):
    from planning_core.console import COMMAND_GROUPS
    from planning_core.cli import build_parser
    parser = build_parser(COMMAND_GROUPS)
    top = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    dp = top.choices["deepplanning"]
    sub = next(a for a in dp._actions if isinstance(a, argparse._SubParsersAction))
    missing = [a.dest for a in sub.choices[command]._actions
               if not isinstance(a, argparse._HelpAction) and not a.help]
    assert missing == []
