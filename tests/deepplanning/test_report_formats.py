"""Per-run reports of ``deepplanning run``/``score``/``report``: N and a 95% interval per
cell (``--interval wilson|wald``), written as Markdown, CSV or LaTeX (``--format``) by the
shared renderer (issue 32, item 4)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from planning_core.cli.tables import wald_interval, wilson_interval
from planning_core.console import main
from planning_core.validators.deepplanning.report import render, table


def _shop(run, match, case, key=None):
    return {"domain": "shopping", "run": run, "key": key, "score": {
        "mode": "paper", "match": match, "matched": 1, "expected": 2, "case_acc": case,
        "completed": True}}


ROWS = [_shop(0, 0.5, 0, "a"), _shop(0, 0.25, 0, "b"), _shop(0, 0.0, 0, "c"),
        _shop(0, 0.5, 0, "d"), _shop(1, 1.0, 1, "a"), _shop(1, 0.5, 0, "b")]


def _csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO("\n".join(l for l in text.splitlines()
                                                 if not l.startswith("#")))))


def test_wald_collapses_at_zero_right_where_wilson_does_not():
    wald = table(ROWS, "wald")["runs"]["0"]["ci95"]["shopping_case_acc"]
    wilson = table(ROWS, "wilson")["runs"]["0"]["ci95"]["shopping_case_acc"]
    assert wald == [0.0, 0.0] == list(wald_interval(0, 4))
    assert wilson == list(wilson_interval(0, 4)) and wilson[1] > 0.4
    # a mean score's interval is the normal one whatever the method
    assert table(ROWS, "wald")["runs"]["0"]["ci95"]["match"] == \
        table(ROWS, "wilson")["runs"]["0"]["ci95"]["match"]


def test_csv_holds_the_cells_of_the_markdown_table_with_n_and_interval():
    t = table(ROWS, "wald")
    rows = _csv(render(t, "csv"))
    assert rows[0] == ["run", "Avg Acc", "CS", "PS", "Comp", "Travel Case Acc", "Match",
                       "Shopping Case Acc"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "mean"]
    assert rows[1][7] == "0.0 [0.0, 0.0] N=4" and rows[3][7].endswith("N=6")
    md = render(t, "markdown")
    for cell in rows[1][1:] + rows[3][1:]:
        assert f" {cell} |" in md
    text = render(t, "csv")
    assert "# Scoring: paper" in text and "Wald for a Case Acc (--interval wald)" in text


def test_latex_is_a_table_with_notes_as_comments():
    text = render(table(ROWS, "wilson"), "latex")
    assert r"\begin{tabular}{lrrrrrrr}" in text and r"\bottomrule" in text
    assert r"mean & " in text and "N=6" in text
    assert "% Scoring: paper" in text and "% Cells: mean [95% interval]" in text
    assert "Wilson for a Case Acc (--interval wilson)" in text


def test_a_task_scored_twice_counts_once_by_its_last_row():
    rows = ROWS + [_shop(0, 1.0, 1, "c")]       # c of run 0 run again: now solved
    t = table(rows)
    assert t["runs"]["0"]["n"]["shopping_case_acc"] == 4
    assert t["runs"]["0"]["shopping_case_acc"] == 0.25


def test_text_format_is_aligned_columns():
    lines = render(table(ROWS), "text").splitlines()
    head = next(k for k, l in enumerate(lines) if l.startswith("run"))
    assert set(lines[head + 1].replace(" ", "")) == {"-"}


@pytest.fixture(scope="module")
def shop_tasks(tmp_path_factory):
    d = tmp_path_factory.mktemp("dpf")
    assert main(["deepplanning", "generate", "shopping", "--n", "1", "--levels", "1",
                 "--seed", "5", "--out", str(d)]) == 0
    return d


def test_run_prints_and_writes_the_report_in_the_format_asked(shop_tasks, tmp_path,
                                                               capsys):
    out, report = tmp_path / "r.jsonl", tmp_path / "r.csv"
    code = main(["deepplanning", "run", "--agent", "oracle", "--tasks", str(shop_tasks),
                 "--out", str(out), "--report", str(report), "--format", "csv",
                 "--interval", "wald", "--no-progress"])
    printed = capsys.readouterr().out
    assert code == 0
    rows = _csv(report.read_text())
    assert rows[-1][0] == "mean" and rows[-1][7] == "100.0 [100.0, 100.0] N=1"  # Wald at N
    assert report.read_text() in printed
    # report of the same file: the same table, LaTeX, Wilson (its default)
    code = main(["deepplanning", "report", str(out), "--format", "latex",
                 "--out", str(tmp_path / "r.tex")])
    printed = capsys.readouterr().out
    assert code == 0 and r"\begin{tabular}" in printed
    assert (tmp_path / "r.tex").read_text() == printed
    assert "Wilson for a Case Acc" in printed and "[20.7, 100.0] N=1" in printed
    code = main(["deepplanning", "report", str(out), "--json", "--interval", "wald"])
    t = json.loads(capsys.readouterr().out)
    assert code == 0 and t["interval"] == "wald"


def test_score_writes_the_report(shop_tasks, tmp_path, capsys):
    report = tmp_path / "s.md"
    code = main(["deepplanning", "score", "shopping", "--tasks", str(shop_tasks),
                 "--report", str(report)])
    printed = capsys.readouterr().out
    assert code == 0
    text = report.read_text()
    assert text in printed and "| mean |" in text and "N=1" in text
    code = main(["deepplanning", "score", "shopping", "--tasks", str(shop_tasks),
                 "--report", str(tmp_path / "nowhere" / "s.md")])
    assert code == 2 and "cannot write" in capsys.readouterr().err


def test_tasks_stopped_by_a_smaller_cap_run_again_and_count_once(shop_tasks, tmp_path,
                                                                 capsys):
    """Issue 32 item 3 for ``deepplanning run``: a task stopped at its cap (status
    incomplete) is run again when a larger cap of the same kind is asked (or any cap with
    --retry-unknown), with a note; the report counts its last row only."""
    out = tmp_path / "r.jsonl"
    base = ["deepplanning", "run", "--agent", "oracle", "--tasks", str(shop_tasks),
            "--out", str(out), "--no-progress"]
    assert main(base + ["--max-tool-calls", "1"]) == 0
    first = [json.loads(l) for l in out.read_text().splitlines()]
    capsys.readouterr()
    assert first and all(r["status"] == "incomplete" and r["cap"] == {"tool_calls": 1}
                         for r in first)
    assert main(base + ["--max-tool-calls", "1"]) == 0          # the same cap: nothing
    assert "computed again" not in capsys.readouterr().err
    assert main(base + ["--max-tool-calls", "1", "--retry-unknown"]) == 0
    assert f"{len(first)} row(s) of {out} that ran into their limit are computed again " \
           "(--retry-unknown)" in capsys.readouterr().err
    assert main(base) == 0                                        # the paper's 400
    io = capsys.readouterr()
    assert "their limit was below this run's 400 tool calls" in io.err
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert len(rows) == 3 * len(first) and all(r["status"] == "answered"
                                                for r in rows[-len(first):])
    t = table(rows)
    assert t["average"]["n"]["shopping_case_acc"] == len(first)
    assert t["average"]["shopping_case_acc"] == 1
    assert main(base) == 0
    assert "computed again" not in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == len(rows)
