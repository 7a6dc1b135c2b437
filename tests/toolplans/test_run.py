"""``toolplans run`` end to end: the real openai client against a scripted local server,
and ``--command``.

The server reads which case a prompt is (the prompts are rendered by :mod:`.prompts` from
the cases, and differ per case) and answers with the case's own reference in the paper's
format (a REJECT for an unsolvable case), so every row must be correct; a server that
always refuses must be right exactly on the unsolvable cases.
"""
from __future__ import annotations

import json
import re
import shlex
import sys

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.acp.dataset import read_results
from planning_core.validators.toolplans.apb import build_sets, extraneous_bases, load_domains
from planning_core.validators.toolplans.apb_report import half_up
from planning_core.validators.toolplans.prompts import case_prompt

from tests.models.chat_server import ChatServer, answer, error


def reference_answer(case: dict) -> str:
    """The case's reference as a model in the paper's format would write it."""
    setting = case["setting"]
    base = case.get("base") or ("stepwise" if setting in ("stepwise", "broken") else "holistic")
    if setting == "unsolvable":
        return json.dumps({"status": "REJECT", "reason": "a needed tool or input is missing"})
    if base == "stepwise":
        steps = [{"role": "assistant", "thought": f"call {c['name']}",
                  "tool_calls": [{"type": "function",
                                  "function": {"name": c["name"], "arguments": c["arguments"]}}]}
                 for c in case["reference"]]
        return json.dumps(steps[0] if (case.get("k") or 1) == 1 else steps)
    return json.dumps({"plan": "Call the tools in order.",
                       "tool_chain": [{"name": c["name"], "parameter_description": c["arguments"],
                                       "reason": "needed"} for c in case["reference"]]})


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    cases = build_sets(load_domains(), seed=3, scale=0.004)
    path = tmp_path_factory.mktemp("cases") / "cases.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    return path, cases


def _answers(cases):
    everything = cases + extraneous_bases(cases)
    return {case_prompt(c): reference_answer(c) for c in everything}


def _run(capsys, server, cases_path, out, *extra):
    code = main(["toolplans", "run", "--model", "scripted", "--base-url", server.base_url,
                 "--cases", str(cases_path), "--out", str(out), "--no-cache",
                 "--backoff", "0.001", "--timeout", "5", "--no-progress", *extra])
    return code, capsys.readouterr()


def test_reference_answers_are_all_correct_and_the_report_has_every_table(cases, tmp_path,
                                                                            capsys):
    path, rows_in = cases
    by_prompt = _answers(rows_in)
    out, report = tmp_path / "r.jsonl", tmp_path / "r.md"
    with ChatServer(lambda req, n: answer(by_prompt[ChatServer.prompt_of(req)])) as server:
        code, io = _run(capsys, server, path, out, "--report", str(report))
    assert code == 0, io.err
    rows = read_results(out)
    settings = {r["setting"] for r in rows}
    assert settings == {"holistic", "stepwise", "extraneous", "broken", "unsolvable"}
    n_bases = len({c["id"].rsplit("-n", 1)[0] for c in rows_in if c["setting"] == "extraneous"})
    assert len(rows) == len(rows_in) + n_bases
    assert all(r["correct"] is True for r in rows), [
        (r["id"], r.get("faults")) for r in rows if r["correct"] is not True][:3]
    assert {r["behaviour"] for r in rows if r["setting"] == "broken"} == {"replace"}
    assert rows[0]["model"] == "scripted" and rows[0]["params"]["temperature"] == 0.0
    text = report.read_text()
    for heading in ("### Table 1", "### Table 2 (extraneous tools)",
                    "### Step-wise by prediction horizon (Figure 5)"):
        assert heading in text
    assert "| scripted | 100.0 | 1.0 |" in text
    # what was sent: the paper's prompts, no reference
    prompts = [ChatServer.prompt_of(r) for r in server.requests]
    assert any(p.startswith("You are solving a task step by step only using the available "
                            "tools.") and "NEXT THREE STEPS" in p for p in prompts)
    assert any(p.startswith("You are an expert AI assistant.") and "parameter_description" in p
               for p in prompts)
    assert any("Observation: Error:" in p for p in prompts)          # tool-broken prefix
    assert any('"status": "REJECT"' in p for p in prompts)           # unsolvable prompt
    assert not any("Query is Solvable" in p and '"status": "REJECT"' in p for p in prompts)


def test_a_refusing_model_is_right_only_on_unsolvable_cases_and_a_rerun_asks_nothing(
        cases, tmp_path, capsys):
    path, rows_in = cases
    out = tmp_path / "r.jsonl"
    refuse = json.dumps({"status": "REJECT", "reason": "no"})
    with ChatServer(lambda req, n: answer(refuse)) as server:
        code, io = _run(capsys, server, path, out, "--settings", "holistic,unsolvable")
        asked = len(server.requests)
        code2, io2 = _run(capsys, server, path, out, "--settings", "holistic,unsolvable")
        assert len(server.requests) == asked          # resumed: nothing asked again
    assert code == code2 == 0, io.err
    rows = read_results(out)
    assert all(r["correct"] is (r["setting"] == "unsolvable") for r in rows)
    assert "already answered" in io2.err


