"""``acp run`` end to end: the real openai client against a scripted local server.

The server answers from the dev questions' gold answers (:func:`gold_answer`), so a model
that is always right must score 100%, one that is always wrong 0%, and one that is
rate-limited twice per question must still lose nothing.
"""
from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import load_questions, read_results
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.prompts import INSTRUCTIONS, question_text
from planning_core.validators.acp.records import TASKS
from planning_core.validators.acp.run import latest_rows, plan_items

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer, error

PER_TASK = 2


@pytest.fixture(scope="module")
def dev():
    """The dev questions and the gold answer of each one's zero-shot prompt."""
    folder = require_shared() / "acpbench_hard"
    questions = load_questions(folder)
    gold = {}
    for q in questions:
        gold[question_text(q)] = gold_answer(q)
    return folder, gold


def _gold_reply(gold):
    def script(request, n):
        prompt = ChatServer.prompt_of(request)
        last = prompt.split("\n\n")[-1]  # the asked question follows the examples
        return answer(gold[last])
    return script


def _run(capsys, server, folder, out, *extra):
    code = main(["acp", "run", "--model", "scripted", "--base-url", server.base_url,
                 "--questions", str(folder), "--out", str(out), "--limit", str(PER_TASK),
                 "--no-cache", "--backoff", "0.001", "--timeout", "5", "--no-progress",
                 *extra])
    return code, capsys.readouterr()


def test_gold_answers_score_100_percent(dev, tmp_path, capsys):
    folder, gold = dev
    out, report = tmp_path / "r.jsonl", tmp_path / "r.md"
    with ChatServer(_gold_reply(gold)) as server:
        code, io = _run(capsys, server, folder, out, "--report", str(report),
                        "--concurrency", "4")
    assert code == 0, io.err
    rows = read_results(out)
    assert len(rows) == PER_TASK * len(TASKS)
    assert {r["task"] for r in rows} == set(TASKS)
    assert all(r["score"] == 1 for r in rows), [r for r in rows if r["score"] != 1]
    row = rows[0]
    assert row["model"] == "scripted" and row["usage"]["total_tokens"] == 18
    assert row["cache_hit"] is False and row["params"]["temperature"] == 0.0
    assert row["response"] == gold[question_text(next(
        q for q in load_questions(folder) if q.id == row["id"] and q.task == row["task"]))]
    text = report.read_text()
    assert "100.0" in io.out and "ACPBench Hard scores: scripted" in text
    assert "Setting: model scripted at http://127.0.0.1:" in text
    assert "2-shot (paper examples)" in text and '"temperature": 0.0' in text
    assert f"{len(rows)} answers (0 from the cache); tokens: {11 * len(rows)} prompt" in text
    prompts = [ChatServer.prompt_of(r) for r in server.requests]
    assert all(p.startswith("**Question**: ") and p.endswith("**Final Answer**:")
               for p in prompts)
    assert any(INSTRUCTIONS["val"] in p for p in prompts)


def test_wrong_answers_score_0_percent(dev, tmp_path, capsys):
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: answer("I do not know.")) as server:
        code, _ = _run(capsys, server, folder, out)
    rows = read_results(out)
    assert code == 0 and len(rows) == PER_TASK * len(TASKS)
    assert all(r["score"] == 0 for r in rows)


def test_rate_limited_twice_per_question_loses_nothing(dev, tmp_path, capsys):
    folder, gold = dev
    seen: dict[str, int] = {}
    reply = _gold_reply(gold)

    def script(request, n):
        prompt = ChatServer.prompt_of(request)
        seen[prompt] = seen.get(prompt, 0) + 1
        if seen[prompt] <= 2:
            return error(429, "rate limited", {"Retry-After": "0"})
        return reply(request, n)

    out = tmp_path / "r.jsonl"
    with ChatServer(script) as server:
        code, io = _run(capsys, server, folder, out, "--concurrency", "8")
    rows = read_results(out)
    assert code == 0, io.err
    assert len(rows) == PER_TASK * len(TASKS) and all(r["score"] == 1 for r in rows)
    assert all(r["attempts"] == 3 for r in rows)
    assert len(server.requests) == 3 * len(rows)


