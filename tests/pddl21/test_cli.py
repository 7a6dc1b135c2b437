"""``validate`` on PDDL 2.1 tasks from the command line: verdicts, -t, -v, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning_core.cli.validate import validate_main

FIXTURES = Path(__file__).resolve().parents[2] / "domains" / "pddl21"


def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = validate_main([str(a) for a in argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("folder, plan, verdict, code", [
    ("kitchen", "p01.plan", "valid", 0),
    ("kitchen", "p01.invariant.bad.plan", "invariant_violated", 1),
    ("kitchen", "p01.duration.bad.plan", "duration_violated", 1),
    ("kitchen", "p01.mutex.bad.plan", "mutex_violated", 1),
    ("kitchen", "p01.overall.bad.plan", "precondition_failed", 1),
    ("tanker", "p01.plan", "valid", 0),
    ("tanker", "p01.nofuel.bad.plan", "numeric_precondition_failed", 1),
    ("tanker", "p01.goal.bad.plan", "goal_not_satisfied", 1),
])
def test_json_verdicts_and_exit_codes(folder, plan, verdict, code, capsys):
    d = FIXTURES / folder
    got, out, _ = _run(["--json", d / plan, d / "domain.pddl", d / "p01.pddl"], capsys)
    row = json.loads(out.splitlines()[0])
    assert (row["verdict"], got) == (verdict, code)


def test_tolerance_flag_reaches_the_timed_validator(tmp_path, capsys):
    d = FIXTURES / "kitchen"
    plan = tmp_path / "tight.plan"
    # brew starts 0.005 after boil ends: one happening at -t 0.1 (0.005 < 0.01), two at 0.01
    plan.write_text((d / "p01.plan").read_text().replace("4.010: (brew", "4.005: (brew")
                    .replace("4.010: (warm", "4.005: (warm"))
    code, out, _ = _run(["--json", plan, d / "domain.pddl", d / "p01.pddl"], capsys)
    assert json.loads(out.splitlines()[0])["verdict"] == "valid" and code == 0
    code, out, _ = _run(["--json", "-t", "0.1", plan, d / "domain.pddl", d / "p01.pddl"], capsys)
    assert json.loads(out.splitlines()[0])["verdict"] == "precondition_failed" and code == 1


def test_verbose_trace_of_a_timed_plan(capsys):
    d = FIXTURES / "kitchen"
    code, out, _ = _run(["-v", d / "p01.plan", d / "domain.pddl", d / "p01.pddl"], capsys)
    assert code == 0
    assert "Checking next happening (time 6)\nDeleting (shop-open)" in out
    assert "Updating (heat) (0) by 3 increase" in out
    assert "Final value: 10.02" in out


def test_bad_pddl21_task_is_a_located_bad_input(tmp_path, capsys):
    d = FIXTURES / "kitchen"
    domain = tmp_path / "domain.pddl"
    domain.write_text((d / "domain.pddl").read_text().replace(" :duration-inequalities", ""))
    code, _, err = _run([d / "p01.plan", domain, d / "p01.pddl"], capsys)
    assert code == 2
    assert "domain.pddl:28:24:" in err and "needs (:requirements :duration-inequalities)" in err


def test_batch_rows_honour_the_tolerance_as_validate_does(tmp_path, capsys):
    d = FIXTURES / "kitchen"
    plan = tmp_path / "tight.plan"
    # as in the test above: one happening at -t 0.1, two at the default 0.01
    plan.write_text((d / "p01.plan").read_text().replace("4.010: (brew", "4.005: (brew")
                    .replace("4.010: (warm", "4.005: (warm"))
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps({"id": name, "plan": str(path),
                                            "domain": str(d / "domain.pddl"),
                                            "problem": str(d / "p01.pddl")}) + "\n"
                                for name, path in (("tight", plan), ("p01", d / "p01.plan"))))
    results = tmp_path / "rows.jsonl"

    def rows(*flags):
        code, out, _ = _run(["--batch", manifest, "--out", results, "--no-progress", *flags],
                            capsys)
        return code, {r["id"]: r for r in map(json.loads, results.read_text().splitlines())}

    def single(*flags, plan=plan):
        code, out, _ = _run(["--json", *flags, plan, d / "domain.pddl", d / "p01.pddl"], capsys)
        return json.loads(out.splitlines()[0])["verdict"]

    code, got = rows()
    assert code == 0 and got["tight"]["verdict"] == single() == "valid"
    assert "tolerance" not in got["tight"]
    # the same results file at -t 0.1: the rows judged at the default are judged again,
    # one row per id, and the verdict is validate's at -t 0.1
    code, got = rows("-t", "0.1")
    assert len(results.read_text().splitlines()) == 2
    assert code == 1
    assert got["tight"]["verdict"] == single("-t", "0.1") == "precondition_failed"
    assert got["tight"]["tolerance"] == 0.1
    assert got["p01"]["verdict"] == single("-t", "0.1", plan=d / "p01.plan")
    # a rerun at the same tolerance keeps them
    _run(["--batch", manifest, "--out", results, "--no-progress", "-t", "0.1"], capsys)
    assert len(results.read_text().splitlines()) == 2
