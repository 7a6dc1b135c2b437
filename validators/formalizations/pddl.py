"""The PDDL formalizer pipeline: a model's answer -> files -> plan -> ground-truth verdict.

In CoPE's LLM-as-formalizer setting (Huang et al.) the model writes a PDDL domain and
problem; a planner solves them; the plan is validated against the pair's constrained ground
truth. The reference pipeline posts the files to a remote solver and string-matches VAL's
output. Here every stage runs locally on planning_core and yields data:

1. :func:`~planning_core.validators.formalizations.pddl_text.extract_pddl` finds the two files;
2. the parser reads them (``PDDLSyntaxError`` with line and column);
3. the checker finds undeclared names, arity and type errors (located diagnostics);
4. planning_core's ``solve`` answers SOLVED, UNSOLVABLE (with a proof) or UNKNOWN;
5. :func:`~planning_core.validators.formalizations.mapping.map_plan` rewrites the plan onto the ground
   truth's signatures, recording what it mapped;
6. the lifted validator judges it against the ground truth.

Error taxonomy (``PDDL_OUTCOMES``), after the paper's error analysis:

``syntax_error``       no domain/problem found, or a file does not parse
``unsupported_feature`` the files use PDDL the engine does not implement (preferences and
                       ``is-violated``, numeric fluents beyond action costs, durative
                       actions): named with line and column, not called a syntax error
``semantic_error``     the files parse but name undeclared predicates, types, objects or
                       break arity or types (or the engine rejects them)
``unsolvable``         the solver proves the model's task has no plan, but one exists
``unknown``            the solver hit its limits (reported as such, never guessed)
``plan_invalid``       the plan fails validation under the ground truth
``plan_given``         a plan valid under the ground truth for a pair labelled unsolvable
                       (only possible when the label is wrong; see ``label_doubt``)
``correct``            a plan valid under the ground truth, or a proof of unsolvability
                       for a pair labelled ``plan_exists: false``
``ground_truth_error`` the ground truth does not parse; nothing can be judged

:attr:`PddlJudgement.feedback` is what a revision prompt may show the model: only what
the model's own files produced (errors with line and column, the solver's limit). It never
mentions the ground truth, so a revision loop cannot leak the answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.errors import PlanningError, UnsupportedFeature
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check_domain, check_problem, errors_of
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.limits import Budget, LimitReached, Limits, metering
from planning_core.result import SolveResult, Status
from planning_core.validate.report import ValidationReport
from planning_core.validate.simulator import validate_plan
from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.groundtruth import Issue, issue_from_error
from planning_core.validators.cope.results import (
    GROUND_TRUTH_ERROR,
    EvalContext,
    EvalResult,
    ground_truth_error,
    issues_json,
    label_doubt,
    plan_outcome,
    report_json,
    verdict_before_validation,
)
from planning_core.validators.cope.solving import solve_task
from planning_core.validators.formalizations.mapping import PlanMapping, map_plan
from planning_core.validators.formalizations.pddl_text import (
    DOMAIN_FILE,
    PROBLEM_FILE,
    PddlFiles,
    extract_pddl,
)

__all__ = ["PDDL_OUTCOMES", "GROUND_TRUTH_FREE", "PddlJudgement", "judge_pddl",
           "evaluate_pddl"]

PDDL_OUTCOMES = ("correct", "syntax_error", "unsupported_feature", "semantic_error",
                 "unsolvable", "unknown", "plan_invalid", "plan_given", GROUND_TRUTH_ERROR)
# Outcomes decided from the model's files alone, before the ground truth is consulted: the
# only ones a revision loop may react to (see planning_core.validators.formalizations.loop).
GROUND_TRUTH_FREE = frozenset({"syntax_error", "unsupported_feature", "semantic_error",
                               "unknown", "unsolvable"})


@dataclass(frozen=True, slots=True)
class PddlJudgement:
    """Everything the pipeline found for one answer (see the module doc)."""

    outcome: str
    correct: bool
    files: PddlFiles
    issues: tuple[Issue, ...] = ()
    solve: SolveResult | None = None
    mapping: PlanMapping | None = None
    validation: ValidationReport | None = None
    label_doubt: str | None = None
    ground_truth_issues: tuple[Issue, ...] = ()

    @property
    def feedback(self) -> str:
        """The revision message: errors of the model's files, with line and column."""
        if self.outcome in ("syntax_error", "unsupported_feature", "semantic_error"):
            return "\n".join(str(issue) for issue in self.issues)
        if self.outcome == "unknown" and self.solve is not None:
            return f"the planner found no plan within its limits ({self.solve.reason})"
        if self.outcome == "unsolvable" and self.solve is not None:
            return f"the planner proved that the problem has no plan ({self.solve.reason})"
        return ""

    def to_json(self) -> dict:
        solve = None
        if self.solve is not None:
            solve = {"status": self.solve.status.value, "reason": self.solve.reason,
                     "engine": self.solve.engine,
                     "plan": list(self.solve.plan) if self.solve.plan is not None else None}
        return {
            "outcome": self.outcome, "correct": self.correct, "message": self.feedback,
            "issues": issues_json(self.issues), "source": self.files.source,
            "notes": list(self.files.notes), "solver": solve,
            "mapping": self.mapping.to_json() if self.mapping is not None else None,
            "validation": report_json(self.validation), "label_doubt": self.label_doubt,
            "ground_truth_issues": issues_json(self.ground_truth_issues),
        }


