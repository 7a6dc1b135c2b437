"""Batch evaluation for ``cope eval``: model outputs (JSONL) in, result rows (JSONL) out.

Input rows are ``{"category", "problem", "constraint", "output"}`` (``"dataset"`` optional
when the dataset folder holds one dataset, or when the triple is unique across datasets).
Result rows are ``{"dataset", "category", "problem", "constraint", "method", "correct",
"outcome", "detail"}``.

Runs are resumable: :func:`read_results` reads an existing results file, and
:func:`plan_jobs` skips every pair already there, so an interrupted run continues where it
stopped (the file is appended to, one flushed line per pair). An output row that cannot be
judged (not JSON, missing fields, naming no pair, an ambiguous or a repeated pair) becomes
a :class:`BadRow`, which ``cope eval`` records as a ``bad_input`` result row (keyed by its
``file:line`` so a resumed run does not record it twice) before going on, or stops at
with ``--strict``. Malformed lines of the results file are reported and skipped: a
half-written file is ordinary input.

:func:`judge` is the one call per output: a response longer than the size cap is not read
(``too_large``), and any exception while judging becomes that row's ``internal_error``
outcome with the message, so one bad row never ends a batch.

On an executor (:mod:`planning_core.executor`) each output is one task,
:func:`eval_task`, whose context is the run's :class:`EvalSettings`: a worker builds its
:class:`~planning_core.validators.cope.results.EvalContext` (ground-truth cache, label
oracle, sandbox mode) from them once per run. An output whose task produced nothing (its
worker kept dying) becomes an ``internal_error`` row saying so (:func:`failed_eval_row`).
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planning_core.executor import TaskFailed, worker_state
from planning_core.results_file import json_objects

from planning_core.errors import InputError

from planning_core.validators.cope.dataset import MAX_RESPONSE_BYTES, Pair
from planning_core import safe_json

__all__ = ["OutputRow", "Job", "BadRow", "BAD_INPUT", "TOO_LARGE", "INTERNAL_ERROR",
           "BATCH_OUTCOMES", "MAX_RESPONSE_BYTES", "EvalSettings", "eval_task",
           "failed_eval_row", "read_outputs", "read_results", "read_checks", "plan_jobs",
           "judge"]

_TEXT_FIELDS = ("category", "problem", "constraint")
#: Outcomes every method can end with, besides its own (see :func:`judge`).
TOO_LARGE, INTERNAL_ERROR, BAD_INPUT = "too_large", "internal_error", "bad_input"
BATCH_OUTCOMES = (TOO_LARGE, INTERNAL_ERROR, BAD_INPUT)


@dataclass(frozen=True, slots=True)
class BadRow:
    """An output row that cannot be judged; ``source`` is ``file:line``."""

    source: str
    message: str
    key: tuple[str | None, str | None, str | None, str | None] = (None, None, None, None)

    @property
    def line(self) -> int:
        """The line number in ``source`` (0 when it has none)."""
        number = self.source.rsplit(":", 1)[-1]
        return int(number) if number.isdigit() else 0

    def to_row(self, method: str) -> dict:
        dataset, category, problem, constraint = self.key
        return {"dataset": dataset, "category": category, "problem": problem,
                "constraint": constraint, "method": method, "correct": False,
                "outcome": BAD_INPUT, "detail": {"error": self.message},
                "source": self.source}


@dataclass(frozen=True, slots=True)
class OutputRow:
    line: int
    dataset: str | None
    category: str
    problem: str
    constraint: str
    output: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class Job:
    row: OutputRow
    pair: Pair


#: what a line past the shared reader's cap is told (``MAX_LINE_BYTES``)
_TOO_LONG = "a line longer than {} MB; not read"


def _lines(path: Path, too_long: list[int]) -> Iterable[tuple[int, str]]:
    """The non-blank lines of ``path``, streamed by the shared bounded reader
    (:func:`planning_core.pddl.files.read_lines`: a regular file only, a FIFO is refused,
    never waited on; one line in memory); the numbers of lines past its cap go to
    ``too_long`` instead (each a bad row or warning of the caller)."""
    from planning_core.pddl.files import read_lines

    for line in read_lines(path):
        if line.data is None:
            too_long.append(line.number)
            continue
        text = line.data.decode("utf-8", errors="replace")
        if text.strip():
            yield line.number, text[:-1] if text.endswith("\r") else text


def _too_long() -> str:
    from planning_core.pddl.files import MAX_LINE_BYTES

    return _TOO_LONG.format(MAX_LINE_BYTES >> 20)


def read_outputs(path: Path) -> tuple[tuple[OutputRow, ...], tuple[BadRow, ...]]:
    """Rows of a model-outputs file and the lines that cannot be used, as bad rows."""
    rows: list[OutputRow] = []
    bad: list[BadRow] = []
    too_long: list[int] = []
    for number, record, problem in json_objects(_lines(Path(path), too_long)):
        where = f"{path}:{number}"
        if problem is not None:
            bad.append(BadRow(where, problem))
            continue
        missing = [f for f in _TEXT_FIELDS if not isinstance(record.get(f), str)]
        if missing:
            bad.append(BadRow(where, f"missing or non-string field(s) {', '.join(missing)}"))
            continue
        output = record.get("output")
        if output is None:
            output = ""
        elif not isinstance(output, str):
            output = json.dumps(output)   # a model's JSON answer stored as JSON
        dataset = record.get("dataset") if isinstance(record.get("dataset"), str) else None
        rows.append(OutputRow(number, dataset, record["category"], record["problem"],
                              record["constraint"], output, where))
    bad.extend(BadRow(f"{path}:{number}", _too_long()) for number in too_long)
    return tuple(rows), tuple(bad)


def read_results(path: Path) -> tuple[tuple[dict, ...], tuple[str, ...]]:
    """Rows already in a results file (empty if it does not exist) and warnings."""
    path = Path(path)
    if not path.exists():
        return (), ()
    rows: list[dict] = []
    warnings: list[str] = []
    too_long: list[int] = []
    for number, line in _lines(path, too_long):
        try:
            record = safe_json.loads(line)
        except json.JSONDecodeError as err:
            warnings.append(f"{path}:{number}: not JSON ({err.msg}); the row is ignored and "
                            "its pair evaluated again")
            continue
        if isinstance(record, dict) and (
                # a bad line's row is known by its "source" (a rerun looks it up in a set)
                (record.get("outcome") == BAD_INPUT
                 and isinstance(record.get("source", ""), str))
                or all(isinstance(record.get(f), str) for f in _TEXT_FIELDS + ("dataset",))):
            rows.append(record)
        else:
            warnings.append(f"{path}:{number}: not a result row; ignored")
    warnings.extend(f"{path}:{number}: {_too_long()}; the row is ignored and its "
                    "pair evaluated again" for number in too_long)
    return tuple(rows), tuple(warnings)


def read_checks(path: Path) -> tuple[tuple, tuple[str, ...]]:
    """:class:`~planning_core.validators.cope.check.PairCheck` records from ``cope check --json`` output,
    to answer the label oracle without solving again; bad lines become warnings."""
    from planning_core.validators.cope.check import PairCheck

    checks = []
    warnings: list[str] = []
    too_long: list[int] = []
    for number, line in _lines(Path(path), too_long):
        try:
            checks.append(PairCheck.from_json(safe_json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError):
            warnings.append(f"{path}:{number}: not a `cope check --json` row; ignored")
    warnings.extend(f"{path}:{number}: {_too_long()}; ignored" for number in too_long)
    return tuple(checks), tuple(warnings)


def _index(pairs: Iterable[Pair]) -> dict[tuple[str, str, str], list[Pair]]:
    index: dict[tuple[str, str, str], list[Pair]] = {}
    for pair in pairs:
        index.setdefault((pair.category, pair.problem, pair.constraint), []).append(pair)
    return index


def plan_jobs(rows: Iterable[OutputRow], pairs: Iterable[Pair], done: Iterable[dict]
              ) -> tuple[tuple[Job, ...], tuple[BadRow, ...], int]:
    """Jobs still to run, bad rows, and how many rows were skipped as already done.

    A row names its pair by (dataset,) category, problem and constraint; rows naming no
    pair, an ambiguous pair, or a pair named before are bad rows.
    """
    index = _index(pairs)
    finished = {(r["dataset"], r["category"], r["problem"], r["constraint"]) for r in done
                if r.get("outcome") != BAD_INPUT and not r.get("retry")}
    seen: set[tuple] = set()
    jobs: list[Job] = []
    bad: list[BadRow] = []
    skipped = 0
    for row in rows:
        candidates = index.get((row.category, row.problem, row.constraint), [])
        if row.dataset is not None:
            candidates = [p for p in candidates if p.dataset == row.dataset]
        name = f"{row.dataset + ' ' if row.dataset else ''}{row.category} {row.problem} " \
               f"{row.constraint}"
        key = (row.dataset, row.category, row.problem, row.constraint)
        source = row.source or f"line {row.line}"
        if not candidates:
            bad.append(BadRow(source, f"no pair {name} in the dataset", key))
            continue
        if len(candidates) > 1:
            bad.append(BadRow(source, f"{name} exists in several datasets "
                                      f"({', '.join(p.dataset for p in candidates)}); add "
                                      "\"dataset\"", key))
            continue
        pair = candidates[0]
        if pair.key in seen:
            bad.append(BadRow(source, f"{name} was given before", pair.key))
            continue
        seen.add(pair.key)
        if pair.key in finished:
            skipped += 1
            continue
        jobs.append(Job(row, pair))
    return tuple(jobs), tuple(bad), skipped


def _oversize(output: str, limit: int) -> int | None:
    """The UTF-8 size of ``output`` when it exceeds ``limit``, else None."""
    if len(output) * 4 <= limit:
        return None
    size = len(output.encode("utf-8", "surrogatepass"))
    return size if size > limit else None


def judge(method, pair: Pair, output: str, context, max_response_bytes: int) -> dict:
    """The result row for one output by ``method`` (an entry of the method registry):
    ``too_large`` unread when longer than ``max_response_bytes``, ``internal_error`` (with
    the message) when judging raises, else the method's verdict."""
    from planning_core.validators.cope.results import EvalResult  # heavy: judged rows only

    size = _oversize(output, max_response_bytes)
    if size is not None:
        result = EvalResult.for_pair(pair, False, TOO_LARGE, {
            "error": f"the output is {size} bytes, longer than the limit of "
                     f"{max_response_bytes} (--max-response-bytes); it was not read"})
    else:
        try:
            result = method.evaluate(pair, output, context)
        except Exception as err:  # noqa: BLE001 - one output must never end the batch
            result = EvalResult.for_pair(pair, False, INTERNAL_ERROR, {
                "error": f"{type(err).__name__}: {err}"})
    row = result.to_json()
    row["method"] = method.name
    return row


