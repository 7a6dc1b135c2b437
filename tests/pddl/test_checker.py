"""Semantic checker: each kind of fault gives one located error; warnings never block."""
from __future__ import annotations

import textwrap

import pytest

from planning_core.pddl.checker import check, errors_of, used_requirements
from planning_core.pddl.parser import parse_domain, parse_domain_file, parse_problem, parse_problem_file
from shared_files import resolve

DOMAIN = textwrap.dedent("""\
    (define (domain d)
      (:requirements :strips :typing)
      (:types block - object table)
      (:constants t0 - table)
      (:predicates (on ?x - block ?y - block) (clear ?x - block) (at ?b - block ?t - table))
      (:action move
        :parameters (?x - block ?y - block)
        :precondition (and (clear ?x) (clear ?y))
        :effect (and (on ?x ?y) (not (clear ?y)))))
    """)
PROBLEM = "(define (problem p) (:domain d) (:objects a b - block) (:init (clear a) (clear b)) (:goal (on a b)))"


def _messages(domain_text: str, problem_text: str | None = None):
    d = parse_domain(domain_text, "d.pddl")
    p = parse_problem(problem_text, "p.pddl") if problem_text else None
    return check(d, p)


def test_clean_files_have_no_diagnostics():
    assert _messages(DOMAIN, PROBLEM) == ()


@pytest.mark.parametrize("domain_edit, problem_edit, pattern, where", [
    (("(clear ?x) (clear ?y)", "(clear ?x) (clr ?y)"), None,
     r"undeclared predicate 'clr' in action 'move' precondition", ("d.pddl", 8, "clr ?y")),
    (("(on ?x ?y) (not", "(on ?x) (not"), None,
     r"predicate 'on' takes 2 argument\(s\), 1 given", ("d.pddl", 9, "on ?x) (not")),
    (("?y - block)\n    :pre", "?y - blok)\n    :pre"), None,
     r"undeclared type 'blok'", ("d.pddl", 7, "?y - blok")),
    (("(clear ?x) (clear ?y)", "(clear ?x) (clear ?z)"), None,
     r"undeclared variable '\?z'", ("d.pddl", 8, "clear ?z")),
    (("(clear ?x) (clear ?y)", "(clear ?x) (clear t1)"), None,
     r"undeclared constant 't1'", ("d.pddl", 8, "clear t1")),
    (("(clear ?x) (clear ?y)", "(clear ?x) (clear t0)"), None,
     r"'t0' of type table does not fit", ("d.pddl", 8, "clear t0")),
    (("(clear ?x - block) (at", "(clear ?x - block) (clear ?z) (at"), None,
     r"duplicate predicate 'clear'", ("d.pddl", 5, "clear ?z")),
    (("?y - block)\n    :pre", "?y - block ?x - block)\n    :pre"), None,
     r"duplicate parameter '\?x'", ("d.pddl", 7, "?x - block)")),
    (None, ("(clear b))", "(clear c))"),
     r"undeclared object or constant 'c' in :init", ("p.pddl", 1, "clear c")),
    (None, ("(:goal (on a b))", "(:goal (on a t0))"),
     r"'t0' of type table does not fit parameter \?y", ("p.pddl", 1, "on a t0")),
    (None, ("(:domain d)", "(:domain other)"),
     r"is for domain 'other', but the domain is 'd'", ("p.pddl", 1, "p) (:domain")),
    (None, ("(:goal (on a b))", "(:goal (on a b c))"),
     r"takes 2 argument\(s\), 3 given in :goal", ("p.pddl", 1, "on a b c")),
])
def test_each_fault_is_one_located_error(domain_edit, problem_edit, pattern, where):
    domain, problem = DOMAIN, PROBLEM
    if domain_edit:
        assert domain_edit[0] in domain
        domain = domain.replace(*domain_edit, 1)
    if problem_edit:
        assert problem_edit[0] in problem
        problem = problem.replace(*problem_edit, 1)
    errors = errors_of(_messages(domain, problem))
    assert len(errors) == 1, errors
    import re
    assert re.search(pattern, errors[0].message), errors[0]
    file, line, anchor = where
    text = (domain if file == "d.pddl" else problem).splitlines()[line - 1]
    assert (errors[0].file, errors[0].line, errors[0].column) == (file, line, text.index(anchor) + 1)


