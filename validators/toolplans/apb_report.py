"""Checking one APB case in its setting, and APB's Table 1 from the result rows.

Line numbers refer to ``/work/shared/seeds/001_25509288ef9c2098.txt`` (the APB paper).
"""
from __future__ import annotations

from planning_core.validators.toolplans.apb import KIND_COLUMNS, N_E
from planning_core.validators.toolplans.context import TaskContext

__all__ = ["check_case", "format_horizons", "format_refinement", "format_table1",
           "format_table2", "half_up", "horizons", "paper_table", "refinement", "row_fault",
           "table1", "table2"]


# ------------------------------------------------------------------ checking one case

def check_case(ctx: TaskContext, case: dict, output, *, time_limit: float = 30.0) -> dict:
    """The result row of one APB case and a model's output (setting-specific)."""
    from planning_core.validators.toolplans.check import check_output
    from planning_core.validators.toolplans.stepwise import judge_prediction
    setting = case["setting"]
    base = case.get("base") or ("stepwise" if setting in ("stepwise", "broken") else "holistic")
    row = {"id": case.get("id"), "task": ctx.task.id, "setting": setting, "base": base}
    for key in ("domain", "n_e", "k", "kind", "replacement", "broken_tool"):
        if key in case:
            row[key] = case[key]
    if base == "stepwise":
        rep = judge_prediction(ctx, case.get("prefix") or [], output, case.get("k"),
                               replacement=case.get("replacement"), time_limit=time_limit)
        row.update(rep.to_dict())
        row["verdict"] = ({True: "right_refusal", False: "wrong_refusal", None: "unknown"}
                          if rep.refused else
                          {True: "correct", False: "incorrect", None: "unknown"})[rep.correct]
    else:
        rep = check_output(ctx, output, time_limit=time_limit, engine="internal")
        d = rep.to_dict()
        feas = d.pop("feasibility")
        row.update(d)
        row["infeasibility"] = feas["infeasibility"] if feas else None
    return row


# ------------------------------------------------------------------ Table 1

