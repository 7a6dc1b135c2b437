"""The model options every ``... run`` command shares, and the client they describe.

``--model NAME --base-url URL --api-key-env VAR`` selects an OpenAI-compatible endpoint;
``--command CMD`` a user's program instead. Sampling (``--temperature``, ``--max-tokens``,
``--seed``, ``--stop``, ``--system``), robustness (``--timeout``, ``--retries``,
``--backoff``) and the cache (``--cache FILE``, ``--no-cache``) apply to both where they
make sense. The key itself never appears on the command line.
"""
from __future__ import annotations

import argparse

from planning_core.cli.args import non_negative_float, non_negative_int, positive_int, seconds

__all__ = ["MODEL_OPTIONS", "add_model_arguments", "describe", "model_from_args",
           "model_from_options", "model_options"]


def add_model_arguments(p: argparse.ArgumentParser, *, max_tokens: int | None = None) -> None:
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
    g.add_argument("--temperature", type=non_negative_float, default=0.0, metavar="T",
                   help="sampling temperature (default 0)")
    g.add_argument("--max-tokens", type=positive_int, default=max_tokens, metavar="N",
                   help="most tokens per response" + (f" (default {max_tokens})"
                                                       if max_tokens else ""))
    g.add_argument("--seed", type=int, metavar="N", help="sampling seed, where supported")
    g.add_argument("--system", metavar="TEXT", help="a system prompt")
    g.add_argument("--stop", action="append", default=[], metavar="TEXT",
                   help="a stop sequence (repeatable)")
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

    cache = None if args.no_cache else ResponseCache(args.cache or default_cache_path())
    if args.command:
        if args.model or args.base_url:
            raise InputError("give either --command or --model/--base-url, not both")
        from planning_core.validators.models.command import CommandModel

        return CommandModel(args.command, timeout_s=args.timeout, system=args.system,
                            cache=cache)
    if not args.model:
        raise InputError("say which model to run: --model NAME (with --base-url for a "
                         "local server) or --command CMD")
    from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
    from planning_core.validators.models.retry import RetryPolicy

    settings = ChatSettings(model=args.model, base_url=args.base_url,
                            api_key_env=args.api_key_env, temperature=args.temperature,
                            max_tokens=args.max_tokens, seed=args.seed, stop=tuple(args.stop),
                            system=args.system, timeout_s=args.timeout,
                            retry=RetryPolicy(retries=args.retries, base_s=args.backoff))
    return ChatModel(settings, cache=cache)


# what model_from_args reads: a worker process (local or on a Dask cluster) builds its own
# client from these values, since a client with open connections cannot be pickled
MODEL_OPTIONS = ("model", "base_url", "api_key_env", "command", "temperature", "max_tokens",
                 "seed", "system", "stop", "timeout", "retries", "backoff", "cache", "no_cache")


def model_options(args: argparse.Namespace) -> tuple[tuple[str, object], ...]:
    """The model options of ``args`` as a hashable, picklable tuple (lists as tuples)."""
    return tuple((name, tuple(value) if isinstance(value, list) else value)
                 for name in MODEL_OPTIONS for value in (getattr(args, name),))


def model_from_options(options: tuple[tuple[str, object], ...]):
    """The client :func:`model_options` describes (in a worker)."""
    return model_from_args(argparse.Namespace(**dict(options)))


def describe(model) -> dict:
    """Model name, base URL and parameters, for reports (never the key)."""
    return {"model": getattr(model, "name", type(model).__name__),
            "base_url": getattr(model, "base_url", None),
            "params": dict(getattr(model, "params", {}) or {})}
