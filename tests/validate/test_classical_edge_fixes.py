"""Regression tests for the verdicts the classical edge set (benchmarks/classical_edge.py)
found to differ from VAL's where VAL is right; one test per fix, inline PDDL."""
from __future__ import annotations

import json

from planning_core.cli.validate import validate_main
from planning_core.pddl.checker import check, errors_of
from planning_core.pddl.parser import parse_domain, parse_problem

DEPOT = """(define (domain depot) (:requirements :strips :typing) (:types place crate)
  (:constants depot - place)
  (:predicates (at ?c - crate ?p - place))
  (:action bring-home :parameters (?c - crate ?from - place) :precondition (at ?c ?from)
    :effect (and (not (at ?c ?from)) (at ?c depot))))"""

# depot, a place constant of the domain, is declared again as a crate
RETYPED = """(define (problem p) (:domain depot)
  (:objects depot - crate market - place c1 - crate)
  (:init (at c1 market)) (:goal (at c1 depot)))"""


def run(tmp_path, capsys, domain: str, problem: str, plan: str) -> dict:
    for name, text in (("d.pddl", domain), ("p.pddl", problem), ("x.plan", plan)):
        (tmp_path / name).write_text(text)
    validate_main(["--json", str(tmp_path / "x.plan"), str(tmp_path / "d.pddl"),
                   str(tmp_path / "p.pddl")])
    return json.loads(capsys.readouterr().out.splitlines()[0])


def test_a_constant_declared_again_with_another_type_has_both_types():
    # VAL and Fast Downward give the name both types; the checker let the problem's win and
    # refused the goal (at c1 depot), where depot is used as the domain's place
    diagnostics = check(parse_domain(DEPOT), parse_problem(RETYPED))
    assert not errors_of(diagnostics)
    assert any("also a domain constant of another type" in d.message and "place crate"
               in d.message for d in diagnostics)


def test_a_retyped_constant_fills_parameters_of_either_type(tmp_path, capsys):
    assert run(tmp_path, capsys, DEPOT, RETYPED, "(bring-home c1 market)\n")["verdict"] == "valid"
    # as a crate, depot is a legal argument; (at depot market) is false: a precondition
    # failure, as VAL says, not a type error nor a refusal
    row = run(tmp_path, capsys, DEPOT, RETYPED, "(bring-home depot market)\n")
    assert row["verdict"] == "precondition_failed"


def test_a_ground_argument_of_a_wrong_type_is_still_an_error():
    problem = """(define (problem p) (:domain depot) (:objects market - place c1 - crate)
      (:init (at c1 market)) (:goal (at market depot)))"""
    messages = [d.message for d in errors_of(check(parse_domain(DEPOT), parse_problem(problem)))]
    assert any("'market' of type place does not fit parameter ?c" in m for m in messages)


STRATA = """(define (domain strata) (:requirements :strips :derived-predicates :negative-preconditions)
  (:predicates (link ?x ?y) (covered ?x) (top ?x) (marked ?x))
  (:derived (covered ?x) (exists (?y) (and (link ?y ?x) (not (marked ?y)))))
  (:derived (top ?x) (not (covered ?x)))
  (:action mark :parameters (?x) :precondition (top ?x) :effect (marked ?x)))"""


def test_a_derived_atom_in_init_is_ignored_with_a_warning(tmp_path, capsys):
    # (top b) is listed in :init, but b is covered (a links to it, unmarked): the rule says
    # top b is false. VAL and Fast Downward ignore the listed atom; we refused the problem.
    problem = """(define (problem p) (:domain strata) (:objects a b)
      (:init (link a b) (top b)) (:goal (marked b)))"""
    row = run(tmp_path, capsys, STRATA, problem, "(mark b)\n")
    assert row["verdict"] == "precondition_failed"
    warnings = [d.message for d in check(parse_domain(STRATA), parse_problem(problem))]
    assert any("'top' in :init is ignored" in w for w in warnings)
    assert run(tmp_path, capsys, STRATA, problem, "(mark a)\n(mark b)\n")["verdict"] == "valid"


NESTED = """(define (domain nested) (:requirements :adl) (:types room)
  (:predicates (alarm) (lit ?r - room) (cleared ?r - room) (logged))
  (:action sound :parameters () :precondition (and)
    :effect (when (not (alarm))
              (and (alarm) (forall (?r - room) (when (lit ?r) (cleared ?r))) (when (alarm) (logged))))))"""
NESTED_P = """(define (problem p) (:domain nested) (:objects r1 r2 - room)
  (:init (lit r1)) (:goal (and (alarm) (cleared r1) (not (cleared r2)) (not (logged)))))"""


