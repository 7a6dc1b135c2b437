"""Real models, real settings (issue 20): ``acp run`` against the project's 127.0.0.1 chat
server, with the behaviours a real model needs -- the first final answer and the paper's
stop sequences, one poisoned request among healthy ones, resume keyed on the setting,
reasoning-model bodies and parameters, and a cache that does not defeat sampling."""
from __future__ import annotations

import json
import random
import socket

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import load_questions, read_results
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.prompts import SENT_STOP, question_text
from planning_core.validators.models.cache import ResponseCache
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
from planning_core.validators.models.retry import RetryPolicy

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer, drop, reasoning_answer


@pytest.fixture(scope="module")
def dev():
    folder = require_shared() / "acpbench_hard"
    questions = load_questions(folder)
    return folder, {question_text(q): q for q in questions}


def _run(capsys, server, folder, out, *extra, model="scripted", tasks="nexta", limit=2):
    code = main(["acp", "run", "--model", model, "--base-url", server.base_url,
                 "--questions", str(folder), "--out", str(out), "--tasks", tasks,
                 "--limit", str(limit), "--no-cache", "--backoff", "0.001", "--timeout", "5",
                 "--no-progress", *extra])
    return code, capsys.readouterr()


def _gold(by_prompt):
    return lambda req, n: answer(gold_answer(by_prompt[ChatServer.prompt_of(req)]))


# -- item 1: the first final answer, the paper's stop sequences, finish_reason -------------

def test_the_first_final_answer_counts_and_the_paper_stop_sequences_are_sent(dev, tmp_path,
                                                                             capsys):
    folder, by_prompt = dev

    def rambling(req, n):   # the right answer, then an invented question with a wrong one
        q = by_prompt[ChatServer.prompt_of(req)]
        return answer(f"{gold_answer(q)}\n\n**Question**: What now? **Final Answer**: "
                      "(fly-away nowhere)", finish_reason="stop")

    out = tmp_path / "r.jsonl"
    with ChatServer(rambling) as server:
        code, io = _run(capsys, server, folder, out)
    assert code == 0, io.err
    rows = read_results(out)
    assert len(rows) == 2 and all(r["score"] == 1 for r in rows), rows
    assert all(r["finish_reason"] == "stop" for r in rows)
    for req in server.requests:
        assert req["stop"] == list(SENT_STOP) == ["\n\n\n\n", "\n\n", "**Question**:",
                                                  "**Question:**"]
        assert req["temperature"] == 0.0 and req["max_tokens"] == 1000


@pytest.mark.slow   # imports Inspect
def test_the_same_stop_sequences_in_every_front_end():
    yaml = pytest.importorskip("yaml")

    from planning_core.validators.acp.lm_eval_tasks import task_folder
    from planning_core.validators.acp.prompts import STOP_SEQUENCES

    text = (task_folder() / "_planning_core_acp_gen").read_text()
    config = yaml.safe_load("\n".join(line for line in text.splitlines()
                                      if "!function" not in line))
    assert tuple(config["generation_kwargs"]["until"]) == STOP_SEQUENCES
    assert config["num_fewshot"] == 2      # the paper's setting is the default
    pytest.importorskip("inspect_ai")
    from planning_core.validators.acp.inspect_tasks import generate_config

    assert tuple(generate_config().stop_seqs) == SENT_STOP


# -- item 4: one poisoned request is an error row; an unreachable server stops the run -----

def test_a_poisoned_request_is_an_error_row_and_the_run_goes_on(dev, tmp_path, capsys):
    folder, by_prompt = dev
    healthy = _gold(by_prompt)
    first = [None]

    def script(req, n):   # the connection of one question is always dropped
        prompt = ChatServer.prompt_of(req)
        if first[0] is None:
            first[0] = prompt
        return drop() if prompt == first[0] else healthy(req, n)

    out = tmp_path / "r.jsonl"
    with ChatServer(script) as server:
        code, io = _run(capsys, server, folder, out, "--retries", "2", limit=5,
                        tasks="nexta")
    assert code == 1 and "Traceback" not in io.err, io.err
    rows = read_results(out)
    errors = [r for r in rows if "error" in r]
    assert len(rows) == 5 and len(errors) == 1, rows
    assert "closed the connection" in errors[0]["error"]
    assert "gave up after 3 attempt" in errors[0]["error"]
    assert all(r["score"] == 1 for r in rows if "error" not in r)


