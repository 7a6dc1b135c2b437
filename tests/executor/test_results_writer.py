""":class:`~planning_core.results_file.ResultsWriter`, the one writer of every batch command's
``--out``: rows in input order whatever order they arrive in, each journalled on arrival,
a killed run's journalled rows put in their places on the next run instead of being
computed again, and the journal removed only by a clean end.

The commands' own kill tests (real processes, SIGKILL) are in ``test_killed_batches.py``.
"""
from __future__ import annotations

import json

import pytest

from planning_core.errors import InputError
from planning_core.results_file import ResultsLocked, ResultsWriter, open_results, pending_path


def _key(row: dict):
    return row.get("id")


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _row(ident: str, **extra) -> dict:
    return {"id": ident, "value": f"computed {ident}", **extra}


def test_rows_are_written_in_input_order_and_journalled_as_they_arrive(tmp_path):
    out = tmp_path / "out.jsonl"
    journal = pending_path(out)
    seen = []
    with ResultsWriter(out, _key) as writer:
        fresh = writer.resume(["a", "b", "c"])
        assert fresh == [0, 1, 2]

        def arrivals():
            for k in (2, 0, 1):   # c finishes first, then a, then b
                yield k, _row("abc"[k])
                # the row is in the journal at once, in OUT only when its turn comes
                seen.append(([r["id"] for r in _lines(journal)], [r["id"] for r in _lines(out)]))

        written = [(position, row["id"]) for position, row in writer.in_order(arrivals())]
    assert written == [(0, "a"), (1, "b"), (2, "c")]
    assert seen[0] == (["c"], [])
    assert seen[1] == (["c", "a"], ["a"])
    assert [r["id"] for r in _lines(out)] == ["a", "b", "c"]
    assert not journal.exists()   # a clean end


def test_an_exception_keeps_the_journal_and_the_next_run_takes_its_rows_in_place(tmp_path):
    out = tmp_path / "out.jsonl"

    def arrivals():
        yield from [(2, _row("c")), (3, _row("d")), (0, _row("a"))]
        raise KeyboardInterrupt   # Ctrl-C before b came: c and d are held back

    with pytest.raises(KeyboardInterrupt):
        with ResultsWriter(out, _key) as writer:
            writer.resume(["a", "b", "c", "d"])
            for _ in writer.in_order(arrivals()):
                pass
    assert [r["id"] for r in _lines(out)] == ["a"]
    assert [r["id"] for r in _lines(pending_path(out))] == ["c", "d", "a"]
    # the next run knows a is done (it is in OUT); c and d come from the journal
    with ResultsWriter(out, _key) as writer:
        assert writer.recovered == 2
        fresh = writer.resume(["b", "c", "d"])
        assert fresh == [0]   # only b is computed
        written = [row["id"] for _, row in writer.in_order([(0, _row("b"))])]
    assert written == ["b", "c", "d"]
    assert [r["id"] for r in _lines(out)] == ["a", "b", "c", "d"]
    assert not pending_path(out).exists()


