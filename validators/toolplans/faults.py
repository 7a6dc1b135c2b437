"""The faults a tool chain can have, and their place in the APB error taxonomy.

APB (Sun et al. 2026, "Agent Planning Benchmark: A Diagnostic Framework for Planning
Capabilities in LLM Agents", arXiv:2606.04874) labels failed plans E1-E6: goal
understanding (E1), premature conclusion / incompleteness (E2), constraint violation (E3),
logic error (E4), tool-use error (E5), hallucination (E6), with an LLM judge. Once tools
are a planning domain, the classes below are decided exactly; ``docs/toolplans.md`` gives
each one's definition. E1 (did the plan pursue what the user meant, e.g. origin and
destination swapped) needs the meaning of values and stays with a judge: no fault here
claims it.
"""
from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAULT_CLASS", "Fault"]

# fault kind -> APB class (None: not a plan fault the taxonomy covers)
FAULT_CLASS = {
    "hallucinated_input": "E6",     # an argument no earlier call produced and the user never gave
    "missing_prerequisite": "E4",   # an input whose producing call is missing from the chain
    "premature_call": "E4",         # a call before the call that produces its input
    "broken_tool": "E5",            # a tool the task marks as failing is relied on
    "forbidden_tool": "E3",         # a tool the user forbade is called
    "constraint_violated": "E3",    # an order, a call limit or a must-call broken
    "incomplete": "E2",             # the chain ends without a required output
    "unjustified_refusal": "E2",    # refusing although a plan exists (premature conclusion)
    "unknown_tool": "E5",           # a call to a tool not in the set
    "wrong_arguments": "E5",        # missing, unknown or mistyped arguments
    "malformed_output": None,       # no chain could be read from the output
    "missed_refusal": None,         # a chain for a request no chain can satisfy
}


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault: ``step`` is the 1-based call it shows at (None: the chain as a whole)."""

    kind: str
    step: int | None
    message: str
    call: str | None = None

    @property
    def code(self) -> str | None:
        return FAULT_CLASS[self.kind]

    def sort_key(self) -> tuple:
        return (self.step is None, self.step or 0)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "class": self.code, "step": self.step, "call": self.call,
                "message": self.message}
