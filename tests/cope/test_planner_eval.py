"""LLM-as-planner evaluation: solver plans in model-like styles are correct; mutations are not."""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from cope.styles import NO_PLAN_ANSWERS, STYLES, duplicate_step, unknown_object
from planning_core.validators.cope.check import check_pairs
from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.cope.planner import PLANNER_OUTCOMES, evaluate_planner
from planning_core.validators.cope.results import EvalContext

PLAN = ("(unstack c a)", "(putdown c)", "(pickup b)", "(stack b c)", "(pickup a)",
        "(stack a b)")


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    pairs = load_dataset(write_minicope(tmp_path_factory.mktemp("cope")))
    return {p.key[1:]: p for p in pairs}


@pytest.fixture
def context():
    return EvalContext(time_limit=20)


def pair_of(mini, category, constraint):
    return mini[(category, "p01", constraint)]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_every_style_of_a_valid_plan_is_correct(mini, context, style):
    result = evaluate_planner(pair_of(mini, "baseline", "constraint1"), STYLES[style](PLAN),
                              context)
    assert (result.correct, result.outcome) == (True, "correct"), result.detail
    assert result.detail["steps"] == list(PLAN)
    assert result.detail["validation"]["valid"] is True


def test_rewrites_are_recorded(mini, context):
    result = evaluate_planner(pair_of(mini, "baseline", "constraint1"),
                              STYLES["numbered_calls"](PLAN), context)
    rules = {r["rule"] for r in result.detail["rewrites"]}
    assert {"function-call", "strip-list-marker"} <= rules


@pytest.mark.parametrize("index", range(len(PLAN)))
def test_duplicated_step_fails_at_the_copy(mini, context, index):
    plan, failing = duplicate_step(PLAN, index)
    result = evaluate_planner(pair_of(mini, "baseline", "constraint1"),
                              STYLES["json"](plan), context)
    assert (result.correct, result.outcome) == (False, "plan_invalid")
    validation = result.detail["validation"]
    assert (validation["verdict"], validation["step"]) == ("precondition_failed", failing)
    assert validation["action"] == plan[failing - 1]
    assert validation["unsatisfied"], validation


def test_unknown_object_and_missing_goal_are_reported(mini, context):
    pair = pair_of(mini, "baseline", "constraint1")
    plan, failing = unknown_object(PLAN, 2)
    validation = evaluate_planner(pair, STYLES["json"](plan), context).detail["validation"]
    assert (validation["verdict"], validation["step"]) == ("unknown_object", failing)
    result = evaluate_planner(pair, STYLES["json"](PLAN[:-1]), context)
    assert result.outcome == "plan_invalid"
    assert result.detail["validation"]["verdict"] == "goal_not_satisfied"
    assert result.detail["validation"]["unsatisfied_goals"] == ["(on a b)"]


@pytest.mark.parametrize("answer", NO_PLAN_ANSWERS)
def test_no_plan_answers(mini, context, answer):
    unsolvable = evaluate_planner(pair_of(mini, "goal", "constraint2"), answer, context)
    assert (unsolvable.correct, unsolvable.outcome) == (True, "correct")
    assert unsolvable.detail["label_doubt"] is None
    solvable = evaluate_planner(pair_of(mini, "baseline", "constraint1"), answer, context)
    assert (solvable.correct, solvable.outcome) == (False, "no_plan_claimed")
    assert solvable.detail["label_doubt"] is None


def test_a_plan_for_an_unsolvable_pair_is_wrong(mini, context):
    result = evaluate_planner(pair_of(mini, "goal", "constraint2"), STYLES["json"](PLAN),
                              context)
    assert (result.correct, result.outcome) == (False, "plan_given")
    assert result.detail["validation"]["verdict"] == "goal_not_satisfied"
    assert result.detail["label_doubt"] is None


def test_doubtful_labels_are_recorded_not_trusted(mini, context):
    # labelled unsolvable, but the ground truth has a plan
    wrong_false = pair_of(mini, "action", "constraint3")
    given = evaluate_planner(wrong_false, STYLES["bullets"](PLAN), context)
    assert (given.correct, given.outcome) == (False, "plan_given")
    assert "valid under the ground truth" in given.detail["label_doubt"]
    refused = evaluate_planner(wrong_false, "No plan exists.", context)
    assert (refused.correct, refused.outcome) == (True, "correct")
    assert "our solver finds a plan" in refused.detail["label_doubt"]
    # labelled solvable, but the ground truth is unsolvable
    wrong_true = pair_of(mini, "state", "constraint4")
    refused = evaluate_planner(wrong_true, "There is no valid plan.", context)
    assert (refused.correct, refused.outcome) == (False, "no_plan_claimed")
    assert "proves the ground truth unsolvable" in refused.detail["label_doubt"]


