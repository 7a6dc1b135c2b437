"""Batch checking: a JSON Lines file of (tools, task, model output) rows -> result rows.

Each input row is ``{"id", "task": {...}, "tools": [...] (optional when the task has its
own), "output": text or JSON}``, or for the step-wise setting ``{"id", "task", "prefix",
"next"}``, or an APB case of ``toolplans generate`` (``"setting"``) with an ``"output"``. Rows of one task share a :class:`TaskContext` (compiled once, solved once). A
row that cannot be read gives an ``error`` result row naming the fault, and the run goes
on. Results are yielded in input order (:func:`check_rows`), or as they are computed
(:func:`check_arrivals`) for the CLI's :class:`~planning_core.results_file.ResultsWriter`,
which journals them, appends them to a file in input order and skips ids it already has, so
an interrupted run resumes where it stopped and loses no computed row.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterator

from planning_core.errors import PlanningError
from planning_core.executor import Executor, TaskFailed, in_input_order, make_executor
from planning_core.executor.local import SerialExecutor
from planning_core.validators.toolplans.apb import SETTINGS
from planning_core.validators.toolplans.apb_report import check_case
from planning_core.validators.toolplans.calls import OutputJSONError, loads
from planning_core.validators.toolplans.check import check_output
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.spec import ToolSpecError, parse_task, parse_tools
from planning_core.validators.toolplans.stepwise import judge_next

__all__ = ["CheckSettings", "Row", "check_arrivals", "check_group", "check_rows",
           "markdown_report", "read_rows", "summarize", "text_table"]


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    line: int
    data: dict | None
    error: str | None = None


def read_rows(text: str, file: str | None = None) -> list[Row]:
    """Rows of a JSON Lines file; a bad line becomes a row with ``error`` (located)."""
    rows = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file or '<rows>'}:{no}"
        try:
            data = loads(line)
        except OutputJSONError as err:   # bad JSON, nesting too deep, numbers too long
            rows.append(Row(f"line-{no}", no, None, f"{where}:{err.colno}: not JSON: {err.msg}"))
            continue
        if not isinstance(data, dict):
            rows.append(Row(f"line-{no}", no, None, f"{where}: a row must be a JSON object"))
            continue
        rows.append(Row(str(data.get("id", f"line-{no}")), no, data))
    ids = Counter(r.id for r in rows)
    dup = sorted(i for i, n in ids.items() if n > 1)
    if dup:
        raise ToolSpecError(f"row id {dup[0]!r} is used {ids[dup[0]]} times; ids must be "
                            "unique to resume a run", file=file)
    return rows


class _Contexts:
    def __init__(self) -> None:
        self.cache: dict[str, TaskContext] = {}

    def get(self, data: dict) -> TaskContext:
        if "task" not in data:
            raise ToolSpecError("the row has no 'task'")
        key = json.dumps([data.get("tools"), data["task"]], sort_keys=True)
        ctx = self.cache.get(key)
        if ctx is None:
            tools = parse_tools(data["tools"]) if data.get("tools") is not None else None
            ctx = TaskContext(parse_task(data["task"], tools))
            self.cache[key] = ctx
        return ctx


def _check_row(contexts: _Contexts, row: Row, *, engine: str, time_limit: float) -> dict:
    """One row's result, under a budget of its own (``time_limit`` CPU seconds, the default
    memory limit) made active for everything the row does: compiling and grounding its task
    when the row is the first of its task on this worker, the search and h* calls (given
    what is left of it). A limit is an ``unknown`` row naming it."""
    from planning_core.limits import LimitReached, Limits, metering

    if row.error is not None:
        return {"id": row.id, "verdict": "error", "error": row.error}
    budget = Limits(time_s=time_limit).budget()
    try:
        with metering(budget):
            return _check_row_within(contexts, row, engine=engine, time_limit=time_limit)
    except LimitReached as stop:
        return {"id": row.id, "verdict": "unknown", "limit": stop.limit,
                "error": f"checking stopped at the {stop.limit} ({stop.detail}); no verdict",
                "cpu_s": round(budget.cpu_s(), 6)}


def _check_row_within(contexts: _Contexts, row: Row, *, engine: str,
                      time_limit: float) -> dict:
    data = row.data
    try:
        ctx = contexts.get(data)
        if data.get("setting") in SETTINGS:     # an APB case (toolplans generate) + output
            if "output" not in data:
                raise ToolSpecError("the row has no 'output'")
            return check_case(ctx, data, data["output"], time_limit=time_limit)
        if "next" in data:
            rep = judge_next(ctx, data.get("prefix") or [], data["next"], time_limit=time_limit)
            return {"id": row.id, "task": ctx.task.id, "setting": "step-wise",
                    "verdict": {True: "optimal", False: "not_optimal", None: "unknown"}[rep.optimal]
                    if rep.applicable else ("not_applicable" if rep.applicable is False
                                            else "bad_prefix"), **rep.to_dict()}
        if "output" not in data:
            raise ToolSpecError("the row has no 'output' (nor 'next')")
        rep = check_output(ctx, data["output"], engine=engine, time_limit=time_limit)
    except PlanningError as err:
        return {"id": row.id, "verdict": "error", "error": str(err)}
    out = {"id": row.id, "task": ctx.task.id, "setting": "holistic", **rep.to_dict()}
    feas = out.pop("feasibility")
    out["solvable"] = None if feas is None else {"solved": True, "unsolvable": False}.get(feas["status"])
    out["infeasibility"] = feas["infeasibility"] if feas else None
    return out


def _group_key(row: Row) -> str:
    if row.data is None:
        return f"error:{row.id}"
    return json.dumps([row.data.get("tools"), row.data.get("task")], sort_keys=True)


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What every task of one ``toolplans batch`` run shares."""

    engine: str = "auto"
    time_limit: float = 60.0


