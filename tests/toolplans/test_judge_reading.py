"""Answers read as APB's judge reads them (issue 29, item 3); each reading is cited in
docs/toolplans.md with the paper's lines."""
from __future__ import annotations

import json

import pytest

from planning_core.console import main
from planning_core.validators.toolplans import check_output, judge_prediction

from tests.toolplans.toolplans_fixtures import mini

INTENT = [{"tool": "search", "arguments": {"origin": "Paris", "destination": "Rome"}}]


def step(name=None, args=None, thought="t"):
    calls = [] if name is None else [{"type": "function",
                                      "function": {"name": name, "arguments": args or {}}}]
    return {"role": "assistant", "thought": thought, "tool_calls": calls}


def holistic(*entries):
    return json.dumps({"plan": "p", "tool_chain": [
        {"name": n, "parameter_description": d, "reason": "r"} for n, d in entries]})


def _chain(origin, destination):
    return holistic(("login", {"username": "ana.l"}),
                    ("search", {"origin": origin, "destination": destination,
                                "date": "2025-05-01"}),
                    ("book", {"offer": "the offer from step 2", "passenger": "Ana"}),
                    ("pay", {"amount": "the fare returned by book", "card": "4111"}))


# ------------------------------------------------------------------ conceptual descriptions

def test_a_description_naming_an_item_is_that_item():
    """Line 690: values "described conceptually"; "the city Paris given in the query" is
    Paris, and the intent is met (no E1)."""
    rep = check_output(mini(intent=INTENT), _chain("the departure city Paris from the query",
                                                   "Rome, the destination"))
    assert rep.correct is True and rep.e1 is False, rep.to_dict()


def test_a_description_of_the_type_resolves_to_the_users_item_and_is_not_e1():
    """"The IBAN provided in the query" names the type: the user's item of that type."""
    data = mini(intent=[{"tool": "login", "arguments": {"username": "ana.l"}}])
    out = holistic(("login", {"username": "the username provided in the query"}),
                   ("search", {"origin": "Paris", "destination": "Rome", "date": "2025-05-01"}),
                   ("book", {"offer": "the offer from step 2", "passenger": "Ana"}),
                   ("pay", {"amount": "the fare returned by book", "card": "4111"}))
    rep = check_output(data, out)
    assert "E1" not in rep.classes and rep.grade > 0.0, rep.to_dict()


def test_an_unresolvable_description_is_undecided_never_e1():
    rep = check_output(mini(intent=INTENT), _chain("where the trip starts", "Rome"))
    assert "E1" not in rep.classes
    assert rep.e1 is None and rep.to_dict()["e1"] == "undecided"


def test_a_description_of_another_value_is_still_e1():
    rep = check_output(mini(intent=INTENT), _chain("Rome", "Paris"))
    assert "E1" in rep.classes and rep.correct is False


# ------------------------------------------------------------------ references at k = 2, 3

@pytest.mark.parametrize("offer", ["<offer_from_step_2>", "{{search.offer}}",
                                   "the offer returned by search", "result of step 2",
                                   "offer #2"])
def test_a_clear_reference_to_an_earlier_output_resolves(offer):
    """Line 675: the model predicts without seeing returns, and the paper gives no syntax."""
    pred = json.dumps([step("search", {"origin": "Paris", "destination": "Rome",
                                       "date": "2025-05-01"}),
                       step("book", {"offer": offer, "passenger": "Ana"})])
    rep = judge_prediction(mini(), '[{"name": "login", "arguments": {"username": "ana.l"}}]',
                           pred, 2)
    assert rep.correct is True and rep.grade == 1.0, rep.to_dict()


def test_an_unknown_literal_stays_a_hallucinated_input():
    pred = json.dumps([step("search", {"origin": "Paris", "destination": "Rome",
                                       "date": "2025-05-01"}),
                       step("book", {"offer": "OFFER-77", "passenger": "Ana"})])
    rep = judge_prediction(mini(), '[{"name": "login", "arguments": {"username": "ana.l"}}]',
                           pred, 2)
    assert rep.correct is False and "E6" in rep.classes


