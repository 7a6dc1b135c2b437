"""nexta's h* questions beyond a short in-process A*: Fast Downward under a CPU limit.

Python's LM-cut costs milliseconds per state, so a budget of expanded states that is right
for breadth-first search means hours of A* on a depots task Fast Downward solves in seconds.
The verdict must not change with the engine that computed h*: the planner path is checked
against the in-process one on the trap task, and on IPC depots p03 (shared data) an optimal
first action is decided, where in-process A* alone did not finish within minutes."""
from __future__ import annotations

import pytest

from planning_core.validators.acp.scoring import AnswerScorer
from planning_core.validators.acp.scorers import queries
from tests.acp.acp_fixtures import PROBLEM, record

EMPTY = {"yes": [], "no": [], "maybe": [], "opt": ""}
AT_R1 = PROBLEM.replace("(at r0)", "(at r1)")
CASES = [("(move r0 r1)", PROBLEM, 1), ("(pick c r0)", PROBLEM, 0),
         ("(move r1 r2)", AT_R1, 0), ("(pick k r1)", AT_R1, 1), ("(move r1 r0)", AT_R1, 0)]


def _scores(stored):
    return [AnswerScorer()(record("nexta", stored, problem=problem), response)
            for response, problem, _ in CASES]


def test_the_planner_path_gives_the_in_process_verdicts(monkeypatch):
    in_process = _scores(EMPTY) + _scores({**EMPTY, "opt": "4"})
    monkeypatch.setattr(queries, "HSTAR_INTERNAL_NODES", 1)   # every h* goes to Fast Downward
    planner = _scores(EMPTY) + _scores({**EMPTY, "opt": "4"})
    assert [s.value for s in planner] == [s.value for s in in_process]
    assert [s.value for s in in_process[:len(CASES)]] == [v for _, _, v in CASES]
    assert all(s.evidence == "h-star" for s in planner)


def test_a_small_budget_stays_a_budget_no_planner_behind_it():
    s = AnswerScorer(budget=1)(record("nexta", EMPTY), "(move r0 r1)")
    assert s.value is None and "Fast Downward" not in s.reason


@pytest.mark.slow
def test_depots_p03_first_action_is_decided_by_the_planner(shared_data):
    from planning_core.search.fast_downward import run_fast_downward
    folder = shared_data / "ipc" / "depot"
    domain = (folder / "domain.pddl").read_text()
    problem = (folder / "p03.pddl").read_text()
    res = run_fast_downward(domain, problem, optimal=True, time_limit=120, cpu_budget=True)
    assert res.plan, res.reason
    rec = {"id": "depot-p03", "group": "goal_closer_gen", "context": "depots",
           "question": "What is the next action that takes us towards the goal?",
           "answer": {**EMPTY, "opt": f"{res.cost:g}"},
           "PDDL_domain": domain, "PDDL_problem": problem}
    s = AnswerScorer()(rec, res.plan[0])
    assert (s.value, s.evidence) == (1, "h-star"), s.reason


def test_a_stored_opt_within_float_tolerance_gives_the_exact_verdict():
    """The bounded successor search keeps what math.isclose calls equal: a stored opt
    rounded below the true h* by less than its tolerance decides as the exact h* does."""
    domain = """(define (domain d) (:requirements :strips :action-costs)
     (:predicates (a) (b) (g)) (:functions (total-cost) - number)
     (:action s1 :parameters () :precondition (a) :effect (and (b) (increase (total-cost) 1)))
     (:action s2 :parameters () :precondition (b)
       :effect (and (g) (increase (total-cost) 1000.0000002))))"""
    problem = """(define (problem p) (:domain d) (:init (a) (= (total-cost) 0)) (:goal (g))
     (:metric minimize (total-cost)))"""
    scores = []
    for opt in ("1001", ""):
        rec = {"id": "f", "group": "goal_closer_gen", "context": "", "question": "next?",
               "answer": {**EMPTY, "opt": opt}, "PDDL_domain": domain, "PDDL_problem": problem}
        scores.append(AnswerScorer()(rec, "(s1)").value)
    assert scores == [1, 1]
