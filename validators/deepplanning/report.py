"""Reports like the paper's Table 2 (line 129), and the error taxonomy (lines 220-230).

Rows are the JSON lines ``deepplanning run`` writes (one per task and run, with the
verdict under ``score``).  Per run: travel CS, PS, Comp, Case Acc; shopping Match and Case
Acc; Avg Acc = the mean of the two domains' Case Accuracy.  Then the mean over runs (the
paper averages four, line 176).  In ``paper`` scoring Match is the mean of per-case match
scores; in ``released`` it pools matched and expected counts (micro average), and a run is
marked invalid when more than 10% of its shopping cases are incomplete.  A travel case whose
Personalized Score is undecided (a constraint kind we cannot check) is left out of PS, Comp
and Case Acc as 0 (it is never dropped: the paper averages over all tasks, line 176) and
counted (``travel_undecided``).  Every cell carries its N (cases; over runs, case-runs) and
a 95% interval: for a Case Accuracy (a proportion) Wilson's by default or Wald's
(``method``, the commands' ``--interval``; the paper gives no intervals), mean +- 1.96
standard errors for a mean score, over the cases pooled across runs.  :func:`render`
writes the table as text, Markdown, CSV or LaTeX through the shared renderer
(:mod:`planning_core.cli.tables`), the notes under it (comment lines in CSV and LaTeX).

The taxonomy is decided from the trajectory where it can be (A1: a needed tool never
called; A2: tool calls answered with an error; A3: a name from the database written with
another price; B1: an explicit (personalized) constraint violated; B2: an implicit one --
hours, closing days, durations, a leg with fewer seats than travellers (line 226's example);
C: a global one -- overlaps, transfers, cost
arithmetic, diversity, route, or a cart meeting every request that is not the optimum).  A
failed case none of these explains is ``undecided``; a case ``run`` or ``score`` could not
load (its database missing or unreadable, its id not a folder name) is ``bad_input``.
"""
from __future__ import annotations

import json
import math
import re
from statistics import mean
from typing import Any, Iterable

from planning_core.validators.deepplanning.jsontext import loads

__all__ = ["table", "taxonomy", "render", "render_markdown"]

TRAVEL_NEEDS = {"meal": ("recommend_restaurants", "query_restaurant_details"),
                "attraction": ("query_attraction_details", "recommend_attractions"),
                "travel_city": ("query_road_route_info",),
                "hotel": ("query_hotel_info",),
                "travel_intercity_public": ("query_train_info", "query_flight_info")}
B2 = {"attraction_visit_within_opening_hours", "dining_within_service_hours",
      "avoidance_of_closure_days", "reasonable_duration_at_attractions",
      "reasonable_meal_duration"}
C = {"no_time_overlaps", "reasonable_transfer_time", "cost_calculation_correctness",
     "diverse_meal_options", "diverse_attraction_options", "valid_trip_duration",
     "closed_loop_route_structure", "seamless_intercity_transfers",
     "traceable_accommodation", "ends_with_accommodation", "essential_meal_coverage",
     "essential_attraction_coverage"}


_ERROR_ANSWER = re.compile(r'\s*\{\s*"(error|message)"')


def _called(messages: list[dict]) -> set[str]:
    out = set()
    for m in messages:
        calls = m.get("tool_calls") if m.get("role") == "assistant" else None
        for c in calls if isinstance(calls, list) else []:
            fn = c.get("function") if isinstance(c, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("name"), str):
                out.add(fn["name"])
    return out


def taxonomy(row: dict[str, Any]) -> list[str]:
    """Error classes of one failed row (``[]`` for a solved case)."""
    s = row.get("score") or {}
    if s.get("case_acc") == 1:
        return []
    if s.get("bad_input"):
        return ["bad_input"]     # the task's database could not be read: no agent error
    messages = row.get("messages") or []
    called = _called(messages)
    out: list[str] = []
    # an error answer: {"error": ...} or the restaurant tool's {"message": ...}, compact or
    # indented as the released tools write them
    errors = sum(1 for m in messages if m.get("role") == "tool" and
                 _ERROR_ANSWER.match(str(m.get("content", ""))))
    if row.get("domain") == "travel":
        cps = s.get("checkpoints") or {}
        failed = {k for k, v in cps.items() if not v.get("passed")}
        kinds = set()
        try:
            from planning_core.validators.deepplanning.travel_plan import extract_json

            plan = extract_json(row.get("final") or "")
            kinds = {a.get("type") for d in plan.get("daily_plans", [])
                     for a in d.get("activities", []) if isinstance(a, dict)}
        except (ValueError, AttributeError, TypeError):
            pass
        if any(not set(tools) & called for kind, tools in TRAVEL_NEEDS.items()
               if kind in kinds):
            out.append("A1")
        if errors:
            out.append("A2")
        if any("is not the database" in str((cps.get(k) or {}).get("reason", ""))
               for k in ("validated_accommodation", "validated_attractions",
                         "validated_meals")):
            out.append("A3")
        if any(v.get("passed") is False for v in (s.get("constraints") or {}).values()):
            out.append("B1")
        if failed & B2 or (s.get("seat_shortage") and s.get("case_acc") != 1):
            out.append("B2")
        if failed & C:
            out.append("C")
    else:
        if "get_user_info" not in called and messages:
            out.append("A1")
        if errors:
            out.append("A2")
        failed = s.get("failed") or []
        if any(f.startswith(("missing:", "extra:", "coupons")) for f in failed):
            valid = s.get("cart_valid")
            if valid is True:
                out.append("C")      # every request met, a cheaper valid cart exists
            elif valid is False:
                out.append("B1")     # a request (filter, size, floor) not met
            elif s.get("matched", 0):
                out.append("C")
        if "not_lowest_after_coupons" in failed:
            out.append("C")          # the right products, not the lowest price after coupons
        if any(f == "coupon_threshold" or f.startswith("coupon:") for f in failed):
            out.append("B2")         # a cart rule: a coupon the final cart does not allow
    return out or ["undecided"]


