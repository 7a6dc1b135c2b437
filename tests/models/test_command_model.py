"""CommandModel: a user's program with the prompt on stdin."""
from __future__ import annotations

import sys

import pytest

from planning_core.validators.models.cache import OVERSIZED, ResponseCache
from planning_core.validators.models.command import MAX_RESPONSE_BYTES, CommandModel
from planning_core.validators.models.completion import Completion, ModelUnavailable, RequestFailed


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


def test_runaway_output_is_capped_marked_oversized_and_never_cached(tmp_path):
    # a program that would write 50 MB (and then hang): only cap+1 bytes are read, it is
    # stopped, and its cut answer is neither cached nor mistaken for a whole one
    script = ("import sys, time\n"
              "for _ in range(50):\n"
              "    sys.stdout.write('x' * 1_000_000); sys.stdout.flush()\n"
              "time.sleep(60)\n")
    cache = ResponseCache(tmp_path / "c.sqlite")
    model = CommandModel([sys.executable, "-c", script], cache=cache,
                         max_response_bytes=1000, timeout_s=30)
    c = model.complete("q")
    assert c.text == "x" * 1001 and c.finish_reason == OVERSIZED
    assert len(cache) == 0
    again = model.complete("q")
    assert not again.cache_hit and again.finish_reason == OVERSIZED


def test_default_cap_and_answers_at_the_cap_are_whole(tmp_path):
    assert CommandModel("true").max_response_bytes == MAX_RESPONSE_BYTES
    cache = ResponseCache(tmp_path / "c.sqlite")
    exact = CommandModel([sys.executable, "-c", "print('y' * 999)"], cache=cache,
                         max_response_bytes=1000)
    c = exact.complete("q")
    assert c.text == "y" * 999 + "\n" and c.finish_reason is None
    assert len(cache) == 1 and exact.complete("q").cache_hit


def test_cache_refuses_oversized_completions(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", [], Completion("z" * 10, "m", finish_reason=OVERSIZED))
    assert cache.get("k") is None and len(cache) == 0
    cache.put("k", [], Completion("z", "m", finish_reason="length"))
    assert cache.get("k").text == "z"


def test_large_stdin_and_noisy_stderr_do_not_deadlock():
    # the program writes a lot of stderr before reading its (large) stdin
    script = ("import sys\n"
              "sys.stderr.write('e' * 300_000); sys.stderr.flush()\n"
              "data = sys.stdin.read()\n"
              "print(len(data))\n")
    assert CommandModel([sys.executable, "-c", script], timeout_s=30)("p" * 500_000) == "500000\n"
    with pytest.raises(RequestFailed, match="exited with 2: eee"):
        CommandModel([sys.executable, "-c",
                      "import sys; sys.stderr.write('e' * 100_000); sys.exit(2)"])("x")


@pytest.mark.parametrize("cap", [1000, 1001, 1002, 1003])
def test_an_answer_cut_inside_a_character_still_reads_as_over_the_cap(cap):
    # 4-byte characters cut at every offset: the decoded text never shrinks below cap+1
    # UTF-8 bytes, so a reader with the same cap (acp, cope) counts it as too large
    from planning_core.validators.acp.scoring import oversize

    script = "import sys; sys.stdout.buffer.write('\\U0001F600'.encode() * 2000)"
    c = CommandModel([sys.executable, "-c", script], max_response_bytes=cap).complete("q")
    assert c.finish_reason == OVERSIZED
    assert len(c.text.encode("utf-8")) > cap and oversize(c.text, cap) is not None
