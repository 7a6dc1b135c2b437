"""The faults a tool chain can have, and their place in the APB error taxonomy.

APB (Sun et al. 2026, "Agent Planning Benchmark: A Diagnostic Framework for Planning
Capabilities in LLM Agents", arXiv:2606.04874) labels failed plans E1-E6: goal
understanding (E1), premature conclusion / incompleteness (E2), constraint violation (E3),
logic error (E4), tool-use error (E5), hallucination (E6), with an LLM judge. Once tools
are a planning domain, the classes below are decided exactly; ``docs/toolplans.md`` gives
each one's definition with the paper's lines. E1 (did the plan pursue what the user
meant, e.g. origin and destination swapped) is claimed only where the goal is formal: a
chain serving no required output, or a task's ``intent`` values contradicted; otherwise it
is undecided and left to a judge. A sample may have several classes (paper lines 137,
631): every fault is reported with its call.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = ["FAULT_CLASS", "STEPWISE_CLASS", "Fault", "MAJOR", "MINOR", "classes_of"]

# fault kind -> APB class (None: not a plan fault the taxonomy covers); the paper's lines
# (seeds/001_25509288ef9c2098.txt) are cited in docs/toolplans.md
FAULT_CLASS = {
    "hallucinated_input": "E6",     # data no call produced and the user never gave (623, 659)
    "inaccessible_input": "E6",     # data the user names but no tool can read (an image)
    "missing_prerequisite": "E4",   # an input whose producing call is missing (619, 655)
    "premature_call": "E6",         # holistic: a call before the call that produces its
                                    # input "uses results not yet available" (659, 692);
                                    # step-wise it is E4 (619): STEPWISE_CLASS
    "dead_end": "E4",               # a step-wise action after which no chain completes (655)
    "broken_tool": "E5",            # a tool the task marks as failing is relied on
    "extraneous_tool": "E5",        # a distractor tool is used (lines 718, 724-726)
    "forbidden_tool": "E3",         # a tool the user forbade is called
    "constraint_violated": "E3",    # an order, a call limit or a must-call broken
    "format_violation": "E3",       # the answer breaks the required output format (617)
    "malformed_output": "E3",       # no answer could be read at all (617)
    "incomplete": "E2",             # the chain ends without a required output (651)
    "premature_conclusion": "E2",   # a step-wise step concludes with work left (615)
    "unjustified_refusal": "E2",    # refusing although a plan exists (premature conclusion)
    "goal_misunderstood": "E1",     # no call serves the formal goal, or an intent is unmet
    "off_goal": "E1",               # a step-wise call that serves no required output: it
                                    # does not "align with the goal" nor "progress the
                                    # task" (lines 613, 683)
    "unknown_tool": "E6",           # a call to a tool not in the set (623, 659)
    "wrong_arguments": "E5",        # missing, unknown or mistyped arguments (621, 657)
    "missed_refusal": None,         # a chain for a request no chain can satisfy
}
#: where a step-wise fault's class differs from the holistic one (``FAULT_CLASS``): the paper
#: gives each protocol its own rubric. A call that needs a result produced only by a later
#: call is step-wise E4, "requires data/results not yet obtained" (line 619), and holistic
#: E6, "uses results not yet available" (line 659; "at the current step" in the judge's
#: prompt, line 692), not holistic E4's "steps lack key premises" (line 655), which stays
#: the class of a prerequisite no call makes (``missing_prerequisite``).
STEPWISE_CLASS = {"premature_call": "E4"}
MAJOR = frozenset({"E1", "E3", "E6"})   # paper line 608
MINOR = frozenset({"E4", "E5"})         # paper lines 604-606


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault: ``step`` is the 1-based call it shows at (None: the chain as a whole)."""

    kind: str
    step: int | None
    message: str
    call: str | None = None
    minor: bool = False     # an E5 of trivial impact (an extra argument; paper line 602)
    stepwise: bool = False  # judged as a step-wise prediction (the class may differ)

    @property
    def code(self) -> str | None:
        if self.stepwise and self.kind in STEPWISE_CLASS:
            return STEPWISE_CLASS[self.kind]
        return FAULT_CLASS[self.kind]

    def as_stepwise(self) -> "Fault":
        """This fault as found in a step-wise prediction (its class by that rubric)."""
        return self if self.stepwise else replace(self, stepwise=True)

    def sort_key(self) -> tuple:
        return (self.step is None, self.step or 0)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "class": self.code, "step": self.step, "call": self.call,
                "message": self.message, **({"minor": True} if self.minor else {})}


def classes_of(faults) -> dict[str, list]:
    """Every APB class among ``faults`` with the calls where it holds (None: the chain), in
    class order: the multi-label view of a chain or a prediction (APB lines 139, 634)."""
    out: dict[str, list] = {}
    for f in faults:
        if f.code is not None and f.step not in out.setdefault(f.code, []):
            out[f.code].append(f.step)
    return dict(sorted(out.items()))
