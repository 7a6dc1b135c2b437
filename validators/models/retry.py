"""Retry delays: exponential backoff with full jitter, never shorter than ``Retry-After``.

"Full jitter" (a uniform draw in ``[0, base * 2**attempt]``, capped) spreads the retries of
many concurrent requests so that they do not hit a rate-limited server again in lock step.
A server's ``Retry-After`` (seconds, or an HTTP date) is a lower bound on the wait; it is
capped by ``max_retry_after`` so that a misbehaving server cannot stall a run for hours.
The base is configurable so that tests retry in milliseconds.
"""
from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass

__all__ = ["RetryPolicy", "parse_retry_after"]


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 5            # attempts after the first
    base_s: float = 1.0         # backoff scale: attempt k waits up to base * 2**k
    cap_s: float = 60.0         # no single backoff longer than this
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after: float | None = None,
              rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        draw = (rng or random).uniform(0.0, min(self.cap_s, self.base_s * 2 ** attempt))
        if retry_after is not None:
            return max(draw, min(retry_after, self.max_retry_after_s))
        return draw


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """A ``Retry-After`` header as seconds from now (None if absent or unreadable)."""
    if value is None:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if seconds == seconds else None
