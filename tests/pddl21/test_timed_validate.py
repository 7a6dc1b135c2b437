"""Timed plans (PDDL 2.1 level 3, PDDL 2.2 timed initial literals) in the validator
(issue 28, item 2): happenings, tolerance, mutex, invariants, durations, makespan."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from planning_core.pddl.parser import parse_domain, parse_domain_file, parse_problem, \
    parse_problem_file
from planning_core.validate import Verdict, render_text, validate_plan

KITCHEN = Path(__file__).resolve().parents[2] / "domains" / "pddl21" / "kitchen"


@pytest.fixture(scope="module")
def kitchen():
    return parse_domain_file(KITCHEN / "domain.pddl"), parse_problem_file(KITCHEN / "p01.pddl")


def _plan(name: str) -> str:
    return (KITCHEN / name).read_text()


def test_valid_timed_plan_value_is_the_makespan(kitchen):
    report = validate_plan(*kitchen, _plan("p01.plan"), trace=True)
    assert report.verdict is Verdict.VALID, report.message
    assert report.cost == pytest.approx(10.02)
    text = render_text(report, verbose=True)
    assert "Checking next happening (time 4.01)" in text
    assert "Updating (gas) (5) by 3 decrease" in text      # ?duration in an effect
    assert "Adding (shop-open)" in text                   # the timed initial literal at 1


@pytest.mark.parametrize("plan, verdict, step, words", [
    ("p01.invariant.bad.plan", Verdict.INVARIANT_VIOLATED, 2, "(shop-open)"),
    ("p01.duration.bad.plan", Verdict.DURATION_VIOLATED, 1, "(= ?duration 4)"),
    ("p01.mutex.bad.plan", Verdict.MUTEX_VIOLATED, 1, "(stove-free)"),
    ("p01.overall.bad.plan", Verdict.PRECONDITION_FAILED, 3, "(kettle-free k1)"),
])
def test_each_temporal_fault_has_its_verdict(kitchen, plan, verdict, step, words):
    report = validate_plan(*kitchen, _plan(plan))
    assert report.verdict is verdict, report.message
    assert report.step == step
    assert words in report.message
    assert report.advice


def test_invariant_failure_says_when(kitchen):
    report = validate_plan(*kitchen, _plan("p01.invariant.bad.plan"))
    assert report.time == 6          # the timed literal that closes the shop
    # VAL's words, checked against its Validate: from the breaking happening to the next
    assert report.advice[0] == ("Invariant for (buy-milk) has its condition unsatisfied "
                                "between time 6 to 6.5, the condition is satisfied on the "
                                "empty set.")
    assert report.action == "Invariant for (buy-milk)"


TINY = textwrap.dedent("""\
    (define (domain tiny)
      (:requirements :durative-actions :numeric-fluents :duration-inequalities)
      (:predicates (p) (q) (r))
      (:functions (level) (rate))
      (:durative-action make-p :parameters () :duration (= ?duration 2)
        :condition (at start (not (p))) :effect (at end (p)))
      (:durative-action use-p :parameters () :duration (and (>= ?duration 1) (<= ?duration 3))
        :condition (and (at start (p)) (over all (p))) :effect (at end (q)))
      (:durative-action pump :parameters () :duration (= ?duration 1)
        :condition (at start (>= (level) 0)) :effect (at end (increase (level) (rate))))
      (:durative-action drain :parameters () :duration (= ?duration 1)
        :condition (at start (>= (level) 0)) :effect (at end (decrease (level) 1)))
      (:durative-action reset :parameters () :duration (= ?duration 1)
        :condition (and) :effect (at end (assign (level) 0)))
      (:action finish :parameters () :precondition (q) :effect (r)))
    """)


def _tiny(init: str = "", goal: str = "(q)"):
    prob = parse_problem(f"(define (problem t) (:domain tiny) (:init (= (level) 1) (= (rate) 2) "
                         f"{init}) (:goal {goal}) (:metric minimize (total-time)))")
    return parse_domain(TINY), prob


@pytest.mark.parametrize("plan, tolerance, verdict", [
    # the end of make-p at 2 and the start of use-p 0.005 later: one happening at -t 0.01
    # (within a tenth of it? no: 0.005 > 0.001), two at -t 0.001
    ("0: (make-p) [2]\n2.005: (use-p) [1]", None, Verdict.VALID),
    ("0: (make-p) [2]\n2.0005: (use-p) [1]", None, Verdict.PRECONDITION_FAILED),
    ("0: (make-p) [2]\n2.0005: (use-p) [1]", 0.001, Verdict.VALID),
    ("0: (make-p) [2]\n2: (use-p) [1]", 0.001, Verdict.PRECONDITION_FAILED),
    # duration inequalities, with VAL's tolerance on the non-strict bounds
    ("0: (make-p) [2]\n2.1: (use-p) [3.005]", None, Verdict.VALID),
    ("0: (make-p) [2]\n2.1: (use-p) [3.02]", None, Verdict.DURATION_VIOLATED),
    ("0: (make-p) [2]\n2.1: (use-p) [0.5]", None, Verdict.DURATION_VIOLATED),
    ("0: (make-p) [1.995]\n2.1: (use-p) [1]", None, Verdict.VALID),
    ("0: (make-p)\n2.1: (use-p) [1]", None, Verdict.DURATION_VIOLATED),
])
def test_happenings_tolerance_and_durations(plan, tolerance, verdict):
    report = validate_plan(*_tiny(), plan, tolerance=tolerance)
    assert report.verdict is verdict, report.message


@pytest.mark.parametrize("plan, verdict", [
    # increase and decrease of one fluent at one time commute; assign does not
    ("0: (make-p) [2]\n2.1: (use-p) [1]\n5: (pump) [1]\n5: (drain) [1]", Verdict.VALID),
    ("0: (make-p) [2]\n2.1: (use-p) [1]\n5: (pump) [1]\n5: (reset) [1]", Verdict.MUTEX_VIOLATED),
    # pump's start reads (level); drain's end at the same time changes it
    ("0: (make-p) [2]\n2.1: (use-p) [1]\n5: (drain) [1]\n6: (pump) [1]", Verdict.MUTEX_VIOLATED),
])
def test_numeric_interference(plan, verdict):
    report = validate_plan(*_tiny(), plan)
    assert report.verdict is verdict, report.message


def test_plain_actions_mix_with_durative_ones_and_the_metric_is_total_time():
    report = validate_plan(*_tiny(goal="(r)"), "0: (make-p) [2]\n2.1: (use-p) [1]\n3.2: (finish)")
    assert report.verdict is Verdict.VALID, report.message
    assert report.cost == pytest.approx(3.2)


def test_invariant_is_checked_on_the_open_interval():
    # use-p runs on (2.5, 3.5) and needs (p) over all; unmake deletes (p)
    dom = parse_domain(TINY.replace("(:action finish :parameters () :precondition (q) :effect (r))",
                                    "(:action unmake :parameters () :precondition (p) "
                                    ":effect (not (p)))"))
    prob = _tiny()[1]
    # at use-p's end the interval is over: deleting (p) then breaks nothing
    ok = validate_plan(dom, prob, "0: (make-p) [2]\n2.5: (use-p) [1]\n3.5: (unmake)")
    assert ok.verdict is Verdict.VALID, ok.message
    bad = validate_plan(dom, prob, "0: (make-p) [2]\n2.5: (use-p) [1]\n3: (unmake)")
    assert bad.verdict is Verdict.INVARIANT_VIOLATED
    assert bad.time == 3


def test_undefined_fluent_in_a_duration_is_undefined_value():
    dom = parse_domain(TINY.replace("(= ?duration 2)", "(= ?duration (speed))")
                       .replace("(:functions (level) (rate))", "(:functions (level) (rate) (speed))"))
    report = validate_plan(dom, _tiny()[1], "0: (make-p) [2]")
    assert report.verdict is Verdict.UNDEFINED_VALUE
    assert "(speed)" in report.message


@pytest.mark.parametrize("plan, verdict", [
    ("0: (make-p) [1" + "0" * 307 + "]", Verdict.DURATION_VIOLATED),      # 1e307, not 2
    ("1" + "0" * 308 + ": (make-p) [1" + "0" * 308 + "]", Verdict.DURATION_VIOLATED),  # inf
    ("0: (make-p) [-1]", Verdict.PLAN_SYNTAX_ERROR),
    ("1" + "0" * 400 + ": (make-p) [2]", Verdict.PLAN_SYNTAX_ERROR),          # time = inf
    ("0: (make-p) [2]\n2.1: (use-p) [1" + "0" * 400 + "]", Verdict.DURATION_VIOLATED),
])
def test_hostile_durations(plan, verdict):
    report = validate_plan(*_tiny(), plan)
    assert report.verdict is verdict, report.message


@pytest.mark.slow
def test_a_huge_happening_is_checked_in_one_pass():
    """10^5 instants at one time: the interference check is linear (VAL's owner tables),
    so they get a verdict; a budget too small for them gets ``unknown``."""
    from planning_core.limits import Limits
    from planning_core.pddl.plans import parse_plan

    plan = parse_plan("\n".join("0: (finish)" for _ in range(100_000)))
    task = _tiny(init="(q)", goal="(r)")
    assert validate_plan(*task, plan).verdict is Verdict.VALID
    clash = parse_plan("\n".join(["0: (finish)"] * 5_000 + ["0: (unmake)"]))
    dom = parse_domain(TINY.replace("(:action finish", "(:action unmake :parameters () "
                                    ":precondition (and) :effect (not (q)))\n  (:action finish"))
    report = validate_plan(dom, task[1], clash)
    assert report.verdict is Verdict.MUTEX_VIOLATED and "(q)" in report.message
    tight = validate_plan(*task, plan, budget=Limits(time_s=0.2).budget())
    assert tight.verdict is Verdict.UNKNOWN


def test_a_start_that_deletes_what_a_simultaneous_start_reads_is_a_mutex():
    """The shape of TAMER's satellite-time-simple p1 plan, which VAL rejects (issue 28's
    first look): a camera calibrates while pointing at a target (read at start) and turns
    away at the same time (deleted at start). VAL names the turn: the first instant whose
    effect changes what another reads."""
    dom = parse_domain(textwrap.dedent("""\
        (define (domain cam)
          (:requirements :durative-actions :typing)
          (:types target)
          (:predicates (pointing ?t - target) (calibrated))
          (:durative-action calibrate :parameters (?t - target) :duration (= ?duration 5)
            :condition (at start (pointing ?t)) :effect (at end (calibrated)))
          (:durative-action turn :parameters (?from ?to - target) :duration (= ?duration 5)
            :condition (at start (pointing ?from))
            :effect (and (at start (not (pointing ?from))) (at end (pointing ?to)))))
        """))
    prob = parse_problem("(define (problem c) (:domain cam) (:objects a b - target) "
                         "(:init (pointing a)) (:goal (and (calibrated) (pointing b))))")
    together = validate_plan(dom, prob, "5.01: (calibrate a) [5]\n5.01: (turn a b) [5]")
    assert together.verdict is Verdict.MUTEX_VIOLATED
    assert together.message == ("(turn a b) - start (deletes (pointing a)) and "
                                "(calibrate a) - start")
    assert together.advice == ("(turn a b) - start has a mutex violation at time 5.01",
                               "Separate these actions!")
    apart = validate_plan(dom, prob, "5.01: (calibrate a) [5]\n5.02: (turn a b) [5]")
    assert apart.verdict is Verdict.VALID, apart.message


def test_untimed_steps_are_at_one_two_three_as_vals_default_time():
    # make-p on [0, 0.5], use-p on [0.6, 0.9]; (finish) has no stamp: the first untimed
    # step is at time 1, after use-p's end (not at 3, its place in the file)
    plan = "0: (make-p) [0.5]\n0.6: (use-p) [0.3]\n(finish)"
    dom = parse_domain(TINY.replace("(= ?duration 2)", "(= ?duration 0.5)")
                       .replace("(>= ?duration 1)", "(>= ?duration 0.1)"))
    report = validate_plan(dom, _tiny(goal="(r)")[1], plan)
    assert report.verdict is Verdict.VALID, report.message
    assert report.cost == pytest.approx(1.0)
