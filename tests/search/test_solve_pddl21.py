"""``solve`` on numeric and temporal (PDDL 2.1) tasks: handed to ENHSP or TAMER, and the
plan reported only after our validator accepted it (issue 28, item 4)."""
from __future__ import annotations

import pytest

from planning_core.errors import EngineError, UnsupportedFeature
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.result import SolveResult, Status
from planning_core.search import pddl21_planners as pp
from planning_core.solve import solve
from tests.search.test_pddl21_planners import (COUNTER_DOMAIN, COUNTER_PROBLEM, LIGHT_DOMAIN,
                                               LIGHT_PROBLEM, _need)

CLASSICAL_DOMAIN = """(define (domain d) (:requirements :strips :action-costs)
  (:predicates (p) (q)) (:functions (total-cost))
  (:action a :parameters () :precondition (p) :effect (and (q) (increase (total-cost) 1))))"""
CLASSICAL_PROBLEM = """(define (problem x) (:domain d) (:init (p) (= (total-cost) 0))
  (:goal (q)) (:metric minimize (total-cost)))"""


def _task(domain: str, problem: str):
    return parse_domain(domain), parse_problem(problem)


def test_task_kinds():
    assert pp.pddl21_kind(*_task(CLASSICAL_DOMAIN, CLASSICAL_PROBLEM)) is None
    assert pp.pddl21_kind(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM)) == "numeric"
    assert pp.pddl21_kind(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM)) == "temporal"
    # an increase of another fluent than total-cost is numeric planning already
    fuel = CLASSICAL_DOMAIN.replace("total-cost", "fuel")
    assert pp.pddl21_kind(*_task(fuel, CLASSICAL_PROBLEM.replace("total-cost", "fuel"))) \
        == "numeric"


def test_fast_downward_refuses_a_numeric_task_by_name():
    with pytest.raises(UnsupportedFeature, match="numeric .*enhsp"):
        solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), engine="fd")


@pytest.mark.parametrize("engine", ["internal", "fd"])
def test_classical_engines_refuse_a_temporal_task_by_name(engine):
    with pytest.raises(UnsupportedFeature, match="temporal .*lpg"):
        solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), engine=engine)


def test_enhsp_refuses_durative_actions():
    with pytest.raises(UnsupportedFeature, match="ENHSP does not plan with durative"):
        solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), engine="enhsp")


def test_no_planner_installed_says_which_to_install(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: False)
    with pytest.raises(EngineError, match=r"TAMER \(up-tamer\).*planning-core\[planners\]"):
        solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM))
    # a numeric task: the in-process numeric search instead (small tasks), validated
    res = solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), time_limit=30)
    assert (res.status, res.engine, res.plan) == (Status.SOLVED, "internal", ("(inc)",) * 3)


def _fake_planner(plan, status=Status.SOLVED, reason=""):
    def run_planner(engine, domain_text, problem_text, **limits):
        assert limits["time_limit"] > 0
        return SolveResult(status, plan, None, engine, 0.01,
                           (("planner_cpu_s", 0.01),), reason)
    return run_planner


def test_a_plan_our_validator_rejects_is_never_reported(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(("(inc)", "(inc)")))
    res = solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), time_limit=30)
    assert res.status is Status.UNKNOWN
    assert res.plan is None
    assert res.reason.startswith("enhsp's plan is invalid (goal_not_satisfied")


def test_a_plan_our_validator_accepts_is_reported_with_its_value(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(("(inc)",) * 3))
    problem = COUNTER_PROBLEM.replace("(:goal (>= (c) 3))",
                                      "(:goal (>= (c) 3)) (:metric minimize (c))")
    res = solve(*_task(COUNTER_DOMAIN, problem), time_limit=30)
    assert res.status is Status.SOLVED
    assert res.plan == ("(inc)",) * 3
    assert res.cost == 3
    assert res.engine == "enhsp"


def test_a_planner_limit_is_unknown(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(None, Status.UNKNOWN, "time limit"))
    res = solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), time_limit=5)
    # LPG-td is the temporal engine when installed (TAMER's plans start interfering
    # actions at one instant)
    assert (res.status, res.reason, res.engine) == (Status.UNKNOWN, "time limit", "lpg")


@pytest.mark.slow
def test_enhsp_solves_and_we_validate():
    _need("enhsp")
    res = solve(*_task(COUNTER_DOMAIN, COUNTER_PROBLEM), time_limit=60)
    assert res.status is Status.SOLVED
    assert res.plan == ("(inc)",) * 3
    assert dict(res.stats)["kind"] == "numeric"