def test_a_rerun_with_another_setting_is_refused_and_failures_are_rows(cases, tmp_path,
                                                                       capsys):
    path, rows_in = cases
    out = tmp_path / "r.jsonl"
    by_prompt = _answers(rows_in)
    broken = {"on": True}

    def script(req, n):
        if broken["on"] and "Task:" in ChatServer.prompt_of(req):
            return error(400, "bad request")
        return answer(by_prompt[ChatServer.prompt_of(req)])

    with ChatServer(script) as server:
        code, io = _run(capsys, server, path, out, "--settings", "stepwise,holistic")
        assert code == 1 and "have no answer" in io.err
        failed = [r for r in read_results(out) if "error" in r]
        assert failed and all(r["setting"] == "stepwise" for r in failed)
        broken["on"] = False
        code, io = _run(capsys, server, path, out, "--settings", "stepwise,holistic")
        assert code == 0, io.err
        code, io = _run(capsys, server, path, out, "--settings", "stepwise",
                        "--temperature", "0.5")
    assert code == 2 and "another setting" in io.err


def test_refinement_with_a_critic(cases, tmp_path, capsys):
    """critic+: the critic gets the taxonomy-guided review prompt, the model refines; the
    rows keep the initial answer, its verdict and the reflection (Table 4)."""
    path, rows_in = cases
    by_prompt = _answers(rows_in)
    out, report = tmp_path / "r.jsonl", tmp_path / "r.md"

    def script(req, n):
        msgs = req["messages"]
        if len(msgs) == 1 and msgs[0]["content"] in by_prompt:       # the first answer
            return answer(json.dumps({"plan": "nothing", "tool_chain": []}))
        if msgs[-1]["content"].startswith("A review of your answer"):   # refine
            return answer(by_prompt[msgs[0]["content"]])
        return answer("E2_TASK_COMPLETENESS: the chain is empty; call the tools.")

    with ChatServer(script) as server:
        code, io = _run(capsys, server, path, out, "--settings", "holistic",
                        "--refine", "critic+", "--critic-model", "critic",
                        "--critic-base-url", server.base_url, "--report", str(report))
    assert code == 0, io.err
    rows = read_results(out)
    assert rows and all(r["initial"]["correct"] is False and r["correct"] is True for r in rows)
    assert all(r["reflection_model"] == "critic" for r in rows)
    reviews = [r["messages"][-1]["content"] for r in server.requests if r["model"] == "critic"]
    assert reviews and all("E2_TASK_COMPLETENESS" in t for t in reviews)
    assert "| scripted | critic+ | 0.0 | 100.0 | 100.0 |" in report.read_text()


