"""Scoring time per answer on the ACPBench Hard dev split: gold plus four wrong answers.

For each of the 320 dev questions, the gold answer (``planning_core.validators.acp.gold``) and four
constructed wrong answers (``planning_core.validators.acp.perturb``) are scored with one
``AnswerScorer`` in one process, in question order, each answer timed alone
(``time.perf_counter``). The time of an answer includes everything it causes: the first
answer to a question pays for parsing and grounding its problem, later answers reuse them
(the cache a batch run has). The wrong answers are built before timing starts (building
one stored non-landmark needs the landmark test), and the h* cache of the engine is
cleared first, so searches are not reused across runs.

Reported per task: answers, gold right (strict semantics; the nine refuted stored Nones
are wrong by proof), wrong answers scored 0, median / 90th percentile / maximum
milliseconds per answer, and the answers over 2 s with what they were. It writes
``benchmarks/results/acp_score.md``. Usage::

    python benchmarks/acp_bench.py [--time-limit 10]

The reference scorer (IBM ACPBench / lm-evaluation-harness ``acp_utils.py``) calls a
planner subprocess (K*, 3-5 s timeouts) for each answer outside its stored sets; the paper
reports 0.5-16 s for such answers. It is not run here (it needs kstar-planner and tarski).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "acpbench_hard"
RESULTS = ROOT / "benchmarks" / "results" / "acp_score.md"
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
SLOW_S = 2.0

sys.path.insert(0, str(ROOT))
from planning_core.validators.acp.gold import gold_answer  # noqa: E402
from planning_core.validators.acp.perturb import perturbations  # noqa: E402
from planning_core.validators.acp.problem import ProblemCache  # noqa: E402
from planning_core.validators.acp.records import Question  # noqa: E402
from planning_core.validators.acp.scoring import AnswerScorer  # noqa: E402


def _questions() -> list[Question]:
    out = []
    for task in TASKS:
        rows = json.loads((SHARED / task / "dev.gen.json").read_text())
        out.extend(Question.from_record(r) for r in rows)
    return out


def _answers(questions: list[Question]) -> list[tuple[Question, str, str]]:
    """(question, kind, response) with the gold answer first for each question."""
    builder = ProblemCache()
    out = []
    for q in questions:
        out.append((q, "gold", gold_answer(q, builder)))
        info = builder.get(q.domain_text, q.problem_text)
        out.extend((q, p.kind, p.response) for p in perturbations(q, info))
    return out


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--time-limit", type=float, default=10.0)
    args = ap.parse_args()
    questions = _questions()
    answers = _answers(questions)
    try:
        from planning_core.search import hstar
        hstar.clear_cache()
    except ImportError:
        pass
    scorer = AnswerScorer(time_limit=args.time_limit)
    times: dict[str, list[float]] = {t: [] for t in TASKS}
    gold_right = {t: 0 for t in TASKS}
    wrong_zero = {t: [0, 0] for t in TASKS}
    unknown = {t: 0 for t in TASKS}
    slow = []
    t_all = time.perf_counter()
    for q, kind, response in answers:
        t0 = time.perf_counter()
        s = scorer(q, response)
        dt = time.perf_counter() - t0
        times[q.task].append(dt)
        unknown[q.task] += s.value is None
        if kind == "gold":
            gold_right[q.task] += s.value == 1
        else:
            wrong_zero[q.task][1] += 1
            wrong_zero[q.task][0] += s.value == 0
        if dt > SLOW_S:
            slow.append((dt, q.task, q.domain_name, q.id, kind, s.evidence, s.value))
    total = time.perf_counter() - t_all
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    every = [x for v in times.values() for x in v]
    lines = [
        "# ACPBench Hard scoring: time per answer",
        "",
        f"Dev split: 320 questions, each scored with its gold answer and four constructed "
        f"wrong answers ({len(answers)} answers) by one `AnswerScorer` "
        f"(`--time-limit {args.time_limit:g}` s per search), in one process. An answer's "
        "time includes parsing and grounding its problem when it is the first answer to "
        "its question. Milliseconds. Total "
        f"{total:.1f} s; load average at the end {load:.1f} on 2 cores (a shared machine: "
        "times scale with it). Produced by `benchmarks/acp_bench.py`.",
        "",
        "| task | answers | gold right | wrong scored 0 | unknown | median | p90 | max "
        f"| > {SLOW_S:g} s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in TASKS:
        v = times[t]
        over = sum(x > SLOW_S for x in v)
        lines.append(f"| {t} | {len(v)} | {gold_right[t]}/40 | {wrong_zero[t][0]}/"
                     f"{wrong_zero[t][1]} | {unknown[t]} | {1000 * statistics.median(v):.1f} "
                     f"| {_ms(v, 0.9):.1f} | {1000 * max(v):.0f} | {over} |")
    lines.append(f"| all | {len(every)} | {sum(gold_right.values())}/320 | "
                 f"{sum(w[0] for w in wrong_zero.values())}/"
                 f"{sum(w[1] for w in wrong_zero.values())} | {sum(unknown.values())} | "
                 f"{1000 * statistics.median(every):.1f} | {_ms(every, 0.9):.1f} | "
                 f"{1000 * max(every):.0f} | {sum(x > SLOW_S for x in every)} |")
    lines += ["", "Gold right is under the strict semantics: the nine stored Nones that "
              "computation refutes (docs/acp_semantics.md) score 0; with "
              "`--trust-stored-none` all 320 score 1.", ""]
    if slow:
        lines += [f"Answers over {SLOW_S:g} s:", "",
                  "| s | task | domain | question | answer | evidence | score |",
                  "|---:|---|---|---|---|---|---|"]
        for dt, t, d, qid, kind, ev, val in sorted(slow, reverse=True):
            lines.append(f"| {dt:.2f} | {t} | {d} | {qid} | {kind} | {ev} | {val} |")
        lines.append("")
    # the all-in section (benchmarks/acp_score_allin.py) is kept as it was
    section = "## All-in: one process per answers file"
    old = RESULTS.read_text() if RESULTS.exists() else ""
    kept = "\n\n" + section + old.split(section, 1)[1] if section in old else ""
    RESULTS.write_text("\n".join(lines).rstrip("\n") + kept + ("" if kept else "\n"))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
