"""The model options every ``... run`` command shares, and the client they describe.

``--model NAME --base-url URL --api-key-env VAR`` selects an OpenAI-compatible endpoint;
``--command CMD`` a user's program instead. Sampling (``--temperature``, ``--max-tokens``,
``--seed``, ``--stop``, ``--system``, ``--top-p``, ``--max-completion-tokens``,
``--reasoning-effort``, ``--extra-body JSON``), robustness (``--timeout``, ``--retries``,
``--backoff``) and the cache (``--cache FILE``, ``--no-cache``) apply to both where they
make sense. The key itself never appears on the command line.

``--sample K`` names which independent sample of the model a run is. The response cache
keys a request on the model, the messages and the sampling parameters, so at temperature
> 0 a second run on a new ``--out`` would get the first run's answers from the cache, not
new samples. With ``--sample K`` (K > 0) and a sampling model, sample K of a question is
cached as sample K: a rerun of sample K resumes from the cache, another K asks again. The
default, sample 0, is the cache entry every earlier run made; at temperature 0 (and for
``--command``) the option changes nothing. Rows record ``sample`` when K > 0, and resume
is keyed on it.

Only what is set is sent. A command may give defaults (``acp run``: temperature 0 and 1000
tokens, the paper's setting); they apply to ordinary chat models only. OpenAI's reasoning
models (o1, o3, o4-mini, gpt-5 ...; or any model given ``--reasoning-effort``) reject
``temperature`` and ``stop`` and take ``max_completion_tokens``: for them the command's
defaults are not sent, and ``--max-tokens N`` is sent as ``max_completion_tokens``. What the
user sets explicitly is always sent. ``--max-tokens 0`` sends no token limit.
"""
from __future__ import annotations

import argparse

import json

from planning_core.cli.args import non_negative_float, non_negative_int, positive_int, seconds

__all__ = ["MODEL_OPTIONS", "add_model_arguments", "describe", "model_from_args",
           "model_from_options", "model_options", "REASONING_EFFORTS"]

REASONING_EFFORTS = ("minimal", "low", "medium", "high")


def _top_p(text: str) -> float:
    value = non_negative_float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1]: {text!r}")
    return value


def _extra_body(text: str) -> tuple[tuple[str, object], ...]:
    try:
        value = json.loads(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"not JSON: {err}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object, e.g. '{\"top_k\": 20}'")
    reserved = sorted({"model", "messages"} & set(value))
    if reserved:
        raise argparse.ArgumentTypeError(f"may not set {', '.join(reserved)}")
    # fields merged in here win over the options: one sent this way would not be what the
    # rows record (nor what decides whether the cache keys on turns)
    own = sorted(set(value) & set(_OWN_OPTION))
    if own:
        raise argparse.ArgumentTypeError("; ".join(f"{name} has its own option, "
                                                   f"{_OWN_OPTION[name]}" for name in own))
    unreadable = sorted({"stream", "n"} & set(value))
    if unreadable:
        raise argparse.ArgumentTypeError(f"may not set {', '.join(unreadable)} (one "
                                         "non-streamed answer per request is read)")
    return tuple(sorted(value.items()))


#: request fields that have an option of their own (not accepted in --extra-body)
_OWN_OPTION = {"temperature": "--temperature", "top_p": "--top-p",
               "max_tokens": "--max-tokens", "max_completion_tokens": "--max-completion-tokens",
               "reasoning_effort": "--reasoning-effort", "seed": "--seed", "stop": "--stop"}