def _values(rows: list[dict], mode: str) -> dict[str, list[float]]:
    """Per-case values of each cell (undecided PS, Comp and Case Acc count as 0)."""
    travel = [r["score"] for r in rows if r.get("domain") == "travel" and r.get("score")]
    shop = [r["score"] for r in rows if r.get("domain") == "shopping" and r.get("score")]
    out: dict[str, list[float]] = {}
    if travel:
        out["cs"] = [t["commonsense"] for t in travel]
        out["ps"] = [t["personalized"] or 0 for t in travel]
        out["comp"] = [t["composite"] if t["composite"] is not None else t["commonsense"] / 2
                       for t in travel]
        out["travel_case_acc"] = [t["case_acc"] or 0 for t in travel]
    if shop:
        out["match"] = [s["match"] for s in shop]
        out["shopping_case_acc"] = [s["case_acc"] for s in shop]
    return out


def _interval(key: str, values: list[float], method: str = "wilson") -> list[float] | None:
    """95% interval of a cell's mean: for a proportion (a Case Accuracy) by ``method``
    (``wilson`` or ``wald``, :func:`planning_core.cli.tables.interval`), normal (mean +- 1.96
    standard errors) otherwise."""
    n = len(values)
    if not n:
        return None
    m = sum(values) / n
    if key.endswith("case_acc"):
        from planning_core.cli.tables import interval

        return list(interval(sum(values), n, method))
    z = 1.96
    var = sum((v - m) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(var / n)
    return [max(0.0, m - half), min(1.0, m + half)]


def _run_table(rows: list[dict], mode: str, method: str = "wilson") -> dict[str, Any]:
    travel = [r["score"] for r in rows if r.get("domain") == "travel" and r.get("score")]
    shop = [r["score"] for r in rows if r.get("domain") == "shopping" and r.get("score")]
    out: dict[str, Any] = {"travel_cases": len(travel), "shopping_cases": len(shop)}
    vals = _values(rows, mode)
    for k, v in vals.items():
        out[k] = mean(v)
    if travel:
        out["travel_undecided"] = sum(t.get("personalized") is None for t in travel)
    if shop and mode == "released":
        exp = sum(s["expected"] for s in shop)
        out["match"] = sum(s["matched"] for s in shop) / exp if exp else 0.0
        incomplete = sum(not s.get("completed", True) for s in shop)
        out["valid"] = incomplete <= 0.1 * len(shop)
    accs = [out[k] for k in ("travel_case_acc", "shopping_case_acc")
            if out.get(k) is not None]
    out["avg_acc"] = mean(accs) if len(accs) == 2 else None
    out["n"] = {k: len(v) for k, v in vals.items()}
    out["ci95"] = {k: _interval(k, v, method) for k, v in vals.items()}
    return out


def _latest_scored(rows: list[dict]) -> list[dict]:
    """``rows`` with only the last scored row of each ``(key, run)``; rows with no key
    (``score``'s) and error rows kept."""
    last: dict = {}
    for k, r in enumerate(rows):
        if r.get("score") is not None and r.get("key") is not None:
            last[(r["key"], r.get("run", 0))] = k
    return [r for k, r in enumerate(rows) if r.get("score") is None or r.get("key") is None
            or last[(r["key"], r.get("run", 0))] == k]


def table(rows: Iterable[dict[str, Any]], method: str = "wilson") -> dict[str, Any]:
    """Table 2 per run and averaged over runs, the taxonomy and the model errors (module
    doc); ``method`` is the interval of a Case Accuracy (``wilson`` or ``wald``). A task
    and run scored twice (run again at a larger cap) counts once, by its last row."""
    rows = _latest_scored(list(rows))
    modes = {r["score"].get("mode", "paper") for r in rows if r.get("score")}
    if len(modes) > 1:
        from planning_core.errors import InputError

        raise InputError(f"the results mix scoring modes {sorted(map(str, modes))}; report "
                         "one mode at a time")
    mode = next(iter(modes), "paper")
    runs = sorted({r.get("run", 0) for r in rows})
    per_run = {str(k): _run_table([r for r in rows if r.get("run", 0) == k], mode, method)
               for k in runs}
    keys = ("cs", "ps", "comp", "travel_case_acc", "match", "shopping_case_acc", "avg_acc")
    avg: dict[str, Any] = {}
    for k in keys:
        vals = [t[k] for t in per_run.values() if t.get(k) is not None]
        avg[k] = mean(vals) if vals else None
    pooled = _values([r for r in rows], mode)
    avg["n"] = {k: len(v) for k, v in pooled.items()}
    avg["ci95"] = {k: _interval(k, v, method) for k, v in pooled.items()}
    avg["travel_undecided"] = sum(t.get("travel_undecided", 0) for t in per_run.values())
    tax: dict[str, dict[str, int]] = {"travel": {}, "shopping": {}}
    for r in rows:
        if r.get("score") is None:
            continue
        for cls in taxonomy(r):
            d = tax[r.get("domain", "travel")]
            d[cls] = d.get(cls, 0) + 1
    # a model error (no score) stays out of N; a rerun retries it and appends its answer, so
    # an error row whose task and run were later answered is no longer an error
    answered = {(r.get("key"), r.get("run", 0)) for r in rows
                if r.get("score") is not None and r.get("key") is not None}
    pending = {(r.get("key"), r.get("run", 0)) if r.get("key") is not None else i
               for i, r in enumerate(rows) if r.get("score") is None}
    errors = len(pending - answered)
    caps: dict[str, list[str]] = {}
    for r in rows:
        for k, v in sorted((r.get("cap") or {}).items()):
            label = f"{v} {k.replace('_', ' ')}" + (" (paper)" if k == "tool_calls" and
                                                    v == 400 else
                                                    " (released agents)" if k ==
                                                    "model_calls" and
                                                    v == {"travel": 150, "shopping": 400}
                                                    .get(r.get("domain")) else "")
            if label not in caps.setdefault(r.get("domain", "travel"), []):
                caps[r.get("domain", "travel")].append(label)
    return {"mode": mode, "interval": method, "runs": per_run, "average": avg,
            "taxonomy": tax, "model_errors": errors, "caps": caps}


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}"


