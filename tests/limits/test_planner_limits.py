"""Issue 19: ``cope eval --method planner`` reads and validates the answer inside the budget.

Normalising a model's plan text and validating it are linear in the response, but a 1 MB
response took 3-4 CPU-s (and one call with 450,000 arguments 218 MB) at ``--time-limit 1``.
Both now run under the row's budget, and a limit gives an ``unknown`` row naming it.
The budgets here are tiny, so the tests are deterministic: the first clock check (after
``CHECK_EVERY`` ticks) finds the limit spent; no test measures time.
"""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from planning_core.console import main
from planning_core.limits import Budget, LimitReached, Limits, metering
from planning_core.validators.cope.dataset import load_dataset_report
from planning_core.validators.cope.planner import PLANNER_OUTCOMES, evaluate_planner
from planning_core.validators.cope.plans import normalize_plan
from planning_core.validators.cope.results import EvalContext

HOSTILE = {
    "many-steps": "(pickup b)\n(putdown b)\n" * 43000,                        # 946 KB
    "long-sexprs": "".join("(stack " + " a" * 1000 + ")\n" for _ in range(450)),
    "one-long-call": "pickup(" + "a," * 450000 + ")",
}
TINY = 1e-6     # CPU seconds: spent by the first clock check


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    pairs, _ = load_dataset_report(write_minicope(tmp_path_factory.mktemp("cope")))
    return next(p for p in pairs if p.category == "baseline")


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_huge_answer_is_unknown_at_the_time_limit(pair, name):
    result = evaluate_planner(pair, HOSTILE[name],
                              EvalContext(use_oracle=False, time_limit=TINY))
    row = result.to_json()
    assert row["outcome"] == "unknown" and row["correct"] is False
    detail = row["detail"]
    assert detail["limit"] == "time limit"
    assert detail["phase"] in ("normalise", "row", "validation")
    assert "steps" not in detail                  # no partial plan kept
    assert len(json.dumps(row)) < 2000


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_normalising_ticks_the_active_budget(pair, name):
    with pytest.raises(LimitReached, match="time limit"):
        with metering(Budget(Limits(time_s=TINY))):
            normalize_plan(HOSTILE[name], pair)


def test_the_memory_limit_is_unknown_too(pair):
    row = evaluate_planner(pair, HOSTILE["one-long-call"],
                           EvalContext(use_oracle=False, memory_limit=1)).to_json()
    assert row["outcome"] == "unknown"
    assert row["detail"]["limit"] == "memory limit"


def test_validation_under_the_budget_is_unknown_not_invalid(pair, monkeypatch):
    """A limit inside the validator (which answers an UNKNOWN report) is ``unknown`` too."""
    from planning_core.validators.cope import planner

    real = planner.validate_plan

    def spent(domain, problem, plan, budget=None):
        assert budget is not None
        budget.limits = Limits(time_s=TINY)
        budget.countdown = 1
        return real(domain, problem, plan, budget=budget)

    monkeypatch.setattr(planner, "validate_plan", spent)
    row = evaluate_planner(pair, "(pickup b)\n(putdown b)\n" * 3000,
                           EvalContext(use_oracle=False)).to_json()
    assert row["outcome"] == "unknown"
    assert row["detail"]["phase"] == "validation"
    assert row["detail"]["limit"] == "time limit"
    assert row["detail"]["validation"]["verdict"] == "unknown"


def test_an_ordinary_answer_keeps_its_verdict_under_a_tiny_budget(pair):
    """A short answer never reaches a clock check: the budget costs it nothing."""
    row = evaluate_planner(pair, "(unstack c a)\n(putdown c)\n",
                           EvalContext(use_oracle=False, time_limit=TINY)).to_json()
    assert row["outcome"] in PLANNER_OUTCOMES and row["outcome"] != "unknown"
    assert row["detail"]["steps"] == ["(unstack c a)", "(putdown c)"]


def test_cope_eval_planner_writes_an_unknown_row_and_reports_it(tmp_path, capsys):
    dataset = write_minicope(tmp_path)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps({"category": "baseline", "problem": "p01",
                                   "constraint": "constraint1",
                                   "output": HOSTILE["many-steps"]}) + "\n")
    results, report = tmp_path / "results.jsonl", tmp_path / "report.md"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(outputs), "--out", str(results), "--report", str(report),
                 "--no-progress", "--time-limit", "0.001", "--no-label-check",
                 "--workers", "1"])
    capsys.readouterr()
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert code == 0 and len(rows) == 1
    assert rows[0]["outcome"] == "unknown"
    assert rows[0]["detail"]["limit"] == "time limit"
    assert "| unknown | 1 |" in report.read_text()