def add_model_arguments(p: argparse.ArgumentParser, *, max_tokens: int | None = None,
                        temperature: float | None = 0.0, stop: tuple[str, ...] = ()) -> None:
    """The model options; ``max_tokens``, ``temperature`` and ``stop`` are the command's
    defaults (sent to ordinary chat models when the user sets none)."""
    g = p.add_argument_group("model")
    g.add_argument("--model", metavar="NAME",
                   help="model name as the server knows it (OpenAI-compatible endpoint)")
    g.add_argument("--base-url", metavar="URL",
                   help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 (vLLM), "
                        "http://localhost:11434/v1 (Ollama); default: the OpenAI API")
    g.add_argument("--api-key-env", metavar="VAR",
                   help="environment variable holding the API key (default OPENAI_API_KEY "
                        "if set; local servers need none)")
    g.add_argument("--command", metavar="CMD",
                   help="instead of an endpoint: run CMD with the prompt on stdin and take "
                        "its stdout as the response")
    p.set_defaults(default_temperature=temperature, default_max_tokens=max_tokens,
                   default_stop=tuple(stop))
    g.add_argument("--temperature", type=non_negative_float, default=None, metavar="T",
                   help="sampling temperature" + (f" (default {temperature:g}; not sent to "
                                                   "reasoning models)"
                                                   if temperature is not None else
                                                   " (default: not sent)"))
    g.add_argument("--top-p", type=_top_p, metavar="P", help="nucleus sampling top-p")
    g.add_argument("--max-tokens", type=non_negative_int, default=None, metavar="N",
                   help="most tokens per response; 0: send no limit" +
                        (f" (default {max_tokens}; sent as max_completion_tokens to "
                         "reasoning models)" if max_tokens else ""))
    g.add_argument("--max-completion-tokens", type=positive_int, metavar="N",
                   help="most tokens per response, reasoning included (what OpenAI's "
                        "reasoning models take)")
    g.add_argument("--reasoning-effort", choices=REASONING_EFFORTS,
                   help="a reasoning model's effort (sent as reasoning_effort)")
    g.add_argument("--extra-body", type=_extra_body, metavar="JSON",
                   help="further request fields as a JSON object, merged into every "
                        "request (e.g. '{\"top_k\": 20}'); not those with an option of "
                        "their own (temperature, stop, ...), nor stream or n")
    g.add_argument("--seed", type=int, metavar="N", help="sampling seed, where supported")
    g.add_argument("--sample", type=non_negative_int, default=None, metavar="K",
                   help="which independent sample of the model this run is: at temperature "
                        "> 0, sample K of a question is cached as sample K, so another K asks "
                        "the model again instead of reusing cached answers (default 0: the "
                        "cache entries of earlier runs; no effect at temperature 0)")
    g.add_argument("--system", metavar="TEXT", help="a system prompt")
    g.add_argument("--stop", action="append", default=[], metavar="TEXT",
                   help="a stop sequence (repeatable; replaces the command's default)" +
                        (f" (default: {' '.join(map(repr, stop))}; not sent to reasoning "
                         "models)" if stop else ""))
    g.add_argument("--concurrency", type=positive_int, default=4, metavar="N",
                   help="requests in flight at once (default 4)")
    g.add_argument("--timeout", type=seconds, default=120.0, metavar="S",
                   help="seconds per request before it is retried (default 120)")
    g.add_argument("--retries", type=non_negative_int, default=5, metavar="N",
                   help="retries of a request on 429, 5xx, timeouts (default 5)")
    g.add_argument("--backoff", type=non_negative_float, default=1.0, metavar="S",
                   help="backoff base: retry k waits up to S*2^k seconds, at least the "
                        "server's Retry-After (default 1)")
    g.add_argument("--cache", metavar="FILE",
                   help="SQLite response cache (default $PLANNING_CORE_CACHE or "
                        "~/.cache/planning-core/responses.sqlite)")
    g.add_argument("--no-cache", action="store_true", help="do not read or write the cache")


