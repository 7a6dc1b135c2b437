"""The language model as the formalizer pipelines see it: prompt text in, response text out.

Everything model-specific (API clients, chat templates, JSON-mode flags, retries on
malformed output) lives behind the one-method :class:`Model` protocol, so the pipelines and
their tests stay offline. :class:`ScriptedModel` is the offline implementation: it answers
from a script (a list of responses, or a function of the prompt and the turn number) and
records every prompt it was given, which is what tests and dry runs need.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from planning_core.errors import PlanningError

__all__ = ["Model", "ScriptedModel", "ScriptExhausted"]


@runtime_checkable
class Model(Protocol):
    def __call__(self, prompt: str) -> str:
        """The model's full response to ``prompt``."""
        ...


class ScriptExhausted(PlanningError):
    """A scripted model was asked more often than its script has answers (a test bug)."""


class ScriptedModel:
    """A :class:`Model` answering from a script; ``prompts`` records what it was asked.

    ``script`` is either a sequence of responses, returned in order, or a function
    ``(prompt, turn) -> response`` with ``turn`` counting calls from 0.
    """

    def __init__(self, script: Sequence[str] | Callable[[str, int], str]) -> None:
        self._script = script
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        turn = len(self.prompts)
        self.prompts.append(prompt)
        if callable(self._script):
            return self._script(prompt, turn)
        if turn >= len(self._script):
            raise ScriptExhausted(f"the script has {len(self._script)} responses; "
                                  f"call {turn + 1} has none")
        return self._script[turn]