def test_failures_are_recorded_and_a_rerun_fills_them_in(dev, tmp_path, capsys):
    folder, gold = dev
    out = tmp_path / "r.jsonl"
    healthy = _gold_reply(gold)

    broken = [True]

    def flaky(request, n):  # every val question fails, always, until repaired
        if broken[0] and "first inapplicable action" in ChatServer.prompt_of(request):
            return error(500, "internal")
        return healthy(request, n)

    with ChatServer(flaky) as server:   # one server: a rerun must use the same base URL
        code, io = _run(capsys, server, folder, out, "--retries", "1")
        assert code == 1 and "have no answer" in io.err and "Traceback" not in io.err
        failed = [r for r in read_results(out) if "error" in r]
        assert len(failed) == PER_TASK and {r["task"] for r in failed} == {"val"}
        assert "HTTP 500" in failed[0]["error"]
        # a torn last line, as a kill in the middle of a write leaves it
        with open(out, "a", encoding="utf-8") as f:
            f.write('{"id": "torn", "task": "app", "respo')
        broken[0] = False
        before = len(server.requests)
        code, io = _run(capsys, server, folder, out)
        assert code == 0, io.err
        assert len(server.requests) - before == PER_TASK  # only the failed ones asked again
    rows = read_results(out)
    successes = [r for r in rows if "error" not in r]
    keys = [(r["task"], r["id"], r["prompt_hash"]) for r in successes]
    assert len(keys) == len(set(keys)) == PER_TASK * len(TASKS)  # no duplicates
    assert all(r["score"] == 1 for r in latest_rows(rows))


def test_rerun_with_cache_asks_nothing_and_the_key_is_never_written(dev, tmp_path, capsys,
                                                                    monkeypatch):
    folder, gold = dev
    cache = tmp_path / "cache.sqlite"
    monkeypatch.setenv("PC_TEST_KEY", "sk-unique-secret-4711")
    with ChatServer(_gold_reply(gold)) as server:
        for k in range(2):
            code = main(["acp", "run", "--model", "scripted", "--base-url", server.base_url,
                         "--questions", str(folder), "--out", str(tmp_path / f"r{k}.jsonl"),
                         "--limit", "1", "--tasks", "app,val", "--cache", str(cache),
                         "--api-key-env", "PC_TEST_KEY", "--report", str(tmp_path / "r.md"),
                         "--no-progress"])
            assert code == 0
    assert len(server.requests) == 2
    assert all(r["cache_hit"] for r in read_results(tmp_path / "r1.jsonl"))
    io = capsys.readouterr()
    for blob in [p.read_bytes() for p in tmp_path.iterdir() if p.is_file()] + [
            (io.out + io.err).encode()]:
        assert b"sk-unique-secret-4711" not in blob


def test_few_shot_prompts(dev, tmp_path, capsys):
    folder, gold = dev
    questions = load_questions(folder)
    items = plan_items([q for q in questions if q.task == "prog"][:3], 2, questions)
    for item in items:
        turns = item.conversation
        assert [t["role"] for t in turns] == ["user", "assistant"] * 2 + ["user"]
        assert turns[-1]["content"] == item.prompt == question_text(item.question)
        assert item.question.question not in "".join(t["content"] for t in turns[:4])
        assert turns[1]["content"].startswith("[")  # an answered example
        assert item.shot_source == "questions"
    zero = plan_items(questions[:1], 0)[0]
    assert zero.prompt_hash != plan_items(questions[:1], 2, questions)[0].prompt_hash
    paper = plan_items(questions[:1], 2, source="paper")[0]
    assert paper.prompt_hash not in (zero.prompt_hash,
                                     plan_items(questions[:1], 2, questions)[0].prompt_hash)
    assert paper.conversation[0]["content"].startswith("**Question**: A robot is in a grid")


@pytest.mark.parametrize("status,message", [(401, "refused the API key"),
                                            (404, "unknown model")])
