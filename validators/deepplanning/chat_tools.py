"""Models that call tools: an OpenAI-compatible endpoint (``tools=``) and a user's command.

The shared client in :mod:`planning_core.validators.models` turns a prompt into text; an
agent needs whole message lists with ``tool_calls``.  This thin layer calls the openai SDK's
``chat.completions.create(..., tools=...)`` itself and reuses the shared pieces by import:
:class:`~planning_core.validators.models.retry.RetryPolicy` for backoff,
:class:`~planning_core.validators.models.cache.ResponseCache` and ``cache_key`` (keyed on
model, base URL, the messages, the tools and the sampling parameters, so a rerun resumes
from the cache), and the shared error classes.  A turn is a dict ``{"content": str|None,
"tool_calls": [{"id", "name", "arguments"}], "usage": {...}|None}``.

``--command CMD`` runs CMD once per turn with ``{"messages": [...], "tools": [...]}`` on
stdin and expects that turn dict as JSON on stdout.
"""
from __future__ import annotations

import copy

import json
import random
import shlex
import subprocess
import time
from typing import Any, Mapping, Protocol, Sequence

from planning_core.validators.deepplanning.jsontext import loads
from planning_core.validators.models.cache import ResponseCache, cache_key
from planning_core.validators.models.completion import (Completion, ModelUnavailable,
                                                        RequestFailed)
from planning_core.validators.models.retry import RetryPolicy, parse_retry_after

__all__ = ["ToolModel", "OpenAIToolModel", "CommandToolModel", "ScriptedToolModel",
           "normalise_turn"]


class ToolModel(Protocol):
    name: str

    def __call__(self, messages: Sequence[Mapping[str, Any]],
                 tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]: ...


def normalise_turn(obj: Any) -> dict[str, Any]:
    """A turn dict from a model's reply; ``ValueError`` if it is not one."""
    if not isinstance(obj, dict):
        raise ValueError("a turn must be a JSON object")
    content = obj.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError("content must be a string or null")
    calls = []
    for n, c in enumerate(obj.get("tool_calls") or []):
        if not isinstance(c, dict):
            raise ValueError("each tool call must be an object")
        fn = c.get("function") if isinstance(c.get("function"), dict) else c
        name, args = fn.get("name"), fn.get("arguments", "{}")
        if not isinstance(name, str):
            raise ValueError("a tool call without a name")
        if not isinstance(args, str):
            args = json.dumps(args)
        calls.append({"id": str(c.get("id") or f"call_{n}"), "name": name,
                      "arguments": args})
    return {"content": content, "tool_calls": calls, "usage": obj.get("usage")}


