"""One table renderer for every report: plain text, Markdown, CSV and LaTeX.

Reports (``acp score``/``run``/``report``, ``deepplanning report``) build a header and rows
of strings once and render them here, so a table a researcher pastes into a paper (LaTeX),
a spreadsheet (CSV) or a README (Markdown) holds the same cells as the terminal's. Also
the binomial intervals the reports print beside an accuracy: Wald (the normal
approximation, which lm-evaluation-harness's standard errors use) and Wilson (which stays
informative at 0 and N right, where Wald's width collapses to 0).
"""
from __future__ import annotations

import csv
import io
import math
import re
from typing import Sequence

__all__ = ["FORMATS", "INTERVALS", "add_format_option", "add_format_only", "interval",
           "interval_note", "markdown_as", "render", "wald_interval", "wilson_interval"]

#: ``--format`` choices of a report file
FORMATS = ("markdown", "csv", "latex")
#: ``--interval`` choices
INTERVALS = ("wald", "wilson")
Z95 = 1.96   # as the reports always printed (and as lm-evaluation-harness does)


def render(header: Sequence[str], rows: Sequence[Sequence[str]], fmt: str = "text", *,
           numeric: bool = True, caption: str | None = None) -> str:
    """The table in ``fmt`` (``text``, ``markdown``, ``csv`` or ``latex``); columns after the
    first are right-aligned when ``numeric``. ``caption`` is a line under a text or Markdown
    table, a comment line before CSV, and ``\\caption`` in LaTeX."""
    header = [str(h) for h in header]
    rows = [[str(x) for x in r] for r in rows]
    if fmt == "markdown":
        align = ["---" if k == 0 or not numeric else "---:" for k in range(len(header))]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines) + (f"\n\n{caption}" if caption else "")
    if fmt == "csv":
        out = io.StringIO()
        if caption:
            out.write(f"# {caption}\n")
        writer = csv.writer(out, lineterminator="\n")
        # written quoted: a row with a CR in a cell (CR is not the line terminator, so the
        # writer would leave it bare and a reader would end the row there), and a row whose
        # first cell starts with "#" (it would read as a comment line, as a caption is)
        quoted = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_ALL)
        for r in [header, *rows]:
            bare = not any("\r" in x for x in r) and not (r and r[0].startswith("#"))
            (writer if bare else quoted).writerow(r)
        return out.getvalue().rstrip("\n")
    if fmt == "latex":
        spec = "l" + ("r" if numeric else "l") * (len(header) - 1)
        body = [" & ".join(_latex(x) for x in r) + r" \\" for r in rows]
        lines = [r"\begin{table}[t]", r"\centering", rf"\begin{{tabular}}{{{spec}}}",
                 r"\toprule", " & ".join(_latex(h) for h in header) + r" \\", r"\midrule",
                 *body, r"\bottomrule", r"\end{tabular}"]
        if caption:
            lines.append(rf"\caption{{{_latex(caption)}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines)
    if fmt != "text":
        raise ValueError(f"unknown table format {fmt!r}")
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]

    def line(r: Sequence[str]) -> str:
        return "  ".join(x.ljust(w) if k == 0 or not numeric else x.rjust(w)
                         for k, (x, w) in enumerate(zip(r, widths))).rstrip()

    text = "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])
    return text + (f"\n\n{caption}" if caption else "")


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}", "|": r"\textbar{}",
                  # in LaTeX's default OT1 text font < and > print as inverted ! and ?
                  "<": r"\textless{}", ">": r"\textgreater{}"}


