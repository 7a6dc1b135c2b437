"""Summaries of result rows: per task and per domain, as the paper's tables show them.

Accuracy is ``right / answers``: an unknown verdict (a solver limit) is not counted as right,
and the number of unknowns is shown next to it, so a reader can tell "wrong" from "not
decided". :func:`models_table` lays several runs out as the paper's Table 2 (models as rows,
tasks as columns) with a 95% Wald interval per cell (:func:`wald_interval`). Tables are plain text for a terminal and Markdown for a report; the heatmap
(domain x task accuracy) needs matplotlib (``pip install 'planning-core[plot]'``).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from planning_core.errors import InputError, PlanningError

from planning_core.validators.acp.records import TASKS

__all__ = ["PLOT_FORMATS", "Cell", "Summary", "check_plot_path", "heatmap", "markdown_report",
           "summarize", "text_table", "PAPER_COLUMNS", "wald_interval", "models_table"]

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
        known = [t for t in TASKS if t in self.by_task]
        return tuple(known + sorted(t for t in self.by_task if t not in TASKS))

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


def _table(header: list[str], rows: list[list[str]], markdown: bool,
           numeric: bool = True) -> str:
    """A table; columns after the first are right-aligned when ``numeric``."""
    if markdown:
        align = ["---" if k == 0 or not numeric else "---:" for k in range(len(header))]
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(header, *rows)]
    fmt = lambda r: "  ".join(x.ljust(w) if k == 0 else x.rjust(w)  # noqa: E731
                              for k, (x, w) in enumerate(zip(r, widths)))
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def task_table(s: Summary, markdown: bool = False) -> str:
    header = ["task", "answers", "right", "wrong", "unknown", "accuracy %"]
    rows = [[t, str(c.total), str(c.right), str(c.wrong), str(c.unknown), _pct(c)]
            for t, c in ((t, s.by_task[t]) for t in s.tasks)]
    o = s.overall
    rows.append(["all", str(o.total), str(o.right), str(o.wrong), str(o.unknown), _pct(o)])
    return _table(header, rows, markdown)


def domain_table(s: Summary, markdown: bool = False) -> str:
    """Accuracy % per domain (rows) and task (columns); ``(u)`` marks unknowns."""
    header = ["domain", *s.tasks]
    rows = []
    for d in s.domains:
        row = [d]
        for t in s.tasks:
            c = s.by_domain.get((d, t))
            text = _pct(c)
            if c is not None and c.unknown:
                text += f" ({c.unknown}u)"
            row.append(text)
        rows.append(row)
    return _table(header, rows, markdown)


def text_table(s: Summary) -> str:
    return task_table(s) + "\n\n" + domain_table(s)


def markdown_report(s: Summary, title: str = "ACPBench Hard scores") -> str:
    evidence_rows = [[t, ", ".join(f"{k} {n}" for k, n in sorted(s.evidence[t].items()))]
                     for t in s.tasks]
    return "\n\n".join([
        f"# {title}",
        "Accuracy is right / answers; unknown verdicts (a solver limit) are not right.",
        "## By task", task_table(s, markdown=True),
        "## By domain (accuracy %)", domain_table(s, markdown=True),
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


def wald_interval(right: int, n: int, z: float = 1.96) -> tuple[float, float] | None:
    """The Wald interval of the accuracy ``right / n`` (95% for ``z = 1.96``), clipped to
    [0, 1]; None when ``n`` is 0. ``p +- z * sqrt(p (1 - p) / n)``: simple and, at the
    extremes (0 or n right), of width 0 -- read it with the count beside it."""
    if n <= 0:
        return None
    p = right / n
    half = z * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


def _model_cell(c: Cell | None) -> str:
    if c is None or not c.total:
        return "-"
    low, high = wald_interval(c.right, c.total)
    text = f"{c.right / c.total:.2f} [{low:.2f}, {high:.2f}]"
    return text + (f" ({c.unknown}u)" if c.unknown else "")


def models_table(runs: list[tuple[str, Summary]], markdown: bool = True) -> str:
    """The paper's Table 2 layout: one row per model (run), one column per task (the
    paper's order), each cell the accuracy (right / answers) with its 95% Wald interval,
    ``(Nu)`` when N verdicts were unknown; then the number of answers per row."""
    header = ["model", *PAPER_COLUMNS, "all", "answers"]
    rows = []
    for name, s in runs:
        rows.append([name, *(_model_cell(s.by_task.get(t)) for t in PAPER_COLUMNS),
                     _model_cell(s.overall), str(s.overall.total)])
    return _table(header, rows, markdown)
