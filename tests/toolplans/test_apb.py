"""APB as its paper defines it (issue 22): one hand-made case per item, flags and grade
written by hand. Paper: /work/shared/seeds/001_25509288ef9c2098.txt (line numbers)."""
from __future__ import annotations

import json
import random

import pytest

from planning_core.errors import PlanningError
from planning_core.validators.toolplans import TaskContext, check_output, judge_prediction, parse_task
from planning_core.validators.toolplans.apb import (N_E, build_sets, distractors, load_domains,
                                                    replacement_tool, task_to_json,
                                                    unsolvable_variants)
from planning_core.validators.toolplans.apb_report import format_table1, table1
from planning_core.validators.toolplans.calls import parse_output, parse_prediction
from planning_core.validators.toolplans.grade import holistic_grade, stepwise_grade

from tests.toolplans.toolplans_fixtures import DATASET, TASK, TOOLS, VALID, mini, s, tool

L = 'login(username="ana.l")'
S = 'search(origin="Paris", destination="Rome", date="2025-05-01")'
B = 'book(offer=$2.offer, passenger="Ana")'
P = 'pay(amount=$3.fare, card="4111")'


def entry(name, desc, reason="because"):
    out = {"name": name, "parameter_description": desc}
    if reason is not None:
        out["reason"] = reason
    return out


def holistic(chain, plan="log in, search, book, pay"):
    out = {"tool_chain": chain}
    if plan is not None:
        out["plan"] = plan
    return json.dumps(out)


PERFECT = [entry("login", {"username": "ana.l"}),
           entry("search", {"origin": "Paris", "destination": "Rome", "date": "2025-05-01"}),
           entry("book", {"offer": "The offer returned by Step 2", "passenger": "Ana"}),
           entry("pay", {"amount": "the fare that book returns", "card": "4111"})]


def step(name=None, args=None, thought="t", **extra):
    calls = [] if name is None else [{"type": "function", "function": {"name": name,
                                                                      "arguments": args or {}}}]
    return {"role": "assistant", "thought": thought, "tool_calls": calls, **extra}


# ------------------------------------------------------------------ 1. formats

def test_paper_holistic_format_with_prose_arguments():
    rep = check_output(mini(), holistic(PERFECT))
    assert (rep.correct, rep.grade, rep.classes, rep.format) == (True, 1.0, {}, "paper-holistic")
    assert rep.undecided == () and rep.e1 is None        # E1: intent not formal here


def test_prose_that_names_nothing_is_read_by_type_and_listed_undecided():
    chain = list(PERFECT)
    chain[2] = entry("book", {"offer": "the cheapest option we found", "passenger": "Ana"})
    rep = check_output(mini(), holistic(chain))
    assert rep.correct and rep.undecided == ((3, "offer"),)
    # a prose value naming a step is decided: step 1 makes a token, not an offer (E5, the
    # tool's required data type, line 657)
    chain[2] = entry("book", {"offer": "the token of step 1", "passenger": "Ana"})
    rep = check_output(mini(), holistic(chain))
    assert rep.classes == {"E5": [3]} and rep.undecided == ()


def test_prose_naming_the_calls_own_tool_is_not_a_reference():
    chain = list(PERFECT)
    chain[2] = entry("book", {"offer": "the offer we will book (from search)", "passenger": "Ana"})
    rep = check_output(mini(), holistic(chain))
    assert rep.correct and rep.undecided == ()          # "search" decides it, "book" is prose
    chain[2] = entry("book", {"offer": "the offer to book", "passenger": "Ana"})
    rep = check_output(mini(), holistic(chain))
    assert rep.correct and rep.undecided == ()          # the type named: "offer"


def test_format_violations_are_E3_with_the_grade_by_hand():
    rep = check_output(mini(), holistic(PERFECT, plan=None))       # no plan: chain level
    assert rep.correct is False and rep.classes == {"E3": [None]}
    assert rep.grade == 0.8    # one non-critical component, every call correct
    chain = list(PERFECT)
    chain[1] = entry("search", PERFECT[1]["parameter_description"], reason=["not", "text"])
    rep = check_output(mini(), holistic(chain))
    # a call with a malformed reason is still a right step: one non-critical component
    assert rep.classes == {"E3": [2]} and rep.grade == 0.8
    rep = check_output(mini(), '{"plan": "x", "tool_chain": "login"}')
    assert rep.classes == {"E3": [None]} and rep.primary.kind == "malformed_output"
    assert rep.grade == 0.0


