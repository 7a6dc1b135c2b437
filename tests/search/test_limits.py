"""Every engine path honours the time and the memory limit (issue 9, item 8).

The task below is ~500 bytes and grounds to 12**6 = 2,985,984 actions over as many facts:
before the limits were metered inside the grounder, ``solve --time-limit 5`` and
``ground`` ran past 100 s of CPU and 8 GB of memory on it.
"""
from __future__ import annotations

import json
import textwrap

import pytest

from planning_core.console import main
from planning_core.ground.grounder import ground
from planning_core.ground.instantiate import ACTION_BYTES
from planning_core.limits import Budget, LimitReached, Limits
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.search.astar import astar
from planning_core.result import Status
from planning_core.solve import solve

DOMAIN = textwrap.dedent("""\
    (define (domain blowup)
      (:requirements :strips :typing)
      (:types obj)
      (:predicates (done ?a ?b ?c ?d ?e ?f - obj))
      (:action mark
        :parameters (?a ?b ?c ?d ?e ?f - obj)
        :precondition (and)
        :effect (done ?a ?b ?c ?d ?e ?f)))
    """)


def problem_text(n: int, goal: str = "(done o1 o1 o1 o1 o1 o1)") -> str:
    objects = " ".join(f"o{i}" for i in range(1, n + 1))
    return textwrap.dedent(f"""\
        (define (problem blowup-{n}) (:domain blowup)
          (:objects {objects} - obj)
          (:init)
          (:goal {goal}))
        """)


@pytest.fixture()
def files(tmp_path):
    d, p = tmp_path / "domain.pddl", tmp_path / "problem.pddl"
    d.write_text(DOMAIN)
    p.write_text(problem_text(12))
    return str(d), str(p)


def parsed(n: int, **goal):
    return parse_domain(DOMAIN, "d.pddl"), parse_problem(problem_text(n, **goal), "p.pddl")


def test_grounding_stops_at_the_time_limit():
    domain, problem = parsed(12)
    with pytest.raises(LimitReached) as info:
        ground(domain, problem, budget=Limits(time_s=0.5, memory_mb=0).budget())
    assert info.value.limit == "time limit"


def test_grounding_stops_at_the_estimated_memory_limit():
    """The estimate is deterministic: the same input stops after the same work."""
    domain, problem = parsed(12)
    stopped = []
    for _ in range(2):
        budget = Limits(memory_mb=60, rss_guard=False).budget()
        with pytest.raises(LimitReached) as info:
            ground(domain, problem, budget=budget)
        assert info.value.limit == "memory limit"
        stopped.append(budget.items)
    assert stopped[0] == stopped[1] and stopped[0] < 12 ** 6


@pytest.mark.slow
def test_instantiation_charges_masks():
    """117,649 actions over as many facts: the fixpoint and the proto actions fit in 200 MB,
    the bit masks (one int of up to 117,649 bits per action) would need ~900 MB."""
    domain, problem = parsed(7)
    budget = Limits(memory_mb=120, rss_guard=False).budget()
    with pytest.raises(LimitReached) as info:
        ground(domain, problem, budget=budget)
    assert info.value.limit == "memory limit"
    assert budget.unit_bytes == ACTION_BYTES      # stopped while building ground actions


def test_small_task_grounds_under_limits():
    domain, problem = parsed(3)
    task = ground(domain, problem, budget=Limits(time_s=30).budget())
    assert len(task.actions) == 3 ** 6


def test_solve_answers_unknown_with_the_limit_named():
    domain, problem = parsed(12)
    result = solve(domain, problem, optimal=False, time_limit=0.5, engine="internal")
    assert result.status is Status.UNKNOWN and result.reason == "time limit"


def test_search_charges_stored_states_to_the_memory_limit():
    domain, problem = parsed(4, goal="(and (done o1 o1 o1 o1 o1 o1) (done o2 o2 o2 o2 o2 o2))")
    task = ground(domain, problem)                  # 4096 actions: 4096 successors per state
    out = astar(task, heuristic="blind", budget=Budget(Limits(memory_mb=1, rss_guard=False)))
    assert out.status is Status.UNKNOWN and out.reason == "memory limit"
    assert astar(task, heuristic="blind", time_limit=60).status is Status.SOLVED


@pytest.mark.parametrize("command", ["solve", "ground", "reachable", "landmarks"])
def test_cli_commands_end_unknown_at_the_time_limit(command, files, capsys):
    code = main([command, "--time-limit", "1", *files])
    out, err = capsys.readouterr()
    assert code == 3, (out, err)
    assert "unknown (time limit)" in out


def test_cli_memory_limit_in_json(files, capsys):
    domain, problem = files
    code = main(["ground", "--json", "--memory-limit", "64", problem, domain])
    out, _ = capsys.readouterr()
    assert code == 3
    assert json.loads(out)["reason"] == "memory limit"


def test_acp_scorer_says_unknown_when_grounding_hits_the_limit(monkeypatch):
    from planning_core.validators.acp import problem as acp_problem
    from planning_core.validators.acp.records import Question
    from planning_core.validators.acp.scoring import AnswerScorer
    monkeypatch.setattr(acp_problem, "GROUND_TIME_LIMIT_S", 0.3)
    q = Question("q1", "app", "blowup", "", "Which actions are applicable?", [], DOMAIN,
                 problem_text(12))
    verdict = AnswerScorer()(q, "[(mark o1 o1 o1 o1 o1 o1)]")
    assert verdict.value is None and "time limit" in verdict.reason
