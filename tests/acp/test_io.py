"""Reading questions (JSON, JSON Lines, parquet, folders), answers and result files."""
from __future__ import annotations

import json

import pytest

from planning_core.validators.acp.batch import match_answers, score_jobs
from planning_core.validators.acp.dataset import (Answer, DatasetError, done_keys, load_answers,
                                    load_questions, read_results)
from planning_core.validators.acp.records import BadQuestion, Question

from tests.acp.acp_fixtures import record


def rows():
    return [record("app", qid="1"), record("val", qid="1"), record("reach", qid="2")]


def test_json_list_and_json_lines_read_the_same(tmp_path):
    (tmp_path / "q.json").write_text(json.dumps(rows()))
    (tmp_path / "q.jsonl").write_text("\n".join(json.dumps(r) for r in rows()) + "\n\n")
    a, b = load_questions(tmp_path / "q.json"), load_questions(tmp_path / "q.jsonl")
    assert a == b
    assert [q.task for q in a] == ["app", "val", "reach"]
    assert a[0].domain_name == "trap"


def test_folder_reads_every_file_in_sorted_order(tmp_path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.json").write_text(json.dumps(rows()[:1]))
    (tmp_path / "a.jsonl").write_text(json.dumps(rows()[2]) + "\n")
    (tmp_path / "notes.txt").write_text("ignored")
    assert [q.task for q in load_questions(tmp_path)] == ["reach", "app"]


def test_parquet_in_the_hugging_face_layout(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    folder = tmp_path / "acp_app_gen"
    folder.mkdir()
    data = [dict(r, answer=r["answer"]) for r in rows()[:1]]
    pq.write_table(pa.Table.from_pylist(data), folder / "validation.parquet")
    # the answer may also be stored as JSON text (one column type for every task)
    folder2 = tmp_path / "acp_prog_gen"
    folder2.mkdir()
    prog = record("prog")
    prog["answer"] = json.dumps(prog["answer"])
    pq.write_table(pa.Table.from_pylist([prog]), folder2 / "validation.parquet")
    got = load_questions(tmp_path)
    assert [q.task for q in got] == ["app", "prog"]
    assert got[0].answer == ["(move r0 r1)", "(pick c r0)"]
    assert got[1].answer["neg"] == ["(at r0)"]


def test_parquet_without_pyarrow_says_what_to_install(tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_pyarrow(name, *a, **k):
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    (tmp_path / "q.parquet").write_bytes(b"PAR1")
    with pytest.raises(DatasetError, match=r"pip install 'planning-core\[data\]'"):
        load_questions(tmp_path / "q.parquet")


@pytest.mark.parametrize("content,message", [
    ("[1, 2", "not JSON"),
    ('{"id": 1}\n', "missing field"),
    (json.dumps(dict(record("app"), group="mystery_gen")) + "\n", "unknown group"),
    (json.dumps(dict(record("prog"), answer=[1])) + "\n", "prog answer"),
    (json.dumps(dict(record("val"), answer="x")) + "\n", "val answer"),
])
def test_bad_question_files(tmp_path, content, message):
    path = tmp_path / "q.jsonl"
    path.write_text(content)
    with pytest.raises(DatasetError, match=message) as err:
        load_questions(path)
    assert err.value.file == str(path)


def test_bad_json_line_is_located(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(record("app")) + "\n{oops\n")
    with pytest.raises(DatasetError) as err:
        load_questions(path)
    assert err.value.line == 2


def test_question_from_record_rejects_non_objects():
    with pytest.raises(BadQuestion, match="JSON object"):
        Question.from_record([1, 2])


def test_answers(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1, "response": "(x)"}\n{"id": "2", "task": "reach", '
                    '"response": null}\n{"id": 3, "response": ["(a)", "(b)"]}\n')
    got = load_answers(path)
    assert got[0] == Answer("1", "(x)") and got[1] == Answer("2", "", "reach")
    assert json.loads(got[2].response) == ["(a)", "(b)"]
    path.write_text('{"id": 1, "response": "a"}\n{"id": 1, "response": "b"}\n')
    with pytest.raises(DatasetError, match="twice") as err:
        load_answers(path)
    assert err.value.line == 2
    path.write_text('{"id": 1}\n')
    with pytest.raises(DatasetError, match='"response"'):
        load_answers(path)


def test_matching_answers_to_questions():
    questions = [Question.from_record(r) for r in rows()]
    jobs = match_answers(questions, [Answer("2", "None"), Answer("1", "3", "val")])
    assert [(j.question.task, j.response) for j in jobs] == [("reach", "None"), ("val", "3")]
    with pytest.raises(DatasetError, match="several tasks"):
        match_answers(questions, [Answer("1", "x")])
    with pytest.raises(DatasetError, match="match no question: 9"):
        match_answers(questions, [Answer("9", "x")])


def test_results_file_resume_keys_and_torn_line(tmp_path):
    path = tmp_path / "r.jsonl"
    assert read_results(path) == []
    path.write_text('{"id": "1", "task": "app", "score": 1}\n{"id": "2", "ta')
    got = read_results(path)
    assert done_keys(got) == {("app", "1")}
    path.write_text('{"id": "1"\n{"id": "2"}\n')
    with pytest.raises(DatasetError):
        read_results(path)



@pytest.mark.parametrize("line", ["7", "[]", '"row"', "null"])
def test_a_results_row_that_is_not_an_object_is_a_located_error(tmp_path, capsys, line):
    """acp report (and acp score's resume) crashed with TypeError/AttributeError on it:
    "internal error", exit 4."""
    from planning_core.console import main

    path = tmp_path / "r.jsonl"
    path.write_text(f'{{"id": "1", "task": "app", "score": 1}}\n{line}\n')
    with pytest.raises(DatasetError, match="not a (JSON object|result row)"):
        read_results(path)
    assert main(["acp", "report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "r.jsonl:2:" in err and "internal error" not in err

def test_rows_keep_input_order_with_workers():
    questions = [Question.from_record(record(t, qid=str(k)))
                 for k, t in enumerate(["app", "reach", "val", "land", "nexta", "just"])]
    answers = [Answer(q.id, "None", q.task) for q in questions]
    jobs = match_answers(questions, answers)
    one = [row for _, row in score_jobs(jobs, workers=1)]
    two = [row for _, row in score_jobs(jobs, workers=2)]
    assert one == two
    assert [r["task"] for r in one] == ["app", "reach", "val", "land", "nexta", "just"]
    assert set(one[0]) == {"id", "task", "domain", "score", "reason", "evidence"}


def test_bad_pddl_gives_an_unknown_row_not_a_crash():
    q = Question.from_record(record("app", problem="(define (problem"))
    (job,) = match_answers([q], [Answer(q.id, "None")])
    ((_, row),) = list(score_jobs([job]))
    assert row["score"] is None and row["evidence"] == "bad-question"
