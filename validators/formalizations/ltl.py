"""The LTL formalizer pipeline: a model's LTLf constraint -> plan -> ground-truth verdict.

The model states the pair's constraint as an LTLf formula over the ground-truth vocabulary
(the unconstrained domain's predicates and actions, the problem's objects); for tasks whose
constraint cannot be said over that vocabulary (CoinCollector-style tasks whose constraint
changes the world: a teleport action, a door to open) it also writes its full
formalization, a PDDL domain and problem, and the formula is over *that* vocabulary. Then:

1. :func:`extract_ltl` finds the formula (and any PDDL) in the answer;
2. the formula is parsed against the vocabulary (:mod:`planning_core.temporal.parser`):
   ``syntax_error`` with line and column, ``semantic_error`` for unknown names or arities;
3. :func:`planning_core.temporal.product.plan_ltl` plans for "goal and formula" on the
   unconstrained task (or the model's), answering SOLVED, UNSOLVABLE (a proof) or UNKNOWN;
4. the plan is rewritten onto the ground truth's signatures
   (:func:`planning_core.validators.formalizations.mapping.map_plan`); where the ground truth's action
   takes *more* parameters than the plan gives (bookkeeping the formula's vocabulary cannot
   name: a pick-up token, a step counter), :func:`complete_arguments` fills the missing
   trailing arguments with values that make each step applicable in the ground truth,
   backtracking over choices; every filled argument is recorded;
5. the lifted validator judges the plan against the constrained ground truth.

Answer format (what a prompt for this method asks for)::

    ```ltl
    G !@(stack block1 block2)        # or: LTL: <formula> on one line, or {"ltl": "..."}
    ```

optionally preceded by the PDDL domain and problem (fenced, or as the PDDL method reads
them). The formula syntax is :mod:`planning_core.temporal.parser`'s: ``(on a b)`` atoms,
``@(stack a b)`` action occurrences (an action at the state it is applied in), ``_`` for
any object, ``! & | -> <-> X WX F G U R W last``.

Outcomes (``LTL_OUTCOMES``): ``correct`` (a plan valid under the ground truth, or a proof
of unsolvability for a pair labelled ``plan_exists: false``), ``syntax_error``,
``semantic_error``, ``unsolvable`` (proved, but the pair has a plan), ``unknown`` (limits),
``plan_invalid``, ``plan_given`` (a valid plan for a pair labelled unsolvable) and
``ground_truth_error``. It is CoPE method ``"ltl"`` in :mod:`.methods`
(``(pair, output, context) -> EvalResult``, like the PDDL and SMT methods).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from planning_core.errors import PlanningError, SemanticError
from planning_core.ground.task import Task
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check_domain, check_problem, errors_of
from planning_core.pddl.parser import (
    parse_domain,
    parse_domain_file,
    parse_problem,
    parse_problem_file,
)
from planning_core.limits import Budget, LimitReached, Limits, metering
from planning_core.result import SolveResult, Status
from planning_core.temporal.ltl import Formula, format_ltl
from planning_core.temporal.parser import LTLSyntaxError, Vocabulary, parse_ltl
from planning_core.temporal.product import plan_ltl
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
from planning_core.validators.formalizations.fences import fenced_blocks
from planning_core.validators.formalizations.mapping import PlanMapping, map_plan
from planning_core.validators.formalizations.pddl_text import (DOMAIN_FILE, PROBLEM_FILE, extract_pddl,
                                                               json_objects)

__all__ = ["LTL_OUTCOMES", "LtlAnswer", "LtlJudgement", "Completion", "extract_ltl",
           "complete_arguments", "judge_ltl", "evaluate_ltl"]

LTL_OUTCOMES = ("correct", "syntax_error", "semantic_error", "unsolvable", "unknown",
                "plan_invalid", "plan_given", GROUND_TRUTH_ERROR)
FORMULA_FILE = "constraint.ltl"
COMPLETION_NODES = 20_000

_LABELLED = re.compile(r"^[ \t]*(?:\*\*)?(?:ltlf?|formula|ltl formula|constraint)(?:\*\*)?"
                       r"[ \t]*:(?:\*\*)?[ \t]*(\S.*)$", re.IGNORECASE | re.MULTILINE)
_JSON_KEY = re.compile(r"[\s_\-]+")


@dataclass(frozen=True, slots=True)
class LtlAnswer:
    """What an answer holds: the formula text (None if absent), the model's PDDL files
    (None when it gave none), and where the formula was found."""

    formula: str | None
    domain: str | None
    problem: str | None
    source: str
    notes: tuple[str, ...] = ()


def _from_json(text: str) -> str | None:
    for value in json_objects(text):
        for key, item in value.items():
            squashed = _JSON_KEY.sub("", str(key).lower())
            if isinstance(item, str) and (squashed.startswith("ltl") or squashed in
                                          ("formula", "constraint", "constraintformula")):
                return item
    return None


def extract_ltl(text: str) -> LtlAnswer:
    """The formula and the PDDL of an answer (formula: a JSON ``"ltl"`` value, else the last
    fenced block labelled ltl/ltlf, else the last ``LTL:`` line, else the whole answer
    when it holds no PDDL and no fences). Never raises."""
    text = text or ""
    files = extract_pddl(text)
    has_pddl = files.domain is not None or files.problem is not None
    notes = list(files.notes)
    formula, source = _from_json(text), "json"
    fenced = fenced_blocks(text)
    if formula is None:
        blocks = [block.body for block in fenced
                  if block.lang.lower() in ("ltl", "ltlf", "temporal")]
        if len(blocks) > 1:
            notes.append(f"{len(blocks)} ltl blocks found; the last one is used")
        formula, source = (blocks[-1], "fenced block") if blocks else (None, "")
    if formula is None:
        lines = _LABELLED.findall(text)
        formula, source = (lines[-1].strip().strip("`"), "labelled line") if lines else (None, "")
    if formula is None and not has_pddl and not fenced and text.strip():
        formula, source = text, "whole answer"
    return LtlAnswer(formula, files.domain if has_pddl else None,
                     files.problem if has_pddl else None, source, tuple(notes))


# ----------------------------------------------------------------- argument completion

@dataclass(frozen=True, slots=True)
class Completion:
    """Steps after filling trailing arguments; ``filled`` lists ``(step index, original,
    completed)``; ``complete`` says whether every short step could be filled on a run that
    reaches the goal (when False, ``steps`` are the mapped steps unchanged)."""

    steps: tuple[str, ...]
    filled: tuple[tuple[int, str, str], ...]
    complete: bool

    def to_json(self) -> dict:
        return {"complete": self.complete, "filled": [
            {"step": i, "original": o, "completed": c} for i, o, c in self.filled]}


_STEP = re.compile(r"^\s*\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)\s*$")


def complete_arguments(steps: tuple[str, ...], domain: pddl.Domain, problem: pddl.Problem,
                       *, node_limit: int = COMPLETION_NODES, budget=None) -> Completion:
    """Fill missing trailing arguments of ``steps`` so that the plan runs to the goal of
    (``domain``, ``problem``); depth-first over the candidate values (see the module doc).
    Steps whose arity already fits are kept as they are.

    Grounding and the search run under ``budget`` (else the active one: ``judge_ltl``'s,
    the answer's ``--time-limit``); at its limit ``LimitReached`` is raised (an ``unknown``
    judgement), instead of grounding a task of thousands of copies of one object for
    minutes. ``node_limit`` bounds the steps tried, each candidate action tried is ticked,
    and the search keeps its own stack (a plan of thousands of steps, no recursion)."""
    from planning_core.limits import active_budget

    arity = {a.name: a.arity for a in domain.actions}
    parsed = []
    for step in steps:
        m = _STEP.match(step)
        name, args = (m.group(1).lower(), tuple(m.group(2).split())) if m else (None, ())
        parsed.append((name, args))
    if not any(name in arity and len(args) < arity[name] for name, args in parsed):
        return Completion(steps, (), True)
    from planning_core.ground.grounder import ground

    budget = budget if budget is not None else active_budget()
    try:
        task: Task = ground(domain, problem, budget=budget)
    except PlanningError:
        return Completion(steps, (), False)
    by_name: dict[str, list] = {}
    for a in task.actions:
        by_name.setdefault(a.name, []).append(a)
    if budget is not None:
        budget.phase(0)          # candidates tried are work, not memory
    chosen = _complete(task, parsed, by_name, node_limit,
                       budget.tick if budget is not None else (lambda n=1: None))
    if chosen is None:
        return Completion(steps, (), False)
    out, filled = [], []
    for i, (step, a) in enumerate(zip(steps, chosen), start=1):
        text = str(a)
        out.append(text)
        if text != step:
            filled.append((i, step, text))
    return Completion(tuple(out), tuple(filled), True)


def _complete(task: Task, parsed: list, by_name: dict, node_limit: int, tick):
    """The ground actions of a completion of ``parsed`` that reaches the goal, or None:
    depth-first, the candidates of each step in order, at most ``node_limit`` steps
    entered (the recursive search this replaces counted the same)."""
    last = len(parsed) - 1
    left = node_limit - 1                # the first step
    if left < 0:
        return None
    chosen: list = []
    frames = [[0, task.init, 0]]         # step, state, next candidate to try
    while frames:
        frame = frames[-1]
        i, state, k = frame
        name, args = parsed[i]
        cands = by_name.get(name, ())
        n = len(args)
        pushed = False
        while k < len(cands):
            a = cands[k]
            k += 1
            tick()
            if a.args[:n] != args or not a.applicable(state):
                continue
            after = task.progress(state, a)
            if i == last:
                if task.is_goal(after):
                    chosen.append(a)
                    return chosen
                continue
            left -= 1
            if left < 0:
                continue                 # the step's search ends at once (out of nodes)
            frame[2] = k
            chosen.append(a)
            frames.append([i + 1, after, 0])
            pushed = True
            break
        if not pushed:
            frames.pop()
            if chosen:                   # the step that led into the frame left
                chosen.pop()
    return None


# ------------------------------------------------------------------------- the pipeline

@dataclass(frozen=True, slots=True)
class LtlJudgement:
    """Everything the pipeline found for one answer (see the module doc)."""

    outcome: str
    correct: bool
    answer: LtlAnswer
    formula: Formula | None = None
    issues: tuple[Issue, ...] = ()
    solve: SolveResult | None = None
    mapping: PlanMapping | None = None
    completion: Completion | None = None
    validation: ValidationReport | None = None
    label_doubt: str | None = None
    formalization: str = "ground-truth vocabulary"

    @property
    def feedback(self) -> str:
        """What a revision prompt may show: only what the model's own answer produced."""
        if self.outcome in ("syntax_error", "semantic_error"):
            return "\n".join(str(issue) for issue in self.issues)
        if self.outcome == "unknown" and self.solve is not None:
            return f"the planner found no plan within its limits ({self.solve.reason})"
        if self.outcome == "unsolvable" and self.solve is not None:
            return ("the planner proved that no plan satisfies the goal and the formula "
                    f"({self.solve.reason})")
        return ""

    def to_json(self) -> dict:
        solve = None
        if self.solve is not None:
            solve = {"status": self.solve.status.value, "reason": self.solve.reason,
                     "engine": self.solve.engine, "time_s": round(self.solve.time_s, 4),
                     "stats": dict(self.solve.stats),
                     "plan": list(self.solve.plan) if self.solve.plan is not None else None}
        return {
            "outcome": self.outcome, "correct": self.correct, "message": self.feedback,
            "formula": format_ltl(self.formula) if self.formula is not None else None,
            "formula_source": self.answer.source, "formalization": self.formalization,
            "notes": list(self.answer.notes), "issues": issues_json(self.issues),
            "solver": solve,
            "mapping": self.mapping.to_json() if self.mapping is not None else None,
            "completion": self.completion.to_json() if self.completion is not None else None,
            "validation": report_json(self.validation), "label_doubt": self.label_doubt,
        }


