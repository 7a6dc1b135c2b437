"""Every decidable fault class, each shown by a chain that has exactly that fault first."""
from __future__ import annotations

import pytest

from planning_core.validators.toolplans import FAULT_CLASS, check_output

from tests.toolplans.toolplans_fixtures import VALID, mini

L = 'login(username="ana.l")'
S = 'search(origin="Paris", destination="Rome", date="2025-05-01")'
B = 'book(offer=$2.offer, passenger="Ana")'
P = 'pay(amount=$3.fare, card="4111")'

CASES = [
    # (chain, step, fault)
    ('search(origin="Paris", destination="Berlin", date="2025-05-01")', 1, "hallucinated_input"),
    (f'{L}\n{S}\nbook(offer=$2.offer, passenger="Bob")\n{P}', 3, "hallucinated_input"),
    (f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana", voucher="FREE")\n{P}', 3, "hallucinated_input"),
    (f'{L}\n{S}\nbook(offer=$9.offer, passenger="Ana")', 3, "hallucinated_input"),
    (f'{S}\nbook(offer=$1.offer, passenger="Ana")', 2, "missing_prerequisite"),
    (f'{L}\nbook(offer=$search.offer, passenger="Ana")', 2, "missing_prerequisite"),
    (f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana", voucher=$make_voucher.voucher)\n{P}', 3, "missing_prerequisite"),
    (f'{L}\nbook(offer=$search.offer, passenger="Ana")\n{S}', 2, "premature_call"),
    (f'{S}\nbook(offer=$1.offer, passenger="Ana")\n{L}', 2, "premature_call"),
    (f'{L}\n{S}\n{B}\nweather(city="Rome")\n{P}', 4, "broken_tool"),
    (f'{L}\n{S}\n{B}\nold_pay(amount=$3.fare)', 4, "forbidden_tool"),
    (f'{S}\n{S}\n{S}\n{L}\nbook(offer=$1.offer, passenger="Ana")\n{P}', 3, "constraint_violated"),
    (f'{S}\nbook(offer=$1.offer, passenger="Ana")\npay(amount=$2.fare, card="4111")\n{L}', 2, "premature_call"),
    (f'{S}\n{L}\nbook(offer=$1.offer, passenger="Ana")', None, "incomplete"),
    (f'{L}\n{S}\n{B}\nbuy(amount=$3.fare, card="4111")', 4, "unknown_tool"),
    (f'{L}\n{S}\nbook(offer=$2.offer)\n{P}', 3, "wrong_arguments"),
    (f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana", meal="veg")\n{P}', 3, "wrong_arguments"),
    (f'{L}\n{S}\nbook(offer=$2.offer, passenger="Ana", seat="middle")\n{P}', 3, "wrong_arguments"),
    (f'{L}\nsearch(origin="Paris", destination="Rome", date=20250501)', 2, "wrong_arguments"),
    (f'{L}\nsearch(origin="Paris", destination="2025-05-01", date="2025-05-01")', 2, "wrong_arguments"),
    ('', None, "malformed_output"),
    ('search(origin="Paris"', None, "malformed_output"),
    ('[{"name": "login", "arguments": "{bad"}]', None, "malformed_output"),
]


@pytest.mark.parametrize("chain,step,fault", CASES)
def test_each_fault_is_found_first_at_its_step(chain, step, fault):
    rep = check_output(mini(), chain, grade=False)
    assert rep.correct is False
    assert (rep.primary.kind, rep.primary.step) == (fault, step), rep.to_dict()
    assert rep.primary.code == FAULT_CLASS[fault]


def test_every_decidable_class_is_covered():
    shown = {FAULT_CLASS[f] for _, _, f in CASES} - {None}
    assert shown == {"E2", "E3", "E4", "E5", "E6"}


def test_order_constraint_violation_is_E3():
    """pay is applicable at once (the user holds a fare) but may not come before login."""
    items = [{"name": i.name, "type": i.type, "value": i.value} for i in mini().task.items]
    ctx = mini(goal=["receipt"], items=items + [{"name": "due", "type": "fare", "value": "12 EUR"}])
    assert check_output(ctx, 'login(username="ana.l")\npay(amount="12 EUR", card="4111")',
                        grade=False).correct
    rep = check_output(ctx, 'pay(amount="12 EUR", card="4111")\nlogin(username="ana.l")', grade=False)
    assert (rep.primary.kind, rep.primary.step, rep.primary.code) == ("constraint_violated", 1, "E3")


def test_must_call_unmet_is_E3_and_chainwide():
    ctx = mini(constraints=[{"kind": "must_call", "tool": "make_voucher"}])
    rep = check_output(ctx, VALID, grade=False)
    assert [(f.kind, f.step) for f in rep.faults] == [("constraint_violated", None)]
    assert check_output(ctx, "make_voucher()\n" + VALID.replace("$2", "$3").replace("$3.fare", "$4.fare"),
                        grade=False).correct


def test_total_call_limit():
    ctx = mini(constraints=[{"kind": "at_most", "n": 4}])
    assert check_output(ctx, VALID, grade=False).correct
    rep = check_output(ctx, "make_voucher()\n" + VALID.replace("$2.offer", "$3.offer")
                       .replace("$3.fare", "$4.fare"), grade=False)
    assert (rep.primary.kind, rep.primary.step) == ("constraint_violated", 5)


def test_valid_chain_passes_with_grade():
    rep = check_output(mini(), VALID)
    assert rep.correct and rep.verdict == "valid" and not rep.faults
    assert (rep.cost, rep.optimal_cost, rep.excess_cost) == (4, 4, 0)
    assert rep.valid_prefix == 4 and rep.outputs_produced == 1.0


def test_json_and_openai_shapes_give_the_same_verdict():
    calls = [{"name": "login", "arguments": {"username": "ana.l"}},
             {"name": "search", "arguments": {"origin": "Paris", "destination": "Rome",
                                              "date": "2025-05-01"}},
             {"name": "book", "arguments": {"offer": "$2.offer", "passenger": "Ana"}},
             {"name": "pay", "arguments": {"amount": "$book.fare", "card": "4111"}}]
    import json
    openai = {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{k}", "type": "function",
         "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])}}
        for k, c in enumerate(calls)]}
    for shape in (calls, json.dumps(calls), json.dumps(openai), openai):
        assert check_output(mini(), shape, grade=False).correct


def test_extraneous_and_redundant_calls_are_reported_not_failed():
    chain = VALID + '\nmake_voucher()\nlogin(username="ana.l")'
    rep = check_output(mini(), chain)
    assert rep.correct
    assert rep.extraneous == (5,)
    assert rep.redundant == (6,)
    assert rep.excess_cost == 2


def test_grade_numbers_of_an_incorrect_chain():
    rep = check_output(mini(), f'{L}\n{S}\n{B}')
    assert rep.correct is False and rep.primary.kind == "incomplete"
    assert rep.valid_prefix == 3 and rep.outputs_produced == 0.5
    rep = check_output(mini(), f'{L}\n{S}\nbook(offer=$2.offer, passenger="Bob")\n{P}')
    assert rep.valid_prefix == 2 and rep.outputs_produced == 0.0


def test_refusal_right_iff_unsolvable():
    assert check_output(mini(), "REFUSE: cannot").verdict == "wrong_refusal"
    assert check_output(mini(), '{"refusal": "no"}').primary.kind == "unjustified_refusal"
    ctx = mini(broken=["weather", "pay"], forbidden=["old_pay"])
    rep = check_output(ctx, "UNSOLVABLE")
    assert rep.verdict == "right_refusal" and rep.feasibility.kind == "contradictory_constraints"
    rep = check_output(ctx, VALID)
    assert {f.kind for f in rep.faults} >= {"broken_tool", "missed_refusal"}