def half_up(numerator, denominator, places: int) -> float:
    """``numerator / denominator`` rounded half-up to ``places`` decimals, exactly (the
    paper prints 0.625 as 0.63 and 62.25% as 62.3; Python's ``round`` rounds a float half
    to even, and 0.625 is not even exactly 0.625 once divided)."""
    from decimal import ROUND_HALF_UP, Decimal

    q = Decimal(numerator) / Decimal(denominator)
    return float(q.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _rate(rows, pred) -> float | None:
    """Percentage of ``rows`` where ``pred`` holds, one decimal, half-up (Table 1)."""
    return half_up(100 * sum(1 for r in rows if pred(r)), len(rows), 1) if rows else None


def _share(rows, pred):
    """The exact percentage (a Fraction) of ``rows`` where ``pred`` holds (None: no rows)."""
    from fractions import Fraction

    return Fraction(100 * sum(1 for r in rows if pred(r)), len(rows)) if rows else None


def _delta(after, before) -> float | None:
    """``after - before`` of two exact percentages, one decimal, half-up (Table 2 prints
    GPT-5's 77.33 -> 55.36 as -22.0, from the unrounded rates)."""
    if after is None or before is None:
        return None
    d = after - before
    return half_up(d.numerator, d.denominator, 1)


def _mean_grade(grades) -> float | None:
    """Mean Plan Grade, two decimals, half-up; grades are on {0, 0.2, ..., 1}, summed
    exactly as decimals."""
    from decimal import Decimal

    if not grades:
        return None
    return half_up(sum(Decimal(str(g)) for g in grades), len(grades), 2)


def row_fault(r: dict) -> str | None:
    """Why an APB result row cannot enter Table 1 (None: it can, or it is no APB row): the
    fields :func:`table1` reads must have the types ``toolplans batch`` writes (a string
    ``classes`` would count "E2" in "E2" as a hit, a string grade would not add up)."""
    if "setting" not in r:
        return None
    if not isinstance(r["setting"], str):
        return "'setting' must be a string"
    if r.get("correct") is not None and not isinstance(r["correct"], bool):
        return "'correct' must be true, false or null"
    g = r.get("grade")
    if g is not None and (isinstance(g, bool) or not isinstance(g, (int, float))
                          or not 0 <= g <= 1):
        return "'grade' must be a number in [0, 1] or null"
    if not isinstance(r.get("classes", {}), dict):
        return "'classes' must be an object"
    for key in ("base", "behaviour", "kind"):
        if r.get(key) is not None and not isinstance(r[key], str):
            return f"{key!r} must be a string or null"
    n_e = r.get("n_e")
    if n_e is not None and (isinstance(n_e, bool) or not isinstance(n_e, int)):
        return "'n_e' must be a whole number or null"
    return None


def table1(results: list[dict]) -> dict:
    """Table 1's numbers (line 93 on): per setting CR (%), mean Plan Grade, E1-E6 incidence
    (% of rows where the class holds; E1 over the rows where it is decided, with the number
    of undecided rows); the extraneous setting's E2 split by base (E2-H, E2-S) and its CR
    per n_e; tool-broken behaviour shares; unsolvable refusal rates per kind."""
    out: dict = {}
    for s in ("holistic", "stepwise", "extraneous"):
        # n_e 0: an extraneous case's base without distractors (Table 2's CR_B), not Table 1
        rows = [r for r in results if r.get("setting") == s and r.get("correct") is not None
                and not (s == "extraneous" and r.get("n_e") == 0)]
        if not rows:
            continue
        grades = [r["grade"] for r in rows if r.get("grade") is not None]
        e1_rows = [r for r in rows if r.get("e1") != "undecided"]
        entry = {"n": len(rows), "CR": _rate(rows, lambda r: r["correct"] is True),
                 "Grade": _mean_grade(grades),
                 "E1": _rate(e1_rows, lambda r: "E1" in r.get("classes", {})),
                 "E1_undecided": len(rows) - len(e1_rows)}
        for e in ("E2", "E3", "E4", "E5", "E6"):
            entry[e] = _rate(rows, lambda r, e=e: e in r.get("classes", {}))
        if s == "extraneous":
            for tag, base in (("E2-H", "holistic"), ("E2-S", "stepwise")):
                sub = [r for r in rows if r.get("base") == base]
                entry[tag] = _rate(sub, lambda r: "E2" in r.get("classes", {}))
            entry["CR_by_n_e"] = {n: _rate([r for r in rows if r.get("n_e") == n],
                                           lambda r: r["correct"] is True) for n in N_E}
        out[s] = entry
    broken = [r for r in results if r.get("setting") == "broken"]
    if broken:
        out["broken"] = {"n": len(broken), **{b: _rate(broken, lambda r, b=b: r.get("behaviour") == b)
                                              for b in ("replace", "alter", "retry", "refusal", "other")}}
    uns = [r for r in results if r.get("setting") == "unsolvable"]
    if uns:
        out["unsolvable"] = {"n": len(uns), **{col: _rate([r for r in uns if r.get("kind") == kind],
                                                          lambda r: r.get("correct") is True)
                                               for kind, col in KIND_COLUMNS.items()}}
    return out


def _cell(v) -> str:
    return "-" if v is None else str(v)


_ES = ("E1", "E2", "E3", "E4", "E5", "E6")


def paper_table(tables: dict[str, dict]) -> str:
    """Table 1's two blocks (header rows at lines 93-94 and 107-108) with one row per
    model (``tables``: name -> :func:`table1`)."""
    def cells(t, setting, keys):
        e = t.get(setting, {})
        return [_cell(e.get(k)) for k in keys]
    lines = ["| Model | Holistic CR | Grade | " + " | ".join(_ES) + " | Extraneous CR | Grade | "
             "E1 | E2-H | E2-S | E3 | E4 | E5 | E6 |", "|---|" + "---:|" * 17]
    for name, t in tables.items():
        lines.append(f"| {name} | " + " | ".join(
            cells(t, "holistic", ("CR", "Grade") + _ES)
            + cells(t, "extraneous", ("CR", "Grade", "E1", "E2-H", "E2-S", "E3", "E4", "E5",
                                      "E6"))) + " |")
    lines += ["", "| Model | Step-wise CR | Grade | " + " | ".join(_ES)
              + " | Rp | Al | Rt | Rf | Ot | Conf | Info | Tool | Vis |", "|---|" + "---:|" * 17]
    for name, t in tables.items():
        lines.append(f"| {name} | " + " | ".join(
            cells(t, "stepwise", ("CR", "Grade") + _ES)
            + cells(t, "broken", ("replace", "alter", "retry", "refusal", "other"))
            + cells(t, "unsolvable", tuple(KIND_COLUMNS.values()))) + " |")
    return "\n".join(lines) + "\n"


def format_table1(t: dict, name: str = "agent") -> str:
    """Table 1's layout as Markdown (:func:`paper_table`), then the details: per setting
    the number of rows and of rows where E1 is undecided, and CR per n_e."""
    lines = [paper_table({name: t}), "Details:", ""]
    head = "| model | setting | n | CR | Grade | E1 | E2 | E3 | E4 | E5 | E6 | E1 undecided |"
    lines += [head, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in ("holistic", "stepwise", "extraneous"):
        e = t.get(s)
        if not e:
            continue
        e2 = e["E2"] if s != "extraneous" else f"{_cell(e['E2-H'])} (H) / {_cell(e['E2-S'])} (S)"
        lines.append(f"| {name} | {s} | {e['n']} | {_cell(e['CR'])} | {_cell(e['Grade'])} | "
                     f"{_cell(e['E1'])} | {e2} | {_cell(e['E3'])} | {_cell(e['E4'])} | "
                     f"{_cell(e['E5'])} | {_cell(e['E6'])} | {e['E1_undecided']} |")
    if "extraneous" in t:
        by = t["extraneous"]["CR_by_n_e"]
        lines += ["", "| model | " + " | ".join(f"CR n_e={n}" for n in N_E) + " |",
                  "|---|" + "---:|" * len(N_E),
                  f"| {name} | " + " | ".join(_cell(by[n]) for n in N_E) + " |"]
    for key, label in (("broken", "tool-broken"), ("unsolvable", "unsolvable")):
        if key in t:
            lines.append(f"\n{label} rows: {t[key]['n']}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ Table 2, Fig. 5, Table 4

def extraneous_uses(r: dict) -> int:
    """Calls of distractor tools in a result row (``extraneous_tool`` faults)."""
    return sum(1 for f in r.get("faults") or () if isinstance(f, dict)
               and f.get("kind") == "extraneous_tool")


def table2(results: list[dict]) -> dict:
    """Table 2 (lines 159-173) and the ExtUse columns of Tables 16-17 (lines 1132-1255), per
    base (holistic, step-wise): TC, the number of distractor calls over the extraneous cases
    (Table 2's TC is the sum of the per-level ExtUse: GPT-5's step-wise 23 = 3+2+6+6+6);
    CR_B, the correctness rate of the same bases without distractors (rows with ``n_e``
    0, which ``toolplans run`` asks beside them); CR_E, the rate with distractors; delta =
    CR_E - CR_B; and per n_e its ExtUse, CR and mean grade."""
    out: dict = {}
    rows = [r for r in results if r.get("setting") == "extraneous" and r.get("correct") is not None]
    for base in ("holistic", "stepwise"):
        sub = [r for r in rows if r.get("base") == base]
        if not sub:
            continue
        plain = [r for r in sub if not r.get("n_e")]
        noisy = [r for r in sub if r.get("n_e")]
        ok = lambda r: r["correct"] is True   # noqa: E731
        entry = {"n_base": len(plain), "n": len(noisy),
                 "TC": sum(extraneous_uses(r) for r in noisy), "CR_B": _rate(plain, ok),
                 "CR_E": _rate(noisy, ok), "delta": _delta(_share(noisy, ok), _share(plain, ok))}
        levels = {}
        for n in N_E:
            at = [r for r in noisy if r.get("n_e") == n]
            if at:
                levels[n] = {"ExtUse": sum(extraneous_uses(r) for r in at),
                             "CR": _rate(at, lambda r: r["correct"] is True),
                             "Grade": _mean_grade([r["grade"] for r in at
                                                   if r.get("grade") is not None])}
        entry["levels"] = levels
        out[base] = entry
    return out


def format_table2(t: dict, name: str = "agent") -> str:
    """Table 2's layout (one row), then ExtUse/CR/Grade per n_e (Tables 16-17)."""
    def cells(base):
        e = t.get(base) or {}
        return [_cell(e.get(k)) for k in ("TC", "CR_B", "CR_E", "delta")]
    lines = ["| Model | Hol. TC | CR_B | CR_E | Δ | Step TC | CR_B | CR_E | Δ |",
             "|---|" + "---:|" * 8, f"| {name} | " + " | ".join(cells("holistic")
                                                             + cells("stepwise")) + " |", ""]
    lines += ["| Model | base | n_e | ExtUse | CR | Grade |", "|---|---|---:|---:|---:|---:|"]
    for base in ("holistic", "stepwise"):
        for n, e in (t.get(base) or {}).get("levels", {}).items():
            lines.append(f"| {name} | {base} | {n} | {e['ExtUse']} | {_cell(e['CR'])} | "
                         f"{_cell(e['Grade'])} |")
    return "\n".join(lines) + "\n"


def horizons(results: list[dict]) -> dict:
    """Step-wise results per prediction horizon k = 1, 2, 3 (Figure 5, line 205; Table 14,
    line 1093): CR, mean grade and E1-E6 incidence over the step-wise rows with that k."""
    out: dict = {}
    rows = [r for r in results if r.get("setting") == "stepwise" and r.get("correct") is not None]
    for k in (1, 2, 3):
        at = [r for r in rows if r.get("k") == k]
        if not at:
            continue
        entry = {"n": len(at), "CR": _rate(at, lambda r: r["correct"] is True),
                 "Grade": _mean_grade([r["grade"] for r in at if r.get("grade") is not None])}
        for e in _ES:
            entry[e] = _rate(at, lambda r, e=e: e in (r.get("classes") or {}))
        out[k] = entry
    return out


def format_horizons(h: dict, name: str = "agent") -> str:
    lines = ["| Model | Step | n | CR | Grade | " + " | ".join(_ES) + " |",
             "|---|---|---:|---:|---:|" + "---:|" * len(_ES)]
    for k, e in h.items():
        lines.append(f"| {name} | {k}-step | {e['n']} | {_cell(e['CR'])} | {_cell(e['Grade'])} | "
                     + " | ".join(_cell(e[x]) for x in _ES) + " |")
    return "\n".join(lines) + "\n"


def refinement(results: list[dict]) -> dict:
    """Table 4 (line 229): per base setting (holistic, step-wise), CR of the initial answers
    (Base), of the refined ones (Refined) and Refined - Base, over the refined rows."""
    out: dict = {}
    for s in ("holistic", "stepwise"):
        rows = [r for r in results if r.get("setting") == s and isinstance(r.get("initial"), dict)
                and r.get("correct") is not None]
        if not rows:
            continue
        first = lambda r: r["initial"].get("correct") is True   # noqa: E731
        final = lambda r: r["correct"] is True   # noqa: E731
        out[s] = {"n": len(rows), "Base": _rate(rows, first), "Refined": _rate(rows, final),
                  "delta": _delta(_share(rows, final), _share(rows, first))}
    return out


def format_refinement(t: dict, name: str = "agent", mode: str = "") -> str:
    def cells(s):
        e = t.get(s) or {}
        return [_cell(e.get(k)) for k in ("Base", "Refined", "delta")]
    return ("| Model | Method | Hol. Base | Refined | Δ | Step Base | Refined | Δ |\n"
            "|---|---|" + "---:|" * 6 + "\n"
            f"| {name} | {mode or '-'} | " + " | ".join(cells("holistic") + cells("stepwise"))
            + " |\n")