def test_a_forall_and_a_when_inside_a_when_are_read_validated_and_grounded():
    # outside PDDL's BNF (a when's body is literals there), but VAL and Fast Downward read
    # it, and its meaning is plain: the inner conditions are read in the state before the
    # action too. Our grammar refused it (unexpected '(').
    from planning_core.ground.grounder import ground
    from planning_core.validate.report import Verdict
    from planning_core.validate.simulator import validate_plan

    domain, problem = parse_domain(NESTED), parse_problem(NESTED_P)
    assert not errors_of(check(domain, problem))
    assert validate_plan(domain, problem, "(sound)\n").verdict is Verdict.VALID
    # the second sound's outer condition is false: nothing changes, (logged) stays false
    assert validate_plan(domain, problem, "(sound)\n(sound)\n").verdict is Verdict.VALID
    task = ground(domain, problem)
    (action,) = task.actions
    once = task.progress(task.init, action)
    atoms = {"(" + " ".join(a) + ")" for a in task.atoms_of(once)}
    assert {"(alarm)", "(cleared r1)"} <= atoms and not {"(cleared r2)", "(logged)"} & atoms
    assert task.is_goal(once) and task.progress(once, action) == once


def test_a_derived_predicate_must_be_declared_in_predicates():
    # VAL ("Predicate all-p not found") and Fast Downward refuse such a domain; we accepted it
    domain = parse_domain("""(define (domain d) (:requirements :derived-predicates)
      (:predicates (p ?x)) (:derived (all-p) (forall (?x) (p ?x)))
      (:action a :parameters () :precondition (all-p) :effect (and)))""", "d.pddl")
    (error,) = errors_of(check(domain))
    assert "derived predicate 'all-p' is not declared in :predicates" in error.message
    assert (error.file, error.line) == ("d.pddl", 2)
    declared = parse_domain("""(define (domain d) (:requirements :derived-predicates)
      (:predicates (p ?x) (all-p)) (:derived (all-p) (forall (?x) (p ?x)))
      (:action a :parameters () :precondition (all-p) :effect (and)))""")
    assert not errors_of(check(declared))


ROBOTS = """(define (domain robots) (:requirements :strips :typing) (:types robot cell)
  (:predicates (at ?r - robot ?c - cell) (beeped))
  (:action move :parameters (?r - robot ?from ?to - cell) :precondition (at ?r ?from)
    :effect (and (not (at ?r ?from)) (at ?r ?to)))
  (:action beep :parameters () :precondition (and) :effect (beeped)))"""
ROBOTS_P = """(define (problem p) (:domain robots) (:objects r1 - robot c1 c2 - cell)
  (:init (at r1 c1)) (:goal (beeped)))"""


def test_commas_between_arguments_get_a_hint():
    # VAL's lexer drops the commas and accepts the step; ours stays unknown_object, and now
    # says what to fix
    from planning_core.validate.simulator import validate_plan

    report = validate_plan(parse_domain(ROBOTS), parse_problem(ROBOTS_P), "(move r1, c1, c2)\n")
    assert report.verdict.value == "unknown_object"
    assert "did you mean 'r1'? Arguments are separated by blank space" in report.message
    report = validate_plan(parse_domain(ROBOTS), parse_problem(ROBOTS_P), "(move r9 c1 c2)\n")
    assert "did you mean" not in report.message


def test_a_hash_comment_line_says_comments_start_with_a_semicolon():
    from planning_core.pddl.plans import parse_plan

    plan = parse_plan("(move r1 c1 c2)\n# moved\n(beep)\n")
    (error,) = plan.errors
    assert (error.line, error.column) == (2, 1)
    assert error.message.endswith("comments start with ';'")
    assert "comments start" not in parse_plan("(move r1 (c1) c2)\n").errors[0].message


def test_derived_rules_that_cannot_be_stratified_are_a_json_bad_input_row(tmp_path, capsys):
    # the refusal came from the simulator, past the checker: --json printed no object at all
    domain = """(define (domain cycle) (:requirements :strips :derived-predicates)
      (:predicates (p) (q) (done))
      (:derived (p) (and (q) (not (p))))
      (:action go :parameters () :precondition (p) :effect (done)))"""
    problem = "(define (problem c) (:domain cycle) (:init (q)) (:goal (done)))"
    row = run(tmp_path, capsys, domain, problem, "(go)\n")
    assert row["verdict"] == "bad_input"
    (error,) = row["errors"]
    assert "cannot be stratified" in error["message"]
    assert error["file"].endswith("d.pddl") and error["line"] == 3