def _task_of(pair: Pair, answer: LtlAnswer) -> tuple[pddl.Domain | None, pddl.Problem | None,
                                                     list[Issue], str]:
    """The task the formula speaks about: the model's PDDL if it wrote both files, else the
    pair's unconstrained domain and problem."""
    if answer.domain is not None or answer.problem is not None:
        issues = []
        if answer.domain is None or answer.problem is None:
            issues.append(Issue("syntax", "the answer gives only one PDDL file; a full "
                                          "formalization needs the domain and the problem"))
            return None, None, issues, "model's PDDL"
        try:
            domain = parse_domain(answer.domain, DOMAIN_FILE)
            problem = parse_problem(answer.problem, PROBLEM_FILE)
        except PlanningError as err:
            return None, None, [issue_from_error(err)], "model's PDDL"
        semantic = errors_of(check_domain(domain) + check_problem(domain, problem))
        issues = [Issue("semantic", d.message, d.file, d.line, d.column) for d in semantic]
        return domain, problem, issues, "model's PDDL"
    if pair.base_domain_path is None or pair.base_problem_path is None:
        return None, None, [Issue("missing", "the pair has no unconstrained domain/problem "
                                             "to give the formula's vocabulary")], ""
    return (parse_domain_file(pair.base_domain_path), parse_problem_file(pair.base_problem_path),
            [], "ground-truth vocabulary")


