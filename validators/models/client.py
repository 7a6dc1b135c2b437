"""What every real client shares: messages from a prompt, the cache, the ``Model`` call.

A client turns a prompt into a chat message list (an optional system prompt, then the user
prompt), looks the exact request up in the :class:`~.cache.ResponseCache`, and only on a
miss asks its backend (:meth:`Client._ask`). ``client(prompt)`` is the ``Model`` protocol
(text in, text out); ``client.complete(prompt)`` returns the full :class:`Completion` for
result rows. Clients are thread-safe: a run calls one client from many threads.

``client.complete_messages(messages)`` sends a whole conversation (few-shot examples as
user/assistant turns); ``turn`` and ``sample`` name the call within a loop and the sample
index, and enter the cache key when the client samples (:attr:`Client.sampling`), so a
repeated prompt at temperature > 0 is asked again instead of served from the cache.
``client.run_sample`` (``--sample K`` of every run command) names the run-level sample:
when the client samples, sample K > 0 of a request is cached as sample K, so a second run
with ``--sample 1`` asks the model again instead of getting the answers of the first run;
sample 0 (the default) has the key it always had, and a deterministic client (temperature
0, a command) ignores it.

A run may arm a client with a :class:`~.breaker.CircuitBreaker` (:func:`~.breaker.arm`):
every request that reaches the backend reports its success or its failure to it, and a
server that has answered nothing trips it (:class:`ModelUnavailable`).
"""
from __future__ import annotations

import time
from typing import Any, Mapping, Sequence

from planning_core.validators.models.cache import ResponseCache, cache_key
from planning_core.validators.models.breaker import CircuitBreaker
from planning_core.validators.models.completion import Completion, RequestFailed

__all__ = ["Client", "messages_for", "ask", "ask_messages", "flatten_messages"]


def messages_for(prompt: str, system: str | None = None) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    return messages


class Client:
    """Base of the clients: subclasses set ``name``, ``base_url``, ``params`` and ``_ask``."""

    name: str = ""
    base_url: str | None = None
    #: set by a run (:func:`~.breaker.arm`): stops it when the server answers nothing
    breaker: CircuitBreaker | None = None
    #: the run-level sample index (``--sample K``): part of the cache key when sampling
    run_sample: int = 0

    def __init__(self, *, system: str | None = None, params: Mapping[str, Any] | None = None,
                 cache: ResponseCache | None = None) -> None:
        self.system = system
        self.params = {k: v for k, v in (params or {}).items() if v is not None}
        self.cache = cache

    def _ask(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        raise NotImplementedError

    @property
    def sampling(self) -> bool:
        """Whether two identical requests may get different answers (temperature above 0,
        or none sent: the server's default samples). Clients without a temperature are
        taken as deterministic."""
        return False

    def complete(self, prompt: str, *, turn: int | None = None,
                 sample: int | None = None) -> Completion:
        return self.complete_messages([{"role": "user", "content": prompt}], turn=turn,
                                      sample=sample)

    def complete_messages(self, messages: Sequence[Mapping[str, str]], *,
                          turn: int | None = None, sample: int | None = None) -> Completion:
        """The response to a conversation (the system prompt is put in front unless the
        conversation has one); cached as :meth:`complete` is."""
        messages = [dict(m) for m in messages]
        if self.system and not (messages and messages[0].get("role") == "system"):
            messages.insert(0, {"role": "system", "content": self.system})
        key = None
        if self.cache is not None:
            params = dict(self.params)
            if self.sampling:
                call = {"turn": turn, "sample": sample} \
                    if turn is not None or sample is not None else {}
                if self.run_sample:          # sample 0 keeps the key it always had
                    call["run_sample"] = self.run_sample
                if call:
                    params["_call"] = call
            key = cache_key(self.name, self.base_url, messages, params)
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        breaker = self.breaker
        if breaker is not None:
            breaker.check()
        try:
            completion = self._ask(messages)
        except RequestFailed as err:
            if breaker is not None:
                breaker.failure(messages, err)   # raises ModelUnavailable when it trips
            raise
        if breaker is not None:
            breaker.success()
        if self.cache is not None:
            self.cache.put(key, messages, completion)
        return completion

    def __call__(self, prompt: str) -> str:
        return self.complete(prompt).text


def ask(model, prompt: str, *, turn: int | None = None,
        sample: int | None = None) -> Completion:
    """A :class:`Completion` from any ``Model``: clients give one, a plain model its text."""
    if isinstance(model, Client):
        return model.complete(prompt, turn=turn, sample=sample)
    complete = getattr(model, "complete", None)
    if complete is not None:
        return complete(prompt)
    started = time.perf_counter()
    text = model(prompt)
    return Completion(text, getattr(model, "name", type(model).__name__),
                      latency_s=time.perf_counter() - started)


def flatten_messages(messages: Sequence[Mapping[str, str]]) -> str:
    """A conversation as one text, as lm-evaluation-harness collapses few-shot turns for a
    text-only model: each question and its answer joined by a space, examples separated by
    a blank line (a system message first, followed by a blank line)."""
    parts: list[str] = []
    for m in messages:
        if m["role"] == "system":
            parts.append(m["content"] + "\n\n")
        elif m["role"] == "assistant":
            parts.append(" " + m["content"] + "\n\n")
        else:
            parts.append(m["content"])
    return "".join(parts)


def ask_messages(model, messages: Sequence[Mapping[str, str]], *, turn: int | None = None,
                 sample: int | None = None) -> Completion:
    """:func:`ask` for a conversation: clients get the turns as they are, a plain text
    ``Model`` gets them flattened (:func:`flatten_messages`)."""
    if isinstance(model, Client):
        return model.complete_messages(messages, turn=turn, sample=sample)
    if len(messages) == 1 and messages[0]["role"] == "user":
        return ask(model, messages[0]["content"])
    return ask(model, flatten_messages(messages))