def test_an_unreachable_server_still_stops_the_run(dev, tmp_path, capsys):
    folder, _ = dev
    # a port bound but not listening: refused, and no other process can take it meanwhile
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        code = main(["acp", "run", "--model", "m", "--base-url", f"http://127.0.0.1:{port}/v1",
                     "--questions", str(folder), "--out", str(tmp_path / "r.jsonl"), "--tasks",
                     "nexta", "--limit", "3", "--no-cache", "--retries", "1", "--backoff",
                     "0.001", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot be reached" in err and "Traceback" not in err


# -- item 3: resume keyed on the setting ---------------------------------------------------

def test_resume_with_another_model_or_temperature_is_refused_then_forced(dev, tmp_path,
                                                                         capsys):
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        code, io = _run(capsys, server, folder, out, model="model-a")
        assert code == 0, io.err
        asked = len(server.requests)
        code, io = _run(capsys, server, folder, out, model="model-a")   # resumes
        assert code == 0 and len(server.requests) == asked
        for model, *other in (["model-b"], ["model-a", "--temperature", "0.7"],
                              ["model-a", "--shots", "0"], ["model-a", "--stop", "END"]):
            code, io = _run(capsys, server, folder, out, *other, model=model)
            assert code == 2 and "another setting" in io.err and "--force" in io.err, other
            assert len(server.requests) == asked
        assert "model 'model-a' there, 'model-b' now" in _run(
            capsys, server, folder, out, model="model-b")[1].err
        before = out.read_text()
        code, io = _run(capsys, server, folder, out, "--temperature", "0.7", "--force",
                        model="model-b")
        assert code == 0 and "moved to" in io.err, io.err
        assert len(server.requests) == asked + 2
    assert (tmp_path / "r.jsonl.1").read_text() == before
    rows = read_results(out)
    assert len(rows) == 2 and {r["model"] for r in rows} == {"model-b"}
    assert all(r["params"]["temperature"] == 0.7 for r in rows)


def test_resume_with_another_prompt_is_refused(dev, tmp_path, capsys):
    folder, by_prompt = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        assert _run(capsys, server, folder, out)[0] == 0
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        rows[0]["prompt_hash"] = "0" * 16      # as if the question's text had changed
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, io = _run(capsys, server, folder, out)
    assert code == 2 and "with another prompt" in io.err


# -- item 5: reasoning models ---------------------------------------------------------------

def test_a_reasoning_model_gets_only_what_it_takes_and_a_truncated_answer_is_recorded(
        dev, tmp_path, capsys):
    folder, _ = dev
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: reasoning_answer("Let me think about the grid...")
                    ) as server:
        code, io = _run(capsys, server, folder, out, "--reasoning-effort", "low",
                        "--top-p", "0.9", "--extra-body", '{"top_k": 20}', model="o3-mini")
    assert code == 0, io.err
    assert len(server.requests) == 2      # truncated answers are answers: never retried
    for req in server.requests:
        assert "temperature" not in req and "max_tokens" not in req and "stop" not in req
        assert req["max_completion_tokens"] == 1000 and req["reasoning_effort"] == "low"
        assert req["top_p"] == 0.9 and req["top_k"] == 20
    rows = read_results(out)
    for row in rows:
        assert row["response"] == "" and row["finish_reason"] == "length"
        assert row["truncated"] is True and row["score"] == 0
        assert row["reasoning"] == "Let me think about the grid..."
        assert row["params"]["max_completion_tokens"] == 1000


def test_what_the_user_sets_is_sent_and_max_tokens_0_sends_no_limit(dev, tmp_path, capsys):
    folder, by_prompt = dev
    with ChatServer(_gold(by_prompt)) as server:
        code, io = _run(capsys, server, folder, tmp_path / "a.jsonl", "--temperature", "1",
                        "--max-tokens", "0", model="o1", limit=1)
        assert code == 0, io.err
        code, io = _run(capsys, server, folder, tmp_path / "b.jsonl",
                        "--max-completion-tokens", "50", model="llama", limit=1)
        assert code == 0, io.err
    first, second = server.requests
    assert first["temperature"] == 1 and "max_tokens" not in first
    assert "max_completion_tokens" not in first
    assert second["max_completion_tokens"] == 50 and "max_tokens" not in second
    assert second["temperature"] == 0.0


@pytest.mark.parametrize("bad", ['[1]', 'nope', '{"model": "x"}'])
def test_extra_body_must_be_a_json_object(tmp_path, capsys, bad):
    with pytest.raises(SystemExit) as exit_:
        main(["acp", "run", "--model", "m", "--questions", str(tmp_path), "--out",
              str(tmp_path / "o"), "--extra-body", bad])
    assert exit_.value.code == 2 and "--extra-body" in capsys.readouterr().err


def test_reasoning_body_on_the_client(tmp_path):
    """content null + finish_reason length: an empty, truncated completion, cached (a rerun
    asks nothing); content null with another finish reason and no reasoning stays a
    malformed body (with reasoning it is an empty answer: test_review_issue20)."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    settings = ChatSettings(model="deepseek-reasoner", temperature=None, max_tokens=5,
                            retry=RetryPolicy(retries=2, base_s=0.001))
    with ChatServer(lambda req, n: reasoning_answer("thinking " * 50)) as server:
        model = ChatModel(ChatSettings(**{**_fields(settings), "base_url": server.base_url}),
                          cache=cache, rng=random.Random(0))
        c = model.complete("p")
        again = model.complete("p")
    assert c.text == "" and c.truncated and c.reasoning.startswith("thinking")
    assert again.cache_hit and again.truncated and again.reasoning == c.reasoning
    assert len(server.requests) == 1
    from planning_core.validators.models.completion import RequestFailed

    with ChatServer(lambda req, n: answer(None, finish_reason="stop")) as server:
        model = ChatModel(ChatSettings(**{**_fields(settings), "base_url": server.base_url}),
                          rng=random.Random(0))
        with pytest.raises(RequestFailed, match="no message content"):
            model.complete("p")
    assert len(server.requests) == 3


def _fields(settings: ChatSettings) -> dict:
    return {name: getattr(settings, name) for name in settings.__slots__}


# -- item 6: the cache does not defeat sampling --------------------------------------------

def test_sampling_keys_the_cache_on_turn_and_sample(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda req, n: answer(f"answer {n}")) as server:
        def model(t):
            return ChatModel(ChatSettings(model="m", base_url=server.base_url, temperature=t),
                             cache=cache)
        hot, cold = model(0.8), model(0.0)
        assert hot.complete("p", turn=0).text == "answer 0"
        assert hot.complete("p", turn=0).cache_hit          # a rerun of the same call
        assert hot.complete("p", turn=1).text == "answer 1"  # the same prompt, a later turn
        assert hot.complete("p", turn=1, sample=1).text == "answer 2"
        assert cold.complete("p", turn=0).text == "answer 3"
        assert cold.complete("p", turn=5).cache_hit          # greedy: the turn is irrelevant
    assert len(server.requests) == 4


# -- items 3 and 6 for cope run: resume keyed on mode and revisions; turns in the cache ----

def _cope(capsys, server, out, *extra, limit=2):
    from tests.conftest import require_shared as shared

    root = shared() / "cope" / "BlocksWorld-100"
    code = main(["cope", "run", "--model", "scripted", "--base-url", server.base_url,
                 "--dataset", str(root), "--categories", "goal", "--limit", str(limit),
                 "--out", str(out), "--no-progress", "--retries", "0", *extra])
    return code, capsys.readouterr()


def test_cope_resume_is_keyed_on_mode_and_revisions(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    broken = json.dumps({"domain file": "(define (domain d", "problem file": "(x"})
    with ChatServer(lambda req, n: answer(broken)) as server:
        base = ["--method", "pddl", "--no-cache"]
        code, io = _cope(capsys, server, out, *base, "--revisions", "1")
        assert code == 0, io.err
        asked = len(server.requests)
        assert asked == 4          # 2 pairs, a generate and a revise each
        assert _cope(capsys, server, out, *base, "--revisions", "1")[0] == 0
        assert len(server.requests) == asked          # the same setting: resumed
        for other in (["--revisions", "2"], ["--mode", "edit", "--revisions", "1"],
                      ["--revisions", "1", "--temperature", "0.8"]):
            code, io = _cope(capsys, server, out, *base, *other)
            assert code == 2 and "another setting" in io.err, other
        assert len(server.requests) == asked
        code, io = _cope(capsys, server, out, "--method", "planner", "--no-cache")
        assert code == 0, io.err                      # another method: its own rows
        code, io = _cope(capsys, server, out, *base, "--revisions", "2", "--force")
        assert code == 0 and "moved to" in io.err
    from planning_core.validators.cope.evaluate import read_results as cope_rows

    rows, _ = cope_rows(out)     # the planner rows stay (test_review_issue20)
    pddl = [r for r in rows if r["method"] == "pddl"]
    assert len(pddl) == 2 and all(r["max_revisions"] == 2 for r in pddl)
    assert sum(r["method"] == "planner" for r in rows) == 2
    assert len((tmp_path / "r.jsonl.1").read_text().splitlines()) == 4


def test_a_repeated_revise_prompt_is_asked_again_when_sampling(tmp_path, capsys):
    """The model answers the same broken files every time, so each revise prompt repeats
    the one before; at temperature 0.8 every turn is still a request (the cache keys on
    the turn), and a rerun of the same run is served from the cache. (One pair: the revise
    prompt does not name the pair, so two pairs' identical requests at the same turn would
    share a cached answer, as any identical request does.)"""
    out, cache = tmp_path / "r.jsonl", tmp_path / "c.sqlite"
    broken = json.dumps({"domain file": "(define (domain d", "problem file": "(x"})
    argv = ["--method", "pddl", "--revisions", "3", "--temperature", "0.8", "--cache",
            str(cache)]
    with ChatServer(lambda req, n: answer(broken)) as server:
        code, io = _cope(capsys, server, out, *argv, limit=1)
        assert code == 0, io.err
        assert len(server.requests) == 4
        revise = [ChatServer.prompt_of(r) for r in server.requests][1:]
        assert len(set(revise)) == 1 and len(revise) == 3   # the same revise prompt, 3 times
        code, io = _cope(capsys, server, tmp_path / "again.jsonl", *argv, limit=1)
        assert code == 0 and len(server.requests) == 4   # the rerun: all from the cache


# -- item 7: small ones ---------------------------------------------------------------------

def test_ibm_dataset_folder_reads_gzipped_generative_files_and_skips_the_others(
        dev, tmp_path, capsys):
    """A copy of the IBM repository's dataset/ layout: dev.gen.json, test.gen.json.gz, and
    boolean / multiple-choice files beside them."""
    import gzip

    folder, by_prompt = dev
    records = json.loads((folder / "nexta" / "dev.gen.json").read_text())
    layout = tmp_path / "dataset" / "nexta"
    layout.mkdir(parents=True)
    (layout / "dev.gen.json").write_text(json.dumps(records[:1]))
    with gzip.open(layout / "test.gen.json.gz", "wt") as f:
        json.dump(records[1:2], f)
    (layout / "dev.bool.json").write_text(json.dumps([{"id": 1, "context": "c",
                                                       "question": "q", "answer": "yes"}]))
    with gzip.open(layout / "test.mcq.json.gz", "wt") as f:
        json.dump([{"id": 2, "choices": {}}], f)
    (tmp_path / "dataset" / "bomb.json.gz").write_bytes(b"not gzip at all")
    out = tmp_path / "r.jsonl"
    with ChatServer(_gold(by_prompt)) as server:
        code = main(["acp", "run", "--model", "m", "--base-url", server.base_url,
                     "--questions", str(tmp_path / "dataset" / "nexta"), "--out", str(out),
                     "--no-cache", "--no-progress"])
        io = capsys.readouterr()
        assert code == 0, io.err
        assert io.err.count("skipped (boolean or multiple-choice") == 2
        assert {r["id"] for r in read_results(out)} == {str(records[0]["id"]),
                                                         str(records[1]["id"])}
        assert all(r["score"] == 1 for r in read_results(out))
        code = main(["acp", "run", "--model", "m", "--base-url", server.base_url,
                     "--questions", str(tmp_path / "dataset"), "--out", str(tmp_path / "x"),
                     "--no-cache", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "bomb.json.gz: error: not a readable gzip file" in err


def test_lm_eval_log_samples_of_the_projects_tasks_key_on_the_task(tmp_path):
    """Two tasks' docs with the same id (as the dev split has) are two answers."""
    from planning_core.validators.acp.dataset import load_answers

    rows = [{"doc": {"id": "42", "task": task, "group": "applicable_actions_gen"},
             "resps": [["(a x)"]], "filtered_resps": ["(a x)"]} for task in ("app", "nexta")]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    answers = load_answers(tmp_path / "samples.jsonl")
    assert sorted((a.task, a.id) for a in answers) == [("app", "42"), ("nexta", "42")]


@pytest.mark.parametrize("text,pos,neg", [
    ("([(at a b)], [(at c d)])", 1, 1), ("([(at a b)], [])", 1, 0),
    ("([(at a b)], [(at c d)],).", 1, 1), ("(at a b)", 1, 0)])
def test_prog_answer_as_a_tuple(text, pos, neg):
    from planning_core.validators.acp.answers.parsers import parse_effects

    found = parse_effects(text)
    assert (len(found[0]), len(found[1])) == (pos, neg)


@pytest.mark.parametrize("text", ["([(at a b)]", "(" * 40 + "[x]" + ")" * 40, "([)]"])
def test_prog_tuple_hostile(text):
    from planning_core.validators.acp.answers.parsers import UnparseableAnswer, parse_effects

    with pytest.raises(UnparseableAnswer):
        parse_effects(text)


def test_one_headline_metric_unknowns_apart():
    from planning_core.validators.acp.lm_eval_tasks import utils
    from planning_core.validators.acp.report import summarize

    verdicts = [1, None, 0, 1]
    assert utils.mean_right(verdicts) == 0.5
    summary = summarize([{"task": "app", "domain": "d", "score": v} for v in verdicts])
    assert summary.overall.accuracy == 0.5 and summary.overall.unknown == 1
    pytest.importorskip("inspect_ai")
    from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, SampleScore, Score, accuracy

    from planning_core.validators.acp.inspect_tasks import unknown_rate

    scores = [SampleScore(score=Score(value=v))
              for v in (CORRECT, NOANSWER, INCORRECT, CORRECT)]
    assert accuracy()(scores) == 0.5 and unknown_rate()(scores) == 0.25


# -- item 8: several runs as the paper's Table 2 ----------------------------------------------

def test_report_over_several_runs_in_the_papers_table_2_layout(dev, tmp_path, capsys):
    folder, by_prompt = dev
    outs = []
    with ChatServer(lambda req, n: answer(
            gold_answer(by_prompt[ChatServer.prompt_of(req)])
            if req["model"] == "good" else "I do not know.")) as server:
        for model in ("good", "bad"):
            out = tmp_path / f"{model}.jsonl"
            code, io = _run(capsys, server, folder, out, model=model, tasks="app,val",
                            limit=3)
            assert code == 0, io.err
            outs.append(str(out))
    md = tmp_path / "table.md"
    assert main(["acp", "report", *outs, "--out", str(md)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == ("| model | app | areach | just | land | nexta | prog | reach | val "
                        "| all | answers |")
    good = next(line for line in lines if line.startswith("| good (2-shot)"))
    bad = next(line for line in lines if line.startswith("| bad (2-shot)"))
    assert "| 1.00 [1.00, 1.00] | - |" in good and good.endswith("| 6 |")
    assert "| 0.00 [0.00, 0.00] |" in bad
    assert "Wald" in md.read_text()
    assert main(["acp", "report", outs[0], "--names", "a,b"]) == 2


def test_wald_interval():
    from planning_core.validators.acp.report import wald_interval

    low, high = wald_interval(5, 10)
    assert low == pytest.approx(0.5 - 1.96 * 0.5 / 10 ** 0.5)
    assert high == pytest.approx(0.5 + 1.96 * 0.5 / 10 ** 0.5)
    assert wald_interval(0, 0) is None and wald_interval(1, 1) == (1.0, 1.0)
    assert wald_interval(1, 3)[0] >= 0.0


# -- hostile inputs to the new readers ------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("(a b)\n\n**Question**: x **Final Answer**: (c d)", "(a b)\n\n"),
    ("(a b) **Question:** x", "(a b) "),
    ("(a b)\nQ: what now?", "(a b)\n"),
    ("FAQ: (a b)", "FAQ: (a b)"),               # Q: inside a word is no question
    ("**Question**: restated. **Final Answer**: (a b)",
     "**Question**: restated. **Final Answer**: (a b)"),
    ("", ""), ("Q: x\n" * 50_000, "Q: x\n"),
    ("Q:" * 50_000, "Q:" * 50_000),               # glued: never a new question
], ids=range(8))
def test_first_answer(text, expected):
    from planning_core.validators.acp.answers.text import first_answer

    assert first_answer(text) == expected


def test_first_answer_is_linear_on_a_huge_answer():
    import time as clock

    from planning_core.validators.acp.answers.parsers import parse_action

    text = "\n" * 500_000 + "(a b)" + " Q: x" * 100_000
    started = clock.process_time()
    assert parse_action(text).name == "a"
    assert clock.process_time() - started < 5.0     # a CPU-time bound, not wall-clock


@pytest.mark.parametrize("body", [
    {"content": None, "reasoning_content": ["not", "text"]},
    {"content": None, "reasoning": "from another server"},
    {"content": None},
])
def test_odd_reasoning_bodies(body):
    def reply(req, n):
        return answer(body["content"], finish_reason="length",
                      **{k: v for k, v in body.items() if k != "content"})

    with ChatServer(reply) as server:
        model = ChatModel(ChatSettings(model="m", base_url=server.base_url,
                                       retry=RetryPolicy(retries=0)))
        c = model.complete("p")
    assert c.text == "" and c.truncated
    assert c.reasoning == (body.get("reasoning") if "reasoning" in body else None)


def test_a_gzip_bomb_is_refused(tmp_path, monkeypatch):
    import gzip

    from planning_core.errors import InputError
    from planning_core.validators.acp import dataset

    monkeypatch.setattr(dataset, "MAX_GZ_BYTES", 1000)
    folder = tmp_path / "dataset"
    folder.mkdir()
    with gzip.open(folder / "test.gen.json.gz", "wb") as f:
        f.write(b"[" + b" " * 10_000 + b"]")
    with pytest.raises(InputError, match="decompresses to more than"):
        dataset.load_questions(folder)
    (folder / "test.gen.json.gz").write_bytes(gzip.compress(b"\xff\xfe[]"))
    with pytest.raises(InputError, match="not UTF-8"):
        dataset.load_questions(folder)


def test_a_folder_of_only_boolean_files_says_so(tmp_path):
    from planning_core.validators.acp.dataset import DatasetError, load_questions

    (tmp_path / "dev.bool.json").write_text("[]")
    notes: list[str] = []
    with pytest.raises(DatasetError, match="no .json"):
        load_questions(tmp_path, notes)
    assert len(notes) == 1 and "dev.bool.json: skipped" in notes[0]


@pytest.mark.parametrize("name,reasoning", [
    ("o1", True), ("o3-mini", True), ("openai/o4-mini", True), ("gpt-5", True),
    ("gpt-5-mini-2025-08-07", True), ("o1-preview", True), ("gpt-4o", False),
    ("gpt-4o-mini", False), ("ollama/llama3.1:8b", False), ("Qwen/Qwen2.5-7B", False),
    ("o", False), ("oss-20b", False), ("", False)])
def test_reasoning_model_names(name, reasoning):
    from planning_core.validators.models.openai_chat import is_reasoning_model

    assert is_reasoning_model(name) is reasoning


def test_a_command_models_timeout_is_not_part_of_the_setting(dev, tmp_path, capsys):
    import shlex
    import sys

    folder, _ = dev
    program = f"{shlex.quote(sys.executable)} -c \"print('(a b)')\""
    out = tmp_path / "r.jsonl"
    for timeout in ("30", "60"):
        code = main(["acp", "run", "--command", program, "--questions", str(folder),
                     "--out", str(out), "--tasks", "nexta", "--limit", "1", "--no-cache",
                     "--no-progress", "--timeout", timeout])
        assert code == 0, capsys.readouterr().err
    assert "already answered" in capsys.readouterr().err


def test_a_cache_file_from_before_the_extra_column_is_upgraded(tmp_path):
    import sqlite3

    from planning_core.validators.models.completion import Completion

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as conn:    # the schema as earlier versions wrote it
        conn.execute("CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
                     "base_url TEXT, messages TEXT NOT NULL, params TEXT NOT NULL, "
                     "text TEXT NOT NULL, usage TEXT, latency_s REAL, created REAL NOT NULL)")
        conn.execute("INSERT INTO responses VALUES ('old', 'm', NULL, '[]', '{}', 'hi', "
                     "NULL, 0.1, 0)")
    cache = ResponseCache(path)
    assert cache.get("old").text == "hi" and cache.get("old").finish_reason is None
    cache.put("new", [], Completion("", "m", finish_reason="length", reasoning="r"))
    again = ResponseCache(path).get("new")
    assert again.truncated and again.reasoning == "r" and again.cache_hit


def test_more_shots_than_the_paper_has_are_refused(dev, tmp_path, capsys):
    folder, _ = dev
    code = main(["acp", "run", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--questions", str(folder), "--out", str(tmp_path / "r"), "--shots", "3"])
    err = capsys.readouterr().err
    assert code == 2 and "the paper has 2 examples per task" in err