def _latex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def wald_interval(right: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wald interval of ``right / n`` (95% for the default ``z``), clipped to [0, 1];
    None when ``n`` is 0. ``p +- z sqrt(p (1 - p) / n)``: at 0 or ``n`` right its width is 0."""
    if n <= 0:
        return None
    p = right / n
    half = z * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


def wilson_interval(right: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of ``right / n`` (Wilson 1927; Brown, Cai and DasGupta 2001
    recommend it over Wald for small ``n``); None when ``n`` is 0. At 0 of 8 it is
    [0, 0.32], where Wald gives [0, 0]."""
    if n <= 0:
        return None
    p = right / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def interval(right: int, n: int, method: str = "wald") -> tuple[float, float] | None:
    """The 95% interval of ``right / n`` by ``method`` (one of :data:`INTERVALS`)."""
    if method == "wald":
        return wald_interval(right, n)
    if method == "wilson":
        return wilson_interval(right, n)
    raise ValueError(f"unknown interval {method!r}")


def interval_note(method: str) -> str:
    """The line printed under a table with intervals: which interval it is."""
    name = {"wald": "Wald (normal approximation)", "wilson": "Wilson score"}[method]
    return f"Intervals: 95% {name}, per cell over its N answers (--interval {method})."


def add_format_option(parser, what: str = "the report file", *,
                      interval_default: str = "wald") -> None:
    """``--format`` and ``--interval`` of a report-writing command (``interval_default``:
    ``wilson`` where a room's reports always gave Wilson's and its paper gives none)."""
    parser.add_argument("--format", choices=FORMATS, default="markdown",
                        help=f"how {what} is written (default markdown)")
    marks = {m: " (default)" if m == interval_default else "" for m in INTERVALS}
    parser.add_argument("--interval", choices=INTERVALS, default=interval_default,
                        help="the 95%% interval beside each accuracy: wald (the normal "
                             "approximation, as lm-evaluation-harness reports standard "
                             f"errors){marks['wald']} or wilson (informative at 0 and N "
                             f"right){marks['wilson']}")


def add_format_only(parser, what: str = "the report file") -> None:
    """``--format`` alone, for a report with no binomial intervals to choose."""
    parser.add_argument("--format", choices=FORMATS, default="markdown",
                        help=f"the format of {what}: markdown (default), csv or latex")


_PIPE = re.compile(r"(?<!\\)\|")
_RULE = re.compile(r"^:?-{3,}:?$")


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [c.strip().replace("\\|", "|") for c in _PIPE.split(inner)]


def markdown_as(text: str, fmt: str) -> str:
    """A Markdown report (prose lines, headings and pipe tables, as the rooms' reports are
    written) in ``fmt``: ``markdown`` as it is; ``csv`` or ``latex``: every table through
    :func:`render` (columns right-aligned where the Markdown aligned them right), every
    other non-blank line a comment (``#`` in CSV, ``%`` in LaTeX, a heading's ``#`` marks
    dropped), so the file holds the same cells and notes."""
    if fmt == "markdown":
        return text
    if fmt not in ("csv", "latex"):
        raise ValueError(f"unknown table format {fmt!r}")
    mark = "#" if fmt == "csv" else "%"
    out: list[str] = []
    block: list[list[str]] = []
    numeric = False

    def flush() -> None:
        nonlocal block, numeric
        if block:
            width = max(len(r) for r in block)
            rows = [r + [""] * (width - len(r)) for r in block]
            if out and fmt == "csv" and out[-1]:
                out.append("")      # tables apart from what stands around them
            out.append(render(rows[0], rows[1:], fmt, numeric=numeric))
            if fmt == "csv":
                out.append("")
        block, numeric = [], False

    # lines end at "\n" only: str.splitlines would also break a row at a U+2028, U+0085
    # or form feed inside a cell (a task id or model name from data), cutting the table
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        if line.lstrip().startswith("|"):
            cells = _cells(line)
            if block and cells and all(_RULE.match(c) for c in cells):
                numeric = any(c.endswith(":") for c in cells[1:])
                continue
            block.append(cells)
            continue
        flush()
        words = line.strip().lstrip("#").strip()
        if words:
            out.append(f"{mark} {words}")
    flush()
    return "\n".join(out).strip("\n") + "\n"