def test_reject_format_and_our_json_both_read():
    assert parse_output('{"status": "REJECT", "reason": "no OCR tool"}').refusal == "no OCR tool"
    assert check_output(mini(), '{"status": "REJECT"}').primary.kind == "unjustified_refusal"
    assert check_output(mini(), VALID).correct          # our own formats stay accepted
    out = parse_prediction(json.dumps([step("login", {"username": "ana.l"}), step()]), 2)
    assert [len(st.calls) for st in out.steps] == [1, 0] and out.issues == ()


def test_an_openai_message_is_one_step_with_all_its_calls():
    msg = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "login", "arguments": '{"username": "ana.l"}'}},
        {"id": "b", "type": "function", "function": {"name": "search", "arguments": json.dumps(
            {"origin": "Paris", "destination": "Rome", "date": "2025-05-01"})}}]}
    out = parse_prediction(json.dumps(msg), 1)
    assert len(out.steps) == 1 and len(out.steps[0].calls) == 2 and out.issues == ()
    assert judge_prediction(mini(), "[]", json.dumps([msg, {"role": "assistant", "tool_calls": []}]),
                            2).classes == {"E2": [None]}


@pytest.mark.parametrize("text", ["[" * 50000, '{"plan": "' + "x" * 10 + '", "tool_chain": [{}]}',
                                  '{"tool_chain": [{"name": "login", "parameter_description": 5}]}',
                                  '{"role": "assistant", "thought": "t", "tool_calls": 3}'])
def test_hostile_outputs_get_a_verdict(text):
    rep = check_output(mini(), text, grade=False)
    assert rep.correct is False
    assert judge_prediction(mini(), "[]", text, 1).correct is False


# ------------------------------------------------------------------ 2. multi-label classes

def test_every_class_with_its_calls_past_the_first_failure():
    chain = ('search(origin="Paris", destination="Berlin", date="2025-05-01")\n'   # E6 Berlin
             'buy(amount="1")\n'                                                   # E6 no tool
             'book(offer=$1.offer, passenger="Ana")\n'       # E4: no login (offer counted made)
             'old_pay(amount=$3.fare)')                      # E3 forbidden (pays: no E2)
    rep = check_output(mini(), chain)
    assert rep.classes == {"E3": [4], "E4": [3], "E6": [1, 2]}
    assert rep.primary.step == 1 and rep.missing_outputs == 0
    assert rep.grade == 0.0                                  # no correct call


def test_two_faulty_calls_and_three_correct_grade_04():
    chain = f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana", meal="veg")\n{P}\nweather(city="Rome")'
    rep = check_output(mini(), chain)
    assert rep.classes == {"E5": [3, 5]} and rep.grade == 0.4


def test_unknown_tool_is_E6_and_an_incomplete_chain_E2():
    rep = check_output(mini(), f'{L}\n{S}\nbok(offer=$2.offer, passenger="Ana")')
    assert rep.classes == {"E2": [None], "E6": [3]}
    assert rep.grade == 0.4      # components: call 3, booking and receipt missing; 2 correct


def test_E1_decided_on_a_formal_goal_and_undecided_otherwise():
    rep = check_output(mini(), "make_voucher()")             # serves no required output
    assert rep.e1 is True and set(rep.classes) == {"E1", "E2"} and rep.grade == 0.0
    assert check_output(mini(), VALID).e1 is None             # values not formal: undecided
    ctx = mini(intent=[{"tool": "search", "arguments": {"origin": "Paris", "destination": "Rome"}}])
    assert check_output(ctx, VALID).e1 is False
    swapped = VALID.replace('origin="Paris", destination="Rome"', 'origin="Rome", destination="Paris"')
    rep = check_output(ctx, swapped)
    assert rep.e1 is True and rep.classes == {"E1": [None]} and rep.grade == 0.0


# ------------------------------------------------------------------ 3. Plan Grade

