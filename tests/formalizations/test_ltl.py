"""The LTL formalizer pipeline on a hand-made CoPE-style pair (no shared data needed).

The pair's "ground truth" is a three-block task whose pick-up spends a token (at most two
pick-ups) and whose put-down refuses block b; the unconstrained task is the project's
blocksworld domain. Every outcome of the pipeline is reached once.
"""
from __future__ import annotations

import dataclasses
import textwrap

import pytest

from planning_core.validators.cope.dataset import ActionHead, Pair
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations.ltl import (LTL_OUTCOMES, complete_arguments, evaluate_ltl,
                                           extract_ltl, judge_ltl)
from planning_core.pddl.parser import parse_domain, parse_problem
from tests.conftest import DOMAINS

BASE_PROBLEM = """\
(define (problem three) (:domain blocksworld) (:objects a b c)
  (:init (ontable a) (on b a) (clear b) (ontable c) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
"""
TRUTH_DOMAIN = """\
(define (domain blocksworld)
  (:requirements :strips :typing :negative-preconditions)
  (:types block token)
  (:predicates (on ?x ?y - block) (ontable ?x - block) (clear ?x - block)
               (holding ?x - block) (handempty) (unused ?t - token) (glued ?x - block))
  (:action pick-up :parameters (?x - block ?t - token)
    :precondition (and (clear ?x) (ontable ?x) (handempty) (unused ?t))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)
                 (not (unused ?t))))
  (:action put-down :parameters (?x - block)
    :precondition (and (holding ?x) (not (glued ?x)))
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action stack :parameters (?x ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack :parameters (?x ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty))
                 (not (on ?x ?y)))))
"""
TRUTH_PROBLEM = """\
(define (problem three) (:domain blocksworld)
  (:objects a b c - block t1 t2 - token)
  (:init (ontable a) (on b a) (clear b) (ontable c) (clear c) (handempty)
         (unused t1) (unused t2) (glued b))
  (:goal (and (on a b) (on b c))))
"""
HEADS = (ActionHead("pick-up", ("block", "token")), ActionHead("put-down", ("block",)),
         ActionHead("stack", ("block1", "block2")), ActionHead("unstack", ("block1", "block2")))


@pytest.fixture
def pair(tmp_path) -> Pair:
    files = {"df.pddl": TRUTH_DOMAIN, "pf.pddl": TRUTH_PROBLEM, "p.pddl": BASE_PROBLEM}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return Pair("Test", "action", "p01", "constraint1", "b must not touch the table",
                tmp_path / "df.pddl", tmp_path / "pf.pddl", None, None, None, HEADS, True,
                (), base_domain_path=DOMAINS / "blocksworld" / "domain.pddl",
                base_problem_path=tmp_path / "p.pddl")


def _judge(pair, formula: str, **kw):
    return judge_ltl(pair, f"```ltl\n{formula}\n```", EvalContext(use_oracle=False, **kw))


def test_correct_plan_with_completed_token_arguments(pair):
    judgement = _judge(pair, "G !@(put-down b) & G !@(put-down c)")
    assert judgement.outcome == "correct", judgement.to_json()
    assert judgement.formalization == "ground-truth vocabulary"
    filled = judgement.completion.filled
    assert filled and all(" t1)" in done or " t2)" in done for _, _, done in filled)
    assert judgement.validation.valid


def test_plan_valid_for_the_formula_but_not_the_ground_truth(pair):
    judgement = _judge(pair, "F @(put-down b)")
    assert judgement.outcome == "plan_invalid"
    assert judgement.validation.verdict.value == "precondition_failed"


def test_proved_unsolvable_is_wrong_when_a_plan_exists_and_right_otherwise(pair):
    judgement = _judge(pair, "G !@(stack b _)")
    assert (judgement.outcome, judgement.solve.reason) == (
        "unsolvable", "relaxed unreachable under the formula")
    assert "proved that no plan" in judgement.feedback
    no_plan = dataclasses.replace(pair, plan_exists=False)
    assert _judge(no_plan, "G !@(stack b _)").outcome == "correct"


def test_a_plan_for_a_pair_labelled_unsolvable_is_plan_given(pair):
    no_plan = dataclasses.replace(pair, plan_exists=False)
    judgement = _judge(no_plan, "G !@(put-down b) & G !@(put-down c)")
    assert judgement.outcome == "plan_given" and judgement.label_doubt


