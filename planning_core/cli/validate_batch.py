"""``validate --batch MANIFEST.jsonl``: many (plan, domain, problem) triples in one run.

Running ``validate`` once per plan pays for starting Python, importing the parser and
parsing the domain and problem again for every plan; a leaderboard of model-written plans
has thousands. The manifest names them, one JSON object per line::

    {"id": "m1-7", "plan": "plans/m1/p07.txt", "domain": "domain.pddl", "problem": "p07.pddl"}
    {"id": "m2-7", "plan_text": "(pick a)\\n(drop a)\\n", "domain": "d.pddl", "problem": "p.pddl"}

Paths are relative to the manifest's folder (absolute ones are kept) and are made
absolute here, on the client, so a worker started in another folder reads the same files
(a cluster's workers must see them at the same absolute paths); ``plan_text`` gives
the plan inline instead of ``plan``. ``id`` (a string or a whole number) names the row.

Plans are grouped by (domain, problem), so a worker parses and checks each task once for
all its plans (:func:`validate_group`, one executor task; a large group is split so that no
worker is left with a straggler), and a worker keeps the tasks it parsed for the run
(:func:`~planning_core.executor.worker_state`). The groups run on the executor of
``--executor/--scheduler/--workers`` (:mod:`planning_core.executor`); the CLI process is
the one writer, and rows come out in manifest order whatever order the groups finish in.

Each plan gives one JSON row: ``id``, ``plan`` (the path as written, None for inline
text), ``verdict`` and ``valid`` (as ``validate --json``), the failing ``step`` (1-based)
and ``action``, the validator's ``message``, the plan's ``length`` (steps) and ``cost``,
and ``cpu_s`` (CPU seconds spent on that plan; it varies from run to run, the verdict
does not). ``-t TOLERANCE`` (VAL's tolerance for timed plans) applies to every row as it
does to ``validate`` on files, and a row judged with one records it (``tolerance``); with
``--out``, a recorded row judged at another tolerance is validated again (the only other
VAL flags, ``-v -s -S``, shape text output and are refused with ``--batch``; ``-c``
changes nothing).

Each plan has its own budget (``--time-limit`` CPU seconds, ``--memory-limit``), started
before anything is read for it. When its task is not yet parsed on its worker, the task is
read, parsed and checked *for that plan*, under that plan's budget (the first plan of a
group pays for its task; a plan whose task is already parsed pays nothing for it). A task
that cannot be read within the limit (a 10^6-fact problem at ``--time-limit 5``) gives
that plan an ``unknown`` row naming the limit (``limit``: ``time limit`` or ``memory
limit``) and the phase; the worker remembers it for the run, so the task's other plans
are ``unknown`` at once instead of each spending a whole limit on the same parse, and the
batch goes on. A task file larger than the memory limit is not read whole: ``unknown``
(memory limit), and one over ``--max-task-bytes`` is ``bad_input``, read no further.
Reading the plan counts against the plan's budget too. Only regular files are read (the
shared reader, :mod:`planning_core.pddl.files`): a FIFO or a device named as a plan,
domain or problem is a located ``bad_input`` row, never waited on. A plan whose domain,
problem or plan file cannot be read or does not parse, or whose task has semantic errors, gets verdict ``bad_input``
with the located error in ``message``; a manifest line that cannot be used (not JSON,
missing fields, a repeated id) gets a ``bad_input`` row keyed by its ``source``
(``manifest:line``), or stops the run with ``--strict``. A group whose task produced
nothing (its worker kept dying) gives ``unknown`` rows that say why.

With ``--out`` the rows are appended to a results file locked for the run
(:class:`~planning_core.results_file.ResultsWriter`); ids already there with a verdict are
skipped, so an interrupted run resumes (ids recorded as ``bad_input`` are tried again: their
files may have been fixed or missing where the task ran; so are ``unknown`` rows marked
``retry``, whose worker died; the old row of each is dropped from the file first, so it
holds one row per id however often the batch is rerun), and every row is journalled as it arrives, so killing the
command loses no validated row held back for manifest order. Without it the rows go to
standard output. The summary goes to stderr.
Exit code over the manifest's latest rows: 2 when any is ``bad_input``, else 1 when a plan
is invalid, else 3 when a plan hit the time limit (``unknown``), else 0.
"""
from __future__ import annotations

