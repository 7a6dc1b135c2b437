"""``acp score``'s one policy for bad rows, its size cap, and the answer formats of other
tools (issue 9, items 6, 7, 9, 17, 20)."""
from __future__ import annotations

import json

import pytest

from planning_core.console import main
from planning_core.validators.acp.batch import Job, score_jobs
from planning_core.validators.acp.dataset import load_answers, load_questions
from planning_core.validators.acp.records import Question
from planning_core.validators.acp.scoring import AnswerScorer
from planning_core.results_file import open_results

from tests.acp.acp_fixtures import record


@pytest.fixture
def questions(tmp_path):
    q = tmp_path / "q.json"
    q.write_text(json.dumps([record("app", qid="1"), record("reach", qid="2")]))
    return q


def score(capsys, *argv):
    code = main(["acp", "score", *map(str, argv), "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


def rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_bad_answer_rows_are_recorded_and_the_run_goes_on(questions, tmp_path, capsys):
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "1", "task": "app", "response": "(move r0 r1) (pick c r0)"}\n'
                       "not json\n"
                       '{"id": "1", "task": "app", "response": "again"}\n'
                       '{"id": "9", "response": "(x)"}\n'
                       '{"response": "no id"}\n'
                       + "[" * 3000 + "\n")
    out = tmp_path / "r.jsonl"
    code, _, err = score(capsys, "--questions", questions, "--answers", answers,
                         "--out", out, "--strict")
    assert code == 2 and f"{answers}:2" in err and not out.exists()
    code, text, err = score(capsys, "--questions", questions, "--answers", answers,
                            "--out", out)
    assert code == 0, err
    got = rows(out)
    assert [r["evidence"] for r in got].count("bad-input") == 5
    assert {r["source"] for r in got if r["evidence"] == "bad-input"} == \
        {f"{answers}:{n}" for n in (2, 3, 4, 5, 6)}
    scored = [r for r in got if r["evidence"] != "bad-input"]
    assert [(r["task"], r["score"]) for r in scored] == [("app", 1)]
    assert "5 answer row(s) could not be used" in err
    code, _, _ = score(capsys, "--questions", questions, "--answers", answers, "--out", out)
    assert code == 0 and len(rows(out)) == 6          # resumed: nothing recorded twice


def test_nothing_scored_is_an_error(questions, tmp_path, capsys):
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "9", "response": "(x)"}\n')
    code, _, err = score(capsys, "--questions", questions, "--answers", answers,
                         "--out", tmp_path / "r.jsonl")
    assert code == 2 and "no answer could be scored" in err


def test_a_locked_results_file_is_refused(questions, tmp_path, capsys):
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": "2", "response": "(in g r0)"}\n')
    out = tmp_path / "r.jsonl"
    handle, _ = open_results(out)
    try:
        code, _, err = score(capsys, "--questions", questions, "--answers", answers,
                             "--out", out)
        assert code == 2 and "another run is writing" in err
    finally:
        handle.close()
    assert score(capsys, "--questions", questions, "--answers", answers, "--out", out)[0] == 0


def test_too_large_and_internal_errors_are_rows(monkeypatch):
    q = Question.from_record(record("app", qid="1"))
    scorer = AnswerScorer(max_response_bytes=1000)
    assert scorer(q, "(move r0 r1)" * 200).evidence == "too-large"
    assert scorer(q, "é" * 400).evidence != "too-large"      # 800 bytes
    assert scorer(q, "é" * 501).evidence == "too-large"      # 1002 bytes
    import planning_core.validators.acp.scoring as scoring

    def broken(*_):
        raise ValueError("scorer bug")

    monkeypatch.setitem(scoring.SCORERS, "app", broken)
    jobs = [Job(0, q, "(move r0 r1)"), Job(1, Question.from_record(record("reach", qid="2")),
                                           "(in g r0)")]
    got = [row for _, row in score_jobs(jobs)]
    assert got[0]["evidence"] == "internal-error" and "scorer bug" in got[0]["reason"]
    assert got[1]["score"] == 1


def test_lm_eval_samples_are_answers(questions, tmp_path, capsys):
    folder = tmp_path / "lm_eval"
    folder.mkdir()
    doc_app, doc_reach = record("app", qid="1"), record("reach", qid="2")
    (folder / "samples_acp_app_gen_2025-01-01T00-00-00.jsonl").write_text(json.dumps({
        "doc_id": 0, "doc": doc_app, "target": "", "arguments": [],
        "resps": [["(move r0 r1) (pick c r0)"]], "filtered_resps": ["(move r0 r1)"],
        "filter": "none", "metrics": ["exact_match"]}) + "\n")
    (folder / "samples_acp_reach_gen_2025-01-01T00-00-00.jsonl").write_text(json.dumps({
        "doc_id": 0, "doc": doc_reach, "filtered_resps": ["(in g r0)"]}) + "\n")
    answers = load_answers(folder)
    assert [(a.id, a.task, a.response) for a in answers] == [
        ("1", "app", "(move r0 r1) (pick c r0)"), ("2", "reach", "(in g r0)")]
    out = tmp_path / "r.jsonl"
    code, _, err = score(capsys, "--questions", questions, "--answers", folder, "--out", out)
    assert code == 0, err
    assert [(r["task"], r["score"]) for r in rows(out)] == [("app", 1), ("reach", 1)]


def test_parquet_answers_written_as_python_literals(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    app, prog = record("app", qid="1"), record("prog", qid="2")
    app["answer"] = repr(app["answer"])          # "['(move r0 r1)', ...]"
    prog["answer"] = repr(prog["answer"])        # "{'pos': [...], 'neg': [...]}"
    assert app["answer"].startswith("['") and prog["answer"].startswith("{'")
    path = tmp_path / "acp_gen.parquet"
    pq.write_table(pa.Table.from_pylist([app, prog]), path)
    got = load_questions(path)
    assert got[0].answer == record("app")["answer"]
    assert got[1].answer == {k: list(v) for k, v in record("prog")["answer"].items()}
    evil = dict(app, answer="__import__('os').system('echo pwned')")
    pq.write_table(pa.Table.from_pylist([evil]), path)
    with pytest.raises(Exception, match="neither JSON nor a Python literal"):
        load_questions(path)
