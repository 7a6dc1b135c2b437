"""``markdown_as``: a room's Markdown report as CSV or LaTeX with the same cells (issue 32
item 4: every report can be written as Markdown, CSV and LaTeX)."""
from __future__ import annotations

import csv
import io

import pytest

from planning_core.cli.tables import markdown_as, render

REPORT = """# APB results: m

### Table 1

| model | setting | CR | a\\|b |
|---|---|---:|---:|
| m | holistic | 50.0 | 1 |
| m | stepwise | 25.0 | 2 |

Details: 2 rows.

| k | v |
|---|---|
| x | 10% |
"""


def _tables(text: str) -> list[list[list[str]]]:
    blocks, block = [], []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            if block:
                blocks.append(block)
            block = []
            continue
        block.append(next(csv.reader(io.StringIO(line))))
    if block:
        blocks.append(block)
    return blocks


def test_markdown_is_left_as_it_is():
    assert markdown_as(REPORT, "markdown") == REPORT


def test_csv_holds_every_table_and_the_prose_as_comments():
    text = markdown_as(REPORT, "csv")
    assert _tables(text) == [
        [["model", "setting", "CR", "a|b"], ["m", "holistic", "50.0", "1"],
         ["m", "stepwise", "25.0", "2"]],
        [["k", "v"], ["x", "10%"]]]
    comments = [l for l in text.splitlines() if l.startswith("#")]
    assert comments == ["# APB results: m", "# Table 1", "# Details: 2 rows."]


def test_latex_is_one_tabular_per_table_the_prose_as_comments():
    text = markdown_as(REPORT, "latex")
    assert text.count(r"\begin{tabular}") == 2
    assert r"\begin{tabular}{lrrr}" in text          # aligned right in the Markdown
    assert r"\begin{tabular}{ll}" in text
    assert r"a\textbar{}b" in text and r"10\%" in text
    assert "% Details: 2 rows." in text
    # the first table as the shared renderer writes it
    assert render(["model", "setting", "CR", "a|b"],
                  [["m", "holistic", "50.0", "1"], ["m", "stepwise", "25.0", "2"]],
                  "latex") in text


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError):
        markdown_as(REPORT, "html")


@pytest.mark.parametrize("sep", ["\u2028", "\x85", "\x0c", "\x1e", "\r"])
def test_a_line_separator_inside_a_cell_stays_in_its_cell(sep):
    """A cell from data (a task id, a model name) may hold a character that
    ``str.splitlines`` breaks at: the row must stay one row, not become half a table and a
    comment."""
    text = f"| task | CR |\n|---|---:|\n| a{sep}b | 1 |\n| c | 2 |\r\n"
    rows = list(csv.reader(io.StringIO(markdown_as(text, "csv"), newline="")))
    assert [r for r in rows if r] == [["task", "CR"], [f"a{sep}b", "1"], ["c", "2"]]
    latex = markdown_as(text, "latex")
    assert latex.count(r"\begin{tabular}") == 1 and f"a{sep}b & 1" in latex


def test_csv_cells_with_commas_quotes_and_line_ends_read_back_as_written():
    cells = [["a,b", 'say "hi"', "two\nlines", "cr\rhere", "crlf\r\nend", "#x", ""]]
    header = ["h,1", 'h"2', "h3", "h4", "h5", "h6", "h7"]
    text = render(header, cells, "csv")
    assert list(csv.reader(io.StringIO(text, newline=""))) == [header, *cells]


def test_latex_escapes_every_special_character_of_a_cell():
    text = render(["h"], [["& % $ # _ { } ~ ^ \\ | < >"]], "latex")
    assert (r"\& \% \$ \# \_ \{ \} \textasciitilde{} \textasciicircum{} \textbackslash{} "
            r"\textbar{} \textless{} \textgreater{} \\") in text


def test_empty_reports_and_tables_give_well_formed_output():
    assert markdown_as("", "csv") == "\n" and markdown_as("", "latex") == "\n"
    header_only = "| a | b |\n|---|---:|\n"
    assert markdown_as(header_only, "csv") == "a,b\n"
    latex = markdown_as(header_only, "latex")
    assert "a & b \\\\\n\\midrule\n\\bottomrule" in latex


def test_a_csv_row_whose_first_cell_starts_with_a_hash_is_not_a_comment_line():
    # the prose and captions are "#" comment lines: a table row must never look like one
    text = markdown_as("# Title\n\n| #model | CR |\n|---|---:|\n| #1 | 5 |\n", "csv")
    assert [l for l in text.splitlines() if l.startswith("#")] == ["# Title"]
    rows = [r for r in csv.reader(io.StringIO(text)) if r and not r[0].startswith("# ")]
    assert rows == [["#model", "CR"], ["#1", "5"]]
