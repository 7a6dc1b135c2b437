"""Every reader of model text is linear and recursion-free (issue 9, items 6 and 7).

Each input below made an earlier reader quadratic (minutes of CPU at these sizes) or raise
``RecursionError``; linear readers take well under a second. Nothing is timed: a
regression fails through the ``timeout`` mark (pytest-timeout) instead of hanging the
suite, with a bound generous enough for a loaded machine.
"""
from __future__ import annotations

import pytest

from planning_core.validators.acp.answers.values import UnparseableAnswer
from planning_core.validators.acp.answers.parsers import parse_action_list
from planning_core.validators.cope.dataset import ActionHead
from planning_core.validators.cope.plans import normalize_plan
from planning_core.validators.formalizations.fences import fenced_blocks
from planning_core.validators.formalizations.ltl import extract_ltl
from planning_core.validators.formalizations.pddl_text import extract_pddl
from planning_core.validators.formalizations.smt import extract_program

HEADS = (ActionHead("pick-up", ("x",)), ActionHead("stack", ("x", "y")))
# "thread": a runaway regular expression runs in C, where a signal is not handled
pytestmark = pytest.mark.timeout(120, method="thread")


@pytest.mark.parametrize("text", [
    "answer " * 600_000,                 # 4.2 MB: the prefix was rescanned per key word
    "the answer is " * 200_000,
])
def test_acp_answer_regions_are_linear(text):
    with pytest.raises(UnparseableAnswer):
        parse_action_list(text)


@pytest.mark.parametrize("text", [
    "(a) " * 4000 + "(",                 # an ambiguous separator made the miss exponential
    "(a) , " * 3000 + "(",
    "[" + "(a) " * 3000 + "] [(b)",
    "[" + "(a)  ;  " * 2000 + "] [(b)]x",
    "(a" + " b" * 9000 + " !)",
])
def test_acp_plain_answer_fast_path_fails_linearly(text):
    from planning_core.validators.acp.answers import parsers

    assert parsers._plain(text) is None and parsers._plain_effects(text) is None


@pytest.mark.parametrize("text", [
    "{" * 100_000,                       # a failed decode counted lines from the start
    "[" * 100_000,                       # RecursionError in the JSON decoder
    "[" * 2000 + "]" * 2000,
    "a" * 200_000 + "(x)",               # call pattern retried inside one long word
    "pick-up" + " " * 200_000 + "x",     # split pattern retried inside a blank run
    "step" + " " * 200_000 + "x",        # list-marker pattern: two adjacent blank runs
])
def test_plan_normalisation_is_linear_and_never_recurses(text):
    plan = normalize_plan(text, HEADS, ["b1", "b2"])
    assert plan.steps == () or all(s.startswith("(") for s in plan.steps)


def test_plan_lists_are_still_found_after_adversarial_text():
    text = "[" * 5000 + ' then {"plan": ["pick-up b1", "stack b1 b2"]}'
    assert normalize_plan(text, HEADS, ["b1", "b2"]).steps == ("(pick-up b1)",
                                                              "(stack b1 b2)")


def test_unclosed_fences_are_paired_in_one_pass():
    text = "```python\nx = 1\n" * 20_000 + "~~~python\nfrom z3 import *\n~~~\n"
    program, found = extract_program(text)
    assert program == "from z3 import *\n" and found == "fenced block 1 of 1"
    assert len(fenced_blocks("```ltl\nG p\n" * 20_000)) == 0
    assert extract_ltl("```ltl\nG p\n" * 20_000).source == "whole answer"


def test_fences_pair_like_the_markdown_pattern_did():
    text = "```python\nopen\n```py\nx\n```\ntext\n~~~ltl\nF q\n~~~\n```\n"
    blocks = fenced_blocks(text)
    assert [(b.lang, b.body) for b in blocks] == [("python", "open\n```py\nx\n"),
                                                  ("ltl", "F q\n")]


@pytest.mark.parametrize("text", [
    "(define (domain d)\n" * 20_000,     # every unclosed form was scanned to the end
    '{"a' * 200_000,
    "```pddl\n(x)\n" * 20_000,
])
def test_pddl_extraction_is_linear(text):
    files = extract_pddl(text)
    assert files.problem is None


def test_pddl_unclosed_forms_are_cut_at_the_next_define():
    files = extract_pddl("(define (domain d)\n  (:action a\n(define (problem p) (:domain d))")
    assert files.domain == "(define (domain d)\n  (:action a"
    assert files.problem == "(define (problem p) (:domain d))"
    assert "not balanced" in " ".join(files.notes)


# Blank runs that span lines: ``^\s*`` under MULTILINE ran from every line start to the end
# of the blank run and back, quadratic in it (a 1 MB response of blank lines: hours).
BLANK_LINES = "x\n" + "\t\n" * 200_000 + "x"


def test_cope_empty_plan_check_is_linear_in_blank_lines():
    from planning_core.validators.cope.extract import is_empty_plan

    assert not is_empty_plan(BLANK_LINES)
    assert is_empty_plan("```json\r\n" + " \n" * 200_000 + '{"plan": []}\r\n```\r\n')


def test_smt_z3_import_search_is_linear_in_blank_lines():
    program, found = extract_program("```\n" + BLANK_LINES + "\n```\n")
    assert found == "whole response"
    program, found = extract_program("```\n" + "\t\n" * 200_000 + "from  z3 import *\n```\n")
    assert found == "fenced block 1 of 1"
