"""An OpenAI-compatible chat-completions client (OpenAI, vLLM, SGLang, Ollama, llama.cpp,
LM Studio, TGI all serve this API), through the official ``openai`` package.

``pip install 'planning-core[llm]'`` installs it. The key is read from the environment
variable the user names (``api_key_env``) and is never printed, logged or stored; local
servers that need no key get a placeholder.

The package's own retries are switched off (``max_retries=0``) and replaced by
:class:`~.retry.RetryPolicy`: 429, 5xx, timeouts, dropped connections and malformed bodies
are retried with exponential backoff and full jitter, waiting at least the server's
``Retry-After``. What cannot succeed on retry becomes a one-line error: a refused key
(401/403) or an unknown model (404) is :class:`ModelUnavailable` at once, a server that
stays unreachable is :class:`ModelUnavailable` after the retries, and a request that keeps
failing is :class:`RequestFailed` (the run records it and goes on).

A server that cannot be reached at all (connection refused, unknown host: the request never
got in) is :class:`ModelUnavailable`; a connection that is made and then dropped by the
server, every time, fails only that request (:class:`RequestFailed`): one poisoned request
becomes its question's error row and the run goes on -- unless the run has had no answer
at all: the run's :class:`~.breaker.CircuitBreaker` tells a server that drops every
connection from one poisoned request.

Only the parameters that are set are sent (None is never sent): ``temperature``, ``top_p``,
``max_tokens`` or ``max_completion_tokens`` (what OpenAI's reasoning models take instead),
``reasoning_effort``, ``seed``, ``stop``, and ``extra_body`` (any further request fields,
merged into the JSON body). A response whose ``content`` is null with ``finish_reason:
length`` (a reasoning model that spent its budget reasoning) is a truncated, empty answer,
not a malformed body: it is returned, recorded and cached, never retried; so is a null
``content`` beside reasoning whatever the finish reason (a stop sequence such as the
paper's ``\n\n`` ended an open reasoning model inside its reasoning). A ``content``
sent as a list of parts (Mistral's reasoning models) is read as its text parts; content
that is neither is a malformed body.
"""
from __future__ import annotations

import os
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from planning_core.validators.models.cache import ResponseCache
from planning_core.validators.models.client import Client
from planning_core.validators.models.completion import (
    Completion,
    ModelUnavailable,
    RequestFailed,
)
from planning_core.validators.models.retry import RetryPolicy, parse_retry_after

__all__ = ["ChatSettings", "ChatModel", "NO_KEY", "is_reasoning_model", "endpoint_url"]

NO_KEY = "no-key"  # what local servers that check no key are sent
#: a gateway that could not reach its backend: counted with dropped connections by a run's
#: circuit breaker (:mod:`.breaker`)
_GATEWAY = frozenset({502, 503, 504})


@dataclass(frozen=True, slots=True)
class ChatSettings:
    model: str
    base_url: str | None = None          # None: the package's default (api.openai.com)
    api_key_env: str | None = None       # None: OPENAI_API_KEY if set, else NO_KEY
    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    system: str | None = None
    timeout_s: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    top_p: float | None = None
    max_completion_tokens: int | None = None
    reasoning_effort: str | None = None
    #: further request fields, merged into the JSON body (e.g. ``{"top_k": 20}``); a tuple
    #: of ``(name, value)`` pairs so that the settings stay hashable
    extra_body: tuple[tuple[str, Any], ...] = ()

    def params(self) -> dict[str, Any]:
        """The sampling parameters (part of the cache key and of every row); None values
        are not sent."""
        params = {"temperature": self.temperature, "max_tokens": self.max_tokens,
                  "seed": self.seed, "stop": list(self.stop) or None}
        for name in ("top_p", "max_completion_tokens", "reasoning_effort"):
            if getattr(self, name) is not None:
                params[name] = getattr(self, name)
        if self.extra_body:
            params["extra_body"] = dict(self.extra_body)
        return params


_REASONING = re.compile(r"(?:^|/)(?:o[1-9](?:$|[-_.])|gpt-5)", re.IGNORECASE)


