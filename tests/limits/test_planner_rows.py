"""Issue 19 item 4: ``cope eval --method planner`` rows are linear in the response.

Every rewrite of an embedded or split step stored the whole source line, so a line of
``n`` steps gave a row of ``n`` copies of it (a 56 KB response made a 225 MB row). Rewrites
now keep an excerpt, and at most ``MAX_REWRITES`` of them are listed.
"""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from planning_core.validators.cope.dataset import load_dataset_report
from planning_core.validators.cope.planner import MAX_REWRITES, evaluate_planner, excerpt
from planning_core.validators.cope.results import EvalContext


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    pairs, _ = load_dataset_report(write_minicope(tmp_path_factory.mktemp("cope")))
    return next(p for p in pairs if p.category == "baseline")


@pytest.mark.parametrize("joiner", [" then ", " and ", "; "])
def test_a_line_of_many_steps_gives_a_linear_row(pair, joiner):
    response = "Plan: first I do " + joiner.join(["(unstack c a)", "(putdown c)"] * 1500)
    row = evaluate_planner(pair, response, EvalContext(use_oracle=False)).to_json()
    assert len(row["detail"]["steps"]) == 3000
    assert len(json.dumps(row)) < 30 * len(response)      # was ~2,000 times the response
    assert all(len(r["original"]) < 200 for r in row["detail"]["rewrites"])


def test_rewrites_are_capped_and_counted(pair):
    response = "\n".join(f"{i}. **(unstack c a)**" for i in range(MAX_REWRITES + 10))
    row = evaluate_planner(pair, response, EvalContext(use_oracle=False)).to_json()
    detail = row["detail"]
    assert len(detail["rewrites"]) == MAX_REWRITES
    assert detail["rewrites_omitted"] > 0
    assert len(detail["rewrites"]) + detail["rewrites_omitted"] >= 2 * (MAX_REWRITES + 10)


def test_excerpt_says_how_much_was_cut():
    assert excerpt("short") == "short"
    assert excerpt("x" * 500, 10) == "x" * 10 + "... [490 more characters]"