@pytest.mark.parametrize("flags,trivial,grade", [
    (set(), False, 1.0), ({"E5"}, True, 0.8), ({"E5"}, False, 0.6), ({"E4"}, False, 0.6),
    ({"E4", "E5"}, False, 0.4), ({"E2"}, False, 0.4), ({"E2", "E4"}, False, 0.2),
    ({"E1"}, False, 0.2), ({"E3", "E5"}, False, 0.2), ({"E6"}, False, 0.2),
    ({"E1", "E6"}, False, 0.0), ({"E3", "E6", "E4"}, False, 0.0)])
def test_stepwise_grade_is_the_rubric_of_lines_599_610(flags, trivial, grade):
    assert stepwise_grade(flags, trivial=trivial) == grade


def test_holistic_grade_reading():
    from planning_core.validators.toolplans.faults import Fault
    minor = Fault("wrong_arguments", 3, "x", minor=True)
    assert holistic_grade(10, [minor], 0) == 0.8        # 9 of 10 correct, non-critical
    assert holistic_grade(4, [minor], 0) == 0.6         # 3 of 4 < 90%
    assert holistic_grade(4, [Fault("incomplete", None, "x")], 1) == 0.6
    assert holistic_grade(4, [Fault("premature_call", 2, "x"), Fault("incomplete", None, "x")], 1) == 0.4
    assert holistic_grade(2, [Fault("unknown_tool", 2, "x"), Fault("incomplete", None, "x")], 1) == 0.2
    assert holistic_grade(1, [Fault("unknown_tool", 1, "x")], 0) == 0.0


# ------------------------------------------------------------------ 4. step-wise k = 1, 2, 3

def test_k_actions_applicable_in_turn_and_reachable():
    two = json.dumps([step("login", {"username": "ana.l"}),
                      step("search", {"origin": "Paris", "destination": "Rome", "date": "2025-05-01"})])
    rep = judge_prediction(mini(), "[]", two, 2)
    assert (rep.correct, rep.grade, rep.optimal, rep.h_before, rep.h_after) == (True, 1.0, True, 4, 2)
    rep = judge_prediction(mini(), "[]", json.dumps(step("make_voucher")), 1)
    assert (rep.correct, rep.grade, rep.optimal) == (True, 1.0, False)   # optimality not required


def test_stepwise_flags_and_grades_by_hand():
    rep = judge_prediction(mini(), L, json.dumps(step(thought="all done")), 1)
    assert rep.classes == {"E2": [None]} and rep.grade == 0.4           # concludes too early
    rep = judge_prediction(mini(), "[]", json.dumps([step("login", {"username": "ana.l"})]), 2)
    assert rep.classes == {"E3": [None]} and rep.grade == 0.2           # one step of two
    rep = judge_prediction(mini(), L, json.dumps(step("book", {"offer": "$search.offer",
                                                               "passenger": "Ana"})), 1)
    assert rep.classes == {"E4": [2]} and rep.grade == 0.6
    rep = judge_prediction(mini(), L, json.dumps(step("lgoin", {"username": "ana.l"})), 1)
    assert rep.classes == {"E6": [2]} and rep.grade == 0.2
    rep = judge_prediction(mini(), "[]", json.dumps(step("login", {"username": "ana.l"}, role="user")), 1)
    assert rep.classes == {"E3": [None]}
    # a call limit of four in all: a needless call first leaves too few for the request
    ctx = mini(constraints=[{"kind": "at_most", "n": 4}])
    rep = judge_prediction(ctx, "[]", "make_voucher()", 1)
    assert rep.classes == {"E4": [1]} and rep.faults[0].kind == "dead_end" and rep.grade == 0.6
    # done: a concluding step is right
    rep = judge_prediction(mini(), VALID, json.dumps(step(thought="booked and paid")), 1)
    assert rep.correct and rep.grade == 1.0
    with pytest.raises(PlanningError, match="prefix"):
        judge_prediction(mini(), 'book(offer=$search.offer, passenger="Ana")', L, 1)


# ------------------------------------------------------------------ 5. extraneous tools