def is_reasoning_model(name: str) -> bool:
    """Whether ``name`` is an OpenAI reasoning model (o1, o3, o4-mini, gpt-5 ...): they take
    ``max_completion_tokens`` and reject ``temperature`` and ``stop``."""
    return bool(_REASONING.search(name or ""))


def endpoint_url(base_url: str | None) -> str | None:
    """The base URL a client sends to, as rows and the cache name it: ``base_url``, else
    ``OPENAI_BASE_URL`` (which the openai package honours), without trailing slashes (the
    package adds its own, so ``.../v1`` and ``.../v1/`` are one endpoint); None for the
    package's default (api.openai.com)."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    return url.rstrip("/") or url if url else None


def _api_key(env: str | None) -> str:
    if env is not None:
        value = os.environ.get(env)
        if not value:
            raise ModelUnavailable(f"the environment variable {env} (--api-key-env) is not "
                                   "set or empty")
        return value
    return os.environ.get("OPENAI_API_KEY") or NO_KEY


def _server_message(err: Exception) -> str:
    """The server's own error text, one line, without echoing anything we sent."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        text = inner.get("message") if isinstance(inner, dict) else inner
        if text:
            return " ".join(str(text).split())[:200]
    return " ".join(str(getattr(err, "message", "") or type(err).__name__).split())[:200]


def _never_connected(err: Exception) -> bool:
    """Whether a connection error happened before the server accepted the connection
    (refused, unknown host, connect timeout), rather than a connection it dropped."""
    cause = err.__cause__
    while cause is not None:
        name = type(cause).__name__
        if name in ("ConnectError", "ConnectTimeout", "ConnectionRefusedError",
                    "gaierror"):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _body_error(response) -> str | None:
    """The error object some gateways (OpenRouter) send in a 200 body, one line."""
    error = getattr(response, "error", None)
    if error is None:
        error = (getattr(response, "model_extra", None) or {}).get("error")
    if isinstance(error, dict):
        error = error.get("message") or error
    if error is None:
        return None
    return "the server answered with an error: " + " ".join(str(error).split())[:200]