import contextlib
import itertools
import json
import os
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence, TextIO

from planning_core.errors import InputError, PlanningError
from planning_core import safe_json
from planning_core.executor import Executor, TaskFailed, in_input_order, split_items, \
    worker_state

__all__ = ["PlanItem", "BadLine", "Manifest", "BatchSettings", "read_manifest",
           "task_groups", "validate_group", "row_arrivals", "run_batch"]

BAD_INPUT = "bad_input"
# parsed tasks a worker keeps for a run (the groups of one task usually come together)
_TASKS_KEPT = 16


@dataclass(frozen=True, slots=True)
class PlanItem:
    """One usable manifest line. ``plan_path`` and ``domain``/``problem`` are resolved
    against the manifest's folder; ``plan`` is the path as the manifest wrote it."""

    index: int
    id: str | int
    source: str                   # manifest:line
    domain: str
    problem: str
    plan: str | None = None
    plan_path: str | None = None
    plan_text: str | None = None


@dataclass(frozen=True, slots=True)
class BadLine:
    """A manifest line that cannot be used, located (``source`` is ``manifest:line``)."""

    source: str
    message: str
    id: str | int | None = None

    def to_row(self) -> dict:
        return {"id": self.id, "plan": None, "verdict": BAD_INPUT, "valid": False,
                "step": None, "action": None, "message": f"{self.source}: {self.message}",
                "length": None, "cost": None, "cpu_s": 0.0, "source": self.source}


@dataclass(frozen=True, slots=True)
class Manifest:
    path: str
    items: tuple[PlanItem, ...]
    bad: tuple[BadLine, ...]


def _id_of(value) -> str | int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value:
        return value
    return value if isinstance(value, int) else None


def read_manifest(path: str | Path, *, max_plan_bytes: int) -> Manifest:
    """The manifest's usable lines and its bad ones (each located; ``plan_text`` longer than
    ``max_plan_bytes`` is one, unread); raises :class:`~planning_core.errors.InputError`
    when the file itself cannot be read."""
    from planning_core.pddl.files import read_text
    from planning_core.results_file import json_objects

    text = read_text(str(path), expected="a JSON Lines manifest")
    # absolute, here on the client: a Dask worker may run in another folder (or on another
    # machine that mounts the same file system), where a relative path means something else
    folder = Path(os.path.abspath(path)).parent
    items: list[PlanItem] = []
    bad: list[BadLine] = []
    first_line: dict[str | int, int] = {}
    for number, record, problem in json_objects(enumerate(text.split("\n"), start=1)):
        source = f"{path}:{number}"
        if problem is not None:
            bad.append(BadLine(source, problem))
            continue
        ident = _id_of(record.get("id"))
        if ident is None:
            bad.append(BadLine(source, 'missing or unusable "id" (a string or a whole '
                                       "number)"))
            continue
        missing = [f for f in ("domain", "problem")
                   if not isinstance(record.get(f), str) or not record.get(f)]
        has_path, has_text = "plan" in record, "plan_text" in record
        if has_path == has_text:
            missing.append('exactly one of "plan" and "plan_text"')
        elif has_path and (not isinstance(record["plan"], str) or not record["plan"]):
            missing.append('"plan" (a path)')
        elif has_text and not isinstance(record["plan_text"], str):
            missing.append('"plan_text" (a string)')
        if missing:
            bad.append(BadLine(source, f"missing or unusable field(s): {', '.join(missing)}",
                               ident))
            continue
        if ident in first_line:
            bad.append(BadLine(source, f"id {ident!r} was given before (line "
                                       f"{first_line[ident]})", ident))
            continue
        first_line[ident] = number
        text_plan = record.get("plan_text")
        if text_plan is not None and len(text_plan.encode("utf-8", "surrogatepass")) \
                > max_plan_bytes:
            bad.append(BadLine(source, f"plan_text longer than {max_plan_bytes} bytes "
                                       "(--max-response-bytes); not read", ident))
            continue

        def resolve(name: str) -> str:
            return os.path.normpath(folder / name)

        items.append(PlanItem(
            index=len(items), id=ident, source=source, domain=resolve(record["domain"]),
            problem=resolve(record["problem"]), plan=record.get("plan"),
            plan_path=resolve(record["plan"]) if has_path else None, plan_text=text_plan))
    return Manifest(str(path), tuple(items), tuple(bad))


