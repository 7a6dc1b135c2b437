"""Issue 19 item 1: LTL progression honours the time limit *inside* one step.

A conjunction of X-shifted disjunctions progresses to ``3**n`` clauses in a single step and
absorption is quadratic in them: the deadline, checked only between expansions, never came
(``cope eval --method ltl --time-limit 5`` ran past 100 s). Now the DNF algebra ticks the
budget and a formula over ``MAX_CLAUSES`` clauses is refused before it is built.
"""
from __future__ import annotations

import json

import pytest

from cope.minicope import DOMAIN, PROBLEM, write_minicope
from limits.hostile import x_shifted_disjunctions
from planning_core.console import main
from planning_core.ground.grounder import ground
from planning_core.limits import CHECK_EVERY, Budget, LimitReached, Limits
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import Status
from planning_core.temporal import progression
from planning_core.temporal.parser import Vocabulary, parse_ltl
from planning_core.temporal.product import monitor_for, plan_ltl


@pytest.fixture(scope="module")
def task_and_vocabulary():
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    return ground(domain, problem), Vocabulary.of(domain, problem)


def test_one_step_stops_at_the_budget(task_and_vocabulary):
    task, vocab = task_and_vocabulary
    monitor = monitor_for(task, parse_ltl(x_shifted_disjunctions(9), vocab))
    monitor.budget = Budget(Limits(time_s=0.2))
    with pytest.raises(LimitReached, match="time limit"):
        monitor.step(monitor.init, task.init, 0)         # 3**9 clauses, quadratic absorption


def test_the_clause_cap_holds_without_a_budget(task_and_vocabulary, monkeypatch):
    task, vocab = task_and_vocabulary
    monkeypatch.setattr(progression, "MAX_CLAUSES", 500)
    monitor = monitor_for(task, parse_ltl(x_shifted_disjunctions(8), vocab))
    with pytest.raises(LimitReached, match="memory limit.*clauses"):
        monitor.step(monitor.init, task.init, 0)


def test_plan_ltl_answers_unknown_within_its_limit(task_and_vocabulary):
    task, vocab = task_and_vocabulary
    result = plan_ltl(task, parse_ltl(x_shifted_disjunctions(9), vocab), time_limit=0.5)
    assert result.status is Status.UNKNOWN and result.reason == "time limit"
    assert result.plan is None


def test_cope_eval_ltl_gives_an_unknown_row(tmp_path, capsys):
    dataset = write_minicope(tmp_path)
    outputs = tmp_path / "outputs.jsonl"
    answer = "```ltl\n" + x_shifted_disjunctions(9) + "\n```"
    outputs.write_text(json.dumps({"category": "baseline", "problem": "p01",
                                   "constraint": "constraint1", "output": answer}) + "\n")
    results = tmp_path / "results.jsonl"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "ltl", "--outputs",
                 str(outputs), "--out", str(results), "--no-progress", "--time-limit", "1",
                 "--no-label-check", "--workers", "1"])
    capsys.readouterr()
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert code == 0 and len(rows) == 1
    assert rows[0]["outcome"] == "unknown"
    assert rows[0]["detail"]["solver"]["reason"] in ("time limit", "memory limit")


def test_parsing_a_huge_formula_ticks_the_active_budget(task_and_vocabulary):
    from planning_core.limits import metering

    _, vocab = task_and_vocabulary
    text = " & ".join(["F (on a b) | G !(clear c)"] * 8000)       # 220 KB, ~2 CPU-s
    with pytest.raises(LimitReached, match="time limit"):
        with metering(Budget(Limits(time_s=0.05))):
            parse_ltl(text, vocab)


def test_compiling_a_huge_formula_ticks_the_budget(task_and_vocabulary):
    task, vocab = task_and_vocabulary
    formula = parse_ltl(" & ".join(f"(F (on a b) | X{' X' * (i % 10)} (clear c))"
                                   for i in range(500)), vocab)
    from planning_core.temporal.progression import Alphabet, Monitor

    budget = Budget(Limits(time_s=100))
    Monitor(formula, Alphabet.of_task(task), budget)
    assert budget.items + (CHECK_EVERY - budget.countdown) >= 500    # a tick per node at least