def judge_ltl(pair: Pair, response: str, context: EvalContext | None = None, *,
              search: str = "greedy") -> LtlJudgement:
    """Run the pipeline of the module doc on one answer."""
    context = context or EvalContext()
    truth = context.truth(pair)
    # one CPU budget for every phase of the answer: reading the model's PDDL, grounding,
    # and the product search with its progression (where one step can blow up)
    budget = Budget(Limits(time_s=context.time_limit, memory_mb=context.memory_limit))
    with metering(budget):
        try:
            return _judge_ltl(pair, response, context, truth, budget, search)
        except LimitReached as stop:
            answer = extract_ltl(response)
            result = SolveResult(Status.UNKNOWN, None, None, "ltl-product", budget.cpu_s(),
                                 (("limit_detail", stop.detail),), stop.limit)
            return LtlJudgement("unknown", False, answer, solve=result)


def _judge_ltl(pair: Pair, response: str, context: EvalContext, truth, budget: Budget,
               search: str) -> LtlJudgement:
    answer = extract_ltl(response)
    if answer.formula is None:
        return LtlJudgement("syntax_error", False, answer, issues=(Issue(
            "syntax", "no LTL formula found: expected a ```ltl block or an 'LTL:' line"),))
    domain, problem, issues, where = _task_of(pair, answer)
    if issues:
        kind = "semantic_error" if all(i.kind == "semantic" for i in issues) else "syntax_error"
        return LtlJudgement(kind, False, answer, issues=tuple(issues), formalization=where)
    try:
        formula = parse_ltl(answer.formula, Vocabulary.of(domain, problem),
                            filename=FORMULA_FILE)
    except LTLSyntaxError as err:
        return LtlJudgement("syntax_error", False, answer, issues=(issue_from_error(err),),
                            formalization=where)
    except SemanticError as err:
        return LtlJudgement("semantic_error", False, answer,
                            issues=(issue_from_error(err, "semantic"),), formalization=where)
    base = dict(answer=answer, formula=formula, formalization=where)
    try:
        from planning_core.ground.grounder import ground
        task = ground(domain, problem, budget=budget)
        result = plan_ltl(task, formula, search=search, budget=budget)
    except PlanningError as err:
        return LtlJudgement("semantic_error", False, issues=(Issue(
            "semantic", f"the planner rejected the task: {err.message}", err.file, err.line,
            err.column),), **base)
    early = verdict_before_validation(pair, context, truth, result)
    if early is not None:
        return LtlJudgement(solve=result, **early, **base)
    mapping = map_plan(tuple(result.plan), domain, truth.domain, truth.problem,
                       pair.action_heads)
    completion = complete_arguments(mapping.steps, truth.domain, truth.problem)
    report = validate_plan(truth.domain, truth.problem,
                           "".join(step + "\n" for step in completion.steps))
    doubt = label_doubt(pair, context, False, report.valid)
    outcome, correct = plan_outcome(pair, report.valid)
    return LtlJudgement(outcome, correct, solve=result, mapping=mapping, completion=completion,
                        validation=report, label_doubt=doubt, **base)


def evaluate_ltl(pair: Pair, output: str, context: EvalContext | None = None) -> EvalResult:
    """CoPE evaluation method ``ltl``: judge the LTLf formalization in ``output``."""
    context = context or EvalContext()
    truth = context.truth(pair)
    if not truth.parsed:
        return ground_truth_error(pair, truth)
    judgement = judge_ltl(pair, output, context)
    detail = judgement.to_json()
    detail["ground_truth_issues"] = issues_json(truth.errors)
    return EvalResult.for_pair(pair, judgement.correct, judgement.outcome, detail)
