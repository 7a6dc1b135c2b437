"""Issue 20 (left open): the response cache had no run-level sample index, so ``acp run``
at temperature > 0 with a new ``--out`` got the answers of an earlier run from the cache,
and repeated samples of a model were not independent. ``--sample K`` (every front-end
sharing the cache) caches sample K of a request as sample K; sample 0, the default, keeps
the key every earlier run made; at temperature 0 the option changes nothing. Driven by the
project's 127.0.0.1 chat server."""
from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import read_results
from planning_core.validators.models.cache import ResponseCache, cache_key
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings
from planning_core.validators.models.options import (add_model_arguments, model_from_options,
                                                     model_options)
from planning_core.validators.models.run_setting import mismatch, setting_of, setting_of_row

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer


def _model(server, cache, temperature, sample=0):
    model = ChatModel(ChatSettings(model="m", base_url=server.base_url,
                                   temperature=temperature), cache=cache)
    model.run_sample = sample
    return model


def test_sample_k_of_a_request_is_cached_as_sample_k(tmp_path):
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda req, n: answer(f"answer {n}")) as server:
        first, again = _model(server, cache, 0.7), _model(server, cache, 0.7)
        assert first.complete("p").text == "answer 0"
        assert again.complete("p").cache_hit                  # sample 0: today's behaviour
        one = _model(server, cache, 0.7, sample=1)
        assert one.complete("p").text == "answer 1"           # another sample: asked
        assert _model(server, cache, 0.7, sample=1).complete("p").text == "answer 1"
        assert _model(server, cache, 0.7, sample=2).complete("p").text == "answer 2"
        # turns of a loop and the run's sample are both in the key
        assert one.complete("p", turn=3).text == "answer 3"
        assert _model(server, cache, 0.7, sample=2).complete("p", turn=3).text == "answer 4"
        assert one.complete("p", turn=3).cache_hit
        # greedy decoding: every sample is the same request
        cold = _model(server, cache, 0.0)
        assert cold.complete("p").text == "answer 5"
        assert _model(server, cache, 0.0, sample=3).complete("p").cache_hit
    assert len(server.requests) == 6


def test_sample_0_keeps_the_key_earlier_runs_wrote(tmp_path):
    """A cache filled before ``--sample`` existed still serves a run at the default."""
    cache = ResponseCache(tmp_path / "c.sqlite")
    with ChatServer(lambda req, n: answer(f"answer {n}")) as server:
        model = _model(server, cache, 0.7)
        messages = [{"role": "user", "content": "p"}]
        legacy = cache_key(model.name, model.base_url, messages, dict(model.params))
        assert cache.get(legacy) is None
        model.complete("p")
        assert cache.get(legacy).text == "answer 0"
        legacy_turn = cache_key(model.name, model.base_url, messages,
                                {**model.params, "_call": {"turn": 1, "sample": None}})
        model.complete("p", turn=1)
        assert cache.get(legacy_turn).text == "answer 1"