def check_group(settings: CheckSettings, rows: list[Row]) -> list[dict]:
    """One executor task: the rows of one task (compiled and solved once here)."""
    contexts = _Contexts()
    return [_check_row(contexts, row, engine=settings.engine, time_limit=settings.time_limit)
            for row in rows]


def check_arrivals(rows: list[Row], settings: CheckSettings, executor: Executor,
                   on_done: Callable[[int], object] | None = None
                   ) -> Iterator[tuple[int, dict]]:
    """``(k, result of rows[k])`` as results are computed, in completion order.

    The rows of each task go to one executor task (the task is compiled and solved once
    there); on the serial executor the rows are checked one by one with one shared cache,
    so results come in input order. A task whose worker keeps dying gives ``error`` rows
    instead of ending the run.
    """
    if isinstance(executor, SerialExecutor):
        contexts = _Contexts()
        for k, row in enumerate(rows):
            result = _check_row(contexts, row, engine=settings.engine,
                                time_limit=settings.time_limit)
            if on_done is not None:
                on_done(1)
            yield k, result
        return
    by_key: dict[str, list[int]] = {}
    for k, row in enumerate(rows):
        by_key.setdefault(_group_key(row), []).append(k)
    groups = list(by_key.values())
    for g, result in executor.run(check_group, settings, [[rows[k] for k in idx]
                                                          for idx in groups]):
        idx = groups[g]
        if isinstance(result, TaskFailed):
            # retry: not final, a rerun checks these rows again (a worker killed once by
            # the out-of-memory killer says nothing about them)
            result = [{"id": rows[k].id, "verdict": "error",
                       "error": f"not checked: {result.message}", "retry": True}
                      for k in idx]
        if on_done is not None:
            on_done(len(idx))
        yield from zip(idx, result)


