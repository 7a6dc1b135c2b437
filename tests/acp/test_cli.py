"""``planning-core acp score`` and ``planning-core acp check-gold``: outputs and exit codes."""
from __future__ import annotations

import json

import pytest

from planning_core.console import main

from tests.acp.acp_fixtures import record, write_score_files


@pytest.fixture
def files(tmp_path):
    return (*write_score_files(tmp_path), tmp_path / "out.jsonl")


def run(capsys, *argv):
    code = main(["acp", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_score_writes_rows_summary_report_and_plot(files, tmp_path, capsys):
    q, a, out = files
    report, plot = tmp_path / "report.md", tmp_path / "heat.png"
    code, text, _ = run(capsys, "score", "--questions", q, "--answers", a, "--out", out,
                        "--report", report, "--plot", plot, "--no-progress")
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["task"], r["score"]) for r in rows] == [("app", 1), ("val", 0), ("reach", 1),
                                                       ("land", 1)]
    # issue 12 items 4 and 5: each row names the response it scored and its CPU time
    assert list(rows[0]) == ["id", "task", "domain", "score", "reason", "evidence",
                             "response_sha256", "cpu_s", "budget"]
    assert all(r["cpu_s"] >= 0 and len(r["response_sha256"]) == 64 for r in rows)
    assert rows[2]["evidence"] == "planner-unsolvable" and rows[0]["domain"] == "trap"
    assert "accuracy" in text and "trap" in text
    assert "| reach | 1 | 1 | 0 | 0 | 100.0 |" in report.read_text()
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_score_resumes_and_skips_done_answers(files, capsys):
    q, a, out = files
    out.write_text(json.dumps({"id": "1", "task": "app", "domain": "trap", "score": 0,
                               "reason": "earlier run", "evidence": "computed-set"})
                   + "\n" + '{"id": "1", "task": "va')  # a torn last line
    code, _, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out)
    assert code == 0 and "1 answer(s) already" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["task"] for r in rows] == ["app", "val", "reach", "land"]
    assert rows[0]["reason"] == "earlier run"
    code, _, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out)
    assert "4 answer(s) already" in err and len(out.read_text().splitlines()) == 4


def test_score_rerun_with_a_larger_budget_rescores_unknown_answers(files, capsys):
    # issue 32 item 3: an answer unknown at a smaller --budget is scored again, once
    q, a, out = files
    code, _, _ = run(capsys, "score", "--questions", q, "--answers", a, "--out", out,
                     "--budget", "5000")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and {r["budget"] for r in rows} == {5000}
    unknown = {**rows[2], "score": None, "reason": "budget", "budget": 10}
    out.write_text("".join(json.dumps(r) + "\n" for r in rows[:2] + [unknown] + rows[3:]))
    code, _, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out,
                       "--budget", "10")
    assert "scored again" not in err and "computed again" not in err
    code, _, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out,
                       "--budget", "5000")
    assert "1 row(s) of" in err and "computed again" in err and "4 answer(s)" not in err
    again = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted((r["task"], r["score"], r["budget"]) for r in again) == \
        sorted((r["task"], r["score"], 5000) for r in rows)


def test_score_rescores_an_edited_response(files, capsys):
    q, a, out = files
    code, _, _ = run(capsys, "score", "--questions", q, "--answers", a, "--out", out)
    assert code == 0
    lines = a.read_text().splitlines()
    first = json.loads(lines[0])
    first["response"] = first["response"] + " (pick k r1)"   # an edited app answer
    a.write_text("\n".join([json.dumps(first)] + lines[1:]) + "\n")
    code, text, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out)
    assert code == 0
    assert "3 answer(s) already" in err and "1 answer(s) changed" in err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 5
    assert (rows[0]["task"], rows[0]["score"]) == ("app", 1)
    assert (rows[-1]["task"], rows[-1]["score"]) == ("app", 0)   # supersedes the old row
    assert rows[-1]["response_sha256"] != rows[0]["response_sha256"]
    # the summary counts the new row only
    report = out.parent / "report.md"
    code, text, err = run(capsys, "score", "--questions", q, "--answers", a, "--out", out,
                          "--report", report)
    assert "4 answer(s) already" in err and "changed" not in err
    assert len(out.read_text().splitlines()) == 5
    assert "| app | 1 | 0 | 1 | 0 | 0.0 |" in report.read_text()


@pytest.mark.parametrize("change,message", [
    ({"answers": "missing.jsonl"}, "no such file"),
    ({"questions": "missing.json"}, "no such file"),
    ({"answers_text": '{"id": "1", "response": "x"}\n'}, "several tasks"),
    ({"answers_text": "not json\n"}, "not JSON"),
    ({"out": "nowhere/out.jsonl"}, "does not exist"),
])
def test_score_bad_input_exits_2_without_traceback(files, tmp_path, capsys, change, message):
    q, a, out = files
    if "answers_text" in change:
        a.write_text(change["answers_text"])
    args = {"questions": q, "answers": a, "out": out}
    args.update({k: tmp_path / v for k, v in change.items() if k != "answers_text"})
    code, _, err = run(capsys, "score", "--questions", args["questions"], "--answers",
                       args["answers"], "--out", args["out"])
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["score"], ["score", "--questions", "q", "--answers", "a",
                                              "--out", "o", "--time-limit", "-1"],
                                  ["check-gold"], []])
def test_bad_arguments_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as err:
        main(["acp", *argv])
    assert err.value.code == 2


def test_check_gold(tmp_path, capsys):
    q = tmp_path / "q.json"
    q.write_text(json.dumps([record(t, qid=str(k)) for k, t in enumerate(
        ["app", "prog", "reach", "areach", "val", "just", "land", "nexta"])]))
    code, text, _ = run(capsys, "check-gold", "--questions", q)
    assert code == 0 and "all        8/8" in text
    code, text, _ = run(capsys, "check-gold", "--questions", q, "--json")
    got = json.loads(text)
    assert got["gold_right"] == 8 and got["failures"] == []


def test_check_gold_reports_a_refuted_stored_none(tmp_path, capsys):
    q = tmp_path / "q.json"
    q.write_text(json.dumps([record("reach", answer=[]), record("app", qid="2")]))
    code, text, _ = run(capsys, "check-gold", "--questions", q)
    assert code == 1 and "FAIL reach 1 (trap)" in text and "(in g r0)" in text
    code, text, _ = run(capsys, "check-gold", "--questions", q, "--trust-stored-none")
    assert code == 0