def model_from_args(args: argparse.Namespace):
    """The client the options describe (raises a one-line ``PlanningError`` if they do not
    describe one)."""
    from planning_core.errors import InputError
    from planning_core.validators.models.cache import ResponseCache, default_cache_path

    if args.command and (args.model or args.base_url):
        raise InputError("give either --command or --model/--base-url, not both")
    if not args.command and not args.model:
        raise InputError("say which model to run: --model NAME (with --base-url for a "
                         "local server) or --command CMD")
    # the cache (a file under ~/.cache by default) is opened only for options that name a
    # model: a refused command line creates nothing, and its message does not depend on
    # whether the home folder is writable
    cache = None if args.no_cache else ResponseCache(args.cache or default_cache_path())
    if args.command:
        from planning_core.validators.models.command import CommandModel

        model = CommandModel(args.command, timeout_s=args.timeout, system=args.system,
                             cache=cache)
        model.run_sample = getattr(args, "sample", None) or 0   # ignored: not sampling
        return model
    from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
    from planning_core.validators.models.retry import RetryPolicy

    settings = ChatSettings(model=args.model, base_url=args.base_url,
                            api_key_env=args.api_key_env, seed=args.seed,
                            system=args.system, timeout_s=args.timeout,
                            retry=RetryPolicy(retries=args.retries, base_s=args.backoff),
                            **sampling_settings(args))
    model = ChatModel(settings, cache=cache)
    model.run_sample = getattr(args, "sample", None) or 0
    return model


def sampling_settings(args: argparse.Namespace) -> dict:
    """The ``ChatSettings`` sampling fields the options describe: what the user set, and
    the command's defaults where the model takes them (see the module doc)."""
    from planning_core.validators.models.openai_chat import is_reasoning_model

    effort = getattr(args, "reasoning_effort", None)
    reasoning = effort is not None or is_reasoning_model(args.model or "")
    temperature = args.temperature
    if temperature is None and not reasoning:
        temperature = getattr(args, "default_temperature", 0.0)
    user_max = args.max_tokens
    max_tokens = user_max if user_max is not None else getattr(args, "default_max_tokens",
                                                               None)
    max_tokens = max_tokens or None     # 0: no limit
    max_completion = getattr(args, "max_completion_tokens", None)
    stop = tuple(args.stop or ())
    if not stop and not reasoning:    # reasoning models reject stop sequences
        stop = tuple(getattr(args, "default_stop", None) or ())
    if reasoning and max_completion is None and max_tokens is not None:
        max_completion, max_tokens = max_tokens, None
    elif max_completion is not None and user_max is None:
        max_tokens = None   # the user chose the limit's name
    return {"temperature": temperature, "max_tokens": max_tokens, "stop": stop,
            "top_p": getattr(args, "top_p", None), "max_completion_tokens": max_completion,
            "reasoning_effort": effort, "extra_body": getattr(args, "extra_body", None) or ()}


# what model_from_args reads: a worker process (local or on a Dask cluster) builds its own
# client from these values, since a client with open connections cannot be pickled
MODEL_OPTIONS = ("model", "base_url", "api_key_env", "command", "temperature", "max_tokens",
                 "seed", "system", "stop", "timeout", "retries", "backoff", "cache", "no_cache",
                 "top_p", "max_completion_tokens", "reasoning_effort", "extra_body",
                 "default_temperature", "default_max_tokens", "default_stop", "sample")


def model_options(args: argparse.Namespace) -> tuple[tuple[str, object], ...]:
    """The model options of ``args`` as a hashable, picklable tuple (lists as tuples)."""
    return tuple((name, tuple(value) if isinstance(value, list) else value)
                 for name in MODEL_OPTIONS for value in (getattr(args, name, None),))


def model_from_options(options: tuple[tuple[str, object], ...]):
    """The client :func:`model_options` describes (in a worker)."""
    return model_from_args(argparse.Namespace(**dict(options)))


def describe(model) -> dict:
    """Model name, base URL and parameters, for reports (never the key)."""
    return {"model": getattr(model, "name", type(model).__name__),
            "base_url": getattr(model, "base_url", None),
            "params": dict(getattr(model, "params", {}) or {})}
