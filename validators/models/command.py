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

At most ``max_response_bytes`` (default :data:`MAX_RESPONSE_BYTES`, the cap the answer
readers use) of stdout are read: a program that writes more is stopped after
``max_response_bytes + 1`` bytes, and its answer is those bytes (decoded) with
``finish_reason`` :data:`~.cache.OVERSIZED`, so a reader with the same cap sees it as too
large, and the response cache never stores it. Of stderr only the last few KB are kept.
"""
from __future__ import annotations

import shlex
import subprocess
import threading
import time
from typing import Mapping, Sequence

from planning_core.validators.models.cache import OVERSIZED, ResponseCache
from planning_core.validators.models.client import Client, flatten_messages
from planning_core.validators.models.completion import Completion, ModelUnavailable, RequestFailed

__all__ = ["CommandModel", "MAX_RESPONSE_BYTES"]

#: most bytes of a command's stdout read as its answer (as the answer readers' default)
MAX_RESPONSE_BYTES = 1_000_000
_STDERR_TAIL = 4096
_CHUNK = 1 << 16


class CommandModel(Client):
    def __init__(self, command: str | Sequence[str], *, timeout_s: float = 600.0,
                 system: str | None = None, cache: ResponseCache | None = None,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ModelUnavailable("the model command is empty")
        if max_response_bytes < 0:
            raise ValueError("max_response_bytes must be >= 0")
        super().__init__(system=system, params={"timeout_s": timeout_s}, cache=cache)
        self.argv = argv
        self.name = "command:" + shlex.join(argv)
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes

    def _ask(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        prompt = flatten_messages(messages)
        stdin = prompt.encode("utf-8", errors="replace")
        started = time.perf_counter()
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
        except FileNotFoundError:
            raise ModelUnavailable(f"no such program: {self.argv[0]}") from None
        except PermissionError:
            raise ModelUnavailable(f"cannot run {self.argv[0]}: permission denied") from None
        limit = self.max_response_bytes + 1
        out, err = bytearray(), bytearray()

        def feed() -> None:
            try:
                proc.stdin.write(stdin)
            except OSError:    # the program stopped reading (or exited): not our failure
                pass
            finally:
                try:
                    proc.stdin.close()
                except OSError:
                    pass

        def read_out() -> None:
            while len(out) < limit:
                chunk = proc.stdout.read1(min(_CHUNK, limit - len(out)))
                if not chunk:
                    return
                out.extend(chunk)

        def read_err() -> None:
            while chunk := proc.stderr.read1(_CHUNK):
                err.extend(chunk)
                del err[:-_STDERR_TAIL]

        threads = [threading.Thread(target=t, daemon=True) for t in (feed, read_out, read_err)]
        for t in threads:
            t.start()
        try:
            threads[1].join(self.timeout_s)
            oversized = len(out) >= limit
            if oversized:
                proc.kill()
            elif threads[1].is_alive():
                raise RequestFailed(f"the model command gave no answer within "
                                    f"{self.timeout_s:g} s")
            try:
                returncode = proc.wait(max(0.0, self.timeout_s
                                           - (time.perf_counter() - started)))
            except subprocess.TimeoutExpired:
                raise RequestFailed(f"the model command gave no answer within "
                                    f"{self.timeout_s:g} s") from None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            # a reader still blocked means a grandchild holds the pipe open: closing the
            # stream would wait for it (the buffer's lock), so that one is left to its thread
            for t, stream in zip(threads[1:], (proc.stdout, proc.stderr)):
                t.join(1.0)
                if not t.is_alive():
                    try:
                        stream.close()
                    except OSError:
                        pass
        text = out.decode("utf-8", errors="replace")
        if oversized:
            return Completion(text, self.name, None, self.params, None,
                              time.perf_counter() - started, False, 1,
                              finish_reason=OVERSIZED)
        if returncode != 0:
            stderr = err.decode("utf-8", errors="replace")
            tail = " | ".join(stderr.strip().splitlines()[-3:])[:300]
            raise RequestFailed(f"the model command exited with {returncode}"
                                + (f": {tail}" if tail else ""))
        return Completion(_continuation(text, prompt), self.name, None, self.params, None,
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