# ------------------------------------------------------------------ the worker's side

@dataclass(frozen=True, slots=True)
class BatchSettings:
    """What every task of one batch shares (the executor's context). ``run`` tells runs
    apart, so that no run validates against files another run parsed (they may have been
    edited in between, and a Dask worker outlives a run)."""

    time_limit: float | None
    max_plan_bytes: int       # a longer plan file is bad_input, unread
    run: str = ""
    memory_limit: float | None = None   # MB per plan (None: the default, Limits)
    max_task_bytes: int = 200_000_000   # a longer domain or problem file is bad_input
    tolerance: float | None = None      # VAL's -t for timed plans (None: VAL's 0.01)

    def budget(self):
        """A fresh budget for one plan: CPU time only (on a busy worker a wall-clock limit
        would turn a plan unknown that an idle one decides; the verdict must not depend on
        load) and the memory limit."""
        from planning_core.limits import Limits

        return Limits(time_s=self.time_limit, memory_mb=self.memory_limit).budget()


def _bad_row(item: PlanItem, message: str) -> dict:
    return {"id": item.id, "plan": item.plan, "verdict": BAD_INPUT, "valid": False,
            "step": None, "action": None, "message": message, "length": None,
            "cost": None, "cpu_s": 0.0}


@dataclass(frozen=True, slots=True)
class _Stopped:
    """A task whose reading ran out of a plan's budget: what the worker remembers of it."""

    limit: str            # "time limit" or "memory limit"
    detail: str
    source: str           # the manifest line of the plan whose budget it spent


def _load(domain_path: str, problem_path: str, max_bytes: int | None = None):
    """``(domain, problem, None)`` or ``(None, None, message)`` for a task that cannot be
    used (as ``validate`` refuses it: unreadable, a syntax error, semantic errors). Parsing
    and checking tick the active budget (:func:`planning_core.limits.metering`), so they
    raise :class:`~planning_core.limits.LimitReached`; a file over ``max_bytes`` raises
    :class:`~planning_core.pddl.files.FileTooLarge`."""
    from planning_core.cli import error_line
    from planning_core.pddl.checker import check_domain, check_problem, errors_of
    from planning_core.pddl.files import FileTooLarge, read_text
    from planning_core.pddl.parser import parse_domain, parse_problem

    try:   # roles are given by the manifest, not told apart by content as validate does
        domain = parse_domain(read_text(domain_path, expected="a PDDL domain",
                                        max_bytes=max_bytes), domain_path)
        problem = parse_problem(read_text(problem_path, expected="a PDDL problem",
                                          max_bytes=max_bytes), problem_path)
    except FileTooLarge:
        raise
    except PlanningError as err:
        return None, None, error_line(err)
    errors = errors_of(check_domain(domain) + check_problem(domain, problem))
    if errors:
        return None, None, "; ".join(str(e) for e in errors)
    return domain, problem, None


_CACHE_LOCK = threading.Lock()   # a `dask worker` may run several tasks in threads


def _task(settings: BatchSettings, item: PlanItem, budget):
    """The parsed task of ``item``, through the worker's cache for this run: ``(domain,
    problem, refused)``, or a :class:`_Stopped` when reading it ran out of a budget. On a
    miss the task is read for ``item``, under ``budget`` (its plan's): parsing and checking
    are charged to that plan. A stop is remembered too (the same limit holds for every plan
    of the run, so parsing again for the next plan would only spend another whole limit)."""
    from planning_core.limits import LimitReached, metering
    from planning_core.pddl.files import FileTooLarge

    cache: dict = worker_state(settings, dict)
    key = (item.domain, item.problem)
    with _CACHE_LOCK:
        hit = cache.get(key)
    if hit is None:
        memory = int(budget.memory_mb * 2**20) if budget.memory_mb else None
        cap = settings.max_task_bytes if memory is None else min(memory,
                                                                  settings.max_task_bytes)
        try:
            with metering(budget):
                hit = _load(item.domain, item.problem, cap)
        except LimitReached as stop:
            hit = _Stopped(stop.limit, stop.detail, item.source)
        except FileTooLarge as big:
            if memory is not None and big.max_bytes >= memory:
                hit = _Stopped("memory limit", f"{big.file}: {big.message}", item.source)
            else:    # the task-file cap, not the row's memory: the input is refused
                hit = (None, None, f"{big.file}: error: a task file longer than "
                       f"{big.max_bytes} bytes (--max-task-bytes); read that much and "
                       "stopped")
        except MemoryError:   # RLIMIT_AS (a cluster's ulimit -v) ran out while parsing
            hit = _Stopped("memory limit", "out of memory", item.source)
        with _CACHE_LOCK:
            if len(cache) >= _TASKS_KEPT:
                cache.pop(next(iter(cache)))
            cache[key] = hit
    return hit


