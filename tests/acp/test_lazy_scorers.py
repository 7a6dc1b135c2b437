"""Scorer modules are imported when their task is first scored (issue 32): scoring val,
just and app answers never imports the grounder, the searches or the heuristics."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planning_core.validators.acp import scoring
from planning_core.validators.acp.scorers.land import score_land
from planning_core.validators.acp.scorers.plan import score_val

from tests.acp.acp_fixtures import record

HEAVY = ("planning_core.ground", "planning_core.search", "planning_core.heuristics")


def _modules_after_scoring(tasks: list[str]) -> list[str]:
    code = f"""
import json, sys
from tests.acp.acp_fixtures import record
from planning_core.validators.acp.scoring import AnswerScorer
answers = {{"val": "2", "just": "(move r1 r0) (pick k r1)", "app": "(move r0 r1)",
           "land": "(holding c)"}}
scorer = AnswerScorer()
values = [scorer(record(t), answers[t]).value for t in {tasks!r}]
print(json.dumps([values, sorted(m for m in sys.modules if m.startswith({HEAVY!r}))]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).resolve().parents[2])
    values, modules = json.loads(done.stdout)
    assert None not in values
    return modules


def test_val_just_and_app_do_not_import_the_grounder():
    assert _modules_after_scoring(["val", "just", "app"]) == []


def test_land_imports_what_it_needs():
    modules = _modules_after_scoring(["val", "land"])
    assert "planning_core.ground.grounder" in modules
    assert "planning_core.search.astar" in modules


def test_the_registry_keeps_order_and_resolves_scorers():
    assert tuple(scoring.SCORERS) == ("app", "prog", "reach", "areach", "val", "just",
                                      "land", "nexta")
    assert len(scoring.SCORERS) == 8
    assert scoring.SCORERS["land"] is score_land
    assert scoring.SCORERS["val"] is score_val
    with pytest.raises(KeyError):
        scoring.SCORERS["plan"]


def test_a_replaced_scorer_is_used_and_restored():
    registry = scoring._Scorers()
    registry["val"] = lambda q, response, ctx: "replaced"
    assert registry["val"](None, "", None) == "replaced"
    del registry["val"]
    assert registry["val"] is score_val
    with pytest.raises(KeyError):
        registry["nope"] = score_val
    with pytest.raises(KeyError):
        del registry["nope"]


def test_monkeypatched_scorer_is_undone(monkeypatch):
    monkeypatch.setitem(scoring.SCORERS, "val", lambda q, response, ctx: scoring.Score(
        None, "patched", "internal-error"))
    assert scoring.AnswerScorer()(record("val"), "2").reason == "patched"
    monkeypatch.undo()
    assert scoring.AnswerScorer()(record("val"), "2").value == 1
