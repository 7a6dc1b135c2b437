"""VAL compatibility and the validate time budget (issue 9, items 9 and 21)."""
from __future__ import annotations

import json
from pathlib import Path
from textwrap import dedent

import pytest

from planning_core.cli.validate import validate_main
from planning_core.console import main
from planning_core.limits import Limits
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan

# from the checkout, not the working directory
BW = str(Path(__file__).resolve().parents[2] / "domains" / "blocksworld") + "/"

# nested exists in a derived predicate: 30**5 bindings per evaluation (minutes unmetered)
SLOW_DOMAIN = dedent("""\
    (define (domain slowderived)
      (:requirements :strips :typing :derived-predicates :negative-preconditions)
      (:types obj)
      (:predicates (r ?x - obj) (never) (bad) (done))
      (:derived (bad) (exists (?a ?b ?c ?d ?e - obj)
                        (and (r ?a) (r ?b) (r ?c) (r ?d) (r ?e) (never))))
      (:action finish :parameters () :precondition (not (bad)) :effect (done)))
    """)
OBJECTS = " ".join(f"o{i}" for i in range(30))
SLOW_PROBLEM = (f"(define (problem s) (:domain slowderived) (:objects {OBJECTS} - obj) "
                f"(:init {' '.join(f'(r o{i})' for i in range(30))}) (:goal (done)))\n")


@pytest.fixture()
def slow(tmp_path):
    files = {"d.pddl": SLOW_DOMAIN, "p.pddl": SLOW_PROBLEM, "plan.txt": "(finish)\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [str(tmp_path / n) for n in ("plan.txt", "d.pddl", "p.pddl")]


def test_validation_budget_gives_unknown_not_a_hang():
    domain, problem = parse_domain(SLOW_DOMAIN, "d"), parse_problem(SLOW_PROBLEM, "p")
    report = validate_plan(domain, problem, "(finish)\n",
                           budget=Limits(time_s=0.3, memory_mb=0).budget())
    assert report.verdict is Verdict.UNKNOWN and "time limit" in report.message
    assert not report.valid


def test_validate_cli_exit_3_names_the_limit(slow, capsys):
    code = validate_main([*slow, "--time-limit", "0.5"])
    out, _ = capsys.readouterr()
    assert code == 3
    assert "time limit" in out and "Plans without a verdict" in out
    assert "Successful plans:" not in out and "Failed plans:" not in out


def test_validate_json_unknown(slow, capsys):
    assert validate_main([*slow, "--json", "--time-limit", "0.5"]) == 3
    assert json.loads(capsys.readouterr().out)["verdict"] == "unknown"


def _plan_file(tmp_path, capsys) -> str:
    assert main(["solve", BW + "p01.pddl", BW + "domain.pddl"]) == 0   # either order
    text = capsys.readouterr().out
    path = tmp_path / "good.plan"
    path.write_text("".join(line + "\n" for line in text.splitlines() if line.startswith("(")))
    return str(path)


def test_val_summary_and_flags(tmp_path, capsys):
    good = _plan_file(tmp_path, capsys)
    bad = tmp_path / "bad.plan"
    bad.write_text("(this-is-no-action)\n")
    domain, problem = BW + "domain.pddl", BW + "p01.pddl"
    code = validate_main(["-v", "-t", "0.001", "-c", domain, problem, good, str(bad)])
    out = capsys.readouterr().out
    assert code == 1
    lines = out[out.index("\nSuccessful plans:"):].strip().splitlines()
    value = lines[1].split()[1]
    assert lines[:3] == ["Successful plans:", f"Value: {value}", f" {good} {value}"]
    assert out.rstrip().endswith(f"Failed plans:\n {bad}")
    assert validate_main(["-S", domain, problem, good, str(bad)]) == 1
    assert capsys.readouterr().out.splitlines() == [value, "failed"]
    assert validate_main(["-s", domain, problem, good, str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"Checking plan: {bad}" in out and good not in out and "Successful" not in out


@pytest.mark.parametrize("argv", [["validate"], ["solve"], ["ground"], ["reachable"],
                                  ["landmarks"], []])
def test_version_on_every_command(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main([*argv, "--version"])
    assert info.value.code == 0
    assert "planning-core" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        validate_main(["--version"])


@pytest.mark.parametrize("command", ["ground", "reachable", "landmarks", "solve"])
def test_engine_commands_take_the_files_in_either_order(command, capsys):
    forward = main([command, "--json", BW + "domain.pddl", BW + "p01.pddl"])
    first = json.loads(capsys.readouterr().out)
    backward = main([command, "--json", BW + "p01.pddl", BW + "domain.pddl"])
    second = json.loads(capsys.readouterr().out)
    assert forward == backward == 0
    for data in (first, second):
        data.pop("time_s", None)
    assert first == second


def test_one_error_line_format(tmp_path, capsys):
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (domain d) (:predicates (p)) (:action a :parameters ()\n"
                      "  :precondition (p) :effekt (p)))\n")
    plan = tmp_path / "plan"
    plan.write_text("(a)\n")
    assert validate_main([str(plan), str(broken), BW + "p01.pddl"]) == 2
    assert main(["solve", str(broken), BW + "p01.pddl"]) == 2
    for line in capsys.readouterr().err.strip().splitlines():
        assert line.startswith(f"{broken}:2:") and ": error: " in line, line