def _stopped_row(item: PlanItem, limit: str, message: str, cpu: float,
                 phase: str) -> dict:
    return {"id": item.id, "plan": item.plan, "verdict": "unknown", "valid": False,
            "step": None, "action": None, "message": message, "length": None,
            "cost": None, "cpu_s": round(cpu, 6), "limit": limit, "phase": phase}


def _task_stopped_row(item: PlanItem, stopped: _Stopped, cpu: float) -> dict:
    if stopped.source == item.source:
        how = f"while reading the domain and problem ({stopped.detail})"
    else:
        how = (f"while reading the domain and problem for {stopped.source} (the same "
               "limit holds for this plan; not read again)")
    return _stopped_row(item, stopped.limit, f"validation stopped at the {stopped.limit} "
                        f"{how}; no verdict", cpu, "task")


def _number(value):
    if value is None:
        return None
    if value - value != 0:   # inf or nan (an overflowed cost): no JSON number, so a string
        return f"{float(value):g}"
    return int(value) if float(value).is_integer() else float(value)


def _validate_one(settings: BatchSettings, item: PlanItem) -> dict:
    """The row of one plan, under its own budget (started here, before its task or its plan
    is read: see the module doc)."""
    from planning_core.cli import error_line
    from planning_core.limits import LimitReached, metering
    from planning_core.pddl.files import read_text
    from planning_core.pddl.plans import parse_plan
    from planning_core.validate.simulator import validate_plan

    budget = settings.budget()
    task = _task(settings, item, budget)
    if isinstance(task, _Stopped):
        return _task_stopped_row(item, task, budget.cpu_s())
    domain, problem, refused = task
    if refused is not None:
        return _bad_row(item, refused)
    if item.plan_path is not None:
        try:
            size = os.stat(item.plan_path).st_size
        except (OSError, ValueError):   # ValueError: a NUL byte in the name
            size = 0   # read_text below names the problem
        if size > settings.max_plan_bytes:
            return _bad_row(item, f"{item.plan_path}: error: the plan is {size} bytes, longer "
                                  f"than {settings.max_plan_bytes} (--max-response-bytes); "
                                  "not read")
        name = item.plan_path
    else:
        text, name = item.plan_text, f"{item.source}:plan_text"
    try:
        with metering(budget):           # reading a 300,000-step plan counts too
            if item.plan_path is not None:
                try:
                    text = read_text(item.plan_path, expected="a plan",
                                     max_bytes=settings.max_plan_bytes)
                except PlanningError as err:
                    return _bad_row(item, error_line(err))
            plan = parse_plan(text, name)
    except LimitReached as stop:
        return _stopped_row(item, stop.limit, f"validation stopped at the {stop.limit} "
                            f"while reading the plan ({stop.detail}); no verdict",
                            budget.cpu_s(), "plan")
    report = validate_plan(domain, problem, plan, budget=budget,
                           tolerance=settings.tolerance, typecheck_first=True)   # as VAL
    row = {"id": item.id, "plan": item.plan, "verdict": report.verdict.value,
           "valid": report.valid, "step": report.step, "action": report.action,
           "message": report.message or "", "length": len(plan.steps),
           "cost": _number(report.cost), "cpu_s": round(budget.cpu_s(), 6)}
    if report.limit is not None:
        row["limit"], row["phase"] = report.limit, "validation"
    if settings.tolerance is not None:
        row["tolerance"] = settings.tolerance
    return row


