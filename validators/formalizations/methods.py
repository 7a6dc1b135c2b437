"""The registry of CoPE evaluation methods: name -> how to judge one model output.

An entry is a :class:`Method`. :meth:`Method.evaluate` takes ``(pair, output, context)``
and returns an :class:`~planning_core.validators.cope.results.EvalResult`; :attr:`Method.outcomes`
lists the outcome names it can return (the report's rows follow this order).
``cope eval --method`` offers exactly the keys of :data:`METHODS` (STYLE: explicit
registries, no discovery): :mod:`planning_core.console` hands this registry to the ``cope``
command group.

The registry sits here, above both the LLM-as-planner method
(:mod:`planning_core.validators.cope.planner`) and the formalizer pipelines, because the
pipelines build on ``cope`` (its dataset and results) and ``cope`` must not import them
back. Each entry names its implementation by a loader function with plain imports inside,
run on first use: the registry is read when ``planning-core`` builds its argument parser,
and importing the pipelines there (the parser, the validator, ~0.6 s) would slow every
command down.

Adding a method is one entry: write ``evaluate_xxx(pair, output, context) -> EvalResult``
and an ``XXX_OUTCOMES`` tuple next to the pipeline, a ``_load_xxx`` below returning both,
and ``"xxx": Method("xxx", summary, _load_xxx)``. The context gives the memoised ground
truth (``context.truth(pair)``), the time limit, and the label oracle
(:func:`~planning_core.validators.cope.results.label_doubt`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

__all__ = ["LIVE_METHODS", "Method", "METHODS"]

#: The methods ``cope run`` can drive live (prompt, revise, judge); here, not in
#: :mod:`.live`, so that ``cope run --help`` lists them without importing the model client.
LIVE_METHODS = ("planner", "pddl", "smt", "ltl")

Evaluate = Callable[..., object]


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    summary: str
    load: Callable[[], tuple[Evaluate, tuple[str, ...]]]  # -> (evaluate, outcomes)

    def evaluate(self, pair, output: str, context=None):
        """Judge ``output`` for ``pair`` (an
        :class:`~planning_core.validators.cope.results.EvalResult`)."""
        return self.load()[0](pair, output, context)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(self.load()[1])


def _load_planner():
    from planning_core.validators.cope.planner import PLANNER_OUTCOMES, evaluate_planner
    return evaluate_planner, PLANNER_OUTCOMES


def _load_pddl():
    from planning_core.validators.formalizations.pddl import PDDL_OUTCOMES, evaluate_pddl
    return evaluate_pddl, PDDL_OUTCOMES


def _load_smt():
    from planning_core.validators.formalizations.smt import SMT_OUTCOMES, evaluate_smt_result
    return evaluate_smt_result, SMT_OUTCOMES


def _load_ltl():
    from planning_core.validators.formalizations.ltl import LTL_OUTCOMES, evaluate_ltl
    return evaluate_ltl, LTL_OUTCOMES


METHODS: dict[str, Method] = {
    "planner": Method("planner", "LLM-as-planner: the output is a plan, validated under the "
                      "constrained ground truth", _load_planner),
    "pddl": Method("pddl", "LLM-as-formalizer (PDDL): the output holds a domain and a "
                   "problem; they are solved and the plan validated under the ground truth",
                   _load_pddl),
    "smt": Method("smt", "LLM-as-formalizer (SMT): the output is Python code calling z3 that "
                  "prints a plan; it runs in a sandbox and the plan is validated under the "
                  "ground truth", _load_smt),
    "ltl": Method("ltl", "LLM-as-formalizer (LTLf): the output holds the constraint as an "
                  "LTLf formula (plus, optionally, its own domain and problem); goal and "
                  "formula are planned for and the plan validated under the ground truth",
                  _load_ltl),
}