def _cell(r: dict[str, Any], k: str) -> str:
    v = _pct(r.get(k))
    n = (r.get("n") or {}).get(k)
    ci = (r.get("ci95") or {}).get(k)
    if n is None:
        return v
    return v + (f" [{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]" if ci else "") + f" N={n}"


_COLUMNS = ("cs", "ps", "comp", "travel_case_acc", "match", "shopping_case_acc")
_HEADER = ("run", "Avg Acc", "CS", "PS", "Comp", "Travel Case Acc", "Match",
           "Shopping Case Acc")


def _notes(t: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The lines above the table (scoring, caps) and under it (cells, intervals, taxonomy,
    model errors)."""
    above = [f"Scoring: {t['mode']}"]
    caps = "; ".join(f"{d}: {', '.join(v)}" for d, v in sorted((t.get("caps") or {}).items()))
    if caps:
        above.append(f"Caps per task: {caps}")
    method = t.get("interval", "wilson")
    name = {"wald": "Wald", "wilson": "Wilson"}.get(method, method)
    undecided = t["average"].get("travel_undecided") or 0
    under = ["Cells: mean [95% interval] N (cases; for the mean row, case-runs pooled).  "
             f"Intervals: {name} for a Case Acc (--interval {method}), mean +- 1.96 "
             "standard errors for a mean score."
             + (f"  {undecided} travel case-run(s) with a constraint kind we cannot decide "
                "count as 0 in PS, Comp and Case Acc (kept in N)." if undecided else "")]
    tax = "; ".join(f"{d}: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items()))
                    for d, c in t["taxonomy"].items() if c)
    if tax:
        under.append(f"Error taxonomy (failed cases): {tax}")
    if t["model_errors"]:
        under.append(f"Model errors (no score): {t['model_errors']}")
    return above, under


def render(t: dict[str, Any], fmt: str = "markdown") -> str:
    """The report of :func:`table` as ``text``, ``markdown``, ``csv`` or ``latex`` (the
    shared renderer, :func:`planning_core.cli.tables.render`): one row per run and the mean
    row, each cell ``mean [interval] N=n``; the notes as lines (text, Markdown) or comment
    lines (``#`` CSV, ``%`` LaTeX)."""
    from planning_core.cli.tables import render as render_table

    rows = [[k, _pct(r.get("avg_acc")), *(_cell(r, c) for c in _COLUMNS)]
            for k, r in list(t["runs"].items()) + [("mean", t["average"])]]
    above, under = _notes(t)
    body = render_table(_HEADER, rows, fmt)
    if fmt in ("csv", "latex"):
        mark = "#" if fmt == "csv" else "%"
        return "".join(f"{mark} {line}\n" for line in above) + body + "\n" + \
            "".join(f"{mark} {line}\n" for line in under)
    return "\n".join(above) + "\n\n" + body + "".join(f"\n\n{line}" for line in under) \
        + "\n"


def render_markdown(t: dict[str, Any]) -> str:
    """:func:`render` as Markdown."""
    return render(t, "markdown")


_NUMBERS = ("commonsense", "personalized", "composite", "case_acc", "match", "matched",
            "expected")


def _row_problem(row: Any) -> str | None:
    """Why a results line cannot be a row of ``deepplanning run``, or ``None``."""
    if not isinstance(row, dict):
        return "a results line must be a JSON object"
    if row.get("domain", "travel") not in ("travel", "shopping"):
        return f"unknown domain {row.get('domain')!r}"[:200]
    run = row.get("run", 0)
    if isinstance(run, bool) or not isinstance(run, int):
        return f"run must be an integer, not {run!r}"[:200]
    # fields a resumed run and the report put in sets: a list there was a TypeError
    sample = row.get("sample")
    if sample is not None and (isinstance(sample, bool) or not isinstance(sample, int)):
        return f"sample must be an integer, not {sample!r}"[:200]
    if not isinstance(row.get("key", ""), str):
        return f"key must be a string, not {row.get('key')!r}"[:200]
    score = row.get("score")
    if score is not None:
        if not isinstance(score, dict):
            return "score must be an object or null"
        if score.get("mode", "paper") not in ("paper", "released"):
            return f"score.mode must be paper or released, not {score.get('mode')!r}"[:200]
        for k in _NUMBERS:
            v = score.get(k)
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))
                                  or v != v or v in (float("inf"), float("-inf"))):
                return f"score.{k} must be a number or null, not {v!r}"[:200]
        if row.get("domain", "travel") == "travel":
            need = ["commonsense"] + (["composite", "case_acc"]
                                      if score.get("personalized") is not None else [])
        else:
            need = ["match", "case_acc", "matched", "expected"]
        missing = [k for k in need if score.get(k) is None]
        if missing:
            return f"score lacks {missing}"
        for k in ("checkpoints", "constraints"):
            v = score.get(k)
            if v is not None and not (isinstance(v, dict) and
                                      all(isinstance(x, dict) for x in v.values())):
                return f"score.{k} must be an object of objects"
        failed = score.get("failed")
        if failed is not None and not (isinstance(failed, list) and
                                       all(isinstance(x, str) for x in failed)):
            return "score.failed must be a list of names"
    messages = row.get("messages")
    if messages is not None and not (isinstance(messages, list) and
                                     all(isinstance(m, dict) for m in messages)):
        return "messages must be a list of objects"
    return None


