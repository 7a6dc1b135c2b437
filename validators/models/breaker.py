"""A circuit breaker for a run: a server that accepts connections and answers none.

A server that refuses connections is :class:`~.completion.ModelUnavailable` at once; one
that accepts every connection and then drops it (a wrong port on a proxy, a crashed backend
behind a load balancer) fails each request only after its retries, as a single poisoned
request does. The two are told apart by what happened before: while a run has had no
successful answer, the first ``threshold`` distinct requests that all fail at the transport
level after their retries (a dropped connection, no answer within the timeout, a gateway's
502/503/504) mean the server cannot be reached, and the breaker raises
:class:`~.completion.ModelUnavailable` naming the last error; every request asked after
that fails the same way at once. Once any request has succeeded the breaker never trips: a
request that keeps failing is its own error row, and the run goes on.

A run arms its client with :func:`arm` (``threshold`` capped by the number of questions,
so that a run of two questions that both fail stops too); a client nobody armed has no
breaker, and each failure is only a :class:`~.completion.RequestFailed`.
"""
from __future__ import annotations

import hashlib
import json
import threading
from typing import Mapping, Sequence

from planning_core.validators.models.completion import ModelUnavailable, RequestFailed

__all__ = ["CircuitBreaker", "arm", "DEFAULT_THRESHOLD"]

#: distinct requests that must all fail at the transport level, with no success before
#: them, for a run to stop as "the server cannot be reached"
DEFAULT_THRESHOLD = 3


def _fingerprint(messages: Sequence[Mapping[str, str]]) -> str:
    text = json.dumps([dict(m) for m in messages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class CircuitBreaker:
    """Thread-safe; one per run (shared by every thread asking through one client)."""

    def __init__(self, threshold: int = DEFAULT_THRESHOLD) -> None:
        if threshold < 1:
            raise ValueError(f"the threshold must be at least 1, not {threshold}")
        self.threshold = threshold
        self._lock = threading.Lock()
        self._succeeded = False
        self._failed: set[str] = set()
        self._open: ModelUnavailable | None = None

    @property
    def tripped(self) -> bool:
        return self._open is not None

    def check(self) -> None:
        """Raise the breaker's error if it has tripped (asked before each request)."""
        if self._open is not None:
            raise ModelUnavailable(self._open.message, file=self._open.file)

    def success(self) -> None:
        with self._lock:
            self._succeeded = True

    def failure(self, messages: Sequence[Mapping[str, str]], err: RequestFailed) -> None:
        """Record a request that failed after its retries; raise ``ModelUnavailable``
        instead of letting ``err`` through when this failure trips the breaker (or it has
        tripped already)."""
        with self._lock:
            if self._open is None and not self._succeeded and getattr(err, "transport",
                                                                        False):
                self._failed.add(_fingerprint(messages))
                if len(self._failed) >= self.threshold:
                    n = len(self._failed)
                    self._open = ModelUnavailable(
                        f"the server cannot be reached: the first {n} request(s) all failed "
                        f"and none succeeded; the last: {err.message}", file=err.file)
            opened = self._open
        if opened is not None:
            raise ModelUnavailable(opened.message, file=opened.file) from None


def arm(model, requests: int, threshold: int = DEFAULT_THRESHOLD) -> None:
    """Give ``model`` (a :class:`~.client.Client`; other models are left alone) a fresh
    breaker for a run of ``requests`` distinct first requests."""
    # a Client has the attribute (None until armed); a plain ``Model`` has not
    if requests > 0 and hasattr(model, "breaker") and hasattr(model, "complete_messages"):
        model.breaker = CircuitBreaker(min(threshold, requests))
