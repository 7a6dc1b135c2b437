"""The registry of CoPE evaluation methods: name -> how to judge one model output.

An entry is a :class:`Method`. :meth:`Method.evaluate` takes ``(pair, output, context)``
and returns an :class:`~planning_core.validators.cope.results.EvalResult`; :attr:`Method.outcomes`
lists the outcome names it can return (the report's rows follow this order).
``cope eval --method`` offers exactly the keys of :data:`METHODS` (STYLE: explicit
registries, no discovery).

Entries name their implementation as ``module`` + attribute names and import it on first
use: the registry is read when ``planning-core`` builds its argument parser, and importing
the pipelines there (the parser, the validator, ~0.6 s) would slow every command down.

Adding a method (SMT, LTL) is one entry: write ``evaluate_xxx(pair, output, context) ->
EvalResult`` and an ``XXX_OUTCOMES`` tuple next to the pipeline, and add
``"xxx": Method("xxx", summary, "planning_core.validators.formalizations.xxx", "evaluate_xxx",
"XXX_OUTCOMES")`` below. The context gives the memoised ground truth
(``context.truth(pair)``), the time limit, and the label oracle
(:func:`~planning_core.validators.cope.results.label_doubt`).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

__all__ = ["Method", "METHODS", "MAX_RESPONSE_BYTES"]

#: Longest model output read, in UTF-8 bytes (``cope eval --max-response-bytes``); a
#: longer one is the row's ``too_large`` outcome, unread.
MAX_RESPONSE_BYTES = 1_000_000
#: Outcomes of :func:`planning_core.validators.cope.evaluate.judge`, open to every method.
BATCH_OUTCOMES = ("too_large", "internal_error", "bad_input")


@dataclass(frozen=True, slots=True)
class Method:
    name: str
    summary: str
    module: str
    function: str
    outcomes_name: str

    def _attribute(self, name: str):
        return getattr(importlib.import_module(self.module), name)

    def evaluate(self, pair, output: str, context=None):
        """Judge ``output`` for ``pair`` (an :class:`~planning_core.validators.cope.results.EvalResult`)."""
        return self._attribute(self.function)(pair, output, context)

    @property
    def outcomes(self) -> tuple[str, ...]:
        return tuple(self._attribute(self.outcomes_name)) + BATCH_OUTCOMES


METHODS: dict[str, Method] = {
    "planner": Method("planner", "LLM-as-planner: the output is a plan, validated under the "
                      "constrained ground truth", "planning_core.validators.cope.planner",
                      "evaluate_planner", "PLANNER_OUTCOMES"),
    "pddl": Method("pddl", "LLM-as-formalizer (PDDL): the output holds a domain and a "
                   "problem; they are solved and the plan validated under the ground truth",
                   "planning_core.validators.formalizations.pddl", "evaluate_pddl", "PDDL_OUTCOMES"),
    "smt": Method("smt", "LLM-as-formalizer (SMT): the output is Python code calling z3 that "
                  "prints a plan; it runs in a sandbox and the plan is validated under the "
                  "ground truth", "planning_core.validators.formalizations.smt", "evaluate_smt_result",
                  "SMT_OUTCOMES"),
    "ltl": Method("ltl", "LLM-as-formalizer (LTLf): the output holds the constraint as an "
                  "LTLf formula (plus, optionally, its own domain and problem); goal and "
                  "formula are planned for and the plan validated under the ground truth",
                  "planning_core.validators.formalizations.ltl", "evaluate_ltl", "LTL_OUTCOMES"),
}