@dataclass(frozen=True, slots=True)
class EvalSettings:
    """What every task of one ``cope eval`` run shares (the executor's context).

    ``method`` is an entry of the method registry (a frozen object whose loader is a
    module-level function, so it pickles to any worker); ``checks_file`` is ``cope check
    --json`` output seeding the label oracle, read by each worker once (a path, not the
    checks, so a task does not carry hundreds of checks to its worker); ``sandbox`` is how
    model-written programs run (``bwrap``, or ``rlimits`` for ``--unsafe-no-sandbox``);
    ``run`` tells runs apart so no run reuses another's parsed files.
    """

    method: Any
    time_limit: float
    label_check: bool = True
    checks_file: str | None = None
    sandbox: str = "bwrap"
    max_response_bytes: int = MAX_RESPONSE_BYTES
    run: str = ""
    memory_limit: float | None = None

    def context(self):
        """A fresh evaluation context for these settings (a worker's, once per run)."""
        from planning_core.validators.cope.results import EvalContext

        context = EvalContext(time_limit=self.time_limit, use_oracle=self.label_check,
                              sandbox=self.sandbox, memory_limit=self.memory_limit)
        if self.checks_file:
            checks, _ = read_checks(Path(self.checks_file))   # the CLI warned already
            for check in checks:
                context.remember(check)
        return context


def eval_task(settings: EvalSettings, item: tuple[Pair, str]) -> dict:
    """One executor task: the result row for one ``(pair, output)``."""
    pair, output = item
    context = worker_state(settings, settings.context)
    return judge(settings.method, pair, output, context, settings.max_response_bytes)


def failed_eval_row(method_name: str, pair: Pair, failure: TaskFailed) -> dict:
    """The row of an output whose task produced nothing (its worker kept dying, or the
    task raised): ``internal_error`` with why, so the run goes on, and ``retry: true``: a
    rerun judges the output again (a worker killed once by the out-of-memory killer says
    nothing about the output)."""
    what = "worker-died" if failure.kind == "worker-died" else "internal-error"
    return {"dataset": pair.dataset, "category": pair.category, "problem": pair.problem,
            "constraint": pair.constraint, "correct": False, "outcome": INTERNAL_ERROR,
            "detail": {"error": f"{what}: not judged: {failure.message}"},
            "method": method_name, "retry": True}
