"""What every CoPE evaluation method returns, and the shared state methods judge with.

One :class:`EvalResult` per (pair, model output), whatever the method (planner, PDDL
formalizer; later SMT and LTL): ``correct`` is the paper's metric, ``outcome`` names the
class of the answer (``correct`` or a failure class of the method's taxonomy), and
``detail`` holds the evidence (the validator's report, the solver's answer, the mapping from
the model's names to the ground truth's, doubts about the label).

:class:`EvalContext` holds what methods share across pairs: the parsed ground truth
(memoised), the time limit, and a *label oracle*: our own answer to "does a plan exist?"
for a pair, computed lazily by :func:`planning_core.validators.cope.check.check_truth`. A method consults
the oracle only where the label decides the verdict and the model's answer disagrees with
the label's side (the model says no plan exists), so that a doubtful ``plan_exists`` label
is recorded in the result instead of being trusted silently, at the cost of one solver call
per such pair.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from planning_core.validate.report import ValidationReport
from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.groundtruth import GroundTruth, GroundTruthCache, Issue
from planning_core.validators.cope.solving import DEFAULT_TIME_LIMIT

__all__ = ["EvalResult", "EvalContext", "GROUND_TRUTH_ERROR", "report_json", "label_doubt",
           "issues_json"]

# Outcome shared by every method: the ground truth cannot be read, so nothing is judged.
GROUND_TRUTH_ERROR = "ground_truth_error"


@dataclass(frozen=True, slots=True)
class EvalResult:
    """The verdict on one model output for one pair.

    ``detail`` is a read-only mapping of JSON-ready values (built by the method).
    """

    dataset: str
    category: str
    problem: str
    constraint: str
    correct: bool
    outcome: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.category, self.problem, self.constraint)

    def to_json(self) -> dict:
        return {"dataset": self.dataset, "category": self.category, "problem": self.problem,
                "constraint": self.constraint, "correct": self.correct,
                "outcome": self.outcome, "detail": dict(self.detail)}

    @classmethod
    def for_pair(cls, pair: Pair, correct: bool, outcome: str, detail: Mapping[str, Any]
                 ) -> "EvalResult":
        return cls(pair.dataset, pair.category, pair.problem, pair.constraint, correct,
                   outcome, dict(detail))


def report_json(report: ValidationReport | None) -> dict | None:
    """The parts of a validation report a reader of results needs."""
    if report is None:
        return None
    return {"valid": report.valid, "verdict": report.verdict.value, "step": report.step,
            "action": report.action, "unsatisfied": list(report.unsatisfied),
            "unsatisfied_goals": list(report.unsatisfied_goals),
            "advice": list(report.advice), "message": report.message}


class EvalContext:
    """Ground truth, limits and the label oracle shared by the evaluations of one run."""

    def __init__(self, *, time_limit: float = DEFAULT_TIME_LIMIT,
                 cache: GroundTruthCache | None = None, use_oracle: bool = True,
                 sandbox: str = "bwrap", memory_limit: float | None = None) -> None:
        self.time_limit = time_limit
        self.memory_limit = memory_limit      # MB for a model's task (None: the default)
        self.cache = cache or GroundTruthCache()
        self.use_oracle = use_oracle
        # how model-written programs run: "bwrap", or "rlimits" (--unsafe-no-sandbox)
        self.sandbox = sandbox
        self._checks: dict[tuple, object] = {}

    def truth(self, pair: Pair) -> GroundTruth:
        return self.cache.load(pair)

    def remember(self, check) -> None:
        """Seed the oracle with a check already made (e.g. by ``cope check``)."""
        self._checks[check.key] = check

    def label_check(self, pair: Pair):
        """Our :class:`~planning_core.validators.cope.check.PairCheck` for ``pair`` (memoised), or None
        when the oracle is switched off."""
        if not self.use_oracle:
            return None
        hit = self._checks.get(pair.key)
        if hit is None:
            from planning_core.validators.cope.check import check_truth

            hit = check_truth(self.truth(pair), time_limit=self.time_limit)
            self._checks[pair.key] = hit
        return hit


def label_doubt(pair: Pair, context: EvalContext, says_no_plan: bool,
                plan_valid_under_truth: bool | None = None) -> str | None:
    """Why the ``plan_exists`` label of ``pair`` is doubtful for this answer, or None.

    Only cases where the label flips the verdict are examined: an answer's plan that is
    valid under a ground truth labelled unsolvable (evidence in hand, no solver call), and an
    answer saying "no plan" (the oracle is asked whether a plan exists).
    """
    if pair.plan_exists is False and plan_valid_under_truth:
        return "the answer's plan is valid under the ground truth, although plan_exists " \
               "is false"
    if not says_no_plan or pair.plan_exists is None:
        return None
    check = context.label_check(pair)
    if check is None:
        return None
    if pair.plan_exists and check.solvable is False:
        return f"our solver proves the ground truth unsolvable ({check.reason}), " \
               "although plan_exists is true"
    if pair.plan_exists is False and check.solvable:
        return "our solver finds a plan valid under the ground truth, although " \
               f"plan_exists is false: {' '.join(check.plan or ())}"
    return None


def plan_outcome(pair: Pair, plan_valid: bool) -> tuple[str, bool]:
    """The verdict on an answer that gives a plan, the one rule every method shares.

    A plan for a pair labelled unsolvable is ``plan_given`` whether or not it is valid (a
    valid one casts doubt on the label, which :func:`label_doubt` records); otherwise the
    validator decides between ``correct`` and ``plan_invalid``.
    """
    if pair.plan_exists is False:
        return "plan_given", False
    return ("correct", True) if plan_valid else ("plan_invalid", False)


def no_plan_outcome(pair: Pair, wrong: str) -> tuple[str, bool]:
    """The verdict on an answer that says (or proves) no plan exists: right iff the pair is
    labelled unsolvable; ``wrong`` names the failure in the method's taxonomy."""
    correct = pair.plan_exists is False
    return ("correct" if correct else wrong), correct


def verdict_before_validation(pair: Pair, context: EvalContext, truth, result) -> dict | None:
    """Judgement fields when a formalization's solve result decides the answer without a
    plan to validate: the solver's limit (``unknown``), its proof that no plan exists (right
    iff the pair is labelled unsolvable), or a ground truth that cannot judge a plan.
    None when the plan must be validated under the ground truth."""
    from planning_core.result import Status

    if result.status is Status.UNKNOWN:
        return {"outcome": "unknown", "correct": False}
    if result.status is Status.UNSOLVABLE:
        outcome, correct = no_plan_outcome(pair, "unsolvable")
        return {"outcome": outcome, "correct": correct,
                "label_doubt": label_doubt(pair, context, True)}
    if not truth.parsed:
        return {"outcome": GROUND_TRUTH_ERROR, "correct": False}
    return None


def ground_truth_error(pair: Pair, truth) -> EvalResult:
    """The result for a pair whose ground truth does not parse: nothing can be judged."""
    return EvalResult.for_pair(pair, False, GROUND_TRUTH_ERROR, {
        "error": "; ".join(str(i) for i in truth.errors),
        "ground_truth_issues": issues_json(truth.errors)})


def issues_json(issues: tuple[Issue, ...]) -> list[dict]:
    return [issue.to_json() for issue in issues]
