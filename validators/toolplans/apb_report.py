"""Checking one APB case in its setting, and APB's Table 1 from the result rows.

Line numbers refer to ``/work/shared/seeds/001_25509288ef9c2098.txt`` (the APB paper).
"""
from __future__ import annotations

from planning_core.validators.toolplans.apb import KIND_COLUMNS, N_E
from planning_core.validators.toolplans.context import TaskContext

__all__ = ["check_case", "format_table1", "paper_table", "row_fault", "table1"]


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

def _rate(rows, pred) -> float | None:
    return round(100 * sum(1 for r in rows if pred(r)) / len(rows), 1) if rows else None


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
        rows = [r for r in results if r.get("setting") == s and r.get("correct") is not None]
        if not rows:
            continue
        grades = [r["grade"] for r in rows if r.get("grade") is not None]
        e1_rows = [r for r in rows if r.get("e1") != "undecided"]
        entry = {"n": len(rows), "CR": _rate(rows, lambda r: r["correct"] is True),
                 "Grade": round(sum(grades) / len(grades), 2) if grades else None,
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