def _content_text(content) -> str | None:
    """The message content as text. Some servers (Mistral's reasoning models, proxies) send
    a list of parts: the ``text`` parts are the answer, others (``thinking``) are dropped.
    Anything else is a malformed body."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif (isinstance(part, dict) and part.get("type", "text") == "text"
                  and isinstance(part.get("text"), str)):
                parts.append(part["text"])
            elif not (isinstance(part, dict) and isinstance(part.get("type"), str)):
                raise ValueError("the message content has a part that is not text")
        return "".join(parts)
    raise ValueError(f"the message content is not text but {type(content).__name__}")


def _reasoning_text(message) -> str | None:
    """A reasoning model's reasoning, sent beside the content (``reasoning_content`` by
    DeepSeek, vLLM and SGLang; ``reasoning`` by some other servers)."""
    for name in ("reasoning_content", "reasoning"):
        value = getattr(message, name, None)
        if value is None:
            value = (getattr(message, "model_extra", None) or {}).get(name)
        if isinstance(value, str):
            return value
    return None


class ChatModel(Client):
    """A :class:`~.client.Client` over ``/chat/completions``."""

    def __init__(self, settings: ChatSettings, *, cache: ResponseCache | None = None,
                 rng: random.Random | None = None) -> None:
        try:
            import openai
        except ImportError:
            raise ModelUnavailable("the OpenAI-compatible client needs the openai package: "
                                   "pip install 'planning-core[llm]'") from None
        super().__init__(system=settings.system, params=settings.params(), cache=cache)
        self.settings = settings
        self.name = settings.model
        self.base_url = endpoint_url(settings.base_url)
        self._openai = openai
        self._client = openai.OpenAI(api_key=_api_key(settings.api_key_env),
                                     base_url=self.base_url, max_retries=0,
                                     timeout=settings.timeout_s)
        self._rng = rng or random.Random()
        self._rng_lock = threading.Lock()

    @property
    def sampling(self) -> bool:
        t = self.params.get("temperature")
        return t is None or t > 0

    def _request(self) -> dict[str, Any]:
        """The keyword arguments of ``create`` (``extra_body`` passed through as such)."""
        return dict(self.params)

    @property
    def where(self) -> str:
        return self.base_url or "the OpenAI API"

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        with self._rng_lock:
            return self.settings.retry.delay(attempt, retry_after, self._rng)

    def _ask(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        openai = self._openai
        policy = self.settings.retry
        last = ""
        unreachable = False
        transport = False     # the last failure got no answer a server meant
        for attempt in range(policy.retries + 1):
            if attempt and self.breaker is not None:
                self.breaker.check()   # the run stopped: no more retries of this request
            retry_after = None
            started = time.perf_counter()
            try:
                response = self._client.chat.completions.create(
                    model=self.settings.model, messages=list(messages), **self._request())
                if not response.choices:
                    raise ValueError(_body_error(response) or "the response has no choices")
                choice = response.choices[0]
                text = _content_text(choice.message.content)
                finish = getattr(choice, "finish_reason", None)
                finish = str(finish) if finish is not None else None
                reasoning = _reasoning_text(choice.message)
                if text is None:
                    # cut off before any answer (the token limit, a filter, or a stop
                    # sequence inside the reasoning): an empty answer, not an error
                    if finish not in ("length", "content_filter") and reasoning is None:
                        raise ValueError("the response has no message content")
                    text = ""
                usage = response.usage.model_dump(exclude_none=True) if response.usage else None
                usage = {k: v for k, v in (usage or {}).items() if isinstance(v, int)} or None
                return Completion(text, self.settings.model, self.base_url, self.params,
                                  usage, time.perf_counter() - started, False, attempt + 1,
                                  finish, reasoning)
            except (openai.AuthenticationError, openai.PermissionDeniedError) as err:
                raise ModelUnavailable(f"the server refused the API key (HTTP "
                                       f"{err.status_code}): {_server_message(err)}",
                                       file=self.where) from None
            except openai.NotFoundError as err:
                raise ModelUnavailable(f"unknown model {self.settings.model!r} or wrong base "
                                       f"URL (HTTP 404): {_server_message(err)}",
                                       file=self.where) from None
            except (openai.RateLimitError, openai.InternalServerError) as err:
                last = f"HTTP {err.status_code}: {_server_message(err)}"
                retry_after = parse_retry_after(err.response.headers.get("retry-after"))
                unreachable = False
                transport = err.status_code in _GATEWAY
            except openai.APITimeoutError:
                last = f"no answer within {self.settings.timeout_s:g} s"
                unreachable = False
                transport = True
            except openai.APIConnectionError as err:
                if _never_connected(err):
                    last = f"cannot connect: {_server_message(err.__cause__ or err)}"
                    unreachable = True
                else:   # connected, then the server dropped this request
                    last = ("the server closed the connection: "
                            f"{_server_message(err.__cause__ or err)}")
                    unreachable = False
                transport = True
            except openai.APIStatusError as err:
                if err.status_code in (408, 409) or err.status_code >= 500:
                    last = f"HTTP {err.status_code}: {_server_message(err)}"
                    unreachable = False
                    transport = err.status_code in _GATEWAY
                else:  # 400, 413, 422: this request cannot succeed as sent
                    raise RequestFailed(f"HTTP {err.status_code}: {_server_message(err)}",
                                        file=self.where) from None
            except (openai.APIError, ValueError, TypeError, AttributeError, IndexError) as err:
                last = f"malformed response: {' '.join(str(err).split())[:200]}"
                unreachable = False
                transport = False
            if attempt < policy.retries:
                time.sleep(self._delay(attempt, retry_after))
        tries = policy.retries + 1
        if unreachable:
            raise ModelUnavailable(f"the server cannot be reached ({last}; {tries} "
                                   "attempt(s))", file=self.where)
        raise RequestFailed(f"{last} (gave up after {tries} attempt(s))", file=self.where,
                            transport=transport)
