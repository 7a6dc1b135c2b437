"""The run's circuit breaker (issue 20 item 4, review): a server that accepts every
connection and drops it is "the server cannot be reached" (exit 2) once the first requests
have all failed with no answer before them; one poisoned request among good ones stays an
error row. Against the project's 127.0.0.1 chat server."""
from __future__ import annotations

import threading

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import load_questions, read_results
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.prompts import question_text
from planning_core.validators.models.breaker import CircuitBreaker, arm
from planning_core.validators.models.completion import ModelUnavailable, RequestFailed
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
from planning_core.validators.models.retry import RetryPolicy

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer, drop, error, malformed


@pytest.fixture(scope="module")
def dev():
    folder = require_shared() / "acpbench_hard"
    return folder, {question_text(q): q for q in load_questions(folder)}


def _run(capsys, server, folder, out, *extra, limit=40):
    code = main(["acp", "run", "--model", "m", "--base-url", server.base_url,
                 "--questions", str(folder), "--out", str(out), "--tasks", "nexta",
                 "--limit", str(limit), "--no-cache", "--retries", "1", "--backoff", "0.001",
                 "--timeout", "5", "--no-progress", *extra])
    return code, capsys.readouterr()


def test_a_server_that_drops_every_request_stops_the_run(dev, tmp_path, capsys):
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: drop()) as server:
        code, io = _run(capsys, server, folder, out, "--concurrency", "1")
        asked = len(server.requests)
    assert code == 2 and "Traceback" not in io.err, io.err
    assert "cannot be reached" in io.err and "first 3 request(s) all failed" in io.err
    assert "closed the connection" in io.err      # the last transport error, named
    assert asked == 3 * 2                          # three questions, two attempts each
    rows = read_results(out)                       # the rows written before are kept
    assert len(rows) == 2 and all("closed the connection" in r["error"] for r in rows)


def test_concurrent_requests_stop_too_and_a_rerun_stops_again(dev, tmp_path, capsys):
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: drop()) as server:
        code, io = _run(capsys, server, folder, out, "--concurrency", "4")
        assert code == 2 and "cannot be reached" in io.err, io.err
        assert len(server.requests) <= (3 + 3) * 2 < 40 * 2   # at most 3 more in flight
        code, io = _run(capsys, server, folder, out, "--concurrency", "4")
        assert code == 2 and "cannot be reached" in io.err, io.err
    assert len(read_results(out)) < 40


def test_fewer_questions_than_the_threshold_all_failing_stop_the_run(dev, tmp_path, capsys):
    folder, _ = dev
    with ChatServer(lambda req, n: error(502, "bad gateway")) as server:
        code, io = _run(capsys, server, folder, tmp_path / "r.jsonl", limit=2)
    assert code == 2 and "first 2 request(s)" in io.err and "HTTP 502" in io.err, io.err


def test_a_server_that_answers_badly_is_reachable_and_the_run_goes_on(dev, tmp_path, capsys):
    """A malformed body is an answer from the server: every question is its error row."""
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: malformed()) as server:
        code, io = _run(capsys, server, folder, out, limit=4)
    assert code == 1 and "cannot be reached" not in io.err, io.err
    rows = read_results(out)
    assert len(rows) == 4 and all("malformed response" in r["error"] for r in rows)


def test_one_dropped_question_among_good_ones_is_its_error_row(dev, tmp_path, capsys):
    folder, by_prompt = dev
    order: list[str] = []

    def script(req, n):       # the third question asked is dropped, every time
        prompt = ChatServer.prompt_of(req)
        if prompt not in order:
            order.append(prompt)
        if order.index(prompt) == 2:
            return drop()
        return answer(gold_answer(by_prompt[prompt]))

    out = tmp_path / "r.jsonl"
    with ChatServer(script) as server:
        code, io = _run(capsys, server, folder, out, "--concurrency", "1", limit=6)
    assert code == 1 and "cannot be reached" not in io.err, io.err
    rows = read_results(out)
    errors = [r for r in rows if "error" in r]
    assert len(rows) == 6 and len(errors) == 1 and "closed the connection" in errors[0]["error"]
    assert all(r["score"] == 1 for r in rows if "error" not in r)


