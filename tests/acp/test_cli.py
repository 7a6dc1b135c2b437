"""``planning-core acp score`` and ``planning-core acp check-gold``: outputs and exit codes."""
from __future__ import annotations

import json

import pytest

from planning_core.console import main

from tests.acp.acp_fixtures import record


@pytest.fixture
def files(tmp_path):
    questions = [record("app", qid="1"), record("val", qid="1"), record("reach", qid="2"),
                 record("land", qid="3")]
    q = tmp_path / "q.json"
    q.write_text(json.dumps(questions))
    a = tmp_path / "a.jsonl"
    answers = [{"id": "1", "task": "app", "response": "(move r0 r1) (pick c r0)"},
               {"id": "1", "task": "val", "response": "The answer is 3."},
               {"id": "2", "response": "(in g r0)"},
               {"id": "3", "response": "(holding k)"}]
    a.write_text("\n".join(json.dumps(x) for x in answers) + "\n")
    return q, a, tmp_path / "out.jsonl"


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
    assert list(rows[0]) == ["id", "task", "domain", "score", "reason", "evidence"]
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
