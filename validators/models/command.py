"""A model that is a user's program: the prompt on its stdin, the response on its stdout.

For local models that the user wraps themselves (a llama.cpp binary, a script around a
notebook's model). The command is split like a shell would (``shlex``) but run without a
shell. The system prompt, when given, is prepended to the prompt with a blank line; a
conversation (few-shot examples as turns) is written as one text the way
lm-evaluation-harness writes it for a text-only model
(:func:`~.client.flatten_messages`). A
non-zero exit or a timeout is a :class:`RequestFailed` (recorded, retried on rerun); a
program that cannot be started is :class:`ModelUnavailable`. A program that prints the
prompt before its continuation (llama.cpp's CLI does by default) is answered by the
continuation alone.
"""
from __future__ import annotations

import shlex
import subprocess
import time
from typing import Mapping, Sequence

from planning_core.validators.models.cache import ResponseCache
from planning_core.validators.models.client import Client, flatten_messages
from planning_core.validators.models.completion import Completion, ModelUnavailable, RequestFailed

__all__ = ["CommandModel"]


class CommandModel(Client):
    def __init__(self, command: str | Sequence[str], *, timeout_s: float = 600.0,
                 system: str | None = None, cache: ResponseCache | None = None) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ModelUnavailable("the model command is empty")
        super().__init__(system=system, params={"timeout_s": timeout_s}, cache=cache)
        self.argv = argv
        self.name = "command:" + shlex.join(argv)
        self.timeout_s = timeout_s

    def _ask(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        stdin = flatten_messages(messages)
        started = time.perf_counter()
        try:
            run = subprocess.run(self.argv, input=stdin, capture_output=True, text=True,
                                 timeout=self.timeout_s, encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ModelUnavailable(f"no such program: {self.argv[0]}") from None
        except PermissionError:
            raise ModelUnavailable(f"cannot run {self.argv[0]}: permission denied") from None
        except subprocess.TimeoutExpired:
            raise RequestFailed(f"the model command gave no answer within "
                                f"{self.timeout_s:g} s") from None
        if run.returncode != 0:
            tail = " | ".join(run.stderr.strip().splitlines()[-3:])[:300]
            raise RequestFailed(f"the model command exited with {run.returncode}"
                                + (f": {tail}" if tail else ""))
        return Completion(_continuation(run.stdout, stdin), self.name, None, self.params, None,
                          time.perf_counter() - started, False, 1)


def _continuation(stdout: str, prompt: str) -> str:
    """``stdout`` without the prompt, when the program printed it first (text-completion
    programs such as llama.cpp's CLI do by default): the echo is not the model's answer,
    and with few-shot examples it holds their answers, which would be read as the first."""
    if prompt and stdout.startswith(prompt):
        return stdout[len(prompt):]
    stripped, core = stdout.lstrip(), prompt.strip()
    if core and stripped.startswith(core):
        return stripped[len(core):]
    return stdout
