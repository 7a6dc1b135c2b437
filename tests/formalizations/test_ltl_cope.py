"""The LTL pipeline on real CoPE pairs, with formulas written by hand (``ltl_cope_formulas``).

Every formula over the unconstrained vocabulary must lead to a plan that the lifted
validator accepts under the pair's *constrained* ground truth when a plan exists, and to
UNSOLVABLE or UNKNOWN (never a plan) when the pair is labelled ``plan_exists: false``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations.ltl import evaluate_ltl, judge_ltl

from tests.formalizations.ltl_cope_formulas import FORMULAS

pytestmark = pytest.mark.shared
SOLVABLE_LIMIT = 20.0
UNSOLVABLE_LIMIT = 3.0
_pairs: dict = {}


def _pair(shared: Path, key):
    if not _pairs:
        for name in ("BlocksWorld-100", "CoinCollector-100"):
            _pairs.update((p.key, p) for p in load_dataset(shared / "cope" / name))
    return _pairs[key]


def _answer(text: str) -> str:
    return f"The constraint as LTLf:\n\n```ltl\n{text}\n```\n"


@pytest.mark.parametrize("key", sorted(FORMULAS), ids=lambda k: f"{k[0][:5]}-{k[2]}-{k[3]}")
def test_hand_written_formula_gives_a_ground_truth_answer(shared_data, key):
    pair = _pair(shared_data, key)
    assert pair.category in ("action", "state")
    limit = SOLVABLE_LIMIT if pair.plan_exists else UNSOLVABLE_LIMIT
    judgement = judge_ltl(pair, _answer(FORMULAS[key]), EvalContext(time_limit=limit,
                                                                      use_oracle=False))
    if pair.plan_exists:
        assert judgement.outcome == "correct", judgement.to_json()
        assert judgement.validation is not None and judgement.validation.valid
        assert judgement.completion.complete
    else:
        assert judgement.solve.status.value in ("unsolvable", "unknown"), judgement.to_json()
        assert judgement.outcome in ("correct", "unknown")


def test_enough_constraints_of_both_kinds():
    action = {k for k in FORMULAS if k[1] == "action"}
    assert len(action) >= 10 and any(k[1] == "state" for k in FORMULAS)
    assert {k[0] for k in FORMULAS} == {"BlocksWorld-100", "CoinCollector-100"}


def test_bookkeeping_arguments_are_completed(shared_data):
    """The ground truth's move takes two step counters the base vocabulary cannot name."""
    key = ("CoinCollector-100", "action", "p09", "constraint5")
    judgement = judge_ltl(_pair(shared_data, key), _answer(FORMULAS[key]),
                          EvalContext(use_oracle=False))
    assert judgement.correct
    filled = judgement.completion.filled
    assert filled and filled[0][2].startswith(filled[0][1][:-1] + " step1 step2")


def test_a_wrong_formula_is_judged_by_the_ground_truth(shared_data):
    """Moving into the corridor twice *after* taking the coin satisfies this formula but not
    the ground truth, which wants both visits before the coin."""
    key = ("CoinCollector-100", "action", "p02", "constraint2")
    result = evaluate_ltl(_pair(shared_data, key),
                          _answer("F(@(move _ corridor _) & X F @(move _ corridor _))"),
                          EvalContext(use_oracle=False))
    assert (result.correct, result.outcome) == (False, "plan_invalid")
    assert result.detail["validation"]["verdict"] == "precondition_failed"
