"""ENHSP and TAMER as external planners (planning_core/search/pddl21_planners.py).

Tests that run a planner skip when it is not installed (the ``planners`` extra; ENHSP also
needs ``java``); CI installs both (``dev`` includes them, ``.ci/run`` a Java runtime).
"""
from __future__ import annotations

import os

import pytest

from planning_core.errors import EngineError
from planning_core.result import Status
from planning_core.search import pddl21_planners as pp
from planning_core.search.limited_process import ProcessRun

# a counter that must reach 3: ENHSP's numeric planning, three increments
COUNTER_DOMAIN = """(define (domain counter)
  (:requirements :numeric-fluents)
  (:functions (c))
  (:action inc :parameters () :precondition (< (c) 10) :effect (increase (c) 1)))"""
COUNTER_PROBLEM = """(define (problem p) (:domain counter)
  (:init (= (c) 0)) (:goal (>= (c) 3)))"""

# one durative action: TAMER's temporal planning
LIGHT_DOMAIN = """(define (domain light)
  (:requirements :strips :durative-actions)
  (:predicates (off) (on))
  (:durative-action switch :parameters ()
    :duration (= ?duration 2)
    :condition (at start (off))
    :effect (and (at start (not (off))) (at end (on)))))"""
LIGHT_PROBLEM = """(define (problem p) (:domain light) (:init (off)) (:goal (on)))"""


def _need(engine: str) -> None:
    """Skip without the planner on a developer's machine; in CI (``.ci/run`` installs the
    extra and a Java runtime) a missing planner fails instead."""
    if not pp.available(engine):
        reason = f"{engine} is not installed (pip install 'planning-core[planners]')"
        if os.environ.get("CI"):
            pytest.fail(reason + " and CI is set", pytrace=False)
        pytest.skip(reason)


def _run(returncode=0, cpu=0.1, killed=False, stdout="", stderr="") -> ProcessRun:
    return ProcessRun(returncode=returncode, wall_s=cpu, cpu_s=cpu, peak_rss_kb=1000,
                      killed_at_wall_limit=killed, stdout=stdout, stderr=stderr)


@pytest.mark.slow
def test_enhsp_plans_a_numeric_task():
    _need("enhsp")
    res = pp.run_planner("enhsp", COUNTER_DOMAIN, COUNTER_PROBLEM, time_limit=60,
                         memory_limit_mb=1024)
    assert res.status is Status.SOLVED
    assert res.plan == ("(inc)", "(inc)", "(inc)")
    assert res.engine == "enhsp"


@pytest.mark.slow
def test_tamer_plans_a_temporal_task_in_vals_format():
    _need("tamer")
    res = pp.run_planner("tamer", LIGHT_DOMAIN, LIGHT_PROBLEM, time_limit=60,
                         memory_limit_mb=4096)
    assert res.status is Status.SOLVED
    assert res.plan == ("0.0: (switch) [2.0]",)


@pytest.mark.slow
def test_an_unsolvable_task_is_unknown_not_a_proof():
    _need("enhsp")
    unsolvable = COUNTER_PROBLEM.replace("(>= (c) 3)", "(>= (c) 30)")
    res = pp.run_planner("enhsp", COUNTER_DOMAIN, unsolvable, time_limit=60, memory_limit_mb=1024)
    assert res.status is Status.UNKNOWN
    assert res.plan is None


def test_missing_package_says_what_to_install(monkeypatch):
    monkeypatch.setattr(pp, "_package_dir", lambda module: None)
    for engine, package in (("enhsp", "up-enhsp"), ("tamer", "up-tamer"), ("lpg", "up-lpg")):
        with pytest.raises(EngineError, match=package) as err:
            pp.locate(engine)
        assert "planning-core[planners]" in str(err.value)
        assert not pp.available(engine)


def test_missing_java_is_named(monkeypatch, tmp_path):
    jar = tmp_path / "ENHSP" / "enhsp.jar"
    jar.parent.mkdir()
    jar.write_bytes(b"")
    monkeypatch.setattr(pp, "_package_dir", lambda module: tmp_path)
    monkeypatch.setattr(pp.shutil, "which", lambda name: None)
    with pytest.raises(EngineError, match="Java runtime"):
        pp.locate("enhsp")


def test_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="enhsp"):
        pp.locate("popf")