def test_distractors_are_proved_useless_and_using_one_is_E5():
    base = mini().task
    for n in N_E:
        noisy = distractors(base, n, random.Random(n))
        assert len(noisy.extraneous) == n
        ctx = TaskContext(noisy)
        assert ctx.relevant == TaskContext(base).relevant
        assert ctx.feasibility().cost == 4
    noisy = distractors(base, 2, random.Random(0))
    d = noisy.tool(noisy.extraneous[0])
    args = {p.name: {"city": "Rome", "offer": "$2.offer", "fare": "$3.fare", "username": "ana.l",
                     "passenger": "Ana", "card": "4111"}.get(p.data_type) if p.data_type
            else p.enum[0] for p in d.params if p.required}
    call = f'{d.name}({", ".join(f"{k}={json.dumps(v)}" for k, v in args.items())})'
    rep = check_output(TaskContext(noisy), f"{VALID}\n{call}")
    assert rep.correct is False and rep.classes == {"E5": [5]} and rep.grade == 0.6
    assert check_output(TaskContext(noisy), VALID).correct


# ------------------------------------------------------------------ 6. tool-broken

def broken_task():
    tools = TOOLS + [tool("quick_book", {"offer": s("offer")}, ["offer"], ["booking", "fare"])]
    task = parse_task({**TASK, "tools": tools, "broken": ["book"]})
    alt = replacement_tool(task, "book")
    assert alt.name == "reserve" and alt.produces == task.tool("book").produces
    from dataclasses import replace
    return TaskContext(replace(task, tools=task.tools + (alt,)))


@pytest.mark.parametrize("answer,behaviour,correct", [
    ('reserve(offer=$2.offer, passenger="Ana")', "replace", True),
    ('quick_book(offer=$2.offer)', "alter", True),
    ('book(offer=$2.offer, passenger="Ana Lima")', "retry", False),
    ('{"status": "REJECT", "reason": "book is down"}', "refusal", False),
    ('{"role": "assistant", "thought": "I will wait", "tool_calls": []}', "other", False),
    ('make_voucher()', "other", True),           # applicable, but serves no required output
    ('reserv(offer=$2.offer, passenger="Ana")', "other", False),
])
def test_tool_broken_behaviours(answer, behaviour, correct):
    prefix = f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana")'    # the last call errored
    rep = judge_prediction(broken_task(), prefix, answer, 1, replacement="reserve")
    assert rep.behaviour == behaviour and rep.correct is correct


# ------------------------------------------------------------------ 7. unsolvable kinds

def test_inaccessible_visual_evidence():
    items = [dict(i) for i in TASK["items"]]
    items[3] = {**items[3], "accessible": False, "modality": "image"}      # the passenger
    ctx = mini(items=items)
    feas = ctx.feasibility()
    assert feas.kind == "visual_missing" and "image passenger" in feas.detail
    assert check_output(ctx, '{"status": "REJECT"}').correct is True
    rep = check_output(ctx, VALID)
    assert rep.classes == {"E6": [3]} and rep.primary.kind == "inaccessible_input"
    assert {f.kind for f in rep.faults} >= {"missed_refusal"} and rep.grade == 0.0


def test_four_unsolvable_kinds_from_one_task():
    variants = unsolvable_variants(mini().task, random.Random(1))
    assert set(variants) == {"contradictory_constraints", "missing_tool", "missing_input",
                             "visual_missing"}
    for kind, task in variants.items():
        ctx = TaskContext(task)
        assert ctx.feasibility().kind == kind
        assert check_output(ctx, '{"status": "REJECT"}').verdict == "right_refusal"


# ------------------------------------------------------------------ 8. scale and tables

def test_sets_are_deterministic_proportional_and_over_ten_domains():
    domains = load_domains(DATASET)
    assert len(domains) >= 10
    a = build_sets(domains, seed=3, scale=0.01)
    assert a == build_sets(domains, seed=3, scale=0.01)
    counts = {st: sum(1 for c in a if c["setting"] == st) for st in
              ("holistic", "stepwise", "extraneous", "broken", "unsolvable")}
    assert counts == {"holistic": 11, "stepwise": 9, "extraneous": 15, "broken": 3, "unsolvable": 4}
    assert {c["n_e"] for c in a if c["setting"] == "extraneous"} == set(N_E)
    assert {c["kind"] for c in a if c["setting"] == "unsolvable"} == {
        "contradictory_constraints", "missing_input", "missing_tool", "visual_missing"}
    assert len({c["domain"] for c in a if c["setting"] == "holistic"}) == 11
    for c in a[:3]:
        assert task_to_json(parse_task(c["task"])) == c["task"]      # round trip


