"""Values produced by parsing a model's answer to an ACPBench Hard question.

A ground action and a ground atom look the same in an answer -- a name and its
arguments -- so one value type, :class:`GroundName`, stands for both; the scorer knows
from the task which one it expects. Names are compared case-insensitively in PDDL, so
the value lower-cases itself: ``(LOAD-TRUCK p0 t0 l0-0)`` and ``(load-truck p0 t0 l0-0)``
are the same answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from planning_core.errors import PlanningError


@dataclass(frozen=True, slots=True, order=True)
class GroundName:
    """A ground action or atom: ``name`` applied to object ``args``, all lower-case.

    ``order=True`` gives a deterministic sort (by name, then arguments) for output.
    """

    name: str
    args: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a ground name needs a non-empty name, got {self.name!r}")
        args = tuple(self.args)
        if not all(isinstance(a, str) and a.strip() and a == a.strip() and " " not in a
                   for a in args):
            raise ValueError(f"arguments must be non-empty words, got {args!r}")
        # Frozen: normalise through object.__setattr__ (the documented idiom).
        object.__setattr__(self, "name", self.name.strip().lower())
        object.__setattr__(self, "args", tuple(a.lower() for a in args))

    def __str__(self) -> str:
        return "(" + " ".join((self.name, *self.args)) + ")"

    @property
    def bare(self) -> str:
        """The form without parentheses, as the dataset stores reach answers."""
        return " ".join((self.name, *self.args))

    @classmethod
    def from_text(cls, text: str) -> GroundName:
        """Read the dataset's own spelling, ``"(sail l0 l1)"`` or ``"at a0 l0-2"``.

        Only for the strict, machine-written forms in the dataset; a model's answer goes
        through :mod:`planning_core.validators.acp.answers.parsers`.
        """
        words = text.strip().removeprefix("(").removesuffix(")").split()
        if not words:
            raise ValueError(f"no name in {text!r}")
        return cls(words[0], tuple(words[1:]))


class UnparseableAnswer(PlanningError):
    """A model's answer from which no value of the expected shape can be read exactly.

    ``reason`` is short and fixed in wording (``"empty answer"``, ``"ambiguous: ..."``,
    ``"no action found"``, ...) so that reports can count failures by kind. ``line`` and
    ``column`` point into the answer text where the failure was found, when known.
    """

    def __init__(self, reason: str, *, line: int | None = None,
                 column: int | None = None) -> None:
        super().__init__(reason, file="<answer>", line=line, column=column)
        self.reason = reason
