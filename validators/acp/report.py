"""Summaries of result rows: per task and per domain, as the paper's tables show them.

Accuracy is ``right / answers``: an unknown verdict (a solver limit) is not counted as right,
and the number of unknowns is shown next to it, so a reader can tell "wrong" from "not
decided". :func:`models_table` lays several runs out as the paper's Table 2 (models as rows,
tasks as columns) with a 95% Wald interval per cell (:func:`wald_interval`). Tables are plain text for a terminal and Markdown for a report; the heatmap
(domain x task accuracy) needs matplotlib (``pip install 'planning-core[plot]'``).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from planning_core.cli.tables import interval, interval_note, render, wald_interval
from planning_core.errors import InputError, PlanningError


__all__ = ["PLOT_FORMATS", "Cell", "Summary", "check_plot_path", "heatmap", "markdown_report",
           "summarize", "text_table", "PAPER_COLUMNS", "wald_interval", "models_table"]
# wald_interval lives in planning_core.cli.tables (one home for every report's intervals)

#: The task columns of the paper's Tables 1 and 2, in its order.
PAPER_COLUMNS = ("app", "areach", "just", "land", "nexta", "prog", "reach", "val")


@dataclass(frozen=True, slots=True)
class Cell:
    """Verdict counts for one group of answers."""

    right: int = 0
    wrong: int = 0
    unknown: int = 0

    @property
    def total(self) -> int:
        return self.right + self.wrong + self.unknown

    @property
    def accuracy(self) -> float | None:
        return self.right / self.total if self.total else None

    def add(self, value: int | None) -> Cell:
        if value == 1:
            return Cell(self.right + 1, self.wrong, self.unknown)
        if value == 0:
            return Cell(self.right, self.wrong + 1, self.unknown)
        return Cell(self.right, self.wrong, self.unknown + 1)


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts by task, by (domain, task), overall, and evidence kinds by task."""

    by_task: dict[str, Cell]
    by_domain: dict[tuple[str, str], Cell]
    overall: Cell
    evidence: dict[str, Counter]

    @property
    def tasks(self) -> tuple[str, ...]:
        """The tasks present, in the paper's column order (its Tables 1 and 2), then others."""
        known = [t for t in PAPER_COLUMNS if t in self.by_task]
        return tuple(known + sorted(t for t in self.by_task if t not in PAPER_COLUMNS))

    @property
    def domains(self) -> tuple[str, ...]:
        return tuple(sorted({d for d, _ in self.by_domain}))


def summarize(rows: Iterable[dict]) -> Summary:
    by_task: dict[str, Cell] = {}
    by_domain: dict[tuple[str, str], Cell] = {}
    evidence: dict[str, Counter] = {}
    overall = Cell()
    for row in rows:
        task, domain, value = str(row.get("task")), str(row.get("domain")), row.get("score")
        by_task[task] = by_task.get(task, Cell()).add(value)
        by_domain[(domain, task)] = by_domain.get((domain, task), Cell()).add(value)
        evidence.setdefault(task, Counter())[str(row.get("evidence"))] += 1
        overall = overall.add(value)
    return Summary(by_task, by_domain, overall, evidence)


def _pct(cell: Cell | None) -> str:
    if cell is None or cell.accuracy is None:
        return "-"
    return f"{100 * cell.accuracy:.1f}"


def _ci(cell: Cell, method: str) -> str:
    found = interval(cell.right, cell.total, method)
    return "-" if found is None else f"[{100 * found[0]:.1f}, {100 * found[1]:.1f}]"


def _table(header: list[str], rows: list[list[str]], markdown: bool,
           numeric: bool = True) -> str:
    return render(header, rows, "markdown" if markdown else "text", numeric=numeric)


def _task_rows(s: Summary, method: str) -> tuple[list[str], list[list[str]]]:
    header = ["task", "answers", "right", "wrong", "unknown", "accuracy %", "95% CI"]
    rows = [[t, str(c.total), str(c.right), str(c.wrong), str(c.unknown), _pct(c),
             _ci(c, method)] for t, c in ((t, s.by_task[t]) for t in s.tasks)]
    o = s.overall
    rows.append(["all", str(o.total), str(o.right), str(o.wrong), str(o.unknown), _pct(o),
                 _ci(o, method)])
    return header, rows


def task_table(s: Summary, markdown: bool = False, *, fmt: str | None = None,
               method: str = "wald") -> str:
    """Per task (the paper's column order): N answers, right, wrong, unknown, accuracy % and
    its 95% interval (``method``: wald or wilson)."""
    return render(*_task_rows(s, method), fmt or ("markdown" if markdown else "text"))


def _domain_rows(s: Summary) -> tuple[list[str], list[list[str]]]:
    rows = []
    for d in s.domains:
        row = [d]
        for t in s.tasks:
            c = s.by_domain.get((d, t))
            if c is None:
                row.append("-")
                continue
            row.append(f"{_pct(c)} ({c.total}" + (f", {c.unknown}u)" if c.unknown else ")"))
        rows.append(row)
    return ["domain", *s.tasks], rows