def test_a_server_that_drops_the_first_requests_then_answers_goes_on(dev, tmp_path, capsys):
    """Two questions fail (below the threshold of 3), then the server answers: the run
    goes on, and later failures no longer count."""
    folder, by_prompt = dev
    order: list[str] = []

    def script(req, n):       # the first two questions and the last three are dropped
        prompt = ChatServer.prompt_of(req)
        if prompt not in order:
            order.append(prompt)
        k = order.index(prompt)
        if k < 2 or k >= 5:
            return drop()
        return answer(gold_answer(by_prompt[prompt]))

    out = tmp_path / "r.jsonl"
    with ChatServer(script) as server:
        code, io = _run(capsys, server, folder, out, "--concurrency", "1", limit=8)
    assert code == 1 and "cannot be reached" not in io.err, io.err
    rows = read_results(out)
    assert len(rows) == 8 and sum("error" in r for r in rows) == 5


def test_cope_run_stops_on_a_server_that_drops_every_request(tmp_path, capsys):
    root = require_shared() / "cope" / "BlocksWorld-100"
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: drop()) as server:
        code = main(["cope", "run", "--method", "planner", "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--limit", "10", "--out",
                     str(out), "--no-cache", "--retries", "1", "--backoff", "0.001",
                     "--concurrency", "1", "--no-progress"])
        asked = len(server.requests)
    err = capsys.readouterr().err
    assert code == 2 and "cannot be reached" in err and "closed the connection" in err, err
    assert "Traceback" not in err and asked == 3 * 2


# -- the breaker itself ---------------------------------------------------------------------

def _failed(transport=True):
    return RequestFailed("the server closed the connection", file="here",
                         transport=transport)


def test_the_breaker_counts_distinct_transport_failures_before_any_success():
    b = CircuitBreaker(3)
    one, two, three = ([{"role": "user", "content": c}] for c in "abc")
    b.failure(one, _failed())
    b.failure(one, _failed())                 # the same request again: not distinct
    b.failure(two, _failed(transport=False))  # a server's answer: not counted
    b.failure(two, _failed())
    with pytest.raises(ModelUnavailable, match="first 3 request.*closed the connection"):
        b.failure(three, _failed())
    with pytest.raises(ModelUnavailable):     # open: every later request fails at once
        b.check()


def test_after_one_success_the_breaker_never_trips():
    b = CircuitBreaker(1)
    b.success()
    for k in range(5):
        b.failure([{"role": "user", "content": str(k)}], _failed())
    b.check()
    assert not b.tripped


def test_arm_caps_the_threshold_and_leaves_plain_models_alone():
    with ChatServer(lambda req, n: answer("x")) as server:
        model = ChatModel(ChatSettings("m", server.base_url,
                                       retry=RetryPolicy(0, 0.001)))
        assert model.breaker is None
        arm(model, 2)
        assert model.breaker.threshold == 2
        arm(model, 40)
        assert model.breaker.threshold == 3
    plain = lambda prompt: "x"   # noqa: E731
    arm(plain, 5)
    assert not hasattr(plain, "breaker")
    with pytest.raises(ValueError):
        CircuitBreaker(0)


def test_the_breaker_is_safe_under_concurrent_failures():
    b = CircuitBreaker(3)
    raised = []

    def fail(k):
        try:
            b.failure([{"role": "user", "content": str(k)}], _failed())
        except ModelUnavailable:
            raised.append(k)

    threads = [threading.Thread(target=fail, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(raised) == 6 and b.tripped     # the third and every later one


@pytest.mark.slow   # starts two worker processes
def test_on_local_workers_each_worker_s_breaker_stops_the_run(dev, tmp_path, capsys):
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: drop()) as server:
        code, io = _run(capsys, server, folder, out, "--workers", "2")
        asked = len(server.requests)
    assert code == 2 and "cannot be reached" in io.err and "Traceback" not in io.err, io.err
    assert asked < 40 * 2 and len(read_results(out)) < 40


def test_a_request_in_flight_when_the_breaker_trips_is_not_retried():
    breaker = CircuitBreaker(1)

    def script(req, n):    # another thread's request trips the breaker meanwhile
        with pytest.raises(ModelUnavailable):
            breaker.failure([{"role": "user", "content": "other"}], _failed())
        return drop()

    with ChatServer(script) as server:
        model = ChatModel(ChatSettings("m", server.base_url, retry=RetryPolicy(5, 0.001)))
        model.breaker = breaker
        with pytest.raises(ModelUnavailable, match="cannot be reached"):
            model.complete("p")
    assert len(server.requests) == 1