def test_a_command_as_the_model(cases, tmp_path, capsys):
    """--command: the prompt on stdin, the answer on stdout; a program that refuses."""
    path, _ = cases
    program = ("import sys, json; sys.stdin.read(); "
               "print(json.dumps({'status': 'REJECT', 'reason': 'no'}))")
    out = tmp_path / "r.jsonl"
    code = main(["toolplans", "run", "--command", f"{shlex.quote(sys.executable)} -c "
                 f"{shlex.quote(program)}", "--cases", str(path), "--out", str(out),
                 "--settings", "unsolvable", "--limit", "4", "--no-cache", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    rows = read_results(out)
    assert len(rows) == 4 and all(r["correct"] is True for r in rows)
    assert all(r["model"].startswith("command:") for r in rows)


def test_rates_round_half_up_as_the_paper_prints_them():
    assert half_up(5, 8, 2) == 0.63           # 0.625
    assert half_up(1, 8, 2) == 0.13           # 0.125 (round() gives 0.12)
    assert half_up(249, 4, 1) == 62.3         # 62.25
    assert half_up(-249, 4, 1) == -62.3


def test_generate_works_from_any_folder(tmp_path, monkeypatch, capsys):
    """The tool domains ship with the package: no checkout folder is needed."""
    monkeypatch.chdir(tmp_path)
    code = main(["toolplans", "generate", "--out", "c.jsonl", "--scale", "0.003"])
    out = capsys.readouterr().out
    assert code == 0 and "over 11 tool domain(s)" in out
    assert (tmp_path / "c.jsonl").read_text().count("\n") > 10


def test_generated_cases_never_state_a_withheld_value_and_references_fit_k():
    cases = build_sets(load_domains(), seed=0, scale=0.05)
    hidden = [c for c in cases if c.get("kind") in ("missing_input", "visual_missing")]
    assert hidden
    for c in hidden:
        assert c["withheld"], c["id"]
        for w in c["withheld"]:
            # as a whole word: a withheld 3 is not the 3 of "city 139"
            assert not re.search(rf"(?<![\w.]){re.escape(str(w['value']))}(?![\w])",
                                 c["task"]["request"]), (c["id"], c["task"]["request"])
    for c in cases:
        if c["setting"] == "stepwise" or c.get("base") == "stepwise":
            assert len(c["reference"]) == c["k"], c["id"]


def test_answers_unknown_at_a_smaller_time_limit_are_checked_again(cases, tmp_path, capsys):
    """Issue 32 item 3: every row records --time-limit; a rerun with a larger one checks
    the stored answers that were unknown at the smaller one again (the model is not asked
    again) and says so; one unknown at the same limit is kept unless --retry-unknown."""
    path, rows_in = cases
    by_prompt = _answers(rows_in)
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: answer(by_prompt[ChatServer.prompt_of(req)])) as server:
        code, io = _run(capsys, server, path, out, "--settings", "holistic,stepwise",
                        "--time-limit", "20")
        asked = len(server.requests)
        rows = read_results(out)
        assert code == 0 and all(r["time_limit_s"] == 20 for r in rows)
        # as if the checks of three answers had stopped at their limit: two at 5 s, one at 20
        for r, limit in zip(rows[:3], (5, 5, 20)):
            r.update(verdict="unknown", correct=None, time_limit_s=limit)
            r.pop("grade", None)
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, io = _run(capsys, server, path, out, "--settings", "holistic,stepwise",
                        "--time-limit", "20")
        assert f"2 row(s) of {out} that ran into their limit are computed again (their " \
               "limit was below this run's 20 s)" in io.err
        code, io = _run(capsys, server, path, out, "--settings", "holistic,stepwise",
                        "--time-limit", "20", "--retry-unknown")
        assert f"1 row(s) of {out} that ran into their limit" in io.err
        code, io = _run(capsys, server, path, out, "--settings", "holistic,stepwise",
                        "--time-limit", "20", "--retry-unknown")
        assert "computed again" not in io.err and code == 0
        assert len(server.requests) == asked       # nothing asked again
    from planning_core.validators.toolplans.run import latest_rows

    final = latest_rows(read_results(out))
    assert len(final) == len(rows) and all(r["correct"] is True for r in final)
    again = {r["id"] for r in final if r.get("rescored")}
    assert again == {r["id"] for r in rows[:3]}
    assert all(r["model"] == "scripted" and "usage" in r for r in final if r.get("rescored"))
    assert len(read_results(out)) == len(rows) + 3


def test_hostile_rows_of_a_resumed_file_are_rows_not_tracebacks(cases, tmp_path, capsys):
    """A rerun reads back whatever OUT holds: a limit that is a list or a string, a stored
    answer that is a list, an initial answer of the wrong shape, a huge answer. Nothing
    crashes, each item keeps one latest row, and only well-formed limits are compared."""
    path, rows_in = cases
    by_prompt = _answers(rows_in)
    out = tmp_path / "r.jsonl"
    with ChatServer(lambda req, n: answer(by_prompt[ChatServer.prompt_of(req)])) as server:
        code, _ = _run(capsys, server, path, out, "--settings", "holistic",
                       "--time-limit", "5")
        rows = read_results(out)
        assert code == 0 and len(rows) >= 4
        hostile = [{"time_limit_s": [1]}, {"time_limit_s": "1"},
                   {"time_limit_s": 1, "response": ["not", "text"],
                    "initial": {"response": {"a": [1]}}},
                   {"time_limit_s": 1, "response": "x" * 300_000, "initial": [1]}]
        for r, bad in zip(rows, hostile):
            r.update(verdict="unknown", correct=None, **bad)
        out.write_text("".join(json.dumps(r) + "\n" for r in rows))
        code, io = _run(capsys, server, path, out, "--settings", "holistic",
                        "--time-limit", "5")
        assert "Traceback" not in io.err and code in (0, 1), io.err
        # the two rows with a number below 5 are checked again; the others are kept
        assert f"2 row(s) of {out} that ran into their limit are computed again" in io.err
        asked = len(server.requests)
        code, io = _run(capsys, server, path, out, "--settings", "holistic",
                        "--time-limit", "5", "--retry-unknown")
        assert "Traceback" not in io.err and code in (0, 1), io.err
        assert len(server.requests) == asked
    from planning_core.validators.toolplans.run import latest_rows, row_key

    final = latest_rows(read_results(out))
    assert len(final) == len(rows) == len({row_key(r) for r in final})
    assert len(read_results(out)) == len(rows) + 2 + 2   # 2 rescored, then the 2 unknown