def test_returned_values_recorded_in_the_prefix_resolve():
    prefix = json.dumps([{"name": "login", "arguments": {"username": "ana.l"}},
                         {"name": "search", "arguments": {"origin": "Paris",
                                                          "destination": "Rome",
                                                          "date": "2025-05-01"},
                          "returns": {"offer": "AZ-611 12:40"}}])
    rep = judge_prediction(mini(), prefix, json.dumps(step("book", {"offer": "AZ-611 12:40",
                                                                    "passenger": "Ana"})), 1)
    assert rep.correct is True, rep.to_dict()


# ------------------------------------------------------------------ plain-words refusals

UNSOLVABLE = dict(forbidden=["pay", "old_pay"])   # no maker of the receipt is allowed


@pytest.mark.parametrize("answer", [
    "I cannot complete this task: the only payment tools are forbidden.",
    json.dumps({"plan": "I am unable to proceed because paying is not allowed.",
                "tool_chain": []})])
def test_a_refusal_in_plain_words_is_a_refusal(answer):
    rep = check_output(mini(**UNSOLVABLE), answer)
    assert rep.refused and rep.correct is True


def test_a_clarification_request_is_right_only_when_information_is_missing():
    ask = "Could you please provide the card number to pay with?"
    from tests.toolplans.toolplans_fixtures import TASK
    missing = mini(items=[i for i in TASK["items"] if i["type"] != "passenger"])
    rep = check_output(missing, ask)
    assert rep.feasibility.kind == "missing_input"
    assert rep.refused and rep.correct is True
    rep = check_output(mini(**UNSOLVABLE), ask)
    assert rep.refused and rep.correct is False     # a constraint conflict needs a refusal
    rep = check_output(mini(), ask)
    assert rep.correct is False and "E2" in rep.classes    # solvable: premature


def test_tool_broken_clarification_is_other_and_refusal_is_refusal():
    prefix = json.dumps([{"name": "login", "arguments": {"username": "ana.l"}},
                         {"name": "weather", "arguments": {"city": "Rome"}}])
    ctx = mini()
    said = judge_prediction(ctx, prefix, json.dumps(step(thought="I cannot proceed: the "
                                                                 "tool is broken.")), 1,
                            replacement="search")
    asked = judge_prediction(ctx, prefix, json.dumps(step(thought="Could you tell me which "
                                                                  "city you mean?")), 1,
                             replacement="search")
    assert said.behaviour == "refusal" and asked.behaviour == "other"


# ------------------------------------------------------------------ goal-irrelevant steps

def test_an_applicable_step_serving_no_required_output_is_not_correct():
    """Line 683: a correct step "(1) aligns with the goal ... (4) will successfully
    progress the task"."""
    rep = judge_prediction(mini(broken=[]), "[]", json.dumps(step("weather", {"city": "Rome"})), 1)
    assert rep.correct is False and "E1" in rep.classes and rep.grade == 0.2
    ok = judge_prediction(mini(), "[]", json.dumps(step("make_voucher")), 1)
    assert ok.correct is True     # an optional input of the booking serves the goal


# ------------------------------------------------------------------ predict --output TEXT

def test_predict_reads_a_long_json_output_as_text(tmp_path, capsys):
    from tests.toolplans.toolplans_fixtures import TASK
    task = tmp_path / "t.json"
    task.write_text(json.dumps(TASK))
    long = json.dumps(step("login", {"username": "ana.l", "note": "x" * 5000}))
    code = main(["toolplans", "predict", str(task), "--output", long, "--k", "1"])
    out = capsys.readouterr()
    assert code in (0, 1) and "internal error" not in out.err
    assert "step(s)" in out.out
