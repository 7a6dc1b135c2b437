"""Issue 19: ``cope eval --method smt`` reads and validates the program's printed plan
inside the row's budget.

The sandboxed program may print up to 1 MB; reading it as a plan and validating it ran with
no budget (86,000 steps took 1.55 CPU-s at ``--time-limit 1``). Both now run under one
budget per row (the planner method's mechanism), and a limit is an ``unknown`` row naming
the limit and the phase. The budgets are tiny, so the first clock check (after
``CHECK_EVERY`` ticks) finds them spent: no test measures time. The sandbox is bypassed
(a stubbed run, or ``rlimits`` isolation, as ``--unsafe-no-sandbox``).
"""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from planning_core.console import main
from planning_core.limits import Budget, LimitReached, Limits, metering
from planning_core.validators.cope.dataset import load_dataset_report
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations import smt
from planning_core.validators.formalizations.sandbox import Outcome, SandboxResult
from planning_core.validators.formalizations.smt import SMT_OUTCOMES, evaluate_smt, \
    evaluate_smt_result, plan_from_output

HOSTILE = {
    "many-steps": "(pickup b)\n(putdown b)\n" * 43000,                        # 946 KB
    "indexed-lines": "".join(f"{i} pickup b\n{i} putdown b\n" for i in range(30000)),
    "literal-tuples": "('pickup', 'b')\n('putdown', 'b')\n" * 25000,
    "one-literal-list": "[" + "('pickup', 'b'), ('putdown', 'b'), " * 14000 + "]",
}
TINY = 1e-6     # CPU seconds: spent by the first clock check
PROGRAM = "```python\nfrom z3 import *\nprint(PLAN)\n```"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    pairs, _ = load_dataset_report(write_minicope(tmp_path_factory.mktemp("cope")))
    return next(p for p in pairs if p.category == "baseline")


def _printing(monkeypatch, stdout: str) -> None:
    """The sandboxed run is replaced by one that ended normally printing ``stdout``."""
    def run(program, limits, isolation="bwrap"):
        return SandboxResult(Outcome.OK, 0, stdout, "", 0.01, 0.02)
    monkeypatch.setattr(smt, "run_program", run)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_reading_the_printed_plan_ticks_the_active_budget(pair, name):
    with pytest.raises(LimitReached, match="time limit"):
        with metering(Budget(Limits(time_s=TINY))):
            plan_from_output(HOSTILE[name], pair)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_huge_printed_plan_is_unknown_at_the_time_limit(pair, name, monkeypatch):
    _printing(monkeypatch, HOSTILE[name])
    result = evaluate_smt(PROGRAM, pair, context=EvalContext(use_oracle=False, time_limit=TINY))
    assert result.outcome == "unknown" and result.correct is False
    detail = result.detail
    assert detail["limit"] == "time limit"
    assert detail["phase"] in ("read", "validation")
    assert detail["output_bytes"] == len(HOSTILE[name])
    assert "plan" not in detail                  # no partial plan kept
    assert len(json.dumps(result.row())) < 2000


def test_the_memory_limit_is_unknown_too(pair, monkeypatch):
    _printing(monkeypatch, HOSTILE["many-steps"])
    result = evaluate_smt(PROGRAM, pair, context=EvalContext(use_oracle=False, memory_limit=1))
    assert result.outcome == "unknown"
    assert result.detail["limit"] == "memory limit"


def test_a_limit_in_validation_is_unknown_not_invalid(pair, monkeypatch):
    """The validator catches its own limit and answers UNKNOWN: the row is ``unknown`` in
    the ``validation`` phase, not ``plan_invalid``."""
    _printing(monkeypatch, "(pickup b)\n(putdown b)\n" * 3000)
    real = smt.validate_plan

    def spent(domain, problem, plan, budget=None):
        assert budget is not None
        budget.limits = Limits(time_s=TINY)
        budget.countdown = 1
        return real(domain, problem, plan, budget=budget)

    monkeypatch.setattr(smt, "validate_plan", spent)
    result = evaluate_smt(PROGRAM, pair, context=EvalContext(use_oracle=False))
    assert result.outcome == "unknown"
    assert result.detail["phase"] == "validation"
    assert result.detail["limit"] == "time limit"


def test_a_short_plan_keeps_its_verdict_under_a_tiny_budget(pair, monkeypatch):
    """A short output never reaches a clock check: the budget costs it nothing."""
    _printing(monkeypatch, "[('unstack', 'c', 'a'), ('putdown', 'c')]\n")
    result = evaluate_smt(PROGRAM, pair, context=EvalContext(use_oracle=False, time_limit=TINY))
    assert result.outcome in SMT_OUTCOMES and result.outcome != "unknown"
    assert result.detail["plan"] == ["(unstack c a)", "(putdown c)"]


def test_unknown_is_an_smt_outcome_and_the_eval_result_carries_it(pair, monkeypatch):
    assert "unknown" in SMT_OUTCOMES
    _printing(monkeypatch, HOSTILE["many-steps"])
    row = evaluate_smt_result(pair, PROGRAM,
                              EvalContext(use_oracle=False, time_limit=TINY)).to_json()
    assert row["outcome"] == "unknown" and row["detail"]["limit"] == "time limit"


def test_cope_eval_smt_writes_an_unknown_row_and_reports_it(tmp_path, capsys):
    """End to end, the program really runs (``--unsafe-no-sandbox``) and prints 86,000
    steps; its own run is not the row's budget, reading its output is."""
    dataset = write_minicope(tmp_path)
    program = "```python\nimport sys\nsys.stdout.write('(pickup b)\\n(putdown b)\\n' * 43000)\n```"
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps({"category": "baseline", "problem": "p01",
                                   "constraint": "constraint1", "output": program}) + "\n")
    results, report = tmp_path / "results.jsonl", tmp_path / "report.md"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "smt",
                 "--outputs", str(outputs), "--out", str(results), "--report", str(report),
                 "--no-progress", "--time-limit", "0.001", "--no-label-check",
                 "--workers", "1", "--unsafe-no-sandbox"])
    capsys.readouterr()
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert code == 0 and len(rows) == 1
    assert rows[0]["outcome"] == "unknown", rows[0]
    assert rows[0]["detail"]["limit"] == "time limit"
    assert rows[0]["detail"]["phase"] == "read"
    assert "| unknown | 1 |" in report.read_text()
