"""Rows follow input order, bad lines included (issue 32, item 5).

``validate --batch`` and ``acp score`` wrote a bad line's row first, before the rows of the
lines above it. Now a bad line's row is written in its place: with ``--out`` and (validate)
on standard output.
"""
from __future__ import annotations

import json
from pathlib import Path


from planning_core.cli.validate import validate_main
from tests.conftest import DOMAINS

BW = DOMAINS / "blocksworld"


def _manifest(tmp_path: Path) -> Path:
    good = {"domain": str(BW / "domain.pddl"), "problem": str(next(BW.glob("p*.pddl"))),
            "plan_text": ""}
    lines = [json.dumps(dict(good, id="first")),
             "{not json",
             json.dumps(dict(good, id="third")),
             json.dumps({"id": "fourth"}),
             json.dumps(dict(good, id="fifth"))]
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest


def _order(rows: list[dict]) -> list[str]:
    return [r.get("source", "").rpartition(":")[2] if r["verdict"] == "bad_input"
            and "source" in r else str(r["id"]) for r in rows]


EXPECTED = ["first", "2", "third", "4", "fifth"]


def test_validate_batch_out_rows_follow_the_manifest(tmp_path):
    out = tmp_path / "rows.jsonl"
    validate_main(["--batch", str(_manifest(tmp_path)), "--out", str(out), "--no-progress"])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert _order(rows) == EXPECTED


def test_validate_batch_stdout_rows_follow_the_manifest(tmp_path, capsys):
    validate_main(["--batch", str(_manifest(tmp_path)), "--no-progress"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert _order(rows) == EXPECTED


def test_validate_batch_rerun_keeps_the_order_of_what_it_adds(tmp_path):
    out = tmp_path / "rows.jsonl"
    manifest = _manifest(tmp_path)
    validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"])
    first = out.read_text()
    validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"])
    assert out.read_text() == first   # everything recorded: nothing written twice


def test_acp_score_rows_follow_the_answers_file(tmp_path):
    from planning_core.console import main
    from tests.acp.acp_fixtures import write_score_files

    q, a = write_score_files(tmp_path)
    good = a.read_text().splitlines()
    # line 2 is not JSON, line 4 names no question, line 6 repeats line 1's answer
    a.write_text("\n".join([good[0], "{oops", good[1], json.dumps(
        {"id": "nope", "response": "x"}), good[2], good[0], good[3]]) + "\n")
    out = tmp_path / "rows.jsonl"
    main(["acp", "score", "--questions", str(q), "--answers", str(a), "--out", str(out),
          "--no-progress"])
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    where = [r["source"].rpartition(":")[2] if r.get("evidence") == "bad-input"
             else f"{r['task']}/{r['id']}" for r in rows]
    assert where == ["app/1", "2", "val/1", "4", "reach/2", "6", "land/3"]