def test_unusable_endpoint_is_one_line_exit_2(dev, tmp_path, capsys, status, message):
    folder, _ = dev
    with ChatServer(lambda req, n: error(status, "nope")) as server:
        code, io = _run(capsys, server, folder, tmp_path / "r.jsonl")
    assert code == 2 and message in io.err and "Traceback" not in io.err
    assert len(io.err.strip().splitlines()) == 1


def test_missing_model_option(tmp_path, capsys, monkeypatch):
    """Refused before the response cache is opened: it used to create
    ~/.cache/planning-core/responses.sqlite first (and where the home folder is not
    writable, the message was about the cache, not --model)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("PLANNING_CORE_CACHE", raising=False)
    code = main(["acp", "run", "--questions", str(tmp_path), "--out", str(tmp_path / "o")])
    assert code == 2 and "--model" in capsys.readouterr().err
    assert not home.exists()


@pytest.mark.slow
def test_killed_run_loses_nothing_and_duplicates_nothing(dev, tmp_path):
    """SIGKILL in the middle of a run, then the same command: every question answered
    once, and responses received before the kill come from the cache."""
    import os
    import signal
    import subprocess
    import sys
    import time

    folder, gold = dev
    out, cache = tmp_path / "r.jsonl", tmp_path / "cache.sqlite"
    slow = _gold_reply(gold)

    def script(request, n):
        reply = slow(request, n)
        return type(reply)(reply.status, reply.body, reply.headers, 0.3)

    with ChatServer(script) as server:
        argv = ["acp", "run", "--model", "scripted", "--base-url", server.base_url,
                "--questions", str(folder), "--out", str(out), "--limit", str(PER_TASK),
                "--cache", str(cache), "--concurrency", "2", "--no-progress"]
        child = subprocess.Popen([sys.executable, "-m", "planning_core.console", *argv],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and child.poll() is None:
            if out.exists() and out.read_text().count("\n") >= 4:
                break
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        before = len(server.requests)
        assert before < PER_TASK * len(TASKS)  # killed mid-run
        assert main(argv) == 0
    rows = read_results(out)
    keys = [(r["task"], r["id"]) for r in rows]
    assert len(keys) == len(set(keys)) == PER_TASK * len(TASKS)
    assert all(r["score"] == 1 for r in rows)
    assert len(server.requests) <= PER_TASK * len(TASKS) + 2  # at most the two in flight


def test_a_command_as_the_model(dev, tmp_path, capsys):
    """--command: the prompt goes to a program's stdin, its stdout is the answer."""
    import shlex
    import sys

    folder, _ = dev
    program = ("import sys; p = sys.stdin.read(); "
               "print('0' if p.startswith('**Question**') else 'no prompt')")
    out = tmp_path / "r.jsonl"
    code = main(["acp", "run", "--command", f"{shlex.quote(sys.executable)} -c "
                 f"{shlex.quote(program)}", "--questions", str(folder), "--out", str(out),
                 "--tasks", "val", "--limit", "2", "--no-cache", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    rows = read_results(out)
    assert [r["response"] for r in rows] == ["0\n", "0\n"]
    assert all(r["model"].startswith("command:") and r["score"] in (0, 1) for r in rows)


def test_a_second_run_on_the_same_results_file_is_refused(dev, tmp_path, capsys):
    """acp run shares the batch commands' results file: locked for the run, so two runs
    cannot interleave rows."""
    from planning_core.results_file import open_results

    folder, gold = dev
    out = tmp_path / "r.jsonl"
    handle, _ = open_results(out)
    with handle, ChatServer(_gold_reply(gold)) as server:
        code, io = _run(capsys, server, folder, out)
    assert code == 2 and "another run is writing" in io.err
    assert out.read_text() == ""


@pytest.mark.slow   # a Dask LocalCluster starts
def test_run_on_local_workers_and_dask_gives_the_rows_of_one_process(dev, tmp_path, capsys):
    """The executor path: each worker builds its own client from the options, asks and
    scores; the CLI writes the rows."""
    folder, gold = dev
    keep = ("id", "task", "score", "reason", "evidence", "response", "prompt_hash", "model")
    outs = []
    with ChatServer(_gold_reply(gold)) as server:
        for name, where in (("serial", []), ("local", ["--workers", "2"]),
                            ("dask", ["--scheduler", "local:1"])):
            out = tmp_path / f"{name}.jsonl"
            code, io = _run(capsys, server, folder, out, *where)
            assert code == 0, io.err
            outs.append(sorted((tuple(r.get(k) for k in keep) for r in read_results(out)),
                               key=repr))
    assert len(outs[0]) == PER_TASK * len(TASKS) and outs[0] == outs[1] == outs[2]
    assert all(row[2] == 1 for row in outs[0])


def test_unusable_endpoint_stops_the_workers_with_one_error_line(dev, tmp_path, capsys):
    folder, _ = dev
    with ChatServer(lambda req, n: error(401, "nope")) as server:
        # a generous request timeout: on a loaded machine a slow scripted reply must not
        # turn into a failed request (an error row) before the 401 stops the run
        code, io = _run(capsys, server, folder, tmp_path / "r.jsonl", "--workers", "2",
                        "--timeout", "60")
    errors = [line for line in io.err.splitlines() if "error" in line]
    assert code == 2 and "refused the API key" in io.err and "Traceback" not in io.err
    assert len(errors) == 1 and not read_results(tmp_path / "r.jsonl")


def test_a_larger_budget_scores_again_the_answers_unknown_at_a_smaller_one(dev, tmp_path,
                                                                          capsys):
    """Issue 32 item 3: rows record --budget; a rerun with a larger one scores the stored
    answers that stopped at the smaller one again (the model is not asked again), says so,
    and the new row supersedes the old; the same budget again redoes nothing."""
    folder, gold = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold_reply(gold)) as server:
        code, io = _run(capsys, server, folder, out, "--budget", "1")
        asked = len(server.requests)
        first = read_results(out)
        assert all(r["budget"] == 1 for r in first)
        limited = [r for r in first if r["score"] is None and r["evidence"] == "limit"]
        assert limited, "no answer stopped at a budget of 1 expanded state"
        # the same budget: nothing scored again
        code, io = _run(capsys, server, folder, out, "--budget", "1")
        assert "computed again" not in io.err and len(read_results(out)) == len(first)
        # --retry-unknown: scored again at the same budget (still unknown)
        code, io = _run(capsys, server, folder, out, "--budget", "1", "--retry-unknown")
        assert f"{len(limited)} row(s) of {out} that ran into their limit are computed " \
               "again (--retry-unknown)" in io.err
        assert len(read_results(out)) == len(first) + len(limited)
        # the default budget: every stopped answer scored again from its response
        code, io = _run(capsys, server, folder, out)
        assert code == 0, io.err
        assert "their limit was below this run's 2,000,000 expanded states" in io.err
        assert len(server.requests) == asked      # the model was never asked again
    rows = latest_rows(read_results(out))
    assert len(rows) == len(first) and all(r["score"] == 1 for r in rows)
    again = [r for r in rows if r.get("rescored")]
    assert len(again) == len(limited) and all(r["budget"] == 2_000_000 for r in again)
    assert {(r["task"], r["id"]) for r in again} == {(r["task"], r["id"]) for r in limited}
    assert "100.0" in io.out


def test_rows_without_a_recorded_budget_are_kept_unless_retry_unknown(dev, tmp_path, capsys):
    folder, gold = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold_reply(gold)) as server:
        _run(capsys, server, folder, out, "--budget", "1")
        rows = read_results(out)
        out.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "budget"})
                               + "\n" for r in rows))   # as an older version wrote them
        limited = sum(r["evidence"] == "limit" for r in rows)
        code, io = _run(capsys, server, folder, out)
        assert f"{limited} row(s) of {out} ran into a limit that they do not record" in io.err
        assert len(read_results(out)) == len(rows)
        code, io = _run(capsys, server, folder, out, "--retry-unknown")
        assert len(read_results(out)) == len(rows) + limited
    assert all(r["score"] == 1 for r in latest_rows(read_results(out)))
