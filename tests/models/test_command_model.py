"""CommandModel: a user's program with the prompt on stdin."""
from __future__ import annotations

import sys

import pytest

from planning_core.validators.models.cache import ResponseCache
from planning_core.validators.models.command import CommandModel
from planning_core.validators.models.completion import ModelUnavailable, RequestFailed


def test_prompt_on_stdin_response_on_stdout(tmp_path):
    cmd = [sys.executable, "-c", "import sys; print(sys.stdin.read().upper(), end='')"]
    model = CommandModel(cmd, system="sys", cache=ResponseCache(tmp_path / "c.sqlite"))
    assert model("abc") == "SYS\n\nABC"
    assert model.complete("abc").cache_hit


def test_failing_and_missing_programs():
    with pytest.raises(RequestFailed, match="exited with 3: bad"):
        CommandModel([sys.executable, "-c", "import sys; sys.stderr.write('bad'); sys.exit(3)"])("x")
    with pytest.raises(ModelUnavailable, match="no such program"):
        CommandModel("/no/such/program --flag")("x")
    with pytest.raises(RequestFailed, match="no answer within"):
        CommandModel([sys.executable, "-c", "import time; time.sleep(5)"], timeout_s=0.3)("x")