def test_workers_build_the_client_with_the_sample():
    """``acp run --workers`` and ``cope run`` on Dask rebuild the client from the options."""
    parser = argparse.ArgumentParser()
    add_model_arguments(parser)
    args = parser.parse_args(["--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                              "--temperature", "0.5", "--sample", "4", "--no-cache"])
    model = model_from_options(model_options(args))
    assert model.run_sample == 4 and model.sampling
    assert setting_of(model)["sample"] == 4
    greedy = parser.parse_args(["--model", "m", "--temperature", "0", "--sample", "4",
                                "--no-cache"])
    assert "sample" not in setting_of(model_from_options(model_options(greedy)))
    with pytest.raises(SystemExit):
        parser.parse_args(["--model", "m", "--sample", "-1"])


def test_the_sample_is_part_of_the_setting_both_ways():
    row = {"model": "m", "base_url": None, "params": {"temperature": 0.7}, "sample": 2}
    old = setting_of_row(row, ())
    plain = setting_of_row({**row, "sample": None}, ())
    assert mismatch(old, plain) == "sample 2 there, 0 now"
    assert mismatch(plain, old) == "sample 0 there, 2 now"
    assert mismatch(old, dict(old)) is None and mismatch(plain, dict(plain)) is None


# ------------------------------------------------------------------ acp run, end to end

def _acp(capsys, server, folder, out, cache, *extra):
    code = main(["acp", "run", "--model", "scripted", "--base-url", server.base_url,
                 "--questions", str(folder), "--out", str(out), "--tasks", "nexta",
                 "--limit", "2", "--cache", str(cache), "--backoff", "0.001",
                 "--timeout", "5", "--no-progress", "--temperature", "0.7", *extra])
    return code, capsys.readouterr()


def test_acp_run_samples_are_independent_with_sample_k(tmp_path, capsys):
    folder = require_shared() / "acpbench_hard"
    cache = tmp_path / "c.sqlite"
    with ChatServer(lambda req, n: answer(f"(sample {n})")) as server:
        code, io = _acp(capsys, server, folder, tmp_path / "a.jsonl", cache)
        assert code == 0, io.err
        assert len(server.requests) == 2
        # a new --out at the default sample: the cache serves the first run's answers,
        # and the run says so
        code, io = _acp(capsys, server, folder, tmp_path / "b.jsonl", cache)
        assert code == 0 and len(server.requests) == 2
        assert "2 answer(s) came from the response cache" in io.err
        assert "--sample K" in io.err
        # sample 1: asked again, recorded as sample 1
        code, io = _acp(capsys, server, folder, tmp_path / "c.jsonl", cache, "--sample", "1")
        assert code == 0, io.err
        assert len(server.requests) == 4 and "came from the response cache" not in io.err
        rows = read_results(tmp_path / "c.jsonl")
        assert [r["sample"] for r in rows] == [1, 1]
        first = {r["id"]: r["response"] for r in read_results(tmp_path / "a.jsonl")}
        assert all(first[r["id"]] != r["response"] for r in rows)
        assert all("sample" not in r for r in read_results(tmp_path / "a.jsonl"))
        # resuming sample 1's file as another sample is refused; as sample 1 it resumes
        code, io = _acp(capsys, server, folder, tmp_path / "c.jsonl", cache, "--sample", "2")
        assert code == 2 and "sample 1 there, 2 now" in io.err
        code, io = _acp(capsys, server, folder, tmp_path / "a.jsonl", cache, "--sample", "1")
        assert code == 2 and "sample 0 there, 1 now" in io.err
        code, io = _acp(capsys, server, folder, tmp_path / "c.jsonl", cache, "--sample", "1")
        assert code == 0 and "already answered" in io.err
        # a sample-1 run on a new --out is served sample 1's answers from the cache
        code, io = _acp(capsys, server, folder, tmp_path / "d.jsonl", cache, "--sample", "1",
                        "--report", str(tmp_path / "d.md"))
        assert code == 0 and len(server.requests) == 4
        assert sorted(r["response"] for r in read_results(tmp_path / "d.jsonl")) == \
            sorted(r["response"] for r in rows)
        assert "sample 1" in (tmp_path / "d.md").read_text()


def test_acp_run_at_temperature_0_ignores_the_sample(tmp_path, capsys):
    folder = require_shared() / "acpbench_hard"
    cache = tmp_path / "c.sqlite"
    with ChatServer(lambda req, n: answer(f"(sample {n})")) as server:
        assert _acp(capsys, server, folder, tmp_path / "a.jsonl", cache,
                    "--temperature", "0")[0] == 0
        code, io = _acp(capsys, server, folder, tmp_path / "b.jsonl", cache,
                        "--temperature", "0", "--sample", "3")
        assert code == 0 and len(server.requests) == 2      # the same requests: cached
        assert all("sample" not in r for r in read_results(tmp_path / "b.jsonl"))
        assert "came from the response cache" not in io.err


# ------------------------------------------------------------------ cope run

def test_cope_run_sample_k_asks_again_and_records_it(tmp_path, capsys):
    root = require_shared() / "cope" / "BlocksWorld-100"
    cache = tmp_path / "c.sqlite"

    def cope(out, *extra):
        code = main(["cope", "run", "--method", "planner", "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--categories", "goal",
                     "--limit", "1", "--out", str(out), "--no-progress", "--retries", "0",
                     "--temperature", "0.8", "--cache", str(cache), *extra])
        return code, capsys.readouterr()

    with ChatServer(lambda req, n: answer(f"(pick-up b{n})")) as server:
        assert cope(tmp_path / "a.jsonl")[0] == 0 and len(server.requests) == 1
        code, io = cope(tmp_path / "b.jsonl")
        assert code == 0 and len(server.requests) == 1
        assert "1 answer(s) came from the response cache" in io.err
        code, io = cope(tmp_path / "c.jsonl", "--sample", "1")
        assert code == 0 and len(server.requests) == 2, io.err
        (row,) = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
        assert row["sample"] == 1 and row["turns"][0]["response"] == "(pick-up b1)"
        code, io = cope(tmp_path / "c.jsonl", "--sample", "2")
        assert code == 2 and "sample 1 there, 2 now" in io.err


# ------------------------------------------------------------------ deepplanning's client

def test_the_deepplanning_tool_client_keys_on_the_sample(tmp_path):
    from planning_core.validators.deepplanning.chat_tools import OpenAIToolModel

    cache = ResponseCache(tmp_path / "c.sqlite")
    messages = [{"role": "user", "content": "plan my trip"}]
    with ChatServer(lambda req, n: answer(f"turn {n}")) as server:
        def client(temperature, sample):
            return OpenAIToolModel("m", base_url=server.base_url, temperature=temperature,
                                   cache=cache, sample=sample)

        assert client(0.7, 0)(messages, [])["content"] == "turn 0"
        assert client(0.7, 0)(messages, []).get("cached")
        assert client(0.7, 1)(messages, [])["content"] == "turn 1"
        assert client(0.7, 1)(messages, []).get("cached")
        assert client(0.0, 0)(messages, [])["content"] == "turn 2"
        assert client(0.0, 5)(messages, []).get("cached")     # greedy: no effect
    assert len(server.requests) == 3


# ------------------------------------------------------------------ adaptive run

def test_adaptive_run_sample_k_is_its_own_agent_row(tmp_path):
    """``adaptive run --agent model`` keys resume on the agent's name: sample K > 0 of a
    sampling model is another agent ("model m sample 1"), asked again, not skipped."""
    from planning_core.validators.adaptive.metrics import read_episodes
    from tests.adaptive.conftest import PLAN_CLOTH, profile_json

    profile = tmp_path / "hand.json"
    profile.write_text(json.dumps(profile_json()))
    runs, cache = tmp_path / "m.jsonl", tmp_path / "c.sqlite"
    reply = "Plan:\n```\n" + PLAN_CLOTH + "\n```"
    with ChatServer(lambda req, n: answer(reply)) as server:
        def adaptive(*extra):
            return main(["adaptive", "run", str(profile), "--tiers", "main", "--agent",
                         "model", "--model", "m", "--base-url", server.base_url,
                         "--temperature", "0.9", "--cache", str(cache), "--out", str(runs),
                         *extra])

        assert adaptive() == 0 and len(server.requests) == 1
        assert adaptive() == 0 and len(server.requests) == 1      # resumed: skipped
        assert adaptive("--sample", "1") == 0 and len(server.requests) == 2
        assert adaptive("--sample", "1") == 0 and len(server.requests) == 2
    agents = sorted(json.loads(line)["agent"] for line in runs.read_text().splitlines())
    assert agents == ["model m", "model m sample 1"]
    assert all(ep.success for ep in read_episodes(runs))


# ------------------------------------------------------------------ deepplanning run

@pytest.mark.slow
def test_deepplanning_runs_and_samples_are_independent(tmp_path, capsys):
    """``deepplanning run --runs 2`` at temperature > 0 asked the model once: runs 1.. got
    run 0's answers from the cache. Each run (and each --sample) now has its own entries."""
    tasks = tmp_path / "dp"
    assert main(["deepplanning", "generate", "shopping", "--n", "1", "--seed", "3",
                 "--out", str(tasks)]) == 0
    cache = tmp_path / "c.sqlite"
    with ChatServer(lambda req, n: answer("All done.")) as server:
        def dp(out, *extra):
            code = main(["deepplanning", "run", "--domain", "shopping", "--tasks", str(tasks),
                         "--limit", "1", "--model", "m", "--base-url", server.base_url,
                         "--backoff", "0", "--cache", str(cache), "--out", str(out),
                         "--temperature", "0.7", *extra])
            return code, capsys.readouterr()

        code, io = dp(tmp_path / "a.jsonl", "--runs", "2")
        assert code == 0, io.err
        tasks_n = len((tmp_path / "a.jsonl").read_text().splitlines()) // 2
        assert len(server.requests) == 2 * tasks_n            # run 1 asked, not cached
        code, io = dp(tmp_path / "b.jsonl", "--runs", "2")
        assert code == 0 and len(server.requests) == 2 * tasks_n   # a rerun: the cache
        code, io = dp(tmp_path / "c.jsonl", "--sample", "1")
        assert code == 0 and len(server.requests) == 3 * tasks_n
        rows = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
        assert {r["sample"] for r in rows} == {1}
        code, io = dp(tmp_path / "c.jsonl")
        assert code == 2 and "holds rows of sample 1" in io.err
