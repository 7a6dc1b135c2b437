"""Finding the domain and problem in a model's answer, whatever its shape."""
from __future__ import annotations

import json
import textwrap

import pytest

from planning_core.validators.formalizations.pddl_text import extract_pddl

DOMAIN = "(define (domain d)\n  (:predicates (p))\n  (:action a :parameters () :effect (p)))"
PROBLEM = "(define (problem q)\n  (:domain d)\n  (:init)\n  (:goal (p)))"


def test_the_papers_json_format():
    answer = json.dumps({"domain file": DOMAIN, "problem file": PROBLEM})
    files = extract_pddl(answer)
    assert (files.domain, files.problem, files.source) == (DOMAIN, PROBLEM, "json")


def test_json_with_raw_newlines_in_a_fence_and_other_key_names():
    answer = "```json\n{\"Domain_PDDL\": \"" + DOMAIN + "\",\n \"problem\": \"" + PROBLEM \
        + "\"}\n```"
    files = extract_pddl(answer)
    assert (files.domain, files.problem) == (DOMAIN, PROBLEM)


@pytest.mark.parametrize("order", ["domain first", "problem first"])
def test_fenced_blocks_in_any_order(order):
    blocks = [f"```pddl\n{DOMAIN}\n```", f"```lisp\n{PROBLEM}\n```"]
    if order == "problem first":
        blocks.reverse()
    answer = "Here is the model.\n\n" + "\n\nAnd the other file:\n\n".join(blocks) + "\nDone."
    files = extract_pddl(answer)
    assert (files.domain, files.problem, files.source, files.notes) == \
        (DOMAIN, PROBLEM, "text", ())


def test_bare_forms_with_comments_and_strings_holding_parentheses():
    domain = DOMAIN.replace("(:predicates (p))", "(:predicates (p)) ; a comment )) with parens")
    answer = f"The domain:\n{domain}\nThe problem \"(quoted)\":\n{PROBLEM}\nThat is all."
    files = extract_pddl(answer)
    assert (files.domain, files.problem) == (domain, PROBLEM)


def test_both_forms_in_one_fence_and_upper_case_keywords():
    answer = f"```\n{PROBLEM.upper()}\n\n{DOMAIN.upper()}\n```"
    files = extract_pddl(answer)
    assert (files.domain, files.problem) == (DOMAIN.upper(), PROBLEM.upper())


def test_the_last_draft_wins_and_is_noted():
    draft = DOMAIN.replace("(p)))", "(q)))")
    files = extract_pddl(f"{draft}\nOops, corrected:\n{DOMAIN}\n{PROBLEM}")
    assert files.domain == DOMAIN
    assert files.notes == ("2 domain definitions found; the last one is used",)


def test_an_unclosed_form_stops_at_the_next_define_and_at_its_fence():
    broken = DOMAIN[:-1]
    files = extract_pddl(f"{broken}\n{PROBLEM}")
    assert (files.domain, files.problem) == (broken, PROBLEM)
    assert "the domain definition's parentheses are not balanced" in files.notes
    files = extract_pddl(f"```\n{broken}\n```\nSome prose (with a parenthesis).\n"
                         f"```\n{PROBLEM}\n```")
    assert (files.domain, files.problem) == (broken, PROBLEM)


@pytest.mark.parametrize("answer, missing", [
    ("I cannot write PDDL today.", 2),
    (DOMAIN, 1),
    ("", 2),
    ('{"domain file": 3, "problem file": null}', 2),
])
def test_missing_files_are_reported(answer, missing):
    files = extract_pddl(answer)
    assert not files.complete
    assert len(files.missing()) == missing
    assert all(m.startswith("no PDDL") for m in files.missing())


def test_positions_are_relative_to_the_extracted_file():
    from planning_core.errors import PDDLSyntaxError
    from planning_core.pddl.parser import parse_domain

    answer = "Preamble\n\n```pddl\n" + textwrap.dedent("""\
        (define (domain d)
          (:predicates (p))
          (:action a :parameters () :efect (p)))
        """) + "```\n" + PROBLEM
    files = extract_pddl(answer)
    with pytest.raises(PDDLSyntaxError) as caught:
        parse_domain(files.domain, "domain.pddl")
    assert (caught.value.file, caught.value.line, caught.value.column) == ("domain.pddl", 3, 29)