def _issue(err: PlanningError) -> Issue:
    return issue_from_error(err, "unsupported" if isinstance(err, UnsupportedFeature)
                            else "syntax")


def _read(files: PddlFiles) -> tuple[pddl.Domain | None, pddl.Problem | None, list[Issue]]:
    issues = [Issue("syntax", message) for message in files.missing()]
    domain = problem = None
    if files.domain is not None:
        try:
            domain = parse_domain(files.domain, DOMAIN_FILE)
        except PlanningError as err:
            issues.append(_issue(err))
    if files.problem is not None:
        try:
            problem = parse_problem(files.problem, PROBLEM_FILE)
        except PlanningError as err:
            issues.append(_issue(err))
    return domain, problem, issues


def _read_outcome(issues: list[Issue]) -> str:
    """``unsupported_feature`` when every problem is a named unsupported feature."""
    if all(issue.kind == "unsupported" for issue in issues):
        return "unsupported_feature"
    return "syntax_error"


def judge_pddl(pair: Pair, response: str, context: EvalContext | None = None
               ) -> PddlJudgement:
    """Run the pipeline of the module doc on one answer."""
    context = context or EvalContext()
    truth = context.truth(pair)
    files = extract_pddl(response)
    base = dict(files=files, ground_truth_issues=truth.errors)
    # reading and checking the model's files count against the time limit too: a 10 MB
    # problem or 20,000 schemas take seconds before any solver starts
    budget = Budget(Limits(time_s=context.time_limit, memory_mb=context.memory_limit))
    try:
        with metering(budget):
            domain, problem, issues = _read(files)
            semantic = () if issues else errors_of(check_domain(domain)
                                                   + check_problem(domain, problem))
    except LimitReached as stop:
        result = SolveResult(Status.UNKNOWN, None, None, "internal", budget.cpu_s(),
                             (("phase", "parsing"),), stop.limit)
        return PddlJudgement("unknown", False, solve=result, **base)
    if issues:
        return PddlJudgement(_read_outcome(issues), False, issues=tuple(issues), **base)
    if semantic:
        return PddlJudgement("semantic_error", False, issues=tuple(
            Issue("semantic", d.message, d.file, d.line, d.column) for d in semantic), **base)
    try:
        result = solve_task(domain, problem,
                            time_limit=max(0.1, context.time_limit - budget.cpu_s()),
                            memory_limit=context.memory_limit)
    except UnsupportedFeature as err:   # e.g. (increase (fuel) 1): a numeric fluent
        return PddlJudgement("unsupported_feature", False, issues=(
            Issue("unsupported", err.message, err.file, err.line, err.column),), **base)
    except PlanningError as err:
        return PddlJudgement("semantic_error", False, issues=(
            Issue("semantic", f"the planner rejected the files: {err.message}", err.file,
                  err.line, err.column),), **base)
    early = verdict_before_validation(pair, context, truth, result)
    if early is not None:
        return PddlJudgement(solve=result, **early, **base)
    mapping = map_plan(tuple(result.plan), domain, truth.domain, truth.problem,
                       pair.action_heads)
    report = validate_plan(truth.domain, truth.problem,
                           "".join(step + "\n" for step in mapping.steps))
    doubt = label_doubt(pair, context, False, report.valid)
    outcome, correct = plan_outcome(pair, report.valid)
    return PddlJudgement(outcome, correct, solve=result, mapping=mapping, validation=report,
                         label_doubt=doubt, **base)


def evaluate_pddl(pair: Pair, output: str, context: EvalContext | None = None) -> EvalResult:
    """CoPE evaluation method ``pddl``: judge the PDDL in ``output`` (no model calls)."""
    context = context or EvalContext()
    truth = context.truth(pair)
    if not truth.parsed:
        return ground_truth_error(pair, truth)
    judgement = judge_pddl(pair, output, context)
    return EvalResult.for_pair(pair, judgement.correct, judgement.outcome,
                               judgement.to_json())