def validate_group(settings: BatchSettings, group: Sequence[PlanItem]
                   ) -> list[tuple[int, dict]]:
    """One executor task: validate plans that share a domain and problem, parsed once (for
    the first plan, under its budget). Every plan gets its row; nothing a plan or a file
    holds raises."""
    from planning_core.cli import error_line

    rows = []
    for item in group:
        try:
            row = _validate_one(settings, item)
        except PlanningError as err:   # e.g. a memory limit the budget reports
            row = _bad_row(item, error_line(err))
        except Exception as err:  # noqa: BLE001 - one plan never ends the batch
            row = failed_row(item, TaskFailed("error", f"{type(err).__name__}: {err}"))
        rows.append((item.index, row))
    return rows


def failed_row(item: PlanItem, failure: TaskFailed) -> dict:
    """The row of a plan whose task produced nothing: ``unknown`` (never a guess), why, and
    ``retry: true``: not final, a rerun validates the plan again (a worker killed once by
    the out-of-memory killer of a busy machine says nothing about the plan)."""
    what = "worker-died" if failure.kind == "worker-died" else "internal-error"
    return {"id": item.id, "plan": item.plan, "verdict": "unknown", "valid": False,
            "step": None, "action": None, "message": f"{what}: not validated: "
                                                      f"{failure.message}",
            "length": None, "cost": None, "cpu_s": 0.0, "retry": True}


def _same_tolerance(row: dict, tolerance: float | None) -> bool:
    """Whether a recorded row was judged at ``tolerance`` (``-t``; a row without one was
    judged at the default), so that a rerun with another ``-t`` does not keep verdicts of
    the old one."""
    recorded = row.get("tolerance")
    return recorded == tolerance or (recorded is None and tolerance is None)


def _final(row: dict) -> bool:
    """Whether a results row settles its plan, so a rerun skips it: not a bad_input row
    (its files may have been fixed, or were missing on a worker) and not a row marked
    ``retry`` (its worker died, or a file was missing where the task ran)."""
    return row.get("verdict") != BAD_INPUT and not row.get("retry")