def test_an_object_declared_twice_is_one_object_with_a_warning():
    # VAL accepts it (benchmarks/classical_edge, forms2/object-twice); the types add up
    problem = PROBLEM.replace("a b - block", "a b - block b - table", 1)
    assert problem != PROBLEM
    diagnostics = _messages(DOMAIN, problem)
    assert not errors_of(diagnostics)
    assert any(d.severity == "warning" and "object 'b' is declared twice; it is one object "
               "of types block table" in d.message for d in diagnostics), diagnostics


def test_undeclared_name_reported_once_with_count():
    text = DOMAIN.replace("(clear ?x) (clear ?y)", "(gone ?x) (gone ?y)").replace(
        "(not (clear ?y))", "(not (gone ?y))")
    errors = errors_of(_messages(text))
    assert len(errors) == 1
    assert errors[0].message.endswith("(and 2 more uses)")


def test_undeclared_features_are_warnings():
    text = DOMAIN.replace("(and (on ?x ?y) (not (clear ?y)))",
                          "(and (when (not (clear ?x)) (on ?x ?y)) (not (clear ?y)))")
    diags = _messages(text, PROBLEM)
    assert errors_of(diags) == ()
    assert any("uses :conditional-effects without declaring it" in d.message for d in diags)
    assert any("uses :negative-preconditions" in d.message for d in diags)


def test_used_requirements():
    d = parse_domain(DOMAIN)
    assert used_requirements(d) == {":strips", ":typing"}


def test_negated_equality_is_not_a_negative_precondition():
    d = parse_domain("(define (domain d) (:requirements :equality) (:predicates (p ?x)) "
                     "(:action a :parameters (?x ?y) :precondition (not (= ?x ?y)) :effect (p ?x)))")
    assert used_requirements(d) == {":strips", ":equality"}


def test_derived_predicates_cannot_be_effects_and_are_ignored_in_init():
    d = parse_domain("(define (domain d) (:requirements :derived-predicates) (:predicates (p) (q)) "
                     "(:derived (q) (p)) (:action a :parameters () :precondition (p) :effect (q)))")
    p = parse_problem("(define (problem x) (:domain d) (:init (q)) (:goal (q)))")
    diagnostics = check(d, p)
    messages = [e.message for e in errors_of(diagnostics)]
    assert any("cannot be changed by an effect" in m for m in messages)
    # in :init it is ignored with a warning (VAL and Fast Downward ignore it too)
    assert not any(":init" in m for m in messages)
    assert any(d.severity == "warning" and "in :init is ignored" in d.message
               for d in diagnostics)


@pytest.mark.parametrize("rel, pattern, line", [
    ("cope/CoinCollector-100/constraints/action/pddl/p27/p27_constraint20_df.pddl",
     r"undeclared predicate 'visit-first-room'", 27),
    ("cope/CoinCollector-100/constraints/action/pddl/p10/p10_constraint6_df.pddl",
     r"undeclared type 'room'", 5),
])
def test_cope_typos_give_precise_messages(rel, pattern, line):
    path = resolve(rel)
    d = parse_domain_file(path)
    problem = path.with_name(path.name.replace("_df", "_pf"))
    errors = errors_of(check(d, parse_problem_file(problem)))
    import re
    hits = [e for e in errors if re.search(pattern, e.message) and e.file == str(path)]
    assert len(hits) == 1 and hits[0].line == line, errors


def test_constraints_are_checked():
    d = parse_domain(DOMAIN)
    p = parse_problem(PROBLEM.replace("(:goal (on a b))",
                                      "(:goal (on a b)) (:constraints (and (always (clear a)) (sometime (on a c))))"))
    errors = errors_of(check(d, p))
    assert len(errors) == 1 and "undeclared object or constant 'c' in :constraints" in errors[0].message
    assert ":constraints" in used_requirements(d, p)
