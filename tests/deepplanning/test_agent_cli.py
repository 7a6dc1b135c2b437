"""The agent loop (budget, every turn kept, unreadable answers), the oracle agents at 100%,
and the ``deepplanning`` commands."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from planning_core.console import main
from planning_core.validators.deepplanning.agent import (run_episode, score_episode,
                                                         shopping_oracle, travel_oracle)
from planning_core.validators.deepplanning.chat_tools import (CommandToolModel,
                                                              ScriptedToolModel)
from planning_core.validators.deepplanning.tasks import find_tasks


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("dp")
    assert main(["deepplanning", "generate", "travel", "--n", "6", "--seed", "3",
                 "--out", str(d)]) == 0
    assert main(["deepplanning", "generate", "shopping", "--n", "2", "--seed", "3",
                 "--out", str(d)]) == 0
    return d


def test_the_oracle_agents_score_100_percent_in_both_modes(tasks, capsys, tmp_path):
    for mode, threads in (("paper", "4"), ("released", "1")):
        out = tmp_path / f"{mode}.jsonl"
        code, text, _ = run(capsys, "deepplanning", "run", "--agent", "oracle", "--tasks",
                            str(tasks), "--out", str(out), "--scoring", mode,
                            "--concurrency", threads)   # 4: z3 proofs in threads
        assert code == 0
        rows = [json.loads(l) for l in out.read_text().splitlines()]
        assert len(rows) == 6 + 6 and all(r["score"]["case_acc"] == 1 for r in rows)
        assert all(r["messages"][0]["role"] == "system" for r in rows)
        code, text, _ = run(capsys, "deepplanning", "report", str(out), "--json")
        t = json.loads(text)
        assert t["average"]["avg_acc"] == 1 and t["average"]["cs"] == 1
        assert t["average"]["match"] == 1 and t["mode"] == mode


def test_run_resumes_and_repeats_runs(tasks, capsys, tmp_path):
    out = tmp_path / "r.jsonl"
    run(capsys, "deepplanning", "run", "--agent", "oracle", "--domain", "shopping",
        "--tasks", str(tasks), "--out", str(out), "--limit", "1")
    assert len(out.read_text().splitlines()) == 3
    run(capsys, "deepplanning", "run", "--agent", "oracle", "--domain", "shopping",
        "--tasks", str(tasks), "--out", str(out), "--limit", "1", "--runs", "2")
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert sorted((r["key"], r["run"]) for r in rows) == sorted(
        {(r["key"], r["run"]) for r in rows})
    assert {r["run"] for r in rows} == {0, 1} and len(rows) == 6
    code, text, _ = run(capsys, "deepplanning", "report", str(out))
    assert "| mean |" in text and code == 0


def test_a_model_over_the_tool_budget_ends_the_task_incomplete(tasks):
    task = next(find_tasks(tasks, "travel"))
    greedy = ScriptedToolModel(lambda m, t: {"tool_calls": [
        {"name": "search_location", "arguments": '{"place_name": "x"}'}] * 3})
    ep = run_episode(greedy, task, max_tool_calls=7)
    assert ep["status"] == "incomplete" and ep["tool_calls"] == 7
    assert "more than 7" in ep["note"]
    tool_msgs = [m for m in ep["messages"] if m["role"] == "tool"]
    # 7 executed, then the 2 calls past the budget recorded once with their count
    assert len(tool_msgs) == 8 and "2 call(s) of this turn not executed" in \
        tool_msgs[-1]["content"]
    v = score_episode(task, ep)
    assert v["case_acc"] == 0 and v["parse_error"].startswith("incomplete")


def test_an_unparseable_final_answer_is_recorded(tasks):
    task = next(find_tasks(tasks, "travel"))
    ep = run_episode(ScriptedToolModel(lambda m, t: {"content": "Day 1: fly. Day 2: fly."}),
                     task)
    v = score_episode(task, ep)
    assert ep["status"] == "answered" and v["parse_error"] and v["commonsense"] == 0


def test_a_command_model_drives_the_loop(tasks, tmp_path):
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent("""
        import json, sys
        req = json.load(sys.stdin)
        if not any(m["role"] == "tool" for m in req["messages"]):
            print(json.dumps({"tool_calls": [{"name": "get_user_info", "arguments": {}}]}))
        else:
            print("done, nothing bought")
    """))
    task = next(find_tasks(tasks, "shopping"))
    ep = run_episode(CommandToolModel(f"{sys.executable} {script}"), task)
    assert ep["status"] == "answered" and ep["tool_calls"] == 1
    assert ep["final"].startswith("done")
    assert score_episode(task, ep)["match"] == 0


def test_oracle_agents_exist_for_both_domains(tasks):
    t = next(find_tasks(tasks, "travel"))
    s = next(find_tasks(tasks, "shopping"))
    assert run_episode(ScriptedToolModel(travel_oracle(t)), t)["status"] == "answered"
    assert run_episode(ScriptedToolModel(shopping_oracle(s)), s)["tool_calls"] >= 2


def test_score_commands_read_written_answers(tasks, capsys, tmp_path):
    plans = tmp_path / "plans"
    plans.mkdir()
    for t in find_tasks(tasks, "travel"):
        src = t.folder / "oracle_plan.json"
        (plans / f"id_{t.task_id}.json").write_text(src.read_text())
    (plans / "id_0.json").write_text("not a plan")
    code, text, _ = run(capsys, "deepplanning", "score", "travel", "--tasks", str(tasks),
                        "--plans", str(plans), "--json")
    rows = [json.loads(l) for l in text.splitlines()]
    assert code == 0 and [r["case_acc"] for r in rows] == [0, 1, 1, 1, 1, 1]
    code, text, _ = run(capsys, "deepplanning", "score", "shopping", "--tasks", str(tasks))
    assert code == 0 and "case_acc=0" in text   # generated carts start empty


def test_queries_describes_a_query_file(tasks, capsys):
    code, text, _ = run(capsys, "deepplanning", "queries",
                        str(tasks / "travelplanning_query_en.json"), "--json",
                        "--database", str(tasks / "database_en"))
    r = json.loads(text)
    assert code == 0 and r["queries"] == 6 and r["cannot_check"] == {}
    assert r["ungrounded"] == [] and sum(r["kinds"].values()) >= 12


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "q.json"
    bad.write_text("{oops")
    code, _, err = run(capsys, "deepplanning", "queries", str(bad))
    assert code == 2 and "not JSON" in err and "Traceback" not in err
    code, _, err = run(capsys, "deepplanning", "run", "--tasks", str(tmp_path), "--out",
                       str(tmp_path / "o.jsonl"), "--agent", "oracle")
    assert code == 2 and "no task found" in err
    code, _, err = run(capsys, "deepplanning", "generate", "shopping", "--levels", "4",
                       "--out", str(tmp_path))
    assert code == 2
    code, _, err = run(capsys, "deepplanning", "run", "--tasks", str(tmp_path), "--out",
                       str(tmp_path / "o.jsonl"))
    assert code == 2


def _tool_reply(call: int):
    from tests.models.chat_server import Reply, answer

    if call == 0:
        body = {"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                    "role": "assistant", "content": None, "tool_calls": [
                        {"id": "t1", "type": "function", "function": {
                            "name": "get_user_info", "arguments": "{}"}}]}}]}
        return Reply(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
    return answer("All done.")


@pytest.mark.slow
def test_run_drives_an_openai_compatible_server_with_tools(tasks, capsys, tmp_path):
    from tests.models.chat_server import ChatServer, error

    calls = []

    def script(request, n):
        calls.append(request)
        if n == 0:
            return error(429, "slow down", {"Retry-After": "0"})
        return _tool_reply(len([c for c in calls[1:]]) - 1)

    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "r.jsonl"
    with ChatServer(script) as server:
        argv = ["deepplanning", "run", "--domain", "shopping", "--tasks", str(tasks),
                "--limit", "1", "--model", "m", "--base-url", server.base_url,
                "--backoff", "0", "--cache", str(cache), "--out", str(out),
                "--concurrency", "1"]
        code, text, err = run(capsys, *argv)
        assert code == 0, err
        rows = [json.loads(l) for l in out.read_text().splitlines()]
        assert len(rows) == 3 and all(r["status"] == "answered" for r in rows)
        assert rows[0]["tool_calls"] == 1 and rows[0]["model"] == "m"
        first = calls[1]
        assert len(first["tools"]) == 15 and first["messages"][0]["role"] == "system"
        assert any(m["role"] == "tool" for m in calls[2]["messages"])
        n = len(calls)
        out.unlink()
        code, _, _ = run(capsys, *argv)         # same questions: answered from the cache
        assert code == 0 and len(calls) == n


def test_queries_names_the_kinds_it_cannot_check(tmp_path, capsys):
    entries = [{"id": "0", "query": "q", "meta_info": {"org": "Hefei", "dest": ["Nanjing"],
                "hard_constraints": {
                    "train_seat_status": {"people_number": 3, "outbound_train_no": "G7798",
                                          "inbound_train_no": "G3031"},
                    "hotel_star_service_required": {"hotel_name": "Orange Hotel"},
                    "weather_sunny": {"anything": 1},
                    "restaurant_specific_tag_nearby": {"attraction_name": "Laomendong"}}}},
               {"id": "1", "query": "q", "meta_info": {"hard_constraints": {
                   "budget_constraint": {"max_budget": 3000}}}}]
    path = tmp_path / "travelplanning_query_en.json"
    path.write_text(json.dumps(entries))
    code, text, _ = run(capsys, "deepplanning", "queries", str(path), "--json")
    r = json.loads(text)
    assert r["queries"] == 2 and r["kinds"]["budget_constraint"] == 1
    assert set(r["cannot_check"]) == {"weather_sunny", "restaurant_specific_tag_nearby"}
    assert r["not_in_release"] == ["weather_sunny"]
    shop = tmp_path / "level_1_query_meta.json"
    shop.write_text(json.dumps([{"id": "1", "query": "shoes"}]))
    code, text, _ = run(capsys, "deepplanning", "queries", str(shop))
    assert code == 0 and "1 shopping queries" in text


def test_unwritable_outputs_and_a_shopping_only_folder(tasks, tmp_path, capsys):
    code, _, err = run(capsys, "deepplanning", "generate", "travel", "--n", "1", "--out",
                       "/proc/no/such")
    assert code == 2 and "cannot write" in err
    code, _, err = run(capsys, "deepplanning", "run", "--agent", "oracle", "--tasks",
                       str(tasks), "--out", str(tmp_path))
    assert code == 2 and "is a folder, not a file" in err     # the shared results opener
    shop_only = tmp_path / "shop"
    assert main(["deepplanning", "generate", "shopping", "--n", "1", "--levels", "1",
                 "--out", str(shop_only)]) == 0
    code, text, _ = run(capsys, "deepplanning", "run", "--agent", "oracle", "--tasks",
                        str(shop_only), "--out", str(tmp_path / "r.jsonl"))
    assert code == 0 and "case_acc=1" in text
