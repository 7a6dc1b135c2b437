"""The shared writer's limit retry (results_file.LimitRetry): a rerun with a larger limit
computes again the rows that ran into a smaller one, keeps one row per item, and a rerun
with the same limit redoes nothing (issue 32 item 3)."""
from __future__ import annotations

import json

from planning_core.results_file import LIMIT_FIELD, LimitRetry, ResultsWriter


def key(row):
    return row["id"]


def unknown(row):
    return row["answer"] == "unknown"


def run(out, limit, answers, *, retry_unknown=False):
    """One batch run over the items of ``answers`` (id -> answer at this limit): the ids
    ``out`` lacks are computed; returns the ids computed and the writer's note."""
    retry = LimitRetry(limit, unknown, retry_unknown=retry_unknown)
    with ResultsWriter(out, key, retry=retry) as writer:
        done = {json.loads(line)["id"] for line in out.read_text().splitlines()} \
            if out.exists() else set()
        todo = [i for i in answers if i not in done]
        fresh = writer.resume(todo)
        rows = [(k, {"id": todo[p], "answer": answers[todo[p]]}) for k, p in enumerate(fresh)]
        for _ in writer.in_order(iter(rows)):
            pass
        return [todo[p] for p in fresh], writer.note()


def rows_of(out):
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_larger_limit_retries_unknown_rows_once(tmp_path):
    out = tmp_path / "out.jsonl"
    computed, note = run(out, 1.0, {"a": "yes", "b": "unknown", "c": "no"})
    assert computed == ["a", "b", "c"] and note is None
    assert [r[LIMIT_FIELD] for r in rows_of(out)] == [1.0, 1.0, 1.0]
    # same limit: nothing is computed again
    computed, note = run(out, 1.0, {"a": "yes", "b": "unknown", "c": "no"})
    assert computed == [] and note is None
    # larger limit: only the unknown row, with a note; one row per id afterwards
    computed, note = run(out, 5.0, {"a": "yes", "b": "no", "c": "no"})
    assert computed == ["b"]
    assert "1 row(s)" in note and "below this run's 5 s" in note
    rows = rows_of(out)
    assert sorted(r["id"] for r in rows) == ["a", "b", "c"]
    assert {r["id"]: (r["answer"], r[LIMIT_FIELD]) for r in rows}["b"] == ("no", 5.0)
    # a smaller limit never redoes a row computed at a larger one
    assert run(out, 2.0, {"a": "yes", "b": "unknown", "c": "no"})[0] == []


def test_retry_unknown_redoes_rows_at_the_same_limit_and_unstamped_rows(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps({"id": "a", "answer": "unknown"}) + "\n"    # older version
                   + json.dumps({"id": "b", "answer": "unknown", LIMIT_FIELD: 3}) + "\n")
    computed, note = run(out, 3.0, {"a": "yes", "b": "unknown"})
    assert computed == []
    assert "1 row(s)" in note and "do not record" in note and "--retry-unknown" in note
    computed, note = run(out, 3.0, {"a": "yes", "b": "no"}, retry_unknown=True)
    assert computed == ["a", "b"] and "--retry-unknown" in note
    assert sorted((r["id"], r["answer"]) for r in rows_of(out)) == [("a", "yes"),
                                                                      ("b", "no")]


def test_journalled_row_of_a_smaller_limit_is_not_recovered(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text("")
    (tmp_path / "out.jsonl.pending").write_text(
        json.dumps({"id": "a", "answer": "unknown", LIMIT_FIELD: 1.0}) + "\n"
        + json.dumps({"id": "b", "answer": "yes", LIMIT_FIELD: 1.0}) + "\n")
    computed, _ = run(out, 4.0, {"a": "yes", "b": "yes"})
    assert computed == ["a"]          # b recovered from the journal, a computed again
    assert [(r["id"], r[LIMIT_FIELD]) for r in rows_of(out)] == [("a", 4.0), ("b", 1.0)]