def test_unreadable_and_broken_ground_truth(mini, context):
    result = evaluate_planner(pair_of(mini, "baseline", "constraint1"),
                              "I would rather discuss the weather.", context)
    assert (result.correct, result.outcome) == (False, "unreadable")
    broken = evaluate_planner(pair_of(mini, "state", "constraint6"), STYLES["json"](PLAN),
                              context)
    assert (broken.correct, broken.outcome) == (False, "ground_truth_error")
    assert ":3:4:" in broken.detail["error"]
    typo = evaluate_planner(pair_of(mini, "initial", "constraint5"), STYLES["json"](PLAN),
                            context)
    assert typo.outcome == "correct"     # undeclared 'stackd' reads as false
    assert typo.detail["ground_truth_issues"][0]["line"] == 14


def test_results_are_json_and_outcomes_documented(mini, context):
    for answer in (STYLES["json"](PLAN), "no plan", "", "gibberish"):
        row = evaluate_planner(pair_of(mini, "baseline", "constraint1"), answer,
                               context).to_json()
        assert json.loads(json.dumps(row)) == row
        assert row["outcome"] in PLANNER_OUTCOMES


# ------------------------------------------------------------------- shared data

FAST_KEYS = (  # a few pairs per category that solve in-process in milliseconds
    ("CoinCollector-100", "baseline", "p01", "constraint1"),
    ("CoinCollector-100", "initial", "p99", "constraint19"),
    ("CoinCollector-100", "goal", "p62", "constraint2"),
    ("CoinCollector-100", "action", "p15", "constraint10"),
    ("CoinCollector-100", "action", "p13", "constraint8"),
    ("CoinCollector-100", "state", "p12", "constraint5"),
    ("CoinCollector-100", "state", "p58", "constraint8"),   # "open" is not in its heads file
    ("BlocksWorld-100", "baseline", "p02", "constraint2"),
    ("BlocksWorld-100", "goal", "p61", "constraint1"),
    ("BlocksWorld-100", "state", "p01", "constraint1"),
)


def test_shared_sample_styles_and_mutations(cope_pairs):
    pairs = {p.key: p for p in cope_pairs[0]}
    chosen = [pairs[k] for k in FAST_KEYS]
    context = EvalContext(time_limit=20)
    for check in check_pairs(chosen, time_limit=20):
        context.remember(check)
        assert_styles_and_mutations(pairs[check.key], check, context, tuple(STYLES))


def test_actions_missing_from_the_heads_file_are_still_read(cope_pairs):
    pairs = {p.key: p for p in cope_pairs[0]}
    pair = pairs[("CoinCollector-100", "state", "p58", "constraint8")]
    plan = ("(open kitchen pantry east west)", "(move kitchen pantry east)",
            "(take coin pantry)")
    result = evaluate_planner(pair, STYLES["numbered_calls"](plan), EvalContext())
    assert (result.outcome, result.detail["steps"]) == ("correct", list(plan))
    assert result.detail["heads_added"] == ["(open room1 room2 direction reverse)"]


def assert_styles_and_mutations(pair, check, context, styles):
    if check.solvable is None:
        return
    if not check.solvable:
        for answer in NO_PLAN_ANSWERS[:2]:
            result = evaluate_planner(pair, answer, context)
            assert result.correct is (pair.plan_exists is False), (pair.key, answer)
        return
    for style in styles:
        result = evaluate_planner(pair, STYLES[style](check.plan), context)
        expected = "correct" if pair.plan_exists else "plan_given"
        assert result.outcome == expected, (pair.key, style, result.detail)
        assert result.detail["steps"] == list(check.plan), (pair.key, style)
    if check.plan:
        middle = len(check.plan) // 2
        plan, failing = duplicate_step(check.plan, middle)
        validation = evaluate_planner(pair, STYLES[styles[0]](plan), context) \
            .detail["validation"]
        assert (validation["verdict"], validation["step"]) == \
            ("precondition_failed", failing), (pair.key, validation)
        plan, failing = unknown_object(check.plan, middle)
        validation = evaluate_planner(pair, STYLES["json"](plan), context).detail["validation"]
        assert (validation["verdict"], validation["step"]) == ("unknown_object", failing), \
            pair.key


@pytest.mark.slow
def test_every_solvable_shared_pair_in_model_styles(full_checks, cope_pairs):
    """Each pair in the JSON style and one rotating style; mutations on every plan."""
    pairs = {p.key: p for p in cope_pairs[0]}
    context = EvalContext(time_limit=10)
    names = sorted(STYLES)
    for check in full_checks:
        context.remember(check)
    for number, check in enumerate(full_checks):
        if check.verdict in ("defect",) and not context.truth(pairs[check.key]).parsed:
            continue
        styles = ("json", names[number % len(names)])
        assert_styles_and_mutations(pairs[check.key], check, context, styles)
