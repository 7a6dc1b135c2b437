"""Issue 22: the class of a premature call (a call whose input only a *later* call makes)
is the paper's, per protocol. Holistic E6: "uses results not yet available" (paper line
659; "at the current step" in the judge's prompt, line 692). Step-wise E4: "requires
data/results not yet obtained" (line 619). A prerequisite no call makes stays E4 in both
(holistic "steps lack key premises", line 655). docs/toolplans.md says why."""
from __future__ import annotations

from pathlib import Path

from planning_core.validators.toolplans import FAULT_CLASS, check_output, judge_prediction
from planning_core.validators.toolplans.faults import STEPWISE_CLASS, Fault

from tests.toolplans.toolplans_fixtures import mini

L = 'login(username="ana.l")'
S = 'search(origin="Paris", destination="Rome", date="2025-05-01")'
EARLY_BOOK = 'book(offer=$search.offer, passenger="Ana")'
SEED = Path("/work/shared/seeds/001_25509288ef9c2098.txt")


def test_a_premature_call_in_a_holistic_chain_is_e6():
    rep = check_output(mini(), f"{L}\n{EARLY_BOOK}\n{S}", grade=True)
    assert rep.correct is False
    assert [(f.kind, f.step, f.code) for f in rep.faults if f.step == 2] == \
        [("premature_call", 2, "E6")]
    assert rep.classes.get("E6") == [2] and "E4" not in rep.classes
    assert rep.to_dict()["faults"][0]["class"] == "E6"


def test_a_prerequisite_no_call_makes_stays_e4():
    rep = check_output(mini(), f"{L}\n{EARLY_BOOK}", grade=True)
    assert [(f.kind, f.code) for f in rep.faults if f.step == 2] == \
        [("missing_prerequisite", "E4")]


def test_one_call_with_both_a_later_and_a_missing_input_has_both_classes():
    """Multi-label: the offer comes from a later search (E6), the voucher from no call (E4);
    before, the call was one fault, and the later input hid the missing one."""
    chain = (f'{L}\nbook(offer=$search.offer, passenger="Ana", '
             f'voucher=$make_voucher.voucher)\n{S}')
    rep = check_output(mini(), chain, grade=True)
    at_two = {(f.kind, f.code) for f in rep.faults if f.step == 2}
    assert at_two == {("premature_call", "E6"), ("missing_prerequisite", "E4")}, rep.to_dict()
    assert rep.classes["E4"] == [2] and rep.classes["E6"] == [2]


def test_the_same_call_predicted_step_wise_is_e4_and_graded_so():
    rep = judge_prediction(mini(), L, f"{EARLY_BOOK}\n{S}", 2)
    assert rep.correct is False
    assert [(f.kind, f.step, f.code) for f in rep.faults] == [("premature_call", 2, "E4")]
    assert rep.classes == {"E4": [2]}
    assert rep.grade == 0.6                      # one minor error (E4), paper line 604


def test_a_fault_knows_its_rubric():
    f = Fault("premature_call", 3, "x")
    assert f.code == "E6" and f.as_stepwise().code == "E4"
    assert f.as_stepwise().as_stepwise() == f.as_stepwise()
    assert Fault("missing_prerequisite", 3, "x").as_stepwise().code == "E4"
    assert FAULT_CLASS["premature_call"] == "E6" and STEPWISE_CLASS == {"premature_call": "E4"}


def test_the_docs_cite_the_lines_the_classes_come_from():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "toolplans.md").read_text()
    row = next(r for r in docs.splitlines() if r.startswith("| `premature_call`"))
    assert "E6 holistic, E4 step-wise" in row and "659" in row and "619" in row
    if SEED.is_file():           # the cited lines say what the docs quote
        lines = SEED.read_text().splitlines()
        assert "uses results not yet available" in lines[658]
        assert "requires data/results not yet obtained" in lines[618]
        assert "steps lack key premises" in lines[654]
