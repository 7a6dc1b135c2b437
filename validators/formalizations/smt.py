"""The SMT formalizer: a model's z3 Python program -> printed plan -> the validator's verdict.

In CoPE ("Language Model as Planner and Formalizer under Constraints", Huang et al.) one way
a model handles a constrained planning problem is to *formalize* it as SMT: it writes a
Python program that encodes the task for z3 (typically a bounded-horizon encoding in the
style of Kautz & Selman's planning as satisfiability) and prints the plan it decodes from
the model. The reference harness executes that program in its own interpreter. Here:

1. the program is taken from the response (:func:`extract_program`);
2. it runs in :mod:`planning_core.validators.formalizations.sandbox` under :class:`SandboxLimits`;
3. its stdout is read as a plan: first Python literals the program printed (``[('pickup',
   'b1'), ...]``, one tuple per line, ``0 pickup b1``) are rewritten as S-expressions, then
   :func:`planning_core.validators.cope.plans.normalize_plan` maps every form (S-expressions, ``a(x, y)``
   calls, lists of strings, worded steps, zero-argument actions) onto the pair's action
   heads and objects;
4. the plan is judged by planning_core's lifted validator against the pair's *ground-truth*
   domain and problem, exactly like a plan written by the model directly.

Outcomes (``SmtEvaluation.outcome``):

``correct``          the plan is valid for the ground truth (an empty plan when the program
                     printed no step, claimed nothing, and the goal holds initially); or
                     the ground truth has no plan (``plan_exists`` false) and the program
                     says so (``unsat``, "no plan")
``plan_invalid``     the validator rejects the plan; ``detail`` has the failing step, its
                     action, the unsatisfied conditions or goals, and the message
``plan_given``       a plan for a pair labelled unsolvable (as in the planner method; a
                     plan valid there is reported in ``detail["label_doubt"]``)
``no_plan``          the program ended normally but printed no plan (a claim that none
                     exists is ``detail["no_plan_claim"]``; wrong when a plan exists)
``crashed``          non-zero exit or signal; ``detail["stderr"]`` holds the last lines
``timed_out``        the CPU or wall-clock limit (``detail["limit"]``) ended the program
``memory_exceeded``  allocation failed under the memory limit
``output_exceeded``  the program printed more than the output cap
``unknown``            the program ran, but reading or validating its printed plan (up to the
                     output cap, 1 MB) ran out of the row's time or memory limit:
                     ``detail.limit`` names it, ``detail.phase`` (``read`` or ``validation``)
                     says where, ``detail.cpu_s`` is the CPU time it took; no verdict
``sandbox_unavailable`` the sandbox could not be set up (no bubblewrap, no namespaces):
                     the program was not run; ``detail["error"]`` says why
``ground_truth_error`` the pair's ground truth cannot be parsed: nothing can be judged

Every row that ran a program has ``detail["isolation"]`` (``bwrap``, or ``none`` under
``--unsafe-no-sandbox``) and ``detail["memory_limit_mechanism"]`` (``cgroup v2``,
``cgroup v1``, ``rlimits+seccomp`` or ``rlimits``), see docs/sandbox.md.

Registering it as CoPE evaluation method ``"smt"``: :func:`evaluate_smt_result` has the
call and result of :func:`planning_core.validators.cope.planner.evaluate_planner` (``(pair, output,
context) -> EvalResult``); :func:`evaluate_smt_row` gives the plain row ``{"correct",
"outcome", "detail"}``. As in the planner method, a "no plan" verdict is checked against
our own solver through the context's label oracle (``detail["label_doubt"]``).

Limits: the program runs under :class:`SandboxLimits`; what it prints is then read
(:func:`plan_from_output`, :func:`~planning_core.validators.cope.plans.normalize_plan`) and
validated in this process under one budget per row made from ``context.time_limit`` (CPU
seconds) and ``context.memory_limit``, the mechanism of the planner method
(docs/limits.md): 86,000 printed steps took 1.55 CPU-s at ``--time-limit 1``; a limit is
now ``unknown``, never a verdict.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from planning_core.limits import Budget, LimitReached, Limits, metering, tick_active
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import validate_plan
from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.plans import normalize_plan
from planning_core.validators.cope.results import (
    GROUND_TRUTH_ERROR,
    EvalContext,
    EvalResult,
    issues_json,
    label_doubt,
    plan_outcome,
)
from planning_core.validators.formalizations.fences import fenced_blocks
from planning_core.validators.formalizations.literal import NotLiteral, metered_literal_eval
from planning_core.validators.formalizations.sandbox import (
    Outcome,
    SandboxError,
    SandboxLimits,
    SandboxResult,
    run_program,
)

__all__ = ["SANDBOX_UNAVAILABLE", "SMT_LIMITS", "SMT_OUTCOMES", "SmtEvaluation", "evaluate_smt", "evaluate_smt_result",
           "evaluate_smt_row", "extract_program", "plan_from_output"]

SANDBOX_UNAVAILABLE = "sandbox_unavailable"
SMT_OUTCOMES = ("correct", "plan_invalid", "plan_given", "no_plan", "crashed", "timed_out",
                "memory_exceeded", "output_exceeded", "unknown", SANDBOX_UNAVAILABLE,
                GROUND_TRUTH_ERROR)
SMT_LIMITS = SandboxLimits(cpu_s=60, wall_s=90.0, memory_mb=2048, processes=16)
STDERR_LINES = 15

# [^\S\n]: blanks within the line; ``\s*`` crossed lines and was quadratic in blank lines
_Z3 = re.compile(r"^[^\S\n]*(?:from[^\S\n]+z3\b|import[^\S\n]+(?:[\w.]+[^\S\n]*,[^\S\n]*)*z3\b)",
                 re.MULTILINE)
_UNSAT = re.compile(r"\bunsat(?:isfiable)?\b|\bno (?:valid )?(?:plan|solution)\b",
                    re.IGNORECASE)
_INDEXED = re.compile(r"^\s*\d+\s+(?=[A-Za-z])")


@dataclass(frozen=True, slots=True)
class SmtEvaluation:
    """The verdict on one SMT formalization; ``row()`` is the CoPE evaluation row."""

    outcome: str
    correct: bool
    detail: dict = field(default_factory=dict)
    plan: tuple[str, ...] = ()
    program: str = ""
    run: SandboxResult | None = None

    def row(self) -> dict:
        return {"correct": self.correct, "outcome": self.outcome, "detail": self.detail}


def extract_program(response_text: str) -> tuple[str, str]:
    """The Python program in a response, and how it was found.

    Fenced blocks labelled python/py (or unlabelled ones importing z3) are candidates;
    among them the longest one importing z3 wins (models often show a fragment first and
    the full program later), else the longest candidate. Without fences the whole text is
    the program.
    """
    blocks = [(block.lang.lower(), block.body) for block in fenced_blocks(response_text)]
    candidates = [body for lang, body in blocks
                  if lang in ("python", "py", "python3") or (not lang and _Z3.search(body))]
    if not candidates:
        return response_text, "whole response"
    with_z3 = [body for body in candidates if _Z3.search(body)]
    pool = with_z3 or candidates
    best = max(range(len(pool)), key=lambda i: (len(pool[i]), i))
    return pool[best], f"fenced block {best + 1} of {len(pool)}"


def _literal_step(value) -> str | None:
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, str) for v in value):
        parts = [str(v).strip() for v in value]
        if all(parts) and not any(c in "() \t" for c in parts[0]):
            return "(" + " ".join(parts) + ")"
    return None


def _literal_lines(line: str, arity: dict[str, int]) -> list[str] | None:
    """What a printed Python literal says: S-expression lines for a plan (a list of tuples,
    or one tuple of strings), its text for a string, nothing for other data (a debug print
    of numbers is not a step). None when the line is not a literal. A flat sequence of
    strings is one step when it starts with an action of that arity (``['stack', 'a',
    'b']``), else one step per string (``['noop', 'noop']``, ``['pickup a', ...]``)."""
    text = line.strip()
    if not text or text[0] not in "[(\"'":
        return None
    try:   # a long line is read in metered pieces (literal.py): one literal_eval call
        value = metered_literal_eval(text)   # of 1 MB overran a 0.5 s limit by 0.15 s
    except NotLiteral:
        return None
    if isinstance(value, str):
        return [value]
    single = _literal_step(value)
    if single is not None and arity.get(value[0].strip().lower()) == len(value) - 1:
        return [single]
    if isinstance(value, (list, tuple)) and value:
        steps = [_literal_step(item) for item in value]
        if all(step is not None for step in steps):
            return steps
        if all(isinstance(item, str) for item in value):
            return list(value)
    return []


def plan_from_output(stdout: str, pair: Pair):
    """The program's printed plan, normalised onto the pair's heads and objects.

    Every loop ticks the active budget (:func:`planning_core.limits.tick_active`), so under
    ``metering(budget)`` a huge output raises ``LimitReached``; without one nothing changes."""
    arity = {head.name: len(head.params) for head in pair.action_heads}
    lines = []
    for line in stdout.splitlines():
        tick_active()
        literal = _literal_lines(line, arity)
        if literal is not None:
            lines.extend(literal)
        else:
            lines.append(_INDEXED.sub("", line))
    return normalize_plan("\n".join(lines), pair)


def _tail(text: str, count: int = STDERR_LINES) -> str:
    return "\n".join(text.rstrip().splitlines()[-count:])


def _sandbox_detail(run: SandboxResult, isolation: str) -> dict:
    return {"isolation": "bwrap" if isolation == "bwrap" else "none",
            "memory_limit_mechanism": run.memory_limit_mechanism}


def _run_failure(run: SandboxResult, isolation: str) -> tuple[str, dict] | None:
    if run.outcome is Outcome.OK:
        return None
    detail = {"returncode": run.returncode, "signal": run.signal_name, "limit": run.limit,
              "cpu_s": round(run.cpu_s, 3), "wall_s": round(run.wall_s, 3),
              "stderr": _tail(run.stderr_tail), "stdout_tail": _tail(run.stdout, 5),
              **_sandbox_detail(run, isolation)}
    return run.outcome.value, detail


def evaluate_smt(response_text: str, pair: Pair, *, limits: SandboxLimits | None = None,
                 isolation: str | None = None,
                 context: EvalContext | None = None) -> SmtEvaluation:
    """Run the response's z3 program in the sandbox and judge the plan it prints.

    ``context`` supplies the memoised ground truth and the label oracle shared with the
    other CoPE methods (:mod:`planning_core.validators.cope.results`), and the sandbox's
    isolation (``context.sandbox``: ``"bwrap"``, or ``"rlimits"`` when the user passed
    ``--unsafe-no-sandbox``) unless ``isolation`` is given. When the sandbox cannot be set
    up the outcome is ``sandbox_unavailable`` and the program is not run (fail closed);
    everything the program does is an outcome.
    """
    context = context or _default_context()
    isolation = isolation or getattr(context, "sandbox", "bwrap")
    limits = limits or SMT_LIMITS
    truth = context.truth(pair)
    issues = issues_json(truth.errors)
    if not truth.parsed:
        return SmtEvaluation(GROUND_TRUTH_ERROR, False,
                             {"ground_truth_issues": issues,
                              "error": "; ".join(str(i) for i in truth.errors)})
    program, found = extract_program(response_text)
    if not program.strip():
        return SmtEvaluation("no_plan", False, {"reason": "no program in the response",
                                                "no_plan_claim": False}, program=program)
    try:
        run = run_program(program, limits, isolation=isolation)
    except SandboxError as exc:
        return SmtEvaluation(SANDBOX_UNAVAILABLE, False,
                             {"error": exc.message,
                              "isolation": isolation}, program=program)
    failure = _run_failure(run, isolation)
    if failure is not None:
        outcome, detail = failure
        detail["program"] = found
        return SmtEvaluation(outcome, False, detail, program=program, run=run)
    # one budget for reading and validating the printed plan (up to 1 MB: seconds of work
    # past the row's limit, issue 19); a limit is ``unknown``, never a verdict
    budget = Budget(Limits(time_s=context.time_limit, memory_mb=context.memory_limit))
    try:
        with metering(budget):
            return _judge_output(run, pair, truth, issues, found, program, isolation,
                                 context, budget)
    except _Stopped as stop:
        return _unknown(run, found, program, isolation, stop.phase, stop.limit, stop.why,
                        budget)


class _Stopped(Exception):
    def __init__(self, phase: str, limit: str, why: str) -> None:
        super().__init__(limit)
        self.phase, self.limit, self.why = phase, limit, why


def _unknown(run: SandboxResult, found: str, program: str, isolation: str, phase: str,
             limit: str, why: str, budget: Budget) -> SmtEvaluation:
    """The row of a program whose printed plan could not be read or validated within the
    budget: ``unknown``, naming the limit and the phase; no partial plan is kept."""
    detail = {"program": found, "limit": limit, "limit_detail": why, "phase": phase,
              "cpu_s": round(budget.cpu_s(), 3), "program_cpu_s": round(run.cpu_s, 3),
              "wall_s": round(run.wall_s, 3), "output_bytes": len(run.stdout),
              **_sandbox_detail(run, isolation)}
    return SmtEvaluation("unknown", False, detail, program=program, run=run)


def _judge_output(run: SandboxResult, pair: Pair, truth, issues, found: str, program: str,
                  isolation: str, context: EvalContext, budget: Budget) -> SmtEvaluation:
    """Read the program's printed plan and judge it, under ``budget`` (active); a limit
    raises :class:`_Stopped` with the phase it hit."""
    try:
        normalized = plan_from_output(run.stdout, pair)
    except LimitReached as stop:
        raise _Stopped("read", stop.limit, stop.detail) from None
    base = {"program": found, "cpu_s": round(run.cpu_s, 3), "wall_s": round(run.wall_s, 3),
            "plan_exists": pair.plan_exists, "ground_truth_issues": issues,
            **_sandbox_detail(run, isolation)}
    steps = normalized.steps
    claim = normalized.no_plan_claim or (not steps and bool(_UNSAT.search(run.stdout)))
    if not steps and (claim or not _validate(truth, "", budget).valid):
        detail = dict(base, no_plan_claim=claim, stdout_tail=_tail(run.stdout, 5),
                      label_doubt=_doubt(pair, context, claim) if claim else None)
        correct = claim and pair.plan_exists is False
        return SmtEvaluation("correct" if correct else "no_plan", correct, detail,
                             program=program, run=run)
    # a plan; with no step printed and nothing claimed, the empty plan (goal holds at once)
    report = _validate(truth, normalized.text, budget)
    detail = dict(base, plan=list(steps), length=len(steps), rewrites=len(normalized.rewrites),
                  valid=report.valid, label_doubt=_doubt(pair, context, False, report.valid))
    if not report.valid:
        detail.update(verdict=report.verdict.value, step=report.step, action=report.action,
                      unsatisfied=list(report.unsatisfied),
                      unsatisfied_goals=list(report.unsatisfied_goals),
                      message=report.message)
    outcome, correct = plan_outcome(pair, report.valid)
    return SmtEvaluation(outcome, correct, detail, steps, program, run)


def _doubt(pair: Pair, context: EvalContext, says_no_plan: bool,
           plan_valid: bool | None = None) -> str | None:
    """:func:`label_doubt` outside the row's budget: the label oracle runs our own solver
    under its own limits, as in the planner method."""
    with metering(None):
        return label_doubt(pair, context, says_no_plan, plan_valid)


def _validate(truth, text: str, budget: Budget):
    """The validator's report on ``text`` under ``budget``; a limit raises :class:`_Stopped`
    (the validator answers UNKNOWN, its message naming the limit)."""
    try:
        report = validate_plan(truth.domain, truth.problem, text, budget=budget)
    except LimitReached as stop:
        raise _Stopped("validation", stop.limit, stop.detail) from None
    if report.verdict is Verdict.UNKNOWN:
        raise _Stopped("validation", report.limit, report.message)
    return report


_context: EvalContext | None = None


def _default_context() -> EvalContext:
    global _context
    if _context is None:
        _context = EvalContext()
    return _context


def evaluate_smt_row(response_text: str, pair: Pair, **options) -> dict:
    """:func:`evaluate_smt` as a plain row ``{"correct", "outcome", "detail"}``."""
    return evaluate_smt(response_text, pair, **options).row()


def evaluate_smt_result(pair: Pair, output: str, context: EvalContext | None = None,
                        **options) -> EvalResult:
    """The CoPE method ``"smt"``: same call and result as
    :func:`planning_core.validators.cope.planner.evaluate_planner`, for the method registry."""
    result = evaluate_smt(output or "", pair, context=context, **options)
    return EvalResult.for_pair(pair, result.correct, result.outcome, result.detail)
