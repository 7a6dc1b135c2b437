"""What one model call produced, and the two ways a call can fail.

A :class:`Completion` is the record a result row keeps of a response: the text and
everything needed to reproduce or cost it (model, base URL, sampling parameters, token
usage, latency, whether it came from the cache, how many attempts it took). The API key is
never part of it.

Failures come in two kinds, because a batch run must treat them differently:

* :class:`ModelUnavailable`: nothing will work until the user changes something (the key is
  refused, the model is unknown, the server cannot be reached). A run stops with one line.
* :class:`RequestFailed`: this one request failed after its retries (timeouts, 429s, 5xx,
  a malformed body, a connection the server drops). A run records a failure row and goes
  on; a rerun asks again.

A response cut off by the token limit is neither: it is a :class:`Completion` with
``finish_reason == "length"`` (``truncated``), whose text may be empty (a reasoning model
that spent the whole budget reasoning sends ``content: null``). It is recorded and scored as
the answer it is, and not asked again.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from planning_core.errors import PlanningError

__all__ = ["Completion", "ModelError", "ModelUnavailable", "RequestFailed"]


class ModelError(PlanningError):
    """A model call that produced no response."""


class ModelUnavailable(ModelError):
    """The endpoint cannot answer any request as configured (bad key, unknown model,
    server unreachable): stop the run."""


class RequestFailed(ModelError):
    """One request failed after all retries: record it and go on. ``transport`` says it
    never got an HTTP answer a server could have meant (a dropped connection, a timeout, a
    gateway's 502/503/504): what a run's :class:`~.breaker.CircuitBreaker` counts."""

    def __init__(self, message: str, *, transport: bool = False, **where) -> None:
        super().__init__(message, **where)
        self.transport = transport


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    model: str
    base_url: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)
    usage: Mapping[str, int] | None = None
    latency_s: float = 0.0
    cache_hit: bool = False
    attempts: int = 1
    #: why the server stopped: ``stop`` (a natural end or a stop sequence), ``length`` (the
    #: token limit: the answer is cut off), ``content_filter``...; None when unknown
    finish_reason: str | None = None
    #: a reasoning model's separate reasoning text (``reasoning_content``), when sent
    reasoning: str | None = None

    @property
    def truncated(self) -> bool:
        """Whether the token limit cut the response off (``finish_reason: length``)."""
        return self.finish_reason == "length"

    def to_json(self) -> dict:
        """The row fields of this response (its text is stored separately as ``response``)."""
        row = {"model": self.model, "base_url": self.base_url, "params": dict(self.params),
               "usage": dict(self.usage) if self.usage is not None else None,
               "latency_s": round(self.latency_s, 4), "cache_hit": self.cache_hit,
               "attempts": self.attempts, "finish_reason": self.finish_reason}
        if self.truncated:
            row["truncated"] = True
        if self.reasoning is not None:
            row["reasoning"] = self.reasoning
        return row