def test_journal_rows_are_deduplicated_and_a_torn_last_line_is_dropped(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_text(json.dumps(_row("a")) + "\n")
    pending_path(out).write_text(
        json.dumps(_row("a", value="again")) + "\n"      # OUT has a: dropped
        + json.dumps(_row("b", value="first")) + "\n"
        + json.dumps(_row("b", value="second")) + "\n"   # b twice: the first wins
        + "not json\n"
        + json.dumps({"value": "no id"}) + "\n"          # key None: never recovered
        + '{"id": "c", "val')                            # torn: c is computed again
    with ResultsWriter(out, _key) as writer:
        assert writer.recovered == 1
        fresh = writer.resume(["b", "c"])
        assert fresh == [1]
        for _ in writer.in_order([(0, _row("c"))]):
            pass
    assert [(r["id"], r["value"]) for r in _lines(out)] == [
        ("a", "computed a"), ("b", "first"), ("c", "computed c")]
    assert not pending_path(out).exists()


def test_journal_rows_no_item_asks_for_are_written_before_the_run_rows(tmp_path):
    """The input was edited after the kill: the journal's row of an item it no longer has
    is still a computed row, kept (before this run's rows, so a row of the same item that
    this run writes supersedes it)."""
    out = tmp_path / "out.jsonl"
    out.touch()   # a killed run's OUT exists: it is opened before the journal
    pending_path(out).write_text(json.dumps(_row("gone")) + "\n")
    with ResultsWriter(out, _key) as writer:
        fresh = writer.resume(["x"])
        for _ in writer.in_order((k, _row("x")) for k in fresh):
            pass
    assert [r["id"] for r in _lines(out)] == ["gone", "x"]


def test_rows_taken_from_the_journal_are_written_when_nothing_is_left_to_compute(tmp_path):
    out = tmp_path / "out.jsonl"
    out.touch()   # a killed run's OUT exists: it is opened before the journal
    pending_path(out).write_text(json.dumps(_row("a")) + "\n" + json.dumps(_row("b")) + "\n")
    with ResultsWriter(out, _key) as writer:
        assert writer.resume(["b", "a"]) == []
        writer.write({"id": "bad", "value": "a bad input row, written at once"})
    # in_order was never called (nothing to compute): the taken rows still reach OUT
    assert [r["id"] for r in _lines(out)] == ["bad", "b", "a"]
    assert not pending_path(out).exists()


def test_a_run_that_stops_before_resume_leaves_the_journal_alone(tmp_path):
    """``--strict`` stops at a bad input row before any work: OUT and the journal stay."""
    out = tmp_path / "out.jsonl"
    out.touch()   # a killed run's OUT exists: it is opened before the journal
    text = json.dumps(_row("a")) + "\n"
    pending_path(out).write_text(text)
    with ResultsWriter(out, _key):
        pass
    assert pending_path(out).read_text() == text
    assert out.read_text() == ""
    # an empty journal is not left behind
    with ResultsWriter(tmp_path / "other.jsonl", _key):
        pass
    assert not pending_path(tmp_path / "other.jsonl").exists()


def test_an_unfinished_in_order_keeps_the_journal(tmp_path):
    out = tmp_path / "out.jsonl"
    with ResultsWriter(out, _key) as writer:
        writer.resume(["a", "b"])
        rows = writer.in_order([(1, _row("b")), (0, _row("a"))])
        next(rows)   # a written; the caller stops reading before b
    assert [r["id"] for r in _lines(out)] == ["a"]
    assert [r["id"] for r in _lines(pending_path(out))] == ["b", "a"]


def test_the_writer_holds_the_lock_of_out(tmp_path):
    out = tmp_path / "out.jsonl"
    with ResultsWriter(out, _key):
        with pytest.raises(ResultsLocked):
            ResultsWriter(out, _key)
        with pytest.raises(ResultsLocked):
            open_results(out)
    with pytest.raises(InputError, match="does not exist"):
        ResultsWriter(tmp_path / "no" / "out.jsonl", _key)


def test_a_journal_whose_results_file_was_deleted_is_set_aside_not_recovered(tmp_path):
    """A user who deletes OUT to start over (other limits, say) must not get the old run's
    journalled rows back: the journal is moved aside and the note says so."""
    out = tmp_path / "out.jsonl"
    pending_path(out).write_text(json.dumps(_row("a", value="old limits")) + "\n")
    with ResultsWriter(out, _key) as writer:
        assert writer.recovered == 0 and "did not exist" in writer.note()
        assert writer.resume(["a"]) == [0]            # a is computed again
        list(writer.in_order([(0, _row("a"))]))
    assert _lines(out) == [_row("a")]
    assert _lines(tmp_path / "out.jsonl.pending.stale") == [_row("a", value="old limits")]
    assert not pending_path(out).exists()