def test_table1_by_hand():
    rows = [{"setting": "holistic", "correct": True, "grade": 1.0, "classes": {}, "e1": "undecided"},
            {"setting": "holistic", "correct": False, "grade": 0.4,
             "classes": {"E2": [None], "E4": [2]}, "e1": False},
            {"setting": "extraneous", "base": "holistic", "n_e": 2, "correct": False, "grade": 0.6,
             "classes": {"E5": [3]}, "e1": "undecided"},
            {"setting": "broken", "behaviour": "replace"}, {"setting": "broken", "behaviour": "retry"},
            {"setting": "unsolvable", "kind": "visual_missing", "correct": True}]
    t = table1(rows)
    assert t["holistic"] == {"n": 2, "CR": 50.0, "Grade": 0.7, "E1": 0.0, "E1_undecided": 1,
                             "E2": 50.0, "E3": 0.0, "E4": 50.0, "E5": 0.0, "E6": 0.0}
    assert t["extraneous"]["CR_by_n_e"][2] == 0.0 and t["extraneous"]["E5"] == 100.0
    assert t["broken"]["replace"] == 50.0 and t["broken"]["retry"] == 50.0
    assert t["unsolvable"]["Vis"] == 100.0 and t["unsolvable"]["Conf"] is None
    text = format_table1(t, "m")
    assert "| m | holistic | 2 | 50.0 | 0.7 | 0.0 | 50.0 |" in text and "| Rp |" in text
    # Table 1's first block: holistic then extraneous cells of one row
    assert "| m | 50.0 | 0.7 | 0.0 | 50.0 | 0.0 | 50.0 | 0.0 | 0.0 | 0.0 | 0.6 | - | 0.0 | - |" in text


@pytest.mark.parametrize("text,k", [
    ('{"tool_chain": [{"name": "login", "parameter_description": {"username": ' + "1" * 5000 + '}}]}', None),
    ('[' + ",".join(['{"role": "assistant", "thought": "t", "tool_calls": []}'] * 500) + ']', 3),
    ('{"plan": "p", "tool_chain": [{"name": 7, "parameter_description": {}}]}', None),
    ('{"plan": "p", "tool_chain": [3]}', None),
    ('{"plan": "p", "tool_chain": [{"name": "book", "parameter_description": '
     '{"offer": "(.*)+[ step 99 $$$ \\\\", "passenger": "Ana"}, "reason": "r"}]}', None),
    ('{"role": "assistant", "thought": "t", "tool_calls": [{"type": "function", '
     '"function": {"name": "login", "arguments": "{bad"}}]}', 1),
    ('{"status": "REJECT", "reason": ["not", "a", "string"]}', None),
    ('{"status": 5}', None),
    ("\x00\x01 REJECT", 1),
])
def test_hostile_answers_in_the_paper_formats(text, k):
    rep = check_output(mini(), text, grade=False)
    assert rep.correct in (False, None) or rep.refused
    pred = judge_prediction(mini(), "[]", text, k)
    assert pred.correct is False or pred.refused
    assert 0.0 <= pred.grade <= 1.0


# ------------------------------------------------------------------ 9. docs cite the paper

def test_docs_cite_the_paper_for_every_fault_kind_and_grade():
    import re
    from pathlib import Path

    from planning_core.validators.toolplans import FAULT_CLASS
    docs = (Path(__file__).resolve().parents[2] / "docs" / "toolplans.md").read_text()
    rows = [line for line in docs.splitlines() if line.startswith("| `")]
    for kind, code in FAULT_CLASS.items():
        row = next((r for r in rows if f"`{kind}`" in r), None)
        assert row is not None, kind
        assert (code or "--") in row and re.search(r"\| [^|]*\d{3}[^|]*\|", row), row
    for cite in ("lines 599-610", "lines 636-646", "line 690", "694-710", "479-487", "line 83"):
        assert cite in docs, cite
    assert "Departure" in docs
