"""Markdown reports of CoPE results, laid out like the paper's tables.

The paper (Huang et al.) reports correctness per dataset and method, the non-constrained
setting (the ``baseline`` category) against the constrained one, with the constrained
setting broken down by constraint category. :func:`render_eval_report` does the same from
result rows (as read back from a results file, so a report can be regenerated at any time):

* a correctness table: one row per (dataset, method), columns Non-constrained,
  Constrained (the four categories pooled), the change between them, then Initial, Goal,
  Action and State; each cell ``percent (correct/total)``;
* an outcome table per (dataset, method): how often each outcome of the method's error
  taxonomy occurred in each category;
* notes: rows whose ground truth could not be read (left out of the totals), rows judged
  on ground truth with semantic defects, and rows with a doubtful ``plan_exists`` label.

:func:`render_check_report` renders ``cope check`` results: counts per dataset, then every
defect with its position and every label disagreement with its evidence.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from planning_core.validators.cope.check import VERDICTS, PairCheck, count_verdicts
from planning_core.validators.cope.dataset import CATEGORIES
from planning_core.validators.cope.results import GROUND_TRUTH_ERROR

__all__ = ["render_eval_report", "render_check_report", "cell"]

CONSTRAINED = tuple(c for c in CATEGORIES if c != "baseline")
_TITLE = {"baseline": "Non-constrained", "initial": "Initial", "goal": "Goal",
          "action": "Action", "state": "State"}


def cell(correct: int, total: int) -> str:
    return f"{100 * correct / total:.1f} ({correct}/{total})" if total else "–"


def _rate(rows: Sequence[dict]) -> tuple[int, int]:
    judged = [r for r in rows if r.get("outcome") != GROUND_TRUTH_ERROR]
    return sum(1 for r in judged if r.get("correct") is True), len(judged)


def _delta(base: tuple[int, int], constrained: tuple[int, int]) -> str:
    if not base[1] or not constrained[1]:
        return "–"
    change = 100 * (constrained[0] / constrained[1] - base[0] / base[1])
    return f"{change:+.1f}"


def _groups(rows: Iterable[dict]) -> dict[tuple[str, str], list[dict]]:
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in rows:
        groups.setdefault((str(row.get("dataset")), str(row.get("method", "?"))), []).append(row)
    return dict(sorted(groups.items()))


def _number(name: object) -> int:
    digits = "".join(ch for ch in str(name) if ch.isdigit())
    return int(digits) if digits else -1


def _row_key(row: dict) -> tuple:
    category = row.get("category")
    rank = CATEGORIES.index(category) if category in CATEGORIES else len(CATEGORIES)
    return (str(row.get("dataset")), str(row.get("method")), rank, str(category),
            _number(row.get("problem")), _number(row.get("constraint")))


def render_eval_report(rows: Sequence[dict], outcome_order: dict[str, Sequence[str]] | None
                       = None, title: str = "CoPE evaluation") -> str:
    """The markdown report of the module doc; ``outcome_order`` maps a method to the order
    of its outcomes (from the method registry). Rows may come in any order (parallel runs
    append as they finish); the report sorts them."""
    outcome_order = outcome_order or {}
    rejected = [r for r in rows if r.get("outcome") == "bad_input"]
    rows = sorted((r for r in rows if r.get("outcome") != "bad_input"), key=_row_key)
    groups = _groups(rows)
    lines = [f"# {title}", "", "## Correctness", "",
             "Percent correct (correct/total). Non-constrained is the `baseline` category; "
             "Constrained pools the four constraint categories.", "",
             "| Dataset | Method | Non-constrained | Constrained | Δ | "
             + " | ".join(_TITLE[c] for c in CONSTRAINED) + " |",
             "|---|---|---:|---:|---:|" + "---:|" * len(CONSTRAINED)]
    for (dataset, method), group in groups.items():
        by_cat = {c: [r for r in group if r.get("category") == c] for c in CATEGORIES}
        base = _rate(by_cat["baseline"])
        constrained = _rate([r for c in CONSTRAINED for r in by_cat[c]])
        lines.append(f"| {dataset} | {method} | {cell(*base)} | {cell(*constrained)} | "
                     f"{_delta(base, constrained)} | "
                     + " | ".join(cell(*_rate(by_cat[c])) for c in CONSTRAINED) + " |")
    for (dataset, method), group in groups.items():
        counts = Counter((r.get("category"), r.get("outcome")) for r in group)
        seen = {r.get("outcome") for r in group}
        order = [o for o in outcome_order.get(method, ()) if o in seen]
        order += sorted(o for o in seen if o not in order)
        lines += ["", f"## Outcomes: {dataset}, {method}", "",
                  "| Outcome | " + " | ".join(_TITLE[c] for c in CATEGORIES) + " | All |",
                  "|---|" + "---:|" * (len(CATEGORIES) + 1)]
        for outcome in order:
            values = [counts[(c, outcome)] for c in CATEGORIES]
            lines.append(f"| {outcome} | " + " | ".join(map(str, values))
                         + f" | {sum(values)} |")
    lines += _notes(rows)
    lines.append(f"- {len(rejected)} input row(s) could not be used (outcome `bad_input`, "
                 "not counted)" + (": " + "; ".join(f"{r.get('source')}: "
                                                   f"{(r.get('detail') or {}).get('error')}"
                                                   for r in rejected) if rejected else "."))
    return "\n".join(lines) + "\n"


def _name(row: dict) -> str:
    return f"{row.get('dataset')} {row.get('category')} {row.get('problem')} " \
           f"{row.get('constraint')}"


def _notes(rows: Sequence[dict]) -> list[str]:
    unread = [r for r in rows if r.get("outcome") == GROUND_TRUTH_ERROR]
    defective = [r for r in rows if r.get("outcome") != GROUND_TRUTH_ERROR
                 and (r.get("detail") or {}).get("ground_truth_issues")]
    doubts = [r for r in rows if (r.get("detail") or {}).get("label_doubt")]
    lines = ["", "## Notes", ""]
    lines.append(f"- {len(unread)} row(s) left out of the totals: the ground truth cannot be "
                 "read" + (": " + "; ".join(_name(r) for r in unread) if unread else "."))
    lines.append(f"- {len(defective)} row(s) judged on ground truth with semantic defects "
                 "(undeclared names are read as false)"
                 + (": " + "; ".join(_name(r) for r in defective) if defective else "."))
    lines.append(f"- {len(doubts)} row(s) with a doubtful `plan_exists` label"
                 + (":" if doubts else "."))
    for row in doubts:
        lines.append(f"  - {_name(row)} ({row.get('outcome')}): {row['detail']['label_doubt']}")
    return lines


def render_check_report(checks: Sequence[PairCheck], notes: Sequence[str] = ()) -> str:
    """``cope check`` as text: counts, then defects and disagreements with evidence."""
    lines = ["CoPE ground-truth check", ""]
    counts = count_verdicts(checks)
    width = max([len(d) for d in counts] + [7])
    lines.append(f"{'dataset':<{width}}  pairs  " + "  ".join(VERDICTS))
    for dataset, counter in counts.items():
        lines.append(f"{dataset:<{width}}  {sum(counter.values()):5d}  "
                     + "  ".join(f"{counter[v]:{len(v)}d}" for v in VERDICTS))
    sections = (("Ground-truth defects", "defect"),
                ("Label disagreements", "label_disagreement"),
                ("Unknown (solver limits)", "unknown"),
                ("Engine disagreements (bugs in planning_core)", "engine_disagreement"))
    for heading, verdict in sections:
        chosen = [c for c in checks if c.verdict == verdict]
        if not chosen:
            continue
        lines += ["", f"{heading}: {len(chosen)}"]
        for check in chosen:
            lines.append(f"  {' '.join(check.key)} (plan_exists={check.plan_exists}, "
                         f"status={check.status})")
            details = [str(i) for i in check.issues] or [check.evidence()]
            lines += [f"    {d}" for d in details]
    annotated = [c for c in checks if c.notes]
    if annotated or notes:
        lines += ["", f"Annotation notes (do not affect solving): "
                      f"{len(annotated)} pair(s), {len(notes)} dataset note(s)"]
        for check in annotated:
            lines += [f"  {' '.join(check.key)}: {note}" for note in check.notes]
        lines += [f"  {note}" for note in notes]
    return "\n".join(lines) + "\n"
