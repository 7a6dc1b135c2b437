"""The OpenAI-compatible client against a real local server (the real ``openai`` package)."""
from __future__ import annotations

import random
import sqlite3
import threading

import pytest

pytest.importorskip("openai")

from planning_core.validators.models.cache import ResponseCache
from planning_core.validators.models.completion import ModelUnavailable, RequestFailed
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
from planning_core.validators.models.retry import RetryPolicy, parse_retry_after

from tests.models.chat_server import ChatServer, answer, error, hang, malformed

FAST = RetryPolicy(retries=3, base_s=0.001, cap_s=0.01)


def _model(server, cache=None, **kw) -> ChatModel:
    settings = ChatSettings(model="scripted", base_url=server.base_url, timeout_s=kw.pop(
        "timeout_s", 5.0), retry=kw.pop("retry", FAST), **kw)
    return ChatModel(settings, cache=cache, rng=random.Random(0))


def test_answer_usage_and_parameters_are_sent_and_recorded():
    with ChatServer(lambda req, n: answer("(move a b)")) as server:
        model = _model(server, temperature=0.5, max_tokens=12, seed=7, stop=("Q:",),
                       system="be brief")
        c = model.complete("hello")
    assert c.text == "(move a b)" and not c.cache_hit and c.attempts == 1
    assert c.usage == {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    sent = server.requests[0]
    assert sent["model"] == "scripted" and sent["temperature"] == 0.5
    assert sent["max_tokens"] == 12 and sent["seed"] == 7 and sent["stop"] == ["Q:"]
    assert sent["messages"] == [{"role": "system", "content": "be brief"},
                                {"role": "user", "content": "hello"}]
    assert model("hello") == "(move a b)"  # the Model protocol


def test_429_with_retry_after_twice_then_success():
    def script(req, n):
        return error(429, "slow down", {"Retry-After": "0"}) if n < 2 else answer("ok")

    with ChatServer(script) as server:
        c = _model(server).complete("p")
    assert c.text == "ok" and c.attempts == 3 and len(server.requests) == 3


@pytest.mark.parametrize("bad", [lambda: error(500, "boom"), malformed,
                                 lambda: error(503, "overloaded")])
def test_transient_failures_are_retried_then_recorded(bad):
    with ChatServer(lambda req, n: bad()) as server:
        with pytest.raises(RequestFailed, match=r"gave up after 4 attempt"):
            _model(server).complete("p")
    assert len(server.requests) == 4


def test_a_hang_times_out_and_is_retried():
    def script(req, n):
        return hang(3.0) if n == 0 else answer("late but fine")

    with ChatServer(script) as server:
        c = _model(server, timeout_s=0.3).complete("p")
    assert c.text == "late but fine" and c.attempts == 2


def test_an_answer_that_never_comes_is_a_recorded_failure():
    with ChatServer(lambda req, n: hang(3.0)) as server:
        with pytest.raises(RequestFailed, match=r"no answer within 0.3 s \(gave up after 2"):
            _model(server, timeout_s=0.3, retry=RetryPolicy(retries=1, base_s=0.001)).complete("p")


def test_a_slow_answer_within_the_timeout_is_fine():
    with ChatServer(lambda req, n: answer("slow", delay_s=0.3)) as server:
        c = _model(server, timeout_s=5).complete("p")
    assert c.text == "slow" and c.latency_s >= 0.3


def test_refused_key_is_one_line_and_never_echoes_the_key(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sk-secret-123")
    with ChatServer(lambda req, n: error(401, "invalid api key")) as server:
        with pytest.raises(ModelUnavailable) as info:
            _model(server, api_key_env="MY_KEY").complete("p")
    text = str(info.value)
    assert "refused the API key" in text and "\n" not in text
    assert "sk-secret-123" not in text
    assert len(server.requests) == 1  # not retried


def test_unknown_model_is_one_line():
    with ChatServer(lambda req, n: error(404, "model 'x' not found")) as server:
        with pytest.raises(ModelUnavailable, match="unknown model 'scripted'"):
            _model(server).complete("p")


def test_missing_key_variable():
    with ChatServer(lambda req, n: answer("x")) as server:
        with pytest.raises(ModelUnavailable, match="NO_SUCH_VARIABLE_XYZ"):
            _model(server, api_key_env="NO_SUCH_VARIABLE_XYZ")


def test_unreachable_server():
    with ChatServer(lambda req, n: answer("x")) as server:
        url = server.base_url
    settings = ChatSettings(model="m", base_url=url, timeout_s=2, retry=FAST)
    with pytest.raises(ModelUnavailable, match="cannot be reached"):
        ChatModel(settings).complete("p")


def test_cache_hit_costs_no_request_and_keys_on_parameters(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda req, n: answer(f"answer {n}")) as server:
        first = _model(server, cache).complete("p")
        again = _model(server, cache).complete("p")
        other = _model(server, cache, temperature=1.0).complete("p")
    assert (first.text, again.text, other.text) == ("answer 0", "answer 0", "answer 1")
    assert again.cache_hit and not first.cache_hit and again.usage == first.usage
    assert len(server.requests) == 2


def test_failures_are_not_cached(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda req, n: error(500) if n < 4 else answer("fine")) as server:
        with pytest.raises(RequestFailed):
            _model(server, cache).complete("p")
        assert _model(server, cache).complete("p").text == "fine"
    assert len(cache) == 1


def test_cache_is_safe_under_concurrent_writers(tmp_path):
    path = tmp_path / "c.sqlite"
    with ChatServer(lambda req, n: answer(ChatServer.prompt_of(req).upper())) as server:
        caches = [ResponseCache(path) for _ in range(2)]
        models = [_model(server, caches[k % 2]) for k in range(8)]
        errors = []

        def work(k: int) -> None:
            try:
                for i in range(15):
                    assert models[k](f"q{i}") == f"Q{i}"
            except Exception as err:  # noqa: BLE001
                errors.append(err)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    assert len(ResponseCache(path)) == 15
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_retry_delay_honours_retry_after_and_grows():
    policy = RetryPolicy(base_s=1.0, cap_s=30.0, max_retry_after_s=100.0)
    rng = random.Random(1)
    assert all(policy.delay(0, 5.0, rng) >= 5.0 for _ in range(20))
    assert all(policy.delay(3, None, rng) <= 8.0 for _ in range(20))
    assert policy.delay(0, 10_000.0, rng) == 100.0
    assert parse_retry_after("3") == 3.0 and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
