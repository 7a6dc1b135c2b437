"""Driving a model through CoPE's PDDL formalizer settings: generate, edit, and revise.

Three settings from the paper (Huang et al.), each run by :func:`run_pddl_formalizer`:

``generate``
    one prompt with the descriptions and the constraint; the model writes both files.
``edit``
    two prompts: the model first formalizes the *unconstrained* task, then is shown its own
    files and asked to change them so that they also enforce the constraint.
revision (``revisions=k``, either setting)
    while the latest files fail in a way the model can see without the ground truth
    (``revise_on``: by default syntax and semantic errors and solver limits), the model is
    shown the error message (with line and column) and its files, up to ``k`` more times.
    The reference pipeline revises up to three times.

The loop asks only :attr:`PddlJudgement.feedback` of a judgement, which is computed from
the model's files alone; ``revise_on`` must be a subset of the outcomes decided without the
ground truth, so no ground-truth information reaches a prompt.
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations.pddl import GROUND_TRUTH_FREE, PddlJudgement, judge_pddl
from planning_core.validators.formalizations.pddl_text import extract_pddl
from planning_core.validators.formalizations.prompts import render
from planning_core.validators.models.base import Model

__all__ = ["MODES", "DEFAULT_REVISE_ON", "Attempt", "Trajectory", "run_pddl_formalizer"]

MODES = ("generate", "edit")
DEFAULT_REVISE_ON = frozenset({"syntax_error", "unsupported_feature", "semantic_error", "unknown"})


@dataclass(frozen=True, slots=True)
class Attempt:
    """One model call: which template, the prompt, the response, and (for calls that
    produce the pair's final files) the judgement of that response."""

    template: str
    prompt: str
    response: str
    judgement: PddlJudgement | None

    def to_json(self) -> dict:
        return {"template": self.template, "prompt": self.prompt, "response": self.response,
                "judgement": self.judgement.to_json() if self.judgement else None}


@dataclass(frozen=True, slots=True)
class Trajectory:
    """All calls for one pair; ``final`` is the judgement of the last judged attempt."""

    pair_key: tuple[str, str, str, str]
    mode: str
    attempts: tuple[Attempt, ...]

    @property
    def final(self) -> PddlJudgement:
        return [a.judgement for a in self.attempts if a.judgement is not None][-1]

    @property
    def revisions(self) -> int:
        return sum(1 for a in self.attempts if a.template == "pddl_revise")

    @property
    def response(self) -> str:
        """The response whose files were judged last (what ``cope eval`` would score)."""
        return [a.response for a in self.attempts if a.judgement is not None][-1]

    def to_json(self) -> dict:
        return {"pair": list(self.pair_key), "mode": self.mode, "revisions": self.revisions,
                "outcome": self.final.outcome, "correct": self.final.correct,
                "attempts": [a.to_json() for a in self.attempts]}


def _files_text(response: str) -> tuple[str, str]:
    """The domain and problem to show the model again (raw text if none were found)."""
    files = extract_pddl(response)
    if files.domain is None and files.problem is None:
        return response.strip(), ""
    return files.domain or "", files.problem or ""


def run_pddl_formalizer(model: Model, pair: Pair, *, mode: str = "generate",
                        revisions: int = 0, context: EvalContext | None = None,
                        revise_on: frozenset[str] = DEFAULT_REVISE_ON) -> Trajectory:
    """Run one setting on one pair (see the module doc)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if revisions < 0:
        raise ValueError("revisions must be >= 0")
    if not revise_on <= GROUND_TRUTH_FREE:
        raise ValueError("revise_on may only name outcomes decided without the ground "
                         f"truth: {sorted(GROUND_TRUTH_FREE)}")
    context = context or EvalContext()
    attempts: list[Attempt] = []

    def ask(template: str, judge: bool, **extra: str) -> Attempt:
        prompt = render(template, pair, **extra)
        response = model(prompt)
        judgement = judge_pddl(pair, response, context) if judge else None
        attempt = Attempt(template, prompt, response, judgement)
        attempts.append(attempt)
        return attempt

    if mode == "generate":
        latest = ask("pddl_generate", True)
    else:
        original = ask("pddl_edit_original", False)
        domain, problem = _files_text(original.response)
        latest = ask("pddl_edit", True, domain_file=domain, problem_file=problem)
    for _ in range(revisions):
        if latest.judgement.outcome not in revise_on:
            break
        domain, problem = _files_text(latest.response)
        latest = ask("pddl_revise", True, error=latest.judgement.feedback,
                     domain_file=domain, problem_file=problem)
    return Trajectory(pair.key, mode, tuple(attempts))