def load_rows(path, *, torn_tail: bool = False) -> list[dict]:
    """The rows of a results file; a line that is not one is bad input (file:line). With
    ``torn_tail`` (a run resuming its own file) an unreadable last line with no newline
    after it is a write cut off by a kill: left out, so its task runs again."""
    from planning_core.errors import InputError

    rows = []
    try:
        from planning_core.pddl.files import MAX_LINE_BYTES, read_lines

        # bytes (a bad UTF-8 byte is located), streamed by the shared reader: a regular
        # file only, one line of at most MAX_LINE_BYTES in memory
        for found in read_lines(path):
            n, raw = found.number, found.data
            if raw is None:
                raise InputError(f"a line longer than {MAX_LINE_BYTES >> 20} MB; not read "
                                 "(no result row is that long)", file=str(path), line=n)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise InputError(f"not UTF-8 text (byte 0x{raw[err.start]:02x})",
                                 file=str(path), line=n, column=err.start + 1) from None
            if not line.strip():
                continue
            try:
                row = loads(line)
            except json.JSONDecodeError as err:
                if torn_tail and not found.ended:   # no newline after it: cut off by a kill
                    break
                raise InputError(f"not JSON: {err.msg}", file=str(path), line=n,
                                 column=err.colno) from None
            why = _row_problem(row)
            if why:
                raise InputError(why, file=str(path), line=n, column=1)
            rows.append(row)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text ({err.reason} at byte {err.start})",
                         file=str(path)) from None
    return rows
