"""``deepplanning run`` treats a task it cannot load as ``score`` does (a scored failed case,
``bad_input``, counted in N, exit 2), and a model error as a row with no score that a rerun
retries (out of N until answered, exit 1)."""
from __future__ import annotations

import json
import sys

from planning_core.console import main
from tests.deepplanning.fixtures import shopping, travel
from tests.deepplanning.test_review_fixes import two_travel_tasks


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_run_counts_a_task_with_no_database_in_n_as_score_does(tmp_path, capsys):
    q, db, plans, entries = two_travel_tasks(tmp_path)   # the second task has no database
    out = tmp_path / "r.jsonl"
    code, text, err = cli(capsys, "deepplanning", "run", "--domain", "travel", "--agent",
                          "oracle", "--queries", q, "--database", db, "--out", out)
    missing = f"id_{entries[1]['id']}"
    assert code == 2 and "1 task(s) with bad input" in err
    assert f"{missing}: error: " in err and "Traceback" not in err   # the error line
    rows = {r["task"]: r for r in map(json.loads, out.read_text().splitlines())}
    bad = rows[str(entries[1]["id"])]
    assert bad["status"] == "bad_input" and missing in bad["error"]
    assert bad["score"]["case_acc"] == 0 and bad["score"]["commonsense"] == 0
    assert missing in bad["score"]["bad_input"] and "messages" not in bad
    assert rows[str(entries[0]["id"])]["score"]["case_acc"] == 1
    # report counts it in N, in the same table score makes of the same two tasks
    code, table, _ = cli(capsys, "deepplanning", "report", out)
    assert code == 0 and "travel: bad_input 1" in table
    assert "Model errors" not in table
    _, scored, _ = cli(capsys, "deepplanning", "score", "travel", "--queries", q,
                       "--database", db, "--plans", plans)
    assert table.split("| mean |")[1].splitlines()[0] == \
        scored.split("| mean |")[1].splitlines()[0]
    code, js, _ = cli(capsys, "deepplanning", "report", out, "--json")
    assert json.loads(js)["runs"]["0"]["travel_cases"] == 2


def test_a_model_error_stays_out_of_n_and_a_rerun_retries_it(tmp_path, capsys):
    db = tmp_path / "database_level1"
    shopping(0, 1, 0)["case"].write(db / "case_1")
    q = tmp_path / "q.json"
    q.write_text(json.dumps([{"id": 1, "query": "buy"}]))
    failing = tmp_path / "fail.py"
    failing.write_text("import sys; sys.exit(3)\n")
    answering = tmp_path / "ok.py"
    answering.write_text('print(\'{"content": "done", "tool_calls": []}\')\n')
    out = tmp_path / "r.jsonl"
    argv = ("deepplanning", "run", "--domain", "shopping", "--queries", q, "--database", db,
            "--out", out, "--command")
    code, text, _ = cli(capsys, *argv, f"{sys.executable} {failing}")
    assert code == 1 and "error=" in text
    row = json.loads(out.read_text())
    assert row["status"] == "error" and row["score"] is None
    _, js, _ = cli(capsys, "deepplanning", "report", out, "--json")
    t = json.loads(js)
    assert t["model_errors"] == 1 and t["runs"]["0"]["shopping_cases"] == 0
    # the rerun retries the error row (it is not done) and appends the answered one
    code, text, _ = cli(capsys, *argv, f"{sys.executable} {answering}")
    assert code == 0 and "case_acc=0" in text
    assert len(out.read_text().splitlines()) == 2
    _, js, _ = cli(capsys, "deepplanning", "report", out, "--json")
    t = json.loads(js)
    assert t["model_errors"] == 0 and t["runs"]["0"]["shopping_cases"] == 1
    # an answered row is done: a third run adds nothing
    code, _, _ = cli(capsys, *argv, f"{sys.executable} {failing}")
    assert code == 0 and len(out.read_text().splitlines()) == 2



def test_a_row_torn_by_a_kill_is_run_again_and_a_second_run_on_the_file_is_refused(
        tmp_path, capsys):
    """``run`` writes through the shared results opener: a torn last line (a kill during a
    write) is cut off and its task run again, instead of blocking every resume; and a
    second run on an --out another run holds is refused."""
    import fcntl

    entries, db = [], tmp_path / "db"
    for i in (3, 4):
        t = travel(0, i)
        entries.append(t["entry"])
        t["db"].write(db / f"id_{t['entry']['id']}")
    q = tmp_path / "q.json"
    q.write_text(json.dumps(entries))
    out = tmp_path / "r.jsonl"
    argv = ("deepplanning", "run", "--domain", "travel", "--agent", "oracle", "--queries", q,
            "--database", db, "--out", out)
    assert cli(capsys, *argv)[0] == 0
    rows = out.read_text().splitlines()
    out.write_text(rows[0] + "\n" + rows[1][: len(rows[1]) // 2])      # killed mid-write
    code, _, err = cli(capsys, *argv)
    assert code == 0, err
    again = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["task"] for r in again) == sorted(json.loads(r)["task"] for r in rows)
    with open(out, "a") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, _, err = cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err and err.strip()