@pytest.mark.slow
def test_tamer_solves_and_we_validate():
    _need("tamer")
    res = solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), time_limit=60, engine="tamer")
    assert res.status is Status.SOLVED
    assert res.plan == ("0.0: (switch) [2.0]",)
    assert res.engine == "tamer"


# TAMER's plan for IPC 2002 satellite-time-simple p1 (issue 28's first look), as it gave it
TAMER_SATELLITE_P1 = (
    "0.0: (turn_to satellite0 groundstation2 phenomenon6) [5.0]",
    "0.0: (switch_on instrument0 satellite0) [2.0]",
    "5.01: (calibrate satellite0 instrument0 groundstation2) [5.0]",
    "5.01: (turn_to satellite0 phenomenon6 groundstation2) [5.0]",
    "10.02: (take_image satellite0 phenomenon6 instrument0 thermograph0) [7.0]",
    "17.02: (turn_to satellite0 phenomenon4 phenomenon6) [5.0]",
    "22.03: (take_image satellite0 phenomenon4 instrument0 thermograph0) [7.0]",
    "29.03: (turn_to satellite0 star5 phenomenon4) [5.0]",
    "34.04: (take_image satellite0 star5 instrument0 thermograph0) [7.0]",
)


def test_tamers_mutex_plan_for_satellite_is_not_reported(monkeypatch):
    from tests.conftest import require_shared
    folder = require_shared() / "pddl21" / "ipc2002" / "satellite-time-simple-automatic"
    domain = parse_domain((folder / "domain.pddl").read_text())
    problem = parse_problem((folder / "instances" / "instance-1.pddl").read_text())
    monkeypatch.setattr(pp, "available", lambda engine: True)
    monkeypatch.setattr(pp, "run_planner", _fake_planner(TAMER_SATELLITE_P1))
    res = solve(domain, problem, time_limit=30, engine="tamer")
    assert (res.status, res.engine, res.plan) == (Status.UNKNOWN, "tamer", None)
    assert res.reason.startswith("tamer's plan is invalid (mutex_violated at time 5.01): ")
    # the turn_to after the calibration, and everything later, 0.01 later each (VAL: valid,
    # value 41.08): reported, with the metric's value (makespan)
    fixed = TAMER_SATELLITE_P1[:3] + (
        "5.03: (turn_to satellite0 phenomenon6 groundstation2) [5.0]",
        "10.04: (take_image satellite0 phenomenon6 instrument0 thermograph0) [7.0]",
        "17.05: (turn_to satellite0 phenomenon4 phenomenon6) [5.0]",
        "22.06: (take_image satellite0 phenomenon4 instrument0 thermograph0) [7.0]",
        "29.07: (turn_to satellite0 star5 phenomenon4) [5.0]",
        "34.08: (take_image satellite0 star5 instrument0 thermograph0) [7.0]")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(fixed))
    res = solve(domain, problem, time_limit=30, engine="tamer")
    assert res.status is Status.SOLVED, res.reason
    assert res.plan == fixed
    assert res.cost == pytest.approx(41.08)


# the light switched on, then used: "use" needs (on), which the switch's end adds
USE_DOMAIN = LIGHT_DOMAIN[:-1] + """
  (:durative-action use :parameters ()
    :duration (= ?duration 1)
    :condition (at start (on))
    :effect (at end (off))))"""
USE_PROBLEM = "(define (problem p) (:domain light) (:init (off)) (:goal (and (on) (off))))"


def test_lpgs_plan_is_checked_at_its_tolerance_and_says_so(monkeypatch):
    # LPG-td puts "use" 0.0003 after the switch's end: one happening at VAL's default
    # tolerance (so "use" reads (on) before it holds), two at -t 0.001
    monkeypatch.setattr(pp, "available", lambda engine: True)
    tight = ("0.0003: (switch) [2.0]", "2.0006: (use) [1.0]")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(tight))
    res = solve(*_task(USE_DOMAIN, USE_PROBLEM), time_limit=30)
    assert (res.status, res.engine, res.plan) == (Status.SOLVED, "lpg", tight)
    assert dict(res.stats)["tolerance"] == pp.LPG_TOLERANCE
    # a plan valid at the default tolerance needs no note
    loose = ("0.0003: (switch) [2.0]", "2.05: (use) [1.0]")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(loose))
    res = solve(*_task(USE_DOMAIN, USE_PROBLEM), time_limit=30)
    assert res.status is Status.SOLVED and "tolerance" not in dict(res.stats)
    # invalid at both: never reported, and the reason names the tolerance
    wrong = ("0.0003: (switch) [2.0]", "2.0001: (use) [1.0]")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(wrong))
    res = solve(*_task(USE_DOMAIN, USE_PROBLEM), time_limit=30)
    assert (res.status, res.plan) == (Status.UNKNOWN, None)
    assert res.reason.startswith("lpg's plan is invalid (") and "-t 0.001" in res.reason


