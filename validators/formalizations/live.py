"""``cope run``: CoPE's prompting and revision loops against a live model.

For each pair and method (Huang et al., "Language Model as Planner and Formalizer under
Constraints"):

``planner``  one prompt (``planner`` template); the plan is judged like ``cope eval``'s.
             No revision: the only judge of a plan is the constrained ground truth, and
             telling the model what it said would reveal it.
``pddl``     :func:`planning_core.validators.formalizations.loop.run_pddl_formalizer`
             (``generate`` or ``edit`` mode), revised on syntax and semantic errors and
             solver limits with the parser's/solver's message.
``smt``      a z3 program (``smt_generate``), revised (``smt_revise``) when it crashes or
             hits a sandbox limit, with the program's last stderr lines or the limit.
``ltl``      an LTLf formula over the unconstrained task's PDDL (``ltl_generate``), revised
             (``ltl_revise``) on syntax and semantic errors and solver limits.

Every revision message is computed from the model's own answer alone (outcomes in the
methods' ground-truth-free sets), so no ground-truth information reaches a prompt.

:func:`run_pair` returns one row: ``cope eval``'s row (``dataset, category, problem,
constraint, correct, outcome, detail``) plus ``method, mode, revisions`` and ``turns``,
every call's ``template, prompt, response`` with the completion's record (model,
parameters, usage, latency, cache hit) and, for judged turns, the outcome and the
feedback. Every row also carries the run's setting -- ``model``, ``base_url``, ``params``
and ``max_revisions`` -- so that a rerun with another model, parameters, mode or revision
budget is told apart (:mod:`planning_core.validators.models.run_setting`). A request that
fails after its retries gives a row with ``error`` (and the turns so far); a rerun asks
again (:func:`done_keys` skips only rows without ``error``).

Each call of a pair names its turn (0, 1, ...) to the client, so at a temperature above 0
the same prompt at a later turn of a revision loop is asked again rather than served from
the response cache (:meth:`planning_core.validators.models.client.Client.complete_messages`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.results import EvalContext, EvalResult, ground_truth_error
from planning_core.validators.formalizations.methods import LIVE_METHODS
from planning_core.validators.formalizations.prompts import render
from planning_core.validators.models.client import ask
from planning_core.validators.models.completion import Completion, ModelUnavailable, RequestFailed

__all__ = ["LIVE_METHODS", "SMT_REVISE_ON", "LTL_REVISE_ON", "run_pair", "done_keys",
           "row_key"]

# Sandbox outcomes of the model's program: decided before any ground truth is read.
SMT_REVISE_ON = frozenset({"crashed", "timed_out", "memory_exceeded", "output_exceeded"})
LTL_REVISE_ON = frozenset({"syntax_error", "semantic_error", "unknown"})


class _Recorder:
    """A ``Model`` that keeps the :class:`Completion` of every call, in order."""

    def __init__(self, model) -> None:
        self.model = model
        self.completions: list[Completion] = []
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        turn = len(self.prompts)
        self.prompts.append(prompt)
        completion = ask(self.model, prompt, turn=turn)
        self.completions.append(completion)
        return completion.text


@dataclass(frozen=True, slots=True)
class _Turn:
    template: str
    prompt: str
    response: str
    outcome: str | None = None
    feedback: str | None = None


def _turn_json(turn: _Turn, completion: Completion | None) -> dict:
    row = {"template": turn.template, "prompt": turn.prompt, "response": turn.response}
    if completion is not None:
        row.update(completion.to_json())
    if turn.outcome is not None:
        row.update(outcome=turn.outcome, feedback=turn.feedback)
    return row


def _revise_loop(model, pair: Pair, first: str, revise: str, judge: Callable[[str], tuple],
                 revise_on: frozenset[str], revisions: int, answer_field: str,
                 extract: Callable[[str], str]) -> tuple[list[_Turn], object]:
    """Generate, then revise while the judgement is ground-truth-free and revisable.
    ``judge(response) -> (outcome, feedback, verdict)``."""
    turns: list[_Turn] = []
    prompt = render(first, pair)
    template = first
    for k in range(revisions + 1):
        response = model(prompt)
        outcome, feedback, verdict = judge(response)
        turns.append(_Turn(template, prompt, response, outcome, feedback))
        if k == revisions or outcome not in revise_on or not feedback:
            return turns, verdict
        template = revise
        prompt = render(revise, pair, error=feedback, **{answer_field: extract(response)})
    raise AssertionError("unreachable")


def _smt(model, pair, context, revisions):
    from planning_core.validators.formalizations.smt import evaluate_smt, extract_program

    def judge(response):
        result = evaluate_smt(response, pair, context=context)
        feedback = None
        if result.outcome in SMT_REVISE_ON:
            d = result.detail
            feedback = (f"the program {result.outcome.replace('_', ' ')}"
                        + (f" ({d.get('limit')} limit)" if d.get("limit") else "")
                        + (f":\n{d['stderr']}" if d.get("stderr") else ""))
        return result.outcome, feedback, EvalResult.for_pair(pair, result.correct,
                                                             result.outcome, result.detail)

    return _revise_loop(model, pair, "smt_generate", "smt_revise", judge, SMT_REVISE_ON,
                        revisions, "program", lambda r: extract_program(r)[0].strip() or r)


def _ltl(model, pair, context, revisions):
    from planning_core.validators.formalizations.ltl import extract_ltl, judge_ltl

    def judge(response):
        j = judge_ltl(pair, response, context)
        detail = j.to_json()
        return j.outcome, j.feedback if j.outcome in LTL_REVISE_ON else None, \
            EvalResult.for_pair(pair, j.correct, j.outcome, detail)

    return _revise_loop(model, pair, "ltl_generate", "ltl_revise", judge, LTL_REVISE_ON,
                        revisions, "formula", lambda r: (extract_ltl(r).formula or r).strip())


def _planner(model, pair, context):
    from planning_core.validators.cope.planner import evaluate_planner

    prompt = render("planner", pair)
    response = model(prompt)
    result = evaluate_planner(pair, response, context)
    return [_Turn("planner", prompt, response, result.outcome, None)], result


def _pddl(model, pair, context, revisions, mode):
    from planning_core.validators.formalizations.loop import run_pddl_formalizer

    trajectory = run_pddl_formalizer(model, pair, mode=mode, revisions=revisions,
                                     context=context)
    turns = [_Turn(a.template, a.prompt, a.response,
                   a.judgement.outcome if a.judgement else None,
                   a.judgement.feedback if a.judgement else None)
             for a in trajectory.attempts]
    final = trajectory.final
    return turns, EvalResult.for_pair(pair, final.correct, final.outcome, final.to_json())


def row_key(row: dict) -> tuple[str, ...]:
    return tuple(str(row.get(f)) for f in ("dataset", "category", "problem", "constraint",
                                           "method"))


def done_keys(rows) -> set[tuple[str, ...]]:
    return {row_key(r) for r in rows if "error" not in r}


def run_pair(model, pair: Pair, method: str, *, revisions: int = 0, mode: str = "generate",
             context: EvalContext | None = None) -> dict:
    """Run ``method`` on ``pair`` against ``model``; the row of the module doc."""
    if method not in LIVE_METHODS:
        raise ValueError(f"method must be one of {LIVE_METHODS}, not {method!r}")
    from planning_core.validators.models.run_setting import setting_of

    context = context or EvalContext()
    head = {"method": method, "mode": mode if method == "pddl" else None,
            **setting_of(model), "max_revisions": revisions if method != "planner" else 0}
    truth = context.truth(pair)
    if not truth.parsed:  # nothing can be judged: do not spend a request on it
        return {**ground_truth_error(pair, truth).to_json(), **head, "revisions": 0,
                "turns": []}
    recorder = _Recorder(model)
    try:
        if method == "planner":
            turns, result = _planner(recorder, pair, context)
        elif method == "pddl":
            turns, result = _pddl(recorder, pair, context, revisions, mode)
        elif method == "smt":
            turns, result = _smt(recorder, pair, context, revisions)
        else:
            turns, result = _ltl(recorder, pair, context, revisions)
    except ModelUnavailable:
        raise
    except RequestFailed as err:
        done = [_turn_json(_Turn("", p, c.text), c)
                for p, c in zip(recorder.prompts, recorder.completions)]
        return {"dataset": pair.dataset, "category": pair.category, "problem": pair.problem,
                "constraint": pair.constraint, **head, "error": str(err), "turns": done}
    row = result.to_json()
    row.update(head)
    row["revisions"] = sum(1 for t in turns if t.template.endswith("_revise"))
    row["turns"] = [_turn_json(t, c) for t, c in zip(turns, recorder.completions)]
    return row
