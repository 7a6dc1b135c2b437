"""``cope run`` writes through the locked, resumable results file: a second run on the same
``--out`` is refused before any request, and a torn last line (a killed run) is cut off
instead of gluing the next row to it."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.results_file import open_results

from tests.cope.minicope import write_minicope
from tests.models.chat_server import ChatServer, answer

PLAN = "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n"


def _run(root, out, server) -> int:
    return main(["cope", "run", "--method", "planner", "--model", "scripted",
                 "--base-url", server.base_url, "--dataset", str(root),
                 "--categories", "baseline,goal", "--out", str(out), "--no-cache",
                 "--concurrency", "2", "--no-progress"])


def test_cope_run_refuses_a_results_file_another_run_holds(tmp_path, capsys):
    root = write_minicope(tmp_path)
    out = tmp_path / "run.jsonl"
    requests = []

    def script(request, n):
        requests.append(n)
        return answer(PLAN)

    held, _ = open_results(out)
    try:
        with ChatServer(script) as server:
            assert _run(root, out, server) == 2
    finally:
        held.close()
    assert "another run is writing" in capsys.readouterr().err
    assert requests == [] and out.read_text() == ""


def test_cope_run_cuts_a_torn_last_line_and_resumes(tmp_path, capsys):
    root = write_minicope(tmp_path)
    out = tmp_path / "run.jsonl"
    with ChatServer(lambda request, n: answer(PLAN)) as server:
        assert _run(root, out, server) == 0
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert {r["category"] for r in rows} == {"baseline", "goal"}
        # a run killed while writing its last row: half a line at the end
        kept = out.read_text().splitlines(keepends=True)
        out.write_text(kept[0] + kept[1][:40])
        assert _run(root, out, server) == 0
    again = [json.loads(line) for line in out.read_text().splitlines()]   # every line JSON
    assert sorted((r["category"], r["outcome"]) for r in again) == \
        sorted((r["category"], r["outcome"]) for r in rows)
    assert "1 pair(s) already in" in capsys.readouterr().err
