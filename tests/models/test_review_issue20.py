"""Review of issue 20 (real models, real settings): what a new user running a real model,
and a hostile model, still tripped on. Each test drives the project's 127.0.0.1 chat server
or the reader directly."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import load_questions, read_results
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.prompts import question_text
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer


@pytest.fixture(scope="module")
def dev():
    folder = require_shared() / "acpbench_hard"
    return folder, {question_text(q): q for q in load_questions(folder)}


def _gold(by_prompt):
    return lambda req, n: answer(gold_answer(by_prompt[ChatServer.prompt_of(req)]))


def _run(capsys, base_url, folder, out, *extra, model="scripted"):
    code = main(["acp", "run", "--model", model, "--questions", str(folder),
                 "--out", str(out), "--tasks", "nexta", "--limit", "2", "--no-cache",
                 "--backoff", "0.001", "--timeout", "5", "--no-progress",
                 *(["--base-url", base_url] if base_url is not None else []), *extra])
    return code, capsys.readouterr()


def test_a_base_url_with_a_trailing_slash_is_the_same_setting(dev, tmp_path, capsys):
    """``http://host/v1`` and ``http://host/v1/`` are the same endpoint to the client: a
    rerun written either way resumes instead of being refused as another setting."""
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        assert _run(capsys, server.base_url, folder, out)[0] == 0
        asked = len(server.requests)
        code, io = _run(capsys, server.base_url + "/", folder, out)
        assert code == 0, io.err
        assert "already answered" in io.err and len(server.requests) == asked


def test_the_base_url_from_openai_base_url_is_recorded_and_keys_the_run(dev, tmp_path,
                                                                       capsys, monkeypatch):
    """The openai package sends to ``OPENAI_BASE_URL`` when no ``--base-url`` is given:
    rows (and the cache key) name that server, so a run against another server set that
    way is not resumed from (or served from the cache of) the first."""
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as one, ChatServer(_gold(by_prompt)) as two:
        monkeypatch.setenv("OPENAI_BASE_URL", one.base_url + "/")
        assert _run(capsys, None, folder, out)[0] == 0
        assert {r["base_url"] for r in read_results(out)} == {one.base_url}
        monkeypatch.setenv("OPENAI_BASE_URL", two.base_url)
        code, io = _run(capsys, None, folder, out)
        assert code == 2 and "base_url" in io.err and "another setting" in io.err
        assert not two.requests
        code, io = _run(capsys, two.base_url, folder, out, "--force")   # explicit: same
        assert code == 0 and len(two.requests) == 2


def test_the_client_names_one_base_url_however_written(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    assert ChatModel(ChatSettings("m", "http://h:1/v1//")).base_url == "http://h:1/v1"
    assert ChatModel(ChatSettings("m")).base_url is None


def test_another_system_prompt_is_another_setting(dev, tmp_path, capsys):
    """``--system`` is sent in front of every conversation: a rerun with another (or none)
    must not resume from answers given under the first."""
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        assert _run(capsys, server.base_url, folder, out, "--system", "Be brief.")[0] == 0
        assert all(r["messages"][0] == {"role": "system", "content": "Be brief."}
                   for r in server.requests)
        assert {r["system"] for r in read_results(out)} == {"Be brief."}
        asked = len(server.requests)
        code, io = _run(capsys, server.base_url, folder, out, "--system", "Be brief.")
        assert code == 0 and len(server.requests) == asked       # the same: resumed
        for other in (["--system", "Think step by step."], []):
            code, io = _run(capsys, server.base_url, folder, out, *other)
            assert code == 2 and "system" in io.err and "another setting" in io.err, io.err
        assert len(server.requests) == asked


@pytest.mark.parametrize("body,says", [
    ('{"temperature": 0.9}', "--temperature"), ('{"stop": null}', "--stop"),
    ('{"max_tokens": 5}', "--max-tokens"), ('{"top_p": 0.5}', "--top-p"),
    ('{"seed": 1}', "--seed"), ('{"reasoning_effort": "low"}', "--reasoning-effort"),
    ('{"max_completion_tokens": 9}', "--max-completion-tokens"),
    ('{"stream": true}', "stream"), ('{"n": 3}', "n")])
def test_extra_body_may_not_override_what_has_its_own_option(tmp_path, capsys, body, says):
    """The fields merged in by --extra-body win over the options: a temperature sent that
    way was sent while the rows (and the cache, which keys on turns only when sampling)
    said 0. A streamed or multi-choice body cannot be read as one answer."""
    with pytest.raises(SystemExit) as exit_:
        main(["acp", "run", "--model", "m", "--questions", str(tmp_path), "--out",
              str(tmp_path / "o"), "--extra-body", body])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--extra-body" in err and says in err
    assert "Traceback" not in err


def test_cope_run_refuses_another_system_prompt(tmp_path, capsys):
    root = require_shared() / "cope" / "BlocksWorld-100"
    out = tmp_path / "r.jsonl"
    broken = json.dumps({"domain file": "(define (domain d", "problem file": "(x"})

    def cope(server, *extra):
        code = main(["cope", "run", "--method", "pddl", "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--categories", "goal",
                     "--limit", "1", "--out", str(out), "--no-progress", "--retries", "0",
                     "--no-cache", *extra])
        return code, capsys.readouterr()

    with ChatServer(lambda req, n: answer(broken)) as server:
        assert cope(server, "--system", "Be brief.")[0] == 0
        assert server.requests[0]["messages"][0]["content"] == "Be brief."
        assert cope(server, "--system", "Be brief.")[0] == 0 and len(server.requests) == 1
        code, io = cope(server)
        assert code == 2 and "system 'Be brief.' there, None now" in io.err, io.err
        assert len(server.requests) == 1


def _one(tmp_path, reply, times=1):
    from planning_core.validators.models.cache import ResponseCache
    from planning_core.validators.models.retry import RetryPolicy

    got = []
    with ChatServer(lambda req, n: reply) as server:
        model = ChatModel(ChatSettings("m", server.base_url, retry=RetryPolicy(1, 0.001)),
                          cache=ResponseCache(tmp_path / "c.sqlite"))
        for _ in range(times):
            try:
                got.append(model.complete("q"))
            except Exception as err:       # noqa: BLE001 - the test reads what was raised
                got.append(err)
    return got, len(server.requests)


def test_content_as_a_list_of_parts_is_read_as_its_text(tmp_path):
    """Some servers (Mistral's reasoning models, proxies) send ``content`` as a list of
    parts; with the cache on (the default) this was an internal error."""
    parts = [{"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]},
             {"type": "text", "text": "(a "}, {"type": "text", "text": "b)"}]
    (first, again), asked = _one(tmp_path, answer(parts), times=2)
    assert first.text == "(a b)" and asked == 1
    assert again.cache_hit and again.text == "(a b)"        # cached as text


@pytest.mark.parametrize("content", [42, {"x": 1}, [1, 2], True])
def test_content_that_is_not_text_is_a_malformed_body(tmp_path, content):
    from planning_core.validators.models.completion import RequestFailed

    (err,), asked = _one(tmp_path, answer(content))
    assert isinstance(err, RequestFailed) and "malformed response" in str(err), err
    assert asked == 2        # retried as any malformed body, then given up


@pytest.mark.parametrize("method,reply", [
    ("planner", json.dumps({"plan": ["(pick-up a)"]})),
    ("pddl", json.dumps({"domain file": "(define (domain d", "problem file": "(x"})),
    ("smt", "print('no plan')")])
def test_cope_run_refuses_rows_asked_with_another_prompt(tmp_path, capsys, method, reply):
    """acp run keys resume on the prompt; cope run did not: rows asked with an earlier
    wording of the templates (or another description of the pair) were resumed from. The
    first turn's prompt is compared with what this run would send."""
    root = require_shared() / "cope" / "BlocksWorld-100"
    out = tmp_path / "r.jsonl"

    def cope(server, *extra):
        code = main(["cope", "run", "--method", method, "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--categories", "goal",
                     "--limit", "1", "--out", str(out), "--no-progress", "--retries", "0",
                     "--no-cache", *extra])
        return code, capsys.readouterr()

    with ChatServer(lambda req, n: answer(reply)) as server:
        assert cope(server)[0] == 0
        asked = len(server.requests)
        code, io = cope(server)                       # the same prompts: resumed
        assert code == 0 and len(server.requests) == asked, io.err
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        rows[0]["turns"][0]["prompt"] += "\n(an earlier wording)"
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, io = cope(server)
        assert code == 2 and "another prompt" in io.err and "--force" in io.err, io.err
        assert len(server.requests) == asked
        code, io = cope(server, "--force")
        assert code == 0 and len(server.requests) == 2 * asked


def test_cope_rows_from_before_the_setting_was_recorded_are_checked_by_their_turns(
        tmp_path, capsys):
    """cope run rows written before rows carried the setting (no top-level model, params,
    max_revisions) were resumed from by any model at any temperature. Their turns record
    the model, base URL and parameters of every call: those are compared; what the rows
    cannot say (the revision budget) is not."""
    root = require_shared() / "cope" / "BlocksWorld-100"
    out = tmp_path / "r.jsonl"
    broken = json.dumps({"domain file": "(define (domain d", "problem file": "(x"})

    def cope(server, *extra, model="m"):
        code = main(["cope", "run", "--method", "pddl", "--model", model, "--base-url",
                     server.base_url, "--dataset", str(root), "--categories", "goal",
                     "--limit", "1", "--out", str(out), "--no-progress", "--retries", "0",
                     "--no-cache", "--revisions", "1", *extra])
        return code, capsys.readouterr()

    with ChatServer(lambda req, n: answer(broken)) as server:
        assert cope(server)[0] == 0
        asked = len(server.requests)
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        for row in rows:     # as the earlier version wrote them
            for key in ("model", "base_url", "params", "system", "max_revisions"):
                row.pop(key, None)
            assert row["turns"][0]["model"] == "m"
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, io = cope(server)
        assert code == 0 and len(server.requests) == asked, io.err     # same: resumed
        for extra, model, says in (((), "other", "model 'm' there, 'other' now"),
                                   (("--temperature", "0.9"), "m", "temperature 0.0 there")):
            code, io = cope(server, *extra, model=model)
            assert code == 2 and says in io.err, io.err
        assert cope(server, "--revisions", "2")[0] == 0      # the budget: not recorded
        assert len(server.requests) == asked


def test_reasoning_only_stopped_by_a_stop_sequence_is_an_empty_answer_not_retried(
        dev, tmp_path, capsys):
    """An open reasoning model behind vLLM's or SGLang's reasoning parser, in the paper's
    setting: a stop sequence (``\\n\\n``) ends it inside its reasoning, so the body has the
    reasoning, ``content: null`` and ``finish_reason: stop``. That is the model's answer
    (an empty one, the same on every retry), not a malformed body to retry."""
    from tests.models.chat_server import reasoning_answer

    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: reasoning_answer("Let me think.", None, "stop")) as server:
        code, io = _run(capsys, server.base_url, folder, out)
        assert code == 0, io.err
        assert len(server.requests) == 2          # one per question, none retried
    rows = read_results(out)
    assert all(r["response"] == "" and r["finish_reason"] == "stop" and r["score"] == 0
               and r["reasoning"] == "Let me think." and "error" not in r for r in rows)