def domain_table(s: Summary, markdown: bool = False, *, fmt: str | None = None) -> str:
    """Accuracy % per domain (rows) and task (columns) with the cell's N answers in
    parentheses; ``Nu`` counts the unknowns."""
    return render(*_domain_rows(s), fmt or ("markdown" if markdown else "text"))


_DOMAIN_NOTE = "Cells: accuracy % (N answers[, N unknown])."


def text_table(s: Summary, method: str = "wald") -> str:
    return (task_table(s, method=method) + "\n" + interval_note(method) + "\n\n"
            + domain_table(s) + "\n" + _DOMAIN_NOTE)


def markdown_report(s: Summary, title: str = "ACPBench Hard scores", *,
                    fmt: str = "markdown", method: str = "wald") -> str:
    """The per-run report file: by task, by domain and (Markdown) how verdicts were reached,
    as Markdown, CSV (the tables one after another, a blank line between) or LaTeX."""
    if fmt == "csv":
        return "\n\n".join([render(*_task_rows(s, method), "csv",
                                     caption=interval_note(method)),
                              render(*_domain_rows(s), "csv", caption=_DOMAIN_NOTE)]) + "\n"
    if fmt == "latex":
        return "\n\n".join([
            f"% {title}",
            render(*_task_rows(s, method), "latex",
                   caption=f"{title}: by task. {interval_note(method)}"),
            render(*_domain_rows(s), "latex",
                   caption=f"{title}: accuracy % by domain. {_DOMAIN_NOTE}")]) + "\n"
    evidence_rows = [[t, ", ".join(f"{k} {n}" for k, n in sorted(s.evidence[t].items()))]
                     for t in s.tasks]
    return "\n\n".join([
        f"# {title}",
        "Accuracy is right / answers; unknown verdicts (a solver limit) are not right.",
        "## By task", task_table(s, fmt="markdown", method=method), interval_note(method),
        "## By domain (accuracy %)", domain_table(s, fmt="markdown"), _DOMAIN_NOTE,
        "## How verdicts were reached", _table(["task", "evidence"], evidence_rows, True, numeric=False),
    ]) + "\n"


def heatmap(s: Summary, path: str | Path) -> None:
    """Domain x task accuracy as a PNG."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlanningError("plotting needs matplotlib: pip install 'planning-core[plot]'",
                            file=str(path)) from None
    tasks, domains = s.tasks, s.domains
    grid = [[(c.accuracy * 100 if (c := s.by_domain.get((d, t))) and c.total else float("nan"))
             for t in tasks] for d in domains]
    fig, ax = plt.subplots(figsize=(1.1 * len(tasks) + 2.5, 0.5 * len(domains) + 1.5))
    image = ax.imshow(grid, vmin=0, vmax=100, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(tasks)), labels=list(tasks))
    ax.set_yticks(range(len(domains)), labels=list(domains))
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if v == v:  # not NaN
                ax.text(j, i, f"{v:.0f}", ha="center", va="center",
                        color="white" if v < 60 else "black", fontsize=8)
    fig.colorbar(image, ax=ax, label="accuracy %")
    ax.set_title("ACPBench Hard accuracy by domain and task")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=120)
    except OSError as err:
        raise PlanningError(f"cannot write the plot: {err.strerror or err}",
                            file=str(path)) from None
    finally:
        plt.close(fig)


PLOT_FORMATS = (".png", ".pdf", ".svg")


def check_plot_path(path: str) -> None:
    """Refuse a plot path that cannot be written (before minutes of work, not after)."""
    p = Path(path)
    if p.is_dir():
        raise InputError("is a directory; expected a file name for the plot", file=path)
    if p.suffix.lower() not in PLOT_FORMATS:
        raise InputError(f"the plot is written as {', '.join(PLOT_FORMATS)}; "
                         f"got '{p.suffix or 'no extension'}'", file=path)


def _model_cell(c: Cell | None, method: str = "wald") -> str:
    if c is None or not c.total:
        return "-"
    low, high = interval(c.right, c.total, method)
    text = f"{c.right / c.total:.2f} [{low:.2f}, {high:.2f}]"
    return text + (f" ({c.unknown}u)" if c.unknown else "")


def models_table(runs: list[tuple[str, Summary]], markdown: bool = True, *,
                 fmt: str | None = None, method: str = "wald") -> str:
    """The paper's Table 2 layout: one row per model (run), one column per task (the
    paper's order), each cell the accuracy (right / answers) with its 95% interval
    (``method``: Wald by default, or Wilson), ``(Nu)`` when N verdicts were unknown; then the
    number of answers per row."""
    header = ["model", *PAPER_COLUMNS, "all", "answers"]
    rows = []
    for name, s in runs:
        rows.append([name, *(_model_cell(s.by_task.get(t), method) for t in PAPER_COLUMNS),
                     _model_cell(s.overall, method), str(s.overall.total)])
    return render(header, rows, fmt or ("markdown" if markdown else "text"))
