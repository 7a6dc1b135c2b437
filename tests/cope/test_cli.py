"""``planning-core cope check|eval``: output, exit codes, resuming, reports, bad input."""
from __future__ import annotations

import json

import pytest

from cope.minicope import DOMAIN, PROBLEM, write_minicope, write_outputs
from cope.styles import STYLES
from formalizations.pddl_answers import answer, inject_keyword_typo
from planning_core.console import main
from planning_core.validators.formalizations.methods import METHODS

PLAN = ("(unstack c a)", "(putdown c)", "(pickup b)", "(stack b c)", "(pickup a)",
        "(stack a b)")


def test_check_text_report_and_exit_code(dataset, capsys):
    code = main(["cope", "check", "--dataset", str(dataset), "--no-progress"])
    out = capsys.readouterr().out
    assert code == 1     # defects and label disagreements found
    assert "Ground-truth defects: 2" in out and "Label disagreements: 2" in out
    assert "p01_constraint5_df.pddl:14:61: semantic: undeclared predicate 'stackd'" in out


def test_check_json_lines(dataset, capsys):
    code = main(["cope", "check", "--dataset", str(dataset), "--json", "--workers", "2",
                 "--time-limit", "20", "--no-progress"])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 1 and len(rows) == 6
    assert [r["status"] for r in rows] == ["solved", "error", "unsolvable", "solved",
                                           "unsolvable", "error"]
    assert [r["agrees"] for r in rows] == [True, None, True, False, False, None]
    assert "Mini-1: 2 agrees, 2 defect, 2 label_disagreement" in captured.err


def test_check_exit_zero_when_everything_agrees(tmp_path, capsys):
    root = write_minicope(tmp_path)
    for category in ("initial", "action", "state"):
        for path in (root / "constraints" / category).rglob("*"):
            if path.is_file():
                path.unlink()
    assert main(["cope", "check", "--dataset", str(root), "--no-progress"]) == 0
    assert "agrees" in capsys.readouterr().out


def test_eval_planner_resumes_and_reports(dataset, tmp_path, capsys):
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": STYLES["numbered_calls"](PLAN)},
        {"category": "goal", "problem": "p01", "constraint": "constraint2",
         "output": "No valid plan exists."},
        {"category": "action", "problem": "p01", "constraint": "constraint3",
         "output": {"plan": list(PLAN)}},
    ])
    out, report = tmp_path / "results.jsonl", tmp_path / "report.md"
    args = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--outputs",
            str(outputs), "--out", str(out), "--no-progress"]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["category"], r["correct"], r["outcome"]) for r in rows] == [
        ("baseline", True, "correct"), ("goal", True, "correct"),
        ("action", False, "plan_given")]
    assert {"category", "problem", "constraint", "correct", "outcome", "detail", "dataset",
            "method"} <= set(rows[0])
    capsys.readouterr()
    assert main(args + ["--report", str(report)]) == 0     # resumed: nothing left to do
    assert "3 pair(s) already in" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 3
    text = report.read_text()
    assert "| Mini-1 | planner | 100.0 (1/1) | 50.0 (1/2) | -50.0 | – | 100.0 (1/1) | " \
           "0.0 (0/1) | – |" in text
    assert "| plan_given | 0 | 0 | 0 | 1 | 0 | 1 |" in text
    assert "doubtful `plan_exists` label" in text