def check_rows(rows: list[Row], *, engine: str = "auto", time_limit: float = 60.0,
               on_done: Callable[[int], object] | None = None,
               workers: int = 1, executor: Executor | None = None) -> Iterator[dict]:
    """Results in the order of ``rows`` (:func:`check_arrivals` put in order).

    The work runs on ``executor`` (:mod:`planning_core.executor`; default: ``workers``
    local processes, or this process when ``workers <= 1``); results are yielded as soon
    as every earlier row's result is in, so the output does not depend on the executor.
    """
    owned = executor is None
    if executor is None:
        executor = make_executor("local", workers=workers if len(rows) > 1 else 1)
    try:
        arrivals = check_arrivals(rows, CheckSettings(engine, time_limit), executor, on_done)
        for _, result in in_input_order(arrivals, len(rows)):
            yield result
    finally:
        if owned:
            executor.close()


def summarize(results: list[dict]) -> dict:
    verdicts = Counter(r.get("verdict") for r in results)
    classes = Counter(r.get("class") for r in results if r.get("setting") == "holistic"
                      and r.get("correct") is False and r.get("class"))
    faults = Counter(r.get("fault") for r in results if r.get("correct") is False and r.get("fault"))
    incidence = Counter(c for r in results if r.get("setting") == "holistic"
                        for c in (r.get("classes") or {}))
    holistic = [r for r in results if r.get("setting") == "holistic"]
    right = sum(1 for r in holistic if r.get("correct") is True)
    wrong = [r for r in holistic if r.get("correct") is False and not r.get("refused")]
    valid = [r for r in holistic if r.get("verdict") == "valid" and r.get("excess_cost") is not None]
    return {
        "rows": len(results), "verdicts": dict(sorted(verdicts.items(), key=lambda x: str(x[0]))),
        "holistic": len(holistic), "correct": right,
        "correct_rate": round(right / len(holistic), 4) if holistic else None,
        "classes": dict(sorted(classes.items())), "faults": dict(sorted(faults.items())),
        "incidence": dict(sorted(incidence.items())),
        "mean_outputs_produced_wrong": round(sum(r["outputs_produced"] for r in wrong) / len(wrong), 4)
        if wrong else None,
        "mean_valid_prefix_wrong": round(sum(r["valid_prefix"] for r in wrong) / len(wrong), 4)
        if wrong else None,
        "optimal_valid": sum(1 for r in valid if r["excess_cost"] == 0),
        "mean_excess_cost_valid": round(sum(r["excess_cost"] for r in valid) / len(valid), 4)
        if valid else None,
    }


def text_table(summary: dict) -> str:
    lines = [f"rows {summary['rows']}, holistic {summary['holistic']}, correct "
             f"{summary['correct']} ({summary['correct_rate']})"]
    lines += [f"  {str(k):16s} {v}" for k, v in summary["verdicts"].items()]
    if summary["classes"]:
        lines.append("faults of wrong chains: " + ", ".join(f"{k} {v}" for k, v in summary["classes"].items()))
    for key in ("mean_outputs_produced_wrong", "mean_valid_prefix_wrong", "optimal_valid",
                "mean_excess_cost_valid"):
        if summary[key] is not None:
            lines.append(f"{key}: {summary[key]}")
    return "\n".join(lines)


def markdown_report(summary: dict) -> str:
    out = ["# Tool-plan check report", "",
           f"{summary['rows']} rows; {summary['holistic']} holistic, {summary['correct']} correct "
           f"(rate {summary['correct_rate']}).", "", "| verdict | rows |", "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in summary["verdicts"].items()]
    out += ["", "| APB class (first fault) | wrong chains |", "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in summary["classes"].items()]
    out += ["", "| APB class (every one that holds; rows may have several) | holistic rows |",
            "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in summary.get("incidence", {}).items()]
    out += ["", "| fault | rows |", "|---|---:|"]
    out += [f"| {k} | {v} |" for k, v in summary["faults"].items()]
    out += ["", "| grade | value |", "|---|---:|"]
    for key in ("mean_outputs_produced_wrong", "mean_valid_prefix_wrong", "optimal_valid",
                "mean_excess_cost_valid"):
        out.append(f"| {key} | {summary[key]} |")
    return "\n".join(out) + "\n"