@pytest.mark.parametrize("formula, outcome, message", [
    ("G ((on a b)", "syntax_error", "constraint.ltl:1:12: syntax: found end of input"),
    ("G !(onn a b)", "semantic_error", "unknown name 'onn'"),
    ("G !(on a)", "semantic_error", "predicate 'on' takes 2 argument(s), found 1"),
    ("G !@(stack a d)", "semantic_error", "unknown object 'd'"),
    ("G !@(clear a)", "semantic_error", "unknown action 'clear' after @"),
])
def test_formula_errors_are_located(pair, formula, outcome, message):
    judgement = _judge(pair, formula)
    assert judgement.outcome == outcome
    assert message in judgement.feedback


def test_no_formula_in_the_answer(pair):
    judgement = judge_ltl(pair, "I would stack a on b.", EvalContext(use_oracle=False))
    assert judgement.outcome == "syntax_error"
    assert judgement.answer.source == "whole answer"  # the prose was tried as a formula
    judgement = judge_ltl(pair, "```python\nprint(1)\n```", EvalContext(use_oracle=False))
    assert "no LTL formula found" in judgement.feedback


def test_full_formalization_in_the_model_s_own_names(pair):
    """The model writes its own domain (PickUp without tokens, parameters reordered) and a
    formula over it; the plan is mapped onto the ground truth and completed."""
    domain = (DOMAINS / "blocksworld" / "domain.pddl").read_text().replace(
        "pick-up", "PickUp")
    answer = f"```pddl\n{domain}\n```\n```pddl\n{BASE_PROBLEM}\n```\n" \
             "```ltl\nG !(@(put-down b) | @(put-down c))\n```"
    judgement = judge_ltl(pair, answer, EvalContext(use_oracle=False))
    assert judgement.formalization == "model's PDDL"
    assert judgement.outcome == "correct", judgement.to_json()
    assert any(m.source == "pickup" and m.target == "pick-up" for m in judgement.mapping.actions)


def test_half_a_formalization_is_a_syntax_error(pair):
    answer = f"```pddl\n{BASE_PROBLEM}\n```\n```ltl\ntrue\n```"
    judgement = judge_ltl(pair, answer, EvalContext(use_oracle=False))
    assert judgement.outcome == "syntax_error" and "only one PDDL file" in judgement.feedback


def test_unreadable_ground_truth(pair, tmp_path):
    (tmp_path / "df.pddl").write_text("(define (domain broken")
    result = evaluate_ltl(pair, "```ltl\ntrue\n```", EvalContext(use_oracle=False))
    assert (result.correct, result.outcome) == (False, "ground_truth_error")


def test_evaluation_row(pair):
    result = evaluate_ltl(pair, "LTL: G !@(put-down b) & G !@(put-down c)",
                          EvalContext(use_oracle=False))
    assert result.correct and result.outcome in LTL_OUTCOMES
    assert result.detail["formula_source"] == "labelled line"
    assert result.detail["solver"]["engine"] == "ltl-product"
    assert result.detail["formula"] == "G !@(put-down b) & G !@(put-down c)"


@pytest.mark.parametrize("text, formula, source", [
    ('{"plan": [], "ltl": "G (p)"}', "G (p)", "json"),
    ("first\n```ltl\nF (p)\n```\nthen\n```LTL\nG (q)\n```", "\nG (q)\n", "fenced block"),
    ("Here it is.\n**LTL:** `G !(p)`\n", "G !(p)", "labelled line"),
    ("G (p) & F (q)", "G (p) & F (q)", "whole answer"),
])
def test_extract_ltl(text, formula, source):
    answer = extract_ltl(text)
    assert (answer.formula.strip(), answer.source) == (formula.strip(), source)


def test_extract_ltl_notes_several_blocks_and_finds_pddl():
    answer = extract_ltl("```ltl\nF (p)\n```\n```ltl\nG (q)\n```\n(define (domain d))")
    assert answer.notes == ("2 ltl blocks found; the last one is used",)
    assert answer.domain == "(define (domain d))" and answer.problem is None


def test_completion_fails_cleanly_when_the_tokens_run_out():
    domain, problem = parse_domain(TRUTH_DOMAIN), parse_problem(TRUTH_PROBLEM)
    steps = ("(unstack b a)", "(stack b c)", "(pick-up a)", "(put-down a)", "(pick-up a)",
             "(put-down a)", "(pick-up a)", "(stack a b)")
    completion = complete_arguments(steps, domain, problem)
    assert not completion.complete and completion.steps == steps
    short = ("(unstack b a)", "(stack b c)", "(pick-up a)", "(stack a b)")
    done = complete_arguments(short, domain, problem)
    assert done.complete and done.steps[2] == "(pick-up a t1)"
    assert done.filled == ((3, "(pick-up a)", "(pick-up a t1)"),)