def test_eval_pddl_with_workers(dataset, tmp_path):
    broken, _ = inject_keyword_typo(DOMAIN)
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": answer(DOMAIN, PROBLEM)},
        {"category": "goal", "problem": "p01", "constraint": "constraint2",
         "output": answer(broken, PROBLEM)},
        {"category": "state", "problem": "p01", "constraint": "constraint6",
         "output": answer(DOMAIN, PROBLEM)},
    ])
    out = tmp_path / "results.jsonl"
    assert main(["cope", "eval", "--dataset", str(dataset), "--method", "pddl", "--outputs",
                 str(outputs), "--out", str(out), "--workers", "2", "--no-progress",
                 "--report", str(tmp_path / "r.md")]) == 0
    rows = {r["category"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["baseline"]["outcome"] == "correct"
    assert rows["goal"]["outcome"] == "syntax_error"
    assert rows["goal"]["detail"]["issues"][0]["line"] == 6
    assert rows["state"]["outcome"] == "ground_truth_error"
    assert "1 row(s) left out of the totals" in (tmp_path / "r.md").read_text()


def test_eval_bad_input_never_tracebacks(dataset, tmp_path, capsys):
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text('not json\n{"category": "baseline"}\n[1]\n'
                       '{"category": "goal", "problem": "p99", "constraint": "c", "output": ""}\n')
    out = tmp_path / "results.jsonl"
    base = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--out",
            str(out), "--no-progress"]
    # every row is bad: each is recorded, and nothing evaluated is an error (issue 9, 17)
    assert main(base + ["--outputs", str(outputs)]) == 2
    err = capsys.readouterr().err
    assert f"{outputs}:1: not JSON" in err and f"{outputs}:2: missing" in err
    assert "no pair goal p99 c in the dataset" in err and "Traceback" not in err
    assert "no output could be evaluated" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["outcome"] for r in rows] == ["bad_input"] * 4
    assert main(base + ["--outputs", str(outputs)]) == 2    # resumed: not recorded twice
    assert len(out.read_text().splitlines()) == 4
    capsys.readouterr()
    assert main(base + ["--outputs", str(tmp_path / "missing.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["cope", "eval", "--dataset", str(tmp_path / "nowhere"), "--method",
                 "planner", "--outputs", str(outputs), "--out", str(out)]) == 2
    with pytest.raises(SystemExit) as exit_info:
        main(base + ["--outputs", str(outputs), "--method", "telepathy"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["cope", "check", "--dataset", str(dataset), "--time-limit", "-1"])


def test_method_choices_come_from_the_registry(capsys):
    with pytest.raises(SystemExit):
        main(["cope", "eval", "--help"])
    help_text = capsys.readouterr().out
    assert "{" + ",".join(METHODS) + "}" in help_text


def test_eval_reuses_cope_check_output_for_label_doubts(dataset, tmp_path, capsys,
                                                        monkeypatch):
    assert main(["cope", "check", "--dataset", str(dataset), "--json", "--no-progress"]) == 1
    checks = tmp_path / "checks.jsonl"
    checks.write_text(capsys.readouterr().out + "garbage\n")
    import planning_core.validators.cope.check as check_module

    def no_solving(*args, **kwargs):
        raise AssertionError("the label oracle should use --checks")
    monkeypatch.setattr(check_module, "solve_task", no_solving)
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "action", "problem": "p01", "constraint": "constraint3",
         "output": "No plan exists."},
        {"category": "state", "problem": "p01", "constraint": "constraint4",
         "output": "No plan exists."}])
    out = tmp_path / "results.jsonl"
    assert main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(outputs), "--out", str(out), "--checks", str(checks),
                 "--no-progress"]) == 0
    assert f"{checks}:7: not a `cope check --json` row" in capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["correct"], r["outcome"]) for r in rows] == [(True, "correct"),
                                                            (False, "no_plan_claimed")]
    assert "finds a plan" in rows[0]["detail"]["label_doubt"]
    assert "proves the ground truth unsolvable" in rows[1]["detail"]["label_doubt"]
    out.unlink()
    assert main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(outputs), "--out", str(out), "--no-label-check",
                 "--no-progress"]) == 0
    assert [json.loads(line)["detail"]["label_doubt"]
            for line in out.read_text().splitlines()] == [None, None]


def _unknown_below(limit, monkeypatch):
    """solve_task answers unknown on every pair when given less than ``limit`` seconds;
    returns the list of (pair's problem file, time limit) it was asked for."""
    import planning_core.validators.cope.check as module
    from planning_core.result import SolveResult, Status

    real, asked = module.solve_task, []

    def solve(domain, problem, time_limit):
        asked.append(time_limit)
        if time_limit < limit:
            return SolveResult(Status.UNKNOWN, None, None, "stub", 0.0, reason="time limit")
        return real(domain, problem, time_limit=time_limit)

    monkeypatch.setattr(module, "solve_task", solve)
    return asked


