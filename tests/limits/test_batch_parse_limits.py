"""Issue 19 item 3 for ``validate --batch``: a plan's budget covers parsing its task when
the task is parsed for it (a task already parsed on the worker costs nothing), so a task
too big to read within the limit ends that plan ``unknown`` naming the limit, and the batch
goes on with the next row. Before, the task was read and parsed before any budget started
(a 10^6-fact problem took 20 CPU-s whatever ``--time-limit`` said)."""
from __future__ import annotations

import json

import pytest

from limits.hostile import QUANTIFIED_DOMAIN, many_init_problem, many_schemas_domain
from planning_core.cli import validate_batch
from planning_core.cli.validate import validate_main

SMALL_PROBLEM = """(define (problem small) (:domain q) (:objects o1 - obj) (:init)
  (:goal (done)))
"""


def _manifest(folder, entries):
    path = folder / "m.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    return path


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def tasks(tmp_path):
    (tmp_path / "domain.pddl").write_text(QUANTIFIED_DOMAIN)
    (tmp_path / "small.pddl").write_text(SMALL_PROBLEM)
    (tmp_path / "big.pddl").write_text(many_init_problem(200_000))      # ~1 CPU-s to read
    (tmp_path / "schemas.pddl").write_text(many_schemas_domain(4000))
    return tmp_path


@pytest.mark.parametrize("where", [[], ["--workers", "2"]], ids=["serial", "2-workers"])
def test_a_task_too_big_to_parse_in_time_is_unknown_and_the_batch_goes_on(tasks, capsys,
                                                                           where):
    manifest = _manifest(tasks, [
        {"id": "big-1", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "big.pddl"},
        {"id": "big-2", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "big.pddl"},
        {"id": "schemas", "plan_text": "(finish)\n", "domain": "schemas.pddl",
         "problem": "small.pddl"},
        {"id": "small", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "small.pddl"},
    ])
    out = tasks / "r.jsonl"
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress",
                          "--time-limit", "0.2", *where])
    assert code == 3, capsys.readouterr().err
    rows = {r["id"]: r for r in _rows(out)}
    first, second = rows["big-1"], rows["big-2"]
    assert first["verdict"] == "unknown" and first["limit"] == "time limit"
    assert first["phase"] == "task" and "while reading the domain and problem" in \
        first["message"] and "0.2 s of CPU time used" in first["message"]
    # the same task for the next plan: not parsed again, named as such
    assert second["verdict"] == "unknown" and second["limit"] == "time limit"
    assert "(the same limit holds for this plan; not read again)" in second["message"]
    assert f"{manifest}:1" in second["message"]
    assert rows["schemas"]["verdict"] == "unknown" and \
        rows["schemas"]["limit"] == "time limit"
    assert rows["small"]["verdict"] == "valid"          # the batch went on
    assert "1 valid, 0 invalid, 3 unknown" in capsys.readouterr().err


def test_the_plan_the_task_is_parsed_for_pays_for_it_and_the_next_does_not(
        tasks, monkeypatch, capsys):
    """Parsing runs under the first plan's active budget, once per task on a worker."""
    from planning_core import limits

    loads, budgets = [], []
    real = validate_batch._load

    def spy(domain, problem, max_bytes=None):
        budgets.append(limits.active_budget())
        loads.append(problem)
        return real(domain, problem, max_bytes)

    monkeypatch.setattr(validate_batch, "_load", spy)
    manifest = _manifest(tasks, [
        {"id": k, "plan_text": "(finish)\n", "domain": "domain.pddl", "problem": "small.pddl"}
        for k in range(3)])
    out = tasks / "r.jsonl"
    assert validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"]) == 0
    assert [r["verdict"] for r in _rows(out)] == ["valid"] * 3
    assert len(loads) == 1 and budgets[0] is not None
    assert budgets[0].limits.time_s == 60.0


def test_a_task_file_over_the_memory_limit_is_not_read_whole(tasks, capsys):
    manifest = _manifest(tasks, [
        {"id": "big", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "big.pddl"},
        {"id": "small", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "small.pddl"}])
    out = tasks / "r.jsonl"
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress",
                          "--memory-limit", "1"])      # big.pddl is 7 MB
    assert code == 3, capsys.readouterr().err
    big, small = _rows(out)
    assert big["verdict"] == "unknown" and big["limit"] == "memory limit"
    assert "big.pddl" in big["message"] and "larger than the memory limit" in big["message"]
    assert small["verdict"] == "valid"


def test_reading_a_long_plan_counts_against_its_budget(tasks, capsys):
    manifest = _manifest(tasks, [
        {"id": "long", "plan_text": "(finish)\n" * 200_000, "domain": "domain.pddl",
         "problem": "small.pddl"},
        {"id": "short", "plan_text": "(finish)\n", "domain": "domain.pddl",
         "problem": "small.pddl"}])
    out = tasks / "r.jsonl"
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress",
                          "--time-limit", "0.2"])
    assert code == 3, capsys.readouterr().err
    long_, short = _rows(out)
    assert long_["verdict"] == "unknown" and long_["phase"] == "plan"
    assert "while reading the plan" in long_["message"]
    assert short["verdict"] == "valid"