@pytest.mark.parametrize("run, reason", [
    (_run(returncode=-24, cpu=5.0), "time limit"),           # SIGXCPU at a 5 s limit
    (_run(returncode=-9, cpu=5.1), "time limit"),            # SIGKILL at the hard limit
    (_run(returncode=-9, cpu=0.5, killed=True), "time limit"),  # the wall-clock kill
    (_run(returncode=1, stderr="java.lang.OutOfMemoryError: Java heap space"), "memory limit"),
    (_run(returncode=1, stderr="MemoryError"), "memory limit"),
    (_run(returncode=0), None),
    (_run(returncode=-9, cpu=0.5), None),                    # killed by someone else
])
def test_limit_reasons(run, reason):
    assert pp._limit_reason(run, 5.0) == reason


def test_reading_tamers_output():
    status, steps = pp._read_tamer("STATUS SOLVED_SATISFICING\n"
                                   "STEP 0.0|Switch A|2.0\nSTEP 5.01|go a b|0.5\n")
    assert status == "SOLVED_SATISFICING"
    assert steps == ("0.0: (switch a) [2.0]", "5.01: (go a b) [0.5]")
    # a sequential plan (TAMER on a numeric task without durative actions)
    assert pp._read_tamer("STATUS SOLVED_SATISFICING\nSTEP |inc |\n")[1] == ("(inc)",)


def test_reading_enhsps_plan_file():
    assert pp._read_enhsp_plan("(Lift H1 C0 P1 D0)\n\n( drive t0  a b )\n; cost\n") == \
        ("(lift h1 c0 p1 d0)", "(drive t0 a b)")


def test_the_jvm_gets_a_heap_cap_not_an_address_space_limit():
    _need("enhsp")
    cmd = pp._enhsp_cmd("java", 1000)
    assert "-Xmx800m" in cmd and "-XX:+UseSerialGC" in cmd
    assert cmd[-len(pp.ENHSP_SEARCH):] == list(pp.ENHSP_SEARCH)
    assert not any(part.startswith("-Xmx") for part in pp._enhsp_cmd("java", None))


# LPG-td's plan file as it writes it (upper case, 4 decimals, a ")" after the duration)
LPG_SOL = """; Version LPG-td-1.4
; MetricValue 30.21

0.0002:   (REFUEL PLANE1 CITY0) [10.7596])
10.7603:   (FLY PLANE1 CITY0 CITY2) [5.1979])
10.7603:   (NOTE PLANE1) [1.0000])
"""


def test_reading_lpgs_plan_file():
    # a temporal task: a timed plan, durations on the durative actions only
    assert pp._read_lpg_plan(LPG_SOL, frozenset({"refuel", "fly"})) == (
        "0.0002: (refuel plane1 city0) [10.7596]", "10.7603: (fly plane1 city0 city2) [5.1979]",
        "10.7603: (note plane1)")
    # a numeric task: sequential, in the order of the start times
    assert pp._read_lpg_plan("2.0: (B) [1.0]\n1.0: (A X) [1.0]\n", None) == ("(a x)", "(b)")


def test_lpg_runs_with_a_fixed_seed_and_its_own_cpu_limit():
    cmd = pp._lpg_cmd("lpg", 7.5)
    assert cmd[cmd.index("-seed") + 1] == str(pp.LPG_SEED)
    assert cmd[cmd.index("-cputime") + 1] == "7" and cmd[cmd.index("-n") + 1] == "1"


def test_lpg_stopping_at_its_cpu_time_is_the_time_limit(monkeypatch, tmp_path):
    monkeypatch.setattr(pp, "locate", lambda engine: pp.PlannerPaths(engine, ("lpg",)))
    monkeypatch.setattr(pp, "run_limited", lambda *a, **k: _run(returncode=0, cpu=4.98))
    res = pp.run_planner("lpg", LIGHT_DOMAIN, LIGHT_PROBLEM, time_limit=5)
    assert (res.status, res.reason) == (Status.UNKNOWN, "time limit")
    monkeypatch.setattr(pp, "run_limited", lambda *a, **k: _run(returncode=1, cpu=0.1))
    res = pp.run_planner("lpg", LIGHT_DOMAIN, LIGHT_PROBLEM, time_limit=5)
    assert (res.status, res.reason) == (Status.UNKNOWN, "lpg found no plan")


@pytest.mark.parametrize("durative, plan", [
    (frozenset({"switch"}), ("0.0003: (switch) [2.0]",)),
    (None, ("(inc)", "(inc)", "(inc)")),
])
def test_lpg_plans_temporal_and_numeric_tasks(durative, plan):
    _need("lpg")
    domain, problem = (LIGHT_DOMAIN, LIGHT_PROBLEM) if durative else (COUNTER_DOMAIN,
                                                                       COUNTER_PROBLEM)
    res = pp.run_planner("lpg", domain, problem, time_limit=30, memory_limit_mb=1024,
                         durative=durative)
    assert res.status is Status.SOLVED
    assert res.plan == plan
