"""The one table renderer and the report intervals (issue 32, item 4)."""
from __future__ import annotations

import csv
import io
import json

import pytest

from planning_core.cli.tables import (interval_note, render, wald_interval,
                                      wilson_interval)

HEADER = ["task", "answers", "accuracy %"]
ROWS = [["app", "8", "0.0"], ["land_x", "10", "50.0"]]


def test_the_four_formats_hold_the_same_cells():
    md = render(HEADER, ROWS, "markdown").splitlines()
    assert md[0] == "| task | answers | accuracy % |" and md[1] == "|---|---:|---:|"
    assert md[3] == "| land_x | 10 | 50.0 |"
    assert list(csv.reader(io.StringIO(render(HEADER, ROWS, "csv")))) == [HEADER, *ROWS]
    latex = render(HEADER, ROWS, "latex", caption="100% of it")
    assert r"task & answers & accuracy \% \\" in latex
    assert r"land\_x & 10 & 50.0 \\" in latex and r"\caption{100\% of it}" in latex
    assert latex.startswith(r"\begin{table}") and latex.endswith(r"\end{table}")
    text = render(HEADER, ROWS).splitlines()
    assert text[2].split() == ROWS[0] and text[3].endswith("50.0")


def test_a_caption_goes_under_the_table_and_is_a_comment_in_csv():
    assert render(HEADER, ROWS, "markdown", caption="note").endswith("\n\nnote")
    assert render(HEADER, ROWS, "csv", caption="note").startswith("# note\n")


def test_wald_collapses_at_the_extremes_and_wilson_does_not():
    assert wald_interval(0, 8) == (0.0, 0.0)
    low, high = wilson_interval(0, 8)
    assert low == 0.0 and high == pytest.approx(0.3244, abs=1e-4)   # the textbook value
    low, high = wilson_interval(8, 8)
    assert high == 1.0 and low == pytest.approx(1 - 0.3244, abs=1e-4)
    # Wilson at 5 of 10: centre 0.5, (0.2366, 0.7634) (Brown, Cai and DasGupta 2001)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wald_interval(0, 0) is None and wilson_interval(0, 0) is None


def test_the_note_names_the_interval():
    assert "Wilson" in interval_note("wilson") and "Wald" in interval_note("wald")


def _results(tmp_path):
    rows = [{"id": str(k), "task": "land", "domain": "ferry", "score": 0} for k in range(8)]
    rows += [{"id": str(k), "task": "app", "domain": "grid", "score": k % 2}
             for k in range(4)]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_acp_report_offers_wilson_and_prints_the_choice(tmp_path, capsys):
    from planning_core.console import main

    results = _results(tmp_path)
    assert main(["acp", "report", str(results), "--names", "m"]) == 0
    wald = capsys.readouterr().out
    assert "0.00 [0.00, 0.00]" in wald and "95% Wald" in wald
    assert main(["acp", "report", str(results), "--names", "m", "--interval", "wilson"]) == 0
    wilson = capsys.readouterr().out
    assert "0.00 [0.00, 0.32]" in wilson and "95% Wilson" in wilson
    # the paper's column order: app areach just land nexta prog reach val
    header = wilson.splitlines()[0]
    assert header.index("app") < header.index("land")


@pytest.mark.parametrize("fmt", ["csv", "latex"])
def test_acp_report_writes_csv_and_latex(tmp_path, capsys, fmt):
    from planning_core.console import main

    out = tmp_path / f"t.{fmt}"
    assert main(["acp", "report", str(_results(tmp_path)), "--names", "m", "--format", fmt,
                 "--out", str(out)]) == 0
    text = out.read_text()
    if fmt == "csv":
        rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("#")]
        assert rows[0][:3] == ["model", "app", "areach"] and rows[1][0] == "m"
    else:
        assert r"\begin{tabular}" in text and "% Accuracy is right / answers" in text


def test_acp_report_help_shows_a_plain_percent(capsys):
    from planning_core.console import main

    with pytest.raises(SystemExit):
        main(["acp", "report", "--help"])
    assert "%%" not in capsys.readouterr().out


def test_acp_score_report_gives_n_per_cell_and_intervals(tmp_path, capsys):
    from planning_core.console import main
    from tests.acp.acp_fixtures import write_score_files

    q, a = write_score_files(tmp_path)
    out, report = tmp_path / "rows.jsonl", tmp_path / "report.csv"
    main(["acp", "score", "--questions", str(q), "--answers", str(a), "--out", str(out),
          "--no-progress", "--report", str(report), "--format", "csv", "--interval", "wilson"])
    printed = capsys.readouterr().out
    assert "95% CI" in printed and "Wilson" in printed and "(1)" in printed
    rows = [r for r in csv.reader(io.StringIO(report.read_text())) if r]
    assert ["task", "answers", "right", "wrong", "unknown", "accuracy %", "95% CI"] in rows