def test_check_rerun_with_a_larger_limit_retries_unknown_pairs(dataset, tmp_path, capsys,
                                                                 monkeypatch):
    asked = _unknown_below(10, monkeypatch)
    out = tmp_path / "checks.jsonl"
    base = ["cope", "check", "--dataset", str(dataset), "--out", str(out), "--no-progress",
            "--json"]
    assert main(base + ["--time-limit", "2"]) in (1, 3)
    first = [json.loads(line) for line in out.read_text().splitlines()]
    unknown = [r for r in first if r["status"] == "unknown"]
    assert unknown and all(r["time_limit_s"] == 2 for r in first)
    capsys.readouterr()
    # the same limit: nothing is solved again
    asked.clear()
    assert main(base + ["--time-limit", "2"]) in (1, 3)
    assert asked == [] and "computed again" not in capsys.readouterr().err
    # a larger limit: the unknown pairs are solved again, and stderr says so
    assert main(base + ["--time-limit", "20"]) == 1
    err = capsys.readouterr().err
    assert f"{len(unknown)} row(s) of {out} that ran into their limit are computed again" in err
    assert asked == [20.0] * len(unknown)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    keys = [(r["category"], r["problem"], r["constraint"]) for r in rows]
    assert sorted(keys) == sorted((r["category"], r["problem"], r["constraint"])
                                  for r in first)      # one row per pair
    assert not [r for r in rows if r["status"] == "unknown"]
    assert sorted(r["time_limit_s"] for r in rows if r["status"] != "error") \
        == sorted([2.0] * (len(rows) - len(unknown) - 2) + [20.0] * len(unknown))


def test_check_retry_unknown_at_the_same_limit(dataset, tmp_path, capsys, monkeypatch):
    asked = _unknown_below(10, monkeypatch)
    out = tmp_path / "checks.jsonl"
    base = ["cope", "check", "--dataset", str(dataset), "--out", str(out), "--no-progress",
            "--time-limit", "2"]
    main(base)
    unknown = sum(json.loads(line)["status"] == "unknown"
                  for line in out.read_text().splitlines())
    asked.clear()
    main(base + ["--retry-unknown"])
    assert len(asked) == unknown > 0
    assert "--retry-unknown" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 6


def test_check_limit_tries_the_first_pairs(dataset, capsys):
    main(["cope", "check", "--dataset", str(dataset), "--json", "--no-progress",
          "--limit", "2"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["status"] for r in rows] == ["solved", "error"]


def test_eval_rerun_with_a_larger_limit_judges_unknown_rows_again(dataset, tmp_path, capsys):
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": STYLES["numbered_calls"](PLAN)},
        {"category": "goal", "problem": "p01", "constraint": "constraint2",
         "output": "No valid plan exists."}])
    out = tmp_path / "results.jsonl"
    args = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--outputs",
            str(outputs), "--out", str(out), "--no-progress"]
    assert main(args + ["--time-limit", "20"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["time_limit_s"] for r in rows] == [20.0, 20.0]
    # as if the second had been unknown at a limit of 1 s
    out.write_text(json.dumps(rows[0]) + "\n" + json.dumps(
        {**rows[1], "outcome": "unknown", "correct": False, "time_limit_s": 1.0}) + "\n")
    capsys.readouterr()
    assert main(args + ["--time-limit", "1"]) == 0         # same or larger limit: kept
    assert "computed again" not in capsys.readouterr().err
    assert main(args + ["--time-limit", "20"]) == 0
    assert "1 row(s) of" in capsys.readouterr().err
    again = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["outcome"], r["time_limit_s"]) for r in again] == \
        [(rows[0]["outcome"], 20.0), (rows[1]["outcome"], 20.0)]


def test_eval_report_as_csv_holds_the_markdown_cells(dataset, tmp_path, capsys):
    """Issue 32 item 4: ``--format csv`` writes the same table cells as the Markdown."""
    import csv
    import io

    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": STYLES["numbered_calls"](PLAN)}])
    args = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--outputs",
            str(outputs), "--out", str(tmp_path / "r.jsonl"), "--no-progress"]
    assert main(args + ["--report", str(tmp_path / "r.md")]) == 0
    assert main(args + ["--report", str(tmp_path / "r.csv"), "--format", "csv"]) == 0
    md = (tmp_path / "r.md").read_text()
    rows = [r for r in csv.reader(io.StringIO((tmp_path / "r.csv").read_text()))
            if r and not r[0].startswith("#")]
    assert ["Mini-1", "planner"] == rows[1][:2]
    assert "| " + " | ".join(rows[1]) + " |" in md