def task_groups(items: Sequence[PlanItem], workers: int) -> list[Sequence[PlanItem]]:
    """Plans grouped by (domain, problem) in the order each task first appears; a group
    larger than a fair share of the work is split so that no worker holds a straggler."""
    by_task: dict[tuple[str, str], list[PlanItem]] = {}
    for item in items:
        by_task.setdefault((item.domain, item.problem), []).append(item)
    share = max(8, -(-len(items) // (4 * max(1, workers))))
    return [part for group in by_task.values() for part in split_items(group, share)]


def row_arrivals(items: Sequence[PlanItem], executor: Executor, settings: BatchSettings,
                 on_done=None) -> Iterator[tuple[int, dict]]:
    """Validate ``items`` on ``executor``, grouped by task; yield ``(k, row of items[k])``
    as groups finish (completion order). ``on_done(row)`` is called for every row."""
    position = {item.index: k for k, item in enumerate(items)}
    groups = task_groups(items, executor.workers)
    for g, result in executor.run(validate_group, settings, groups):
        if isinstance(result, TaskFailed):
            result = [(item.index, failed_row(item, result)) for item in groups[g]]
        for index, row in result:
            if on_done:
                on_done(row)
            yield position[index], row


# ------------------------------------------------------------------ the command

def _read_done(path: Path) -> tuple[list[dict], list[str]]:
    """Rows already in ``path`` and warnings for lines that are not rows."""
    if not path.exists():
        return [], []
    from planning_core.pddl.files import MAX_LINE_BYTES, read_lines

    rows, warnings = [], []
    # streamed by the shared bounded reader: a regular file only (a FIFO is refused), one
    # line of at most MAX_LINE_BYTES in memory (a results file of gigabytes costs a line)
    for found in read_lines(path):
        number, line = found.number, found.text("replace")
        if line is None:
            warnings.append(f"{path}:{number}: a line longer than {MAX_LINE_BYTES >> 20} MB; "
                            "not read, ignored")
            continue
        if not line.strip():
            continue
        try:
            row = safe_json.loads(line)
        except json.JSONDecodeError as err:
            warnings.append(f"{path}:{number}: not JSON ({err.msg}); ignored")
            continue
        # a row this command wrote: its verdict a string, a bad line's "source" a string
        # (the file is the user's: a row edited to hold a list there broke the run)
        if isinstance(row, dict) and _well_formed(row):
            rows.append(row)
        else:
            warnings.append(f"{path}:{number}: not a result row; ignored")
    return rows, warnings


def _row_key(row: dict) -> str | None:
    """The plan a results row is the verdict of (its id as JSON); None for rows that never
    count as done: a manifest line that could not be used, and a row that is not final
    (:func:`_final`: a rerun tries that plan again, so a journalled one must not stand in
    for it)."""
    if "source" in row or not _final(row) or not _well_formed(row) \
            or not isinstance(row.get("valid"), bool):   # a recovered row is counted
        return None
    return json.dumps(row.get("id"))


def _well_formed(row: dict) -> bool:
    """Whether a row read back (from ``OUT`` or its journal, files a user can edit) has the
    fields a rerun reads with the types this command writes; another is ignored and its plan
    validated again (a list as "source" stopped the run with a TypeError, and a journal row
    without "valid" with a KeyError)."""
    return isinstance(row.get("verdict"), str) and isinstance(row.get("valid", False), bool) \
        and isinstance(row.get("source", ""), str)


def _exit_code(rows: Sequence[dict]) -> int:
    from planning_core.cli import ExitCode

    verdicts = [r.get("verdict") for r in rows]
    if not rows or BAD_INPUT in verdicts:
        return ExitCode.BAD_INPUT
    if any(not r.get("valid") and r.get("verdict") != "unknown" for r in rows):
        return ExitCode.INVALID
    if "unknown" in verdicts:
        return ExitCode.UNKNOWN
    return ExitCode.OK


def run_batch(manifest_path: str, *, out_path: str | None, executor_args, strict: bool,
              time_limit: float | None, max_plan_bytes: int, progress: bool,
              out: TextIO, err: TextIO, memory_limit: float | None = None,
              max_task_bytes: int | None = None, retry_unknown: bool = False,
              tolerance: float | None = None) -> int:
    """The ``validate --batch`` command (see the module doc); returns the exit code.
    ``tolerance`` is ``-t``, as for ``validate`` on files; a recorded row judged at another
    tolerance is computed again."""
    from planning_core.cli import ExitCode, error_line
    from planning_core.cli.executor_args import executor_for
    from planning_core.results_file import LimitRetry, ResultsWriter

    manifest = read_manifest(manifest_path, max_plan_bytes=max_plan_bytes)
    if manifest.bad and strict:
        first = manifest.bad[0]
        print(f"{first.source}: error: {first.message}", file=err)
        return ExitCode.BAD_INPUT
    done_rows: list[dict] = []
    # locked for the run, a torn tail cut off, a killed run's journal taken
    # and the rows unknown at a smaller --time-limit (or any, --retry-unknown) taken out
    retry = LimitRetry(time_limit, lambda row: row["verdict"] == "unknown"
                       and not row.get("retry"), retry_unknown=retry_unknown)
    writer = ResultsWriter(out_path, key=_row_key, retry=retry) if out_path else None
    with writer or contextlib.nullcontext():
        if writer is not None:
            done_rows, warnings = _read_done(Path(out_path))
            for warning in warnings:
                print(f"warning: {warning}", file=err)
        done_ids = {json.dumps(r.get("id")) for r in done_rows
                    if _final(r) and "source" not in r and _same_tolerance(r, tolerance)}
        recorded = {r.get("source") for r in done_rows if "source" in r}
        todo = [item for item in manifest.items if json.dumps(item.id) not in done_ids]
        if len(todo) < len(manifest.items):
            print(f"{len(manifest.items) - len(todo)} plan(s) already in {out_path}; "
                  "skipped", file=err)
        if writer is not None and writer.note():
            print(writer.note(), file=err)
        if writer is not None:   # rows about to be computed again: one row per id
            again = {json.dumps(item.id) for item in todo}
            writer.drop(lambda row: "source" not in row
                        and (not _final(row) or not _same_tolerance(row, tolerance))
                        and json.dumps(row.get("id")) in again)

        # the manifest's lines in their order: plans to check and new bad lines, whose rows
        # are made now and written in their places (not first: issue 32)
        new_rows: list[dict] = []
        entries: list[PlanItem | BadLine] = list(todo)
        for bad in manifest.bad:
            if bad.source not in recorded:
                print(f"warning: {bad.source}: {bad.message}; recorded as a bad_input row",
                      file=err)
                entries.append(bad)
            else:
                new_rows.append(bad.to_row())
        entries.sort(key=lambda e: _line_of(e.source))
        ready = {p: e.to_row() for p, e in enumerate(entries) if isinstance(e, BadLine)}
        keys = ["\0bad " + e.source if isinstance(e, BadLine) else json.dumps(e.id)
                for e in entries]
        fresh = writer.resume(keys, ready) if writer is not None \
            else [p for p in range(len(entries)) if p not in ready]
        work = [entries[k] for k in fresh]
        settings = BatchSettings(time_limit, max_plan_bytes, os.urandom(8).hex(),
                                 memory_limit, **({} if max_task_bytes is None else
                                                  {"max_task_bytes": max_task_bytes}),
                                 tolerance=tolerance)
        with executor_for(executor_args, len(work), err) as executor:
            bar = _progress(len(work), progress, err)
            valid = 0
            try:
                # on_done gets the row: the bar counts it (tqdm's update(n) takes a number)
                arrivals = row_arrivals(work, executor, settings,
                                        on_done=(lambda _row: bar.update(1)) if bar else None)
                rows = writer.in_order(arrivals) if writer is not None \
                    else in_input_order(itertools.chain(
                        ready.items(), ((fresh[k], row) for k, row in arrivals)),
                        len(entries))
                for _, row in rows:
                    if writer is None:
                        print(json.dumps(row), file=out)
                    new_rows.append(row)
                    valid += bool(row["valid"])
                    if bar is not None:
                        bar.set_postfix_str(f"valid {valid}", refresh=False)
            except OSError as error:   # standard output closed under us
                raise InputError(f"cannot write: {error.strerror or error}",
                                 file=out_path) from None
            finally:
                if bar is not None:
                    bar.close()
    latest = _latest(manifest, done_rows, new_rows)
    _summary(latest, len(work), out_path, err)
    if not manifest.items and not manifest.bad:
        print(error_line(InputError("no plans in the manifest", file=manifest_path)),
              file=err)
        return ExitCode.BAD_INPUT
    return _exit_code(latest)


def _line_of(source: str) -> int:
    """The line number of a manifest ``source`` (``PATH:LINE``)."""
    return int(source.rpartition(":")[2])


def _latest(manifest: Manifest, done: Sequence[dict], new: Sequence[dict]) -> list[dict]:
    """The manifest's current rows: per id the latest row (a final row beats one that is
    not, :func:`_final`), plus the bad lines of this manifest."""
    ids = {json.dumps(item.id) for item in manifest.items}
    bad_sources = {b.source for b in manifest.bad}
    latest: dict[str, dict] = {}
    for row in list(done) + list(new):
        if "source" in row:
            if row["source"] in bad_sources:
                latest["source:" + row["source"]] = row
            continue
        key = json.dumps(row.get("id"))
        if key in ids and (key not in latest or _final(row) or not _final(latest[key])):
            latest[key] = row
    return list(latest.values())


def _summary(rows: Sequence[dict], ran: int, out_path: str | None, err: TextIO) -> None:
    from collections import Counter

    counts = Counter("valid" if r.get("valid") else
                     r.get("verdict") if r.get("verdict") in ("unknown", BAD_INPUT)
                     else "invalid" for r in rows)
    where = f"; results in {out_path}" if out_path else ""
    print(f"{len(rows)} plan(s) ({ran} validated now): {counts['valid']} valid, "
          f"{counts['invalid']} invalid, {counts['unknown']} unknown, "
          f"{counts[BAD_INPUT]} bad input{where}", file=err)


def _progress(total: int, enabled: bool, err: TextIO):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    # disable=None: drawn on a terminal only, so logs and pipes stay clean
    return tqdm(total=total, unit="plan", file=err, dynamic_ncols=True, disable=None)