class OpenAIToolModel:
    def __init__(self, model: str, *, base_url: str | None = None,
                 api_key_env: str | None = None, temperature: float = 0.0,
                 max_tokens: int | None = None, seed: int | None = None,
                 timeout_s: float = 120.0, retry: RetryPolicy = RetryPolicy(),
                 cache: ResponseCache | None = None, sample: int = 0) -> None:
        try:
            import openai
        except ImportError:
            raise ModelUnavailable("the OpenAI-compatible client needs the openai package: "
                                   "pip install 'planning-core[llm]'") from None
        import os

        env = api_key_env or "OPENAI_API_KEY"
        key = os.environ.get(env)
        if api_key_env and not key:
            raise ModelUnavailable(f"the environment variable {api_key_env} is not set")
        self._openai = openai
        self._client = openai.OpenAI(api_key=key or "none", base_url=base_url, max_retries=0,
                                     timeout=timeout_s)
        self.name, self.base_url = model, base_url
        self.params = {k: v for k, v in (("temperature", temperature),
                                         ("max_tokens", max_tokens), ("seed", seed))
                       if v is not None}
        self.retry, self.cache = retry, cache
        # at temperature > 0 (or none sent) the same conversation gives other answers: run r
        # of --runs and sample K of --sample enter the cache key (when not 0, so run 0 of
        # sample 0 keeps the key it always had), and repeated runs are independent samples
        self.sampling = temperature is None or temperature > 0
        self.run_sample = sample if self.sampling else 0
        self.run = 0
        self._rng = random.Random()

    def for_run(self, run: int) -> "OpenAIToolModel":
        """This client for run ``run`` of ``--runs`` (the same connection and cache)."""
        other = copy.copy(self)
        other.run = run if self.sampling else 0
        return other

    def __call__(self, messages, tools) -> dict[str, Any]:
        keyed = dict(self.params, tools=list(tools))
        call = {k: v for k, v in (("run_sample", self.run_sample), ("run", self.run)) if v}
        if call:
            keyed["_call"] = call
        key = cache_key(self.name, self.base_url, list(messages), keyed)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return dict(normalise_turn(loads(hit.text)), cached=True)
        openai = self._openai
        last = ""
        for attempt in range(self.retry.retries + 1):
            retry_after = None
            try:
                r = self._client.chat.completions.create(
                    model=self.name, messages=list(messages), tools=list(tools),
                    **self.params)
                msg = r.choices[0].message
                turn = {"content": msg.content,
                        "tool_calls": [{"id": c.id, "name": c.function.name,
                                        "arguments": c.function.arguments}
                                       for c in (msg.tool_calls or [])],
                        "usage": r.usage.model_dump(exclude_none=True) if r.usage else None}
                turn = normalise_turn(turn)
                if self.cache is not None:
                    self.cache.put(key, list(messages), Completion(
                        json.dumps(turn), self.name, self.base_url, self.params))
                return turn
            except (openai.AuthenticationError, openai.PermissionDeniedError,
                    openai.NotFoundError) as err:
                raise ModelUnavailable(f"HTTP {err.status_code}: the server refused the "
                                       "model or key", file=self.base_url or "") from None
            except (openai.RateLimitError, openai.InternalServerError) as err:
                last = f"HTTP {err.status_code}"
                retry_after = parse_retry_after(err.response.headers.get("retry-after"))
            except (openai.APITimeoutError, openai.APIConnectionError) as err:
                last = type(err).__name__
            except openai.APIStatusError as err:
                raise RequestFailed(f"HTTP {err.status_code}", file=self.base_url or "") \
                    from None
            except (openai.APIError, ValueError, TypeError, AttributeError,
                    IndexError) as err:
                last = f"malformed response: {str(err)[:200]}"
            if attempt < self.retry.retries:
                time.sleep(self.retry.delay(attempt, retry_after, self._rng))
        raise RequestFailed(f"{last} (gave up after {self.retry.retries + 1} attempt(s))",
                            file=self.base_url or "")


class CommandToolModel:
    def __init__(self, command: str, timeout_s: float = 600.0) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise ModelUnavailable("the model command is empty")
        self.name = "command:" + shlex.join(self.argv)
        self.timeout_s = timeout_s

    def __call__(self, messages, tools) -> dict[str, Any]:
        try:
            run = subprocess.run(self.argv, input=json.dumps({"messages": list(messages),
                                                              "tools": list(tools)}),
                                 capture_output=True, text=True, timeout=self.timeout_s,
                                 encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ModelUnavailable(f"no such program: {self.argv[0]}") from None
        except subprocess.TimeoutExpired:
            raise RequestFailed(f"no answer within {self.timeout_s:g} s") from None
        if run.returncode != 0:
            raise RequestFailed(f"the model command exited with {run.returncode}")
        try:
            return normalise_turn(loads(run.stdout))
        except (json.JSONDecodeError, ValueError) as err:
            # not a turn object: the text itself is the final answer
            return {"content": run.stdout, "tool_calls": [], "usage": None,
                    "note": f"not a turn object ({err})"}


class ScriptedToolModel:
    """A Python policy ``(messages, tools) -> turn`` (the oracle agents, tests)."""

    def __init__(self, policy, name: str = "scripted") -> None:
        self.policy, self.name = policy, name

    def __call__(self, messages, tools) -> dict[str, Any]:
        return normalise_turn(self.policy(messages, tools))