def test_temporal_tasks_fall_back_to_tamer_without_lpg(monkeypatch):
    monkeypatch.setattr(pp, "available", lambda engine: engine != "lpg")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(None, Status.UNKNOWN, "time limit"))
    assert solve(*_task(LIGHT_DOMAIN, LIGHT_PROBLEM), time_limit=5).engine == "tamer"


@pytest.mark.slow
def test_lpg_solves_and_we_validate():
    _need("lpg")
    res = solve(*_task(USE_DOMAIN, USE_PROBLEM), time_limit=60)
    assert res.status is Status.SOLVED, res.reason
    assert res.engine == "lpg" and [s.split(": ")[1].split()[0] for s in res.plan] == \
        ["(switch)", "(use)"]


def test_lpg_solves_ipc_satellite_time_and_we_validate():
    # the task whose TAMER plan is invalid (above): LPG-td's plan is valid at -t 0.001
    from tests.conftest import require_shared
    _need("lpg")
    folder = require_shared() / "pddl21" / "ipc2002" / "satellite-time-simple-automatic"
    domain = parse_domain((folder / "domain.pddl").read_text())
    problem = parse_problem((folder / "instances" / "instance-1.pddl").read_text())
    res = solve(domain, problem, time_limit=30)
    assert (res.status, res.engine) == (Status.SOLVED, "lpg"), res.reason
    assert dict(res.stats)["kind"] == "temporal"


def test_solve_command_prints_the_tolerance_to_validate_with(monkeypatch, tmp_path, capsys):
    from planning_core.console import main
    monkeypatch.setattr(pp, "available", lambda engine: True)
    tight = ("0.0003: (switch) [2.0]", "2.0006: (use) [1.0]")
    monkeypatch.setattr(pp, "run_planner", _fake_planner(tight))
    (tmp_path / "d.pddl").write_text(USE_DOMAIN)
    (tmp_path / "p.pddl").write_text(USE_PROBLEM)
    assert main(["solve", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("0.0003: (switch) [2.0]\n2.0006: (use) [1.0]\n")
    assert "; valid at tolerance 0.001 (validate -t 0.001)" in out
    assert main(["solve", "--json", "--engine", "lpg", str(tmp_path / "d.pddl"),
                 str(tmp_path / "p.pddl")]) == 0
    row = __import__("json").loads(capsys.readouterr().out)
    assert (row["engine"], row["tolerance"], row["plan"]) == ("lpg", 0.001, list(tight))


TANKER = __import__("pathlib").Path(__file__).resolve().parents[2] / "domains" / "pddl21" / "tanker"


@pytest.mark.parametrize("engine", ["auto", "internal"])
def test_the_in_process_numeric_search_solves_a_small_task_and_we_validate(monkeypatch, engine):
    # no external planner installed (auto), or the in-process engine named
    monkeypatch.setattr(pp, "available", lambda name: False)
    domain = parse_domain((TANKER / "domain.pddl").read_text())
    problem = parse_problem((TANKER / "p01.pddl").read_text())
    res = solve(domain, problem, time_limit=60, engine=engine)
    assert (res.status, res.engine) == (Status.SOLVED, "internal"), res.reason
    # the plan of domains/pddl21/tanker/p01.plan (VAL: valid, value 10): two drums loaded at
    # a, a refuel at b on the way, both unloaded at c
    assert res.plan == tuple((TANKER / "p01.plan").read_text().split("\n")[1:-1])
    assert res.cost == 10


def test_the_in_process_numeric_search_says_unknown_at_its_node_limit(monkeypatch):
    from planning_core.search import numeric_search
    monkeypatch.setattr(pp, "available", lambda name: False)
    monkeypatch.setattr(numeric_search, "NODE_LIMIT", 5)
    # the counter must reach 30, but inc needs c < 10: no plan, and no proof of that
    problem = COUNTER_PROBLEM.replace("(>= (c) 3)", "(>= (c) 30)")
    res = solve(*_task(COUNTER_DOMAIN, problem), time_limit=30)
    assert (res.status, res.plan, res.reason) == (Status.UNKNOWN, None, "node limit")
