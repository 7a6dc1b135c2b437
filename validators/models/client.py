"""What every real client shares: messages from a prompt, the cache, the ``Model`` call.

A client turns a prompt into a chat message list (an optional system prompt, then the user
prompt), looks the exact request up in the :class:`~.cache.ResponseCache`, and only on a
miss asks its backend (:meth:`Client._ask`). ``client(prompt)`` is the ``Model`` protocol
(text in, text out); ``client.complete(prompt)`` returns the full :class:`Completion` for
result rows. Clients are thread-safe: a run calls one client from many threads.
"""
from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from planning_core.validators.models.cache import ResponseCache, cache_key
from planning_core.validators.models.completion import Completion

__all__ = ["Client", "messages_for", "ask"]


def messages_for(prompt: str, system: str | None = None) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    return messages


class Client:
    """Base of the clients: subclasses set ``name``, ``base_url``, ``params`` and ``_ask``."""

    name: str = ""
    base_url: str | None = None

    def __init__(self, *, system: str | None = None, params: Mapping[str, Any] | None = None,
                 cache: ResponseCache | None = None) -> None:
        self.system = system
        self.params = {k: v for k, v in (params or {}).items() if v is not None}
        self.cache = cache

    def _ask(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        raise NotImplementedError

    def complete(self, prompt: str) -> Completion:
        messages = messages_for(prompt, self.system)
        key = None
        if self.cache is not None:
            key = cache_key(self.name, self.base_url, messages, self.params)
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        completion = self._ask(messages)
        if self.cache is not None:
            self.cache.put(key, messages, completion)
        return completion

    def __call__(self, prompt: str) -> str:
        return self.complete(prompt).text


def ask(model, prompt: str) -> Completion:
    """A :class:`Completion` from any ``Model``: clients give one, a plain model its text."""
    complete = getattr(model, "complete", None)
    if complete is not None:
        return complete(prompt)
    started = time.perf_counter()
    text = model(prompt)
    return Completion(text, getattr(model, "name", type(model).__name__),
                      latency_s=time.perf_counter() - started)