def test_a_command_model_that_echoes_its_prompt_is_scored_on_its_continuation(
        dev, tmp_path, capsys):
    """Text-completion programs (llama.cpp's CLI by default) print the prompt before the
    continuation. With the paper's 2-shot prompt the echo holds the examples' answers, and
    the first answer counts: the first example's answer was scored. The echoed prompt is
    not the model's answer."""
    import shlex
    import sys

    folder, _ = dev
    script = ("import sys; p = sys.stdin.read(); "
              "sys.stdout.write(p + ' (fly-away nowhere)\\n\\n**Question**: more')")
    program = f"{shlex.quote(sys.executable)} -c {shlex.quote(script)}"
    out = tmp_path / "r.jsonl"
    code = main(["acp", "run", "--command", program, "--questions", str(folder), "--out",
                 str(out), "--tasks", "nexta", "--limit", "1", "--no-cache", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    (row,) = read_results(out)
    assert row["shots"] == 2
    assert row["response"].startswith(" (fly-away nowhere)"), row["response"][:200]
    assert "fly-away" in row["reason"] or "nowhere" in row["reason"], row["reason"]


def test_fewer_examples_than_asked_still_resumes(dev, tmp_path, capsys):
    """--shot-source questions --shots 2 on a file with two questions of a task: each gets
    the one other question as its example. The same command run again was refused as
    another setting (shots 1 there, 2 now)."""
    folder, by_prompt = dev
    small = tmp_path / "q" / "nexta"
    small.mkdir(parents=True)
    rows = json.loads((folder / "nexta" / "dev.gen.json").read_text())[:2]
    (small / "dev.gen.json").write_text(json.dumps(rows))
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        argv = ["acp", "run", "--model", "m", "--base-url", server.base_url, "--questions",
                str(small.parent), "--out", str(out), "--no-cache", "--no-progress",
                "--shot-source", "questions", "--shots", "2"]
        assert main(argv) == 0
        assert [len(r["messages"]) for r in server.requests] == [3, 3]    # one example
        assert {r["shots"] for r in read_results(out)} == {1}
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 0 and "already answered" in err and len(server.requests) == 2, err
        code = main([*argv[:-1], "1"])       # one asked: the same prompts, another setting
        assert code == 2 and "another setting" in capsys.readouterr().err


def test_answers_cut_off_by_the_token_limit_are_counted_aloud(dev, tmp_path, capsys):
    """A reasoning model that spends the default 1000 tokens reasoning scores 0 on every
    question; the table alone read as a bad model. The command says how many answers the
    token limit cut off, and the report too."""
    from tests.models.chat_server import reasoning_answer

    folder, _ = dev
    out, report = tmp_path / "r.jsonl", tmp_path / "r.md"
    with ChatServer(lambda req, n: reasoning_answer("thinking")) as server:
        code, io = _run(capsys, server.base_url, folder, out, "--report", str(report),
                        model="o3-mini")
    assert code == 0, io.err
    assert "2 of 2 answers were cut off by the token limit" in io.err
    assert "--max-tokens" in io.err
    assert "2 of 2 answers were cut off by the token limit" in report.read_text()
    with ChatServer(_gold(dev[1])) as server:
        code, io = _run(capsys, server.base_url, folder, tmp_path / "ok.jsonl")
    assert code == 0 and "cut off" not in io.err


def test_cope_force_keeps_the_rows_of_other_methods(tmp_path, capsys):
    """--force starts a new run of one method; the file's rows of other methods were never
    compared with this setting and stay (they were moved aside too, and asked again)."""
    root = require_shared() / "cope" / "BlocksWorld-100"
    out = tmp_path / "r.jsonl"
    broken = json.dumps({"domain file": "(define (domain d", "problem file": "(x"})

    def cope(server, method, *extra):
        code = main(["cope", "run", "--method", method, "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--categories", "goal",
                     "--limit", "1", "--out", str(out), "--no-progress", "--retries", "0",
                     "--no-cache", *extra])
        return code, capsys.readouterr()

    with ChatServer(lambda req, n: answer(broken)) as server:
        assert cope(server, "planner")[0] == 0
        assert cope(server, "pddl")[0] == 0
        asked = len(server.requests)
        code, io = cope(server, "pddl", "--temperature", "0.5", "--force")
        assert code == 0 and "moved to" in io.err, io.err
        assert len(server.requests) == asked + 1
        assert cope(server, "planner")[0] == 0                   # still there: resumed
        assert len(server.requests) == asked + 1
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["method"] for r in rows) == ["pddl", "planner"]
    assert [r["params"]["temperature"] for r in rows if r["method"] == "pddl"] == [0.5]
    assert len((tmp_path / "r.jsonl.1").read_text().splitlines()) == 2    # the whole file


def test_an_error_object_in_a_200_body_is_named_in_the_error_row(tmp_path):
    """Some gateways (OpenRouter) answer 200 with ``{"error": {...}}`` when the upstream
    fails: the row said "'NoneType' object is not subscriptable"."""
    from tests.models.chat_server import Reply

    body = json.dumps({"error": {"message": "Provider returned error: upstream overloaded",
                                 "code": 502}}).encode()
    (err,), asked = _one(tmp_path, Reply(200, body, {"Content-Type": "application/json"}))
    assert "upstream overloaded" in str(err) and "NoneType" not in str(err), err
    assert asked == 2       # retried as a server error is


def test_empty_answers_are_counted_aloud(dev, tmp_path, capsys):
    """A model that opens with a blank line (or reasons in paragraphs) is stopped by the
    paper's ``\\n\\n`` before it answers: every answer empty, finish_reason stop, 0 %."""
    folder, _ = dev
    with ChatServer(lambda req, n: answer("")) as server:
        code, io = _run(capsys, server.base_url, folder, tmp_path / "r.jsonl")
    assert code == 0 and "2 of 2 answers are empty" in io.err and "--stop" in io.err, io.err


@pytest.mark.parametrize("line", ["[1, 2]", "42", '"row"', "null"])
def test_a_results_line_that_is_not_an_object_is_a_located_error(dev, tmp_path, capsys,
                                                                  line):
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        assert _run(capsys, server.base_url, folder, out)[0] == 0
        out.write_text(out.read_text() + line + "\n")
        code, io = _run(capsys, server.base_url, folder, out)
    assert code == 2 and f"{out}:3" in io.err and "internal error" not in io.err, io.err


def test_a_long_setting_value_is_shortened_in_the_refusal():
    from planning_core.validators.models.run_setting import mismatch

    old = {"model": "m", "params": {}, "system": "A" * 5000}
    new = {"model": "m", "params": {}, "system": "B" * 5000}
    line = mismatch(old, new)
    assert "system 'AAA" in line and "'BBB" in line and len(line) < 300, line
    assert "\n" not in line
