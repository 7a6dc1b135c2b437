"""Batch evaluation for ``cope eval``: model outputs (JSONL) in, result rows (JSONL) out.

Input rows are ``{"category", "problem", "constraint", "output"}`` (``"dataset"`` optional
when the dataset folder holds one dataset, or when the triple is unique across datasets).
Result rows are ``{"dataset", "category", "problem", "constraint", "method", "correct",
"outcome", "detail"}``.

Runs are resumable: :func:`read_results` reads an existing results file, and
:func:`plan_jobs` skips every pair already there, so an interrupted run continues where it
stopped (the file is appended to, one flushed line per pair). Malformed lines in either
file are reported with their line numbers and skipped, never fatal: a user's half-written
file is ordinary input.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from planning_core.errors import InputError

from planning_core.validators.cope.dataset import Pair

__all__ = ["OutputRow", "Job", "read_outputs", "read_results", "read_checks", "plan_jobs"]

_TEXT_FIELDS = ("category", "problem", "constraint")


@dataclass(frozen=True, slots=True)
class OutputRow:
    line: int
    dataset: str | None
    category: str
    problem: str
    constraint: str
    output: str


@dataclass(frozen=True, slots=True)
class Job:
    row: OutputRow
    pair: Pair


def _lines(path: Path) -> Iterable[tuple[int, str]]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a JSONL file", file=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, line


def read_outputs(path: Path) -> tuple[tuple[OutputRow, ...], tuple[str, ...]]:
    """Rows of a model-outputs file and warnings (``file:line: why``) for skipped lines."""
    rows: list[OutputRow] = []
    warnings: list[str] = []
    for number, line in _lines(Path(path)):
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            warnings.append(f"{where}: not JSON ({err.msg} at column {err.colno})")
            continue
        if not isinstance(record, dict):
            warnings.append(f"{where}: expected a JSON object")
            continue
        missing = [f for f in _TEXT_FIELDS if not isinstance(record.get(f), str)]
        if missing:
            warnings.append(f"{where}: missing or non-string field(s) {', '.join(missing)}")
            continue
        output = record.get("output")
        if output is None:
            output = ""
        elif not isinstance(output, str):
            output = json.dumps(output)   # a model's JSON answer stored as JSON
        dataset = record.get("dataset") if isinstance(record.get("dataset"), str) else None
        rows.append(OutputRow(number, dataset, record["category"], record["problem"],
                              record["constraint"], output))
    return tuple(rows), tuple(warnings)


def read_results(path: Path) -> tuple[tuple[dict, ...], tuple[str, ...]]:
    """Rows already in a results file (empty if it does not exist) and warnings."""
    path = Path(path)
    if not path.exists():
        return (), ()
    rows: list[dict] = []
    warnings: list[str] = []
    for number, line in _lines(path):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            warnings.append(f"{path}:{number}: not JSON ({err.msg}); the row is ignored and "
                            "its pair evaluated again")
            continue
        if isinstance(record, dict) and all(isinstance(record.get(f), str)
                                            for f in _TEXT_FIELDS + ("dataset",)):
            rows.append(record)
        else:
            warnings.append(f"{path}:{number}: not a result row; ignored")
    return tuple(rows), tuple(warnings)


def read_checks(path: Path) -> tuple[tuple, tuple[str, ...]]:
    """:class:`~planning_core.validators.cope.check.PairCheck` records from ``cope check --json`` output,
    to answer the label oracle without solving again; bad lines become warnings."""
    from planning_core.validators.cope.check import PairCheck

    checks = []
    warnings: list[str] = []
    for number, line in _lines(Path(path)):
        try:
            checks.append(PairCheck.from_json(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            warnings.append(f"{path}:{number}: not a `cope check --json` row; ignored")
    return tuple(checks), tuple(warnings)


def _index(pairs: Iterable[Pair]) -> dict[tuple[str, str, str], list[Pair]]:
    index: dict[tuple[str, str, str], list[Pair]] = {}
    for pair in pairs:
        index.setdefault((pair.category, pair.problem, pair.constraint), []).append(pair)
    return index


def plan_jobs(rows: Iterable[OutputRow], pairs: Iterable[Pair], done: Iterable[dict]
              ) -> tuple[tuple[Job, ...], tuple[str, ...], int]:
    """Jobs still to run, warnings, and how many rows were skipped as already done.

    A row names its pair by (dataset,) category, problem and constraint; rows naming no
    pair, an ambiguous pair, or a pair named before are reported and skipped.
    """
    index = _index(pairs)
    finished = {(r["dataset"], r["category"], r["problem"], r["constraint"]) for r in done}
    seen: set[tuple] = set()
    jobs: list[Job] = []
    warnings: list[str] = []
    skipped = 0
    for row in rows:
        candidates = index.get((row.category, row.problem, row.constraint), [])
        if row.dataset is not None:
            candidates = [p for p in candidates if p.dataset == row.dataset]
        name = f"{row.dataset + ' ' if row.dataset else ''}{row.category} {row.problem} " \
               f"{row.constraint}"
        if not candidates:
            warnings.append(f"line {row.line}: no pair {name} in the dataset; skipped")
            continue
        if len(candidates) > 1:
            warnings.append(f"line {row.line}: {name} exists in several datasets "
                            f"({', '.join(p.dataset for p in candidates)}); add \"dataset\"")
            continue
        pair = candidates[0]
        if pair.key in seen:
            warnings.append(f"line {row.line}: {name} was given before; skipped")
            continue
        seen.add(pair.key)
        if pair.key in finished:
            skipped += 1
            continue
        jobs.append(Job(row, pair))
    return tuple(jobs), tuple(warnings), skipped
