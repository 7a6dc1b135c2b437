"""Our ACPBench Hard scorers next to IBM's reference evaluator, on the same answers, in CPU time.

Issue 12 judges scoring speed and soundness against the evaluator that the ACPBench
authors ship (``src/evaluators`` of the IBM ACPBench repository: tarski grounding through
gringo, the K* planner as a subprocess for answers outside the stored sets). This
benchmark builds one list of answers for a questions folder -- per question the gold
answer (``gold.py``), our constructed wrong answers (``perturb.py``) and, for reach,
areach and land, a ``None`` answer when neither of those is one; just answers spelled as
the question spells its plan, as a model copying it would -- and has each side score
exactly that list, task by task, each task in a fresh process per side:

* ours: ``AnswerScorer`` from ``planning_core.validators.acp.scoring`` (default limits),
  run with this interpreter;
* theirs: a small driver that this script writes to a temporary folder and runs with the
  reference venv's python. It parses each response with their grammar and
  ``get_parsed_answer`` and scores it with a fresh ``get_evaluator(group)``, as their
  ``src/evaluate_gen.py`` does for one lm-evaluation-harness sample.

CPU time of an answer is ``time.process_time()`` plus the CPU of the child processes it
waited for (``getrusage(RUSAGE_CHILDREN)``: their gringo and K* runs are subprocesses),
measured inside the scoring process around that answer only. Interpreter start, imports
and one-off setup (answer grammars, and one made-up app question scored on each side so
lazily built parsers and imports are paid before the mark; its responses include one
in brackets, which our answer parser leaves to its grammar) are reported apart
("startup"). Both sides start cold on the measured questions: the first answer to a question pays
for parsing and grounding (ours caches per problem afterwards; theirs re-grounds for every
answer that needs it). Verdicts are compared per answer (ours 1/0/unknown, theirs 0/1; a
reference exception counts as its 0 and is listed). For each task the reference runs and
then ours, never both at once, so they do not compete with each other, and the load of
other users of the machine falls on both sides of a task alike.

After timing, the tasks where we spend the most CPU are scored again under ``cProfile``
and the functions that dominate are written under the table. Anything in the results file
below the heading ``## Findings`` is kept when the file is rewritten (notes by hand).

Setting up the reference (once, outside the project; nothing of it is committed here)::

    python3 -m venv /work/refenv
    /work/refenv/bin/pip install 'tarski[clingo]==0.9.1' kstar-planner 'pddl==0.4.2' lark \\
        numpy scipy jsonlines   # the last three: imports of src/evaluate_gen.py
    git clone https://github.com/IBM/ACPBench /tmp/acpbench   # or any copy of the repository
    mkdir -p /work/refenv/acpbench
    git -C /tmp/acpbench archive HEAD src | tar x -C /work/refenv/acpbench
    # -> /work/refenv/acpbench/src/{evaluators,grammar,utils,evaluate_gen.py}

The committed table used commit 2ed9c925962d (2026-02-10) of that repository, with
tarski 0.9.1, clingo 5.8.3, kstar-planner 1.6.0, pddl 0.4.2 and lark 1.1.9 on Python 3.11.

Usage (run it with ``nice`` on a shared machine; on the dev split it takes 5-7 minutes
under load, 4-5 of them the reference waiting for its gringo and K* subprocesses)::

    nice python benchmarks/acp_reference_bench.py ../shared/data/acpbench_hard \\
        [--ref-python /work/refenv/bin/python] [--ref-src /work/refenv/acpbench/src] \\
        [--out benchmarks/results/acp_reference.md] [--tasks reach land] [--profile-tasks 3]

``--ref-python none`` scores our side only (the table then has no reference columns).
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "acp_reference.md"
DEFAULT_REF_PYTHON = "/work/refenv/bin/python"
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
NONE_TASKS = ("reach", "areach", "land")
FINDINGS = "## Findings"

# The reference side. It runs in the reference venv, so it may import only their code and
# the standard library. argv: SRC ANSWERS OUT WARM_UP_JSON.
REF_DRIVER = r'''
import contextlib, json, resource, sys, time

def cpu():
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), c.ru_utime + c.ru_stime

src, answers_path, out_path = sys.argv[1:4]
sys.path.insert(0, src)
from evaluators import get_evaluator
from grammar.grammar_parser import ACPGrammarParser
from evaluate_gen import GRAMMAR_FILE, get_grammar_task, get_parsed_answer

data = json.load(open(answers_path))
docs = data["records"]
parsers = {}
with contextlib.redirect_stdout(sys.stderr):  # one-off setup, as for ours
    for name in {"acp_%s_gen" % row["task"] for row in data["answers"]} | {"acp_app_gen"}:
        parsers[name] = ACPGrammarParser(GRAMMAR_FILE, get_grammar_task(name))
    for doc, response in json.loads(sys.argv[4]):  # app questions
        ans = [get_parsed_answer(response, "acp_app_gen", parsers["acp_app_gen"])]
        get_evaluator(doc["group"]).get_score(ans, doc)
with open(out_path, "w") as out:
    s, c = cpu()
    out.write(json.dumps({"startup": s + c}) + "\n")
    for row in data["answers"]:
        doc = docs[row["record"]]
        name = "acp_%s_gen" % row["task"]
        s0, c0 = cpu()
        error = None
        with contextlib.redirect_stdout(sys.stderr):  # their evaluators print
            try:
                ans = [get_parsed_answer(row["response"], name, parsers[name])]
                if any(e is None for e in ans) or any(e is None for e in ans[0]):
                    score, error = 0, "parser error"
                else:
                    score = get_evaluator(doc["group"]).get_score(ans, doc)
            except Exception as err:
                first = (str(err).splitlines() or [""])[0][:120]
                score, error = 0, "%s: %s" % (type(err).__name__, first)
        s1, c1 = cpu()
        out.write(json.dumps({"n": row["n"], "score": int(bool(score)), "cpu": s1 - s0 + c1 - c0,
                              "child": c1 - c0, "error": error}) + "\n")
        out.flush()
'''


# One-off setup of a scoring process, done before its startup mark on both sides: grammar
# construction and lazily imported modules are paid once per process, not per answer, and
# a process per task would otherwise pay them eight times. A problem of its own, so no
# cache of the measured questions is warmed.
_WARM_DOMAIN = ("(define (domain warm-up) (:requirements :strips) (:predicates (p) (q))\n"
                "  (:action flip :parameters () :precondition (p) :effect (and (q) (not (p)))))")
_WARM_PROBLEM = "(define (problem w) (:domain warm-up) (:init (p)) (:goal (q)))"
WARM_UP = tuple(({"id": "warm-up", "group": "applicable_actions_gen", "context": "",
                  "question": "", "answer": ["(flip)"], "PDDL_domain": _WARM_DOMAIN,
                  "PDDL_problem": _WARM_PROBLEM}, response)
                for response in ("(flip)", "(flop)", "[(flip)]"))
# "[(flip)]" is not a plain list of parenthesised actions, so our answer parser reads it with
# its lark grammar: the grammar is built here, not on the first measured answer.


def _cpu() -> tuple[float, float]:
    import resource
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time(), c.ru_utime + c.ru_stime


# ---------------------------------------------------------------------------- answers

def build_answers(folder: Path, tasks: tuple[str, ...], per_task: int | None = None) -> dict:
    """``{"records": [...], "answers": [...]}`` for every question of ``tasks`` in ``folder``."""
    from planning_core.errors import PlanningError
    from planning_core.validators.acp.dataset import load_questions
    from planning_core.validators.acp.gold import gold_answer
    from planning_core.validators.acp.perturb import perturbations
    from planning_core.validators.acp.problem import ProblemCache

    questions = sorted((q for q in load_questions(folder) if q.task in tasks),
                       key=lambda q: TASKS.index(q.task))  # stable: file order within a task
    if per_task is not None:
        count: dict[str, int] = defaultdict(int)
        kept = []
        for q in questions:
            count[q.task] += 1
            if count[q.task] <= per_task:
                kept.append(q)
        questions = kept
    cache = ProblemCache()
    records, answers, skipped, notes = [], [], [], []
    for q in questions:
        made = []
        left_out: list[str] = []
        try:  # a question whose data cannot give an answer is listed, not fatal
            made.append(("gold", gold_answer(q, cache)))
            made += [(p.kind, p.response)
                     for p in perturbations(q, cache.get(q.domain_text, q.problem_text),
                                            left_out)]
        except PlanningError as err:
            skipped.append(f"{q.task} {q.id}: {err}")
        notes += [f"{q.task} {q.id}: {n}" for n in left_out]
        if q.task in NONE_TASKS and all(r.strip() != "None" for _, r in made):
            made.append(("none", "None"))
        if q.task == "just":
            made = [(kind, _question_spelling(q.question, r)) for kind, r in made]
        records.append(q.to_record())
        seen = set()
        for kind, response in made:
            if response in seen:
                continue
            seen.add(response)
            answers.append({"n": len(answers), "record": len(records) - 1, "task": q.task,
                            "id": q.id, "kind": kind, "response": response})
    return {"records": records, "answers": answers, "skipped": skipped, "notes": notes}


def _question_spelling(question: str, response: str) -> str:
    """``response`` with every plan step spelled as the question's plan spells it.

    A model copies the plan from the question; the reference compares steps as strings,
    case-sensitively (logistics plans are written ``(DRIVE-TRUCK t0 ...)``), while our
    gold answer writes names in lower case. Our scorer is case-insensitive either way.
    """
    spelled = {step.lower(): step for step in re.findall(r"\([^()]*\)", question)}
    return re.sub(r"\([^()]*\)", lambda m: spelled.get(m.group(0).lower(), m.group(0)),
                  response)


# ---------------------------------------------------------------------------- our side

def score_ours(answers_path: Path, out_path: Path, profile_path: Path | None) -> None:
    """The body of our scoring process (``--_ours``): one JSON line per answer."""
    from planning_core.errors import PlanningError
    from planning_core.validators.acp.records import Question
    from planning_core.validators.acp.scoring import AnswerScorer

    data = json.loads(answers_path.read_text())
    warm = AnswerScorer()  # its own cache: nothing of the measured questions is touched
    for record, response in WARM_UP:
        warm(Question.from_record(record), response)
    s, c = _cpu()
    questions = [Question.from_record(r) for r in data["records"]]  # not scoring: excluded
    scorer = AnswerScorer()
    profiler = cProfile.Profile() if profile_path else None
    with out_path.open("w") as out:
        out.write(json.dumps({"startup": s + c}) + "\n")
        for row in data["answers"]:
            q = questions[row["record"]]
            s0, c0 = _cpu()
            if profiler:
                profiler.enable()
            try:
                verdict = scorer(q, row["response"])
                found = {"score": verdict.value, "evidence": verdict.evidence,
                         "reason": verdict.reason[:160]}
            except PlanningError as err:  # an unusable question: unknown, with the error
                found = {"score": None, "evidence": "bad-question", "reason": str(err)[:160]}
            if profiler:
                profiler.disable()
            s1, c1 = _cpu()
            out.write(json.dumps({"n": row["n"], "cpu": s1 - s0 + c1 - c0, "child": c1 - c0,
                                  **found}) + "\n")
    if profiler:
        profiler.dump_stats(str(profile_path))


# ---------------------------------------------------------------------------- running

def _run(cmd: list[str], out: Path) -> tuple[float, dict[int, dict], float]:
    """Run one side; (startup CPU s, rows by answer number, wall s)."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:2])} failed ({done.returncode}):\n"
                         f"{done.stderr[-3000:]}")
    lines = [json.loads(x) for x in out.read_text().splitlines() if x.strip()]
    return lines[0]["startup"], {r["n"]: r for r in lines[1:]}, wall


def _task_answers(tmp: Path, data: dict, task: str) -> Path | None:
    """The answers of one task as a file for a scoring process (None: the task has none)."""
    answers = [a for a in data["answers"] if a["task"] == task]
    if not answers:
        return None
    path = tmp / f"answers-{task}.json"
    path.write_text(json.dumps({"records": data["records"], "answers": answers}))
    return path


def _side(startup: dict, wall: dict, rows: dict, side: str, cmd: list[str], out: Path) -> None:
    """Run one side on one task and add its startup, wall time and rows to the totals."""
    up, found, seconds = _run(cmd, out)
    startup[side].append(up)
    wall[side] += seconds
    rows.update(found)


def _ours_cmd(answers: Path, out: Path, profile: Path | None = None) -> list[str]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_ours", str(answers), str(out)]
    return cmd + (["--_profile", str(profile)] if profile else [])


def _profile_lines(path: Path, top: int = 12) -> list[str]:
    """The functions with the most own time and the most cumulative time."""
    stream = io.StringIO()
    stats = pstats.Stats(str(path), stream=stream)
    stats.strip_dirs()
    lines = []
    for key, title in (("tottime", "own time"), ("cumulative", "cumulative time")):
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2 if key == "tottime" else 3],
                      reverse=True)[:top]
        lines += [f"Top {top} by {title}:", "", "| function | calls | own s | cumulative s |",
                  "|---|---:|---:|---:|"]
        for (file, line, func), (_, ncalls, tt, ct, _) in rows:
            lines.append(f"| `{func}` ({file}:{line}) | {ncalls} | {tt:.2f} | {ct:.2f} |")
        lines.append("")
    return lines


# ---------------------------------------------------------------------------- report

def _med_ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.2f}" if values else "-"


def _short(text: str, width: int = 60) -> str:
    """``text`` fit for one table cell: at most ``width`` characters, no column bar."""
    text = text.replace("|", "/").replace("\n", " ")
    return text if len(text) <= width else text[:width - 3] + "..."


def _ratio(ref: float, ours: float) -> str:
    return f"{ref / ours:.1f}x" if ours > 0 else "-"


def render(folder: Path, data: dict, ours: dict[int, dict], ref: dict[int, dict] | None,
           startup: dict[str, list[float]], wall: dict[str, float],
           profiles: dict[str, list[str]], kept: str, load_start: float) -> str:
    answers = data["answers"]
    by_task: dict[str, list[dict]] = defaultdict(list)
    for a in answers:
        by_task[a["task"]].append(a)
    tasks = [t for t in TASKS if by_task[t]]
    load = os.getloadavg()[0]
    questions = len(data["records"])
    lines = [
        "# ACPBench Hard scoring: ours next to the reference evaluator, CPU time",
        "",
        f"Questions: `{folder}` ({questions} questions, {len(answers)} answers: per question "
        "the gold answer, our constructed wrong answers, and a `None` answer for reach, "
        "areach and land). Both sides scored the same answers, in one process per task and "
        "side, the two sides of a task back to back. CPU seconds are `time.process_time()` "
        "plus waited-for child processes (gringo, K*), around scoring only (startup below). "
        "Ratio = reference CPU / ours. **The machine was shared** (2 cores, load average "
        f"{load_start:.1f} at the start, {load:.1f} at the end): CPU time "
        "is less sensitive to load than wall time but not immune (caches, and the "
        "reference's 3-5 s wall-clock planner timeouts can change its verdicts). "
        "Produced by `benchmarks/acp_reference_bench.py`.",
        "",
    ]
    have_ref = ref is not None
    cols = ("| task | reference CPU s | ours CPU s | ratio | answers | median ms/answer "
            "reference | median ms/answer ours | disagreements |")
    lines += [cols, "|---|---:|---:|---:|---:|---:|---:|---:|"]
    tot_ref = tot_ours = 0.0
    all_ref: list[float] = []
    all_ours: list[float] = []
    disagree: list[tuple[dict, dict, dict | None]] = []
    for t in tasks:
        rows = by_task[t]
        o = [ours[a["n"]]["cpu"] for a in rows]
        r = [ref[a["n"]]["cpu"] for a in rows] if have_ref else []
        tot_ours += sum(o)
        tot_ref += sum(r)
        all_ours += o
        all_ref += r
        bad = [a for a in rows if have_ref and ours[a["n"]]["score"] is not None
               and ours[a["n"]]["score"] != ref[a["n"]]["score"]]
        disagree += [(a, ours[a["n"]], ref[a["n"]]) for a in bad]
        ref_cpu = f"{sum(r):.2f}" if have_ref else "-"
        lines.append(f"| {t} | {ref_cpu} | {sum(o):.2f} | "
                     f"{_ratio(sum(r), sum(o)) if have_ref else '-'} | {len(rows)} | "
                     f"{_med_ms(r)} | {_med_ms(o)} | {len(bad) if have_ref else '-'} |")
    lines.append(f"| **total** | **{f'{tot_ref:.2f}' if have_ref else '-'}** | "
                 f"**{tot_ours:.2f}** | "
                 f"**{_ratio(tot_ref, tot_ours) if have_ref else '-'}** | **{len(answers)}** | "
                 f"{_med_ms(all_ref)} | {_med_ms(all_ours)} | **{len(disagree)}** |")
    up = {side: statistics.median(v) for side, v in startup.items()}
    if have_ref:
        lines += ["", "Startup of one scoring process (interpreter, imports, one-off setup; "
                  f"median CPU s over the {len(startup['ours'])} per-task processes): reference "
                  f"{up['ref']:.2f}, ours {up['ours']:.2f}. Wall time of all scoring "
                  f"processes: reference {wall['ref']:.0f} s, ours {wall['ours']:.0f} s.", ""]
    else:
        lines += ["", f"The reference was not run (`--ref-python none`). Startup of one of our "
                  f"scoring processes {up['ours']:.2f} CPU s; wall time {wall['ours']:.0f} s.",
                  ""]

    # None answers, unknowns, reference errors, child CPU
    lines += ["Per task: `None` answers and their CPU, our unknowns, reference parser "
              "errors and exceptions (scored 0), and the share of reference CPU spent in "
              "its child processes.", "",
              "| task | None answers | reference CPU s on None | ours CPU s on None | ours "
              "unknown | reference parser errors | reference exceptions | reference child "
              "CPU s |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in tasks:
        rows = by_task[t]
        nones = [a for a in rows if a["response"].strip() == "None"]
        ref_none = sum(ref[a["n"]]["cpu"] for a in nones) if have_ref else 0.0
        ours_none = sum(ours[a["n"]]["cpu"] for a in nones)
        unk = sum(ours[a["n"]]["score"] is None for a in rows)
        perr = sum(have_ref and ref[a["n"]]["error"] == "parser error" for a in rows)
        exc = sum(have_ref and ref[a["n"]]["error"] not in (None, "parser error") for a in rows)
        child = sum(ref[a["n"]]["child"] for a in rows) if have_ref else 0.0
        lines.append(f"| {t} | {len(nones)} | {ref_none:.2f} | {ours_none:.2f} | {unk} | "
                     f"{perr} | {exc} | {child:.2f} |")
    lines.append("")

    if have_ref:
        slower = [t for t in tasks if statistics.median(ours[a["n"]]["cpu"] for a in by_task[t])
                  > statistics.median(ref[a["n"]]["cpu"] for a in by_task[t]) + 0.001]
        unknowns = sum(r["score"] is None for r in ours.values())
        lines += ["Issue 12 targets: total CPU >= 20x less than the reference: "
                  f"{'met' if tot_ours * 20 <= tot_ref else 'not met'} "
                  f"({_ratio(tot_ref, tot_ours)}); no task slower than the reference by more "
                  "than 1 ms per answer at the median: "
                  f"{'met' if not slower else 'not met (' + ', '.join(slower) + ')'}; "
                  f"0 unknowns: {'met' if not unknowns else f'not met ({unknowns})'}.", ""]
    if disagree:
        lines += ["Disagreements (both decided, verdicts differ):", "",
                  "| task | id | answer kind | response | reference | ours | our evidence "
                  "| our reason | reference error |", "|---|---|---|---|---:|---:|---|---|---|"]
        for a, o, r in disagree:
            lines.append(f"| {a['task']} | {a['id']} | {a['kind']} | `{_short(a['response'])}` | "
                         f"{r['score']} | {o['score']} | {o['evidence']} | "
                         f"{_short(o['reason'], 90)} | {_short(r['error'] or '', 90)} |")
        lines.append("")
    crashed = [a for a in answers
               if have_ref and ref[a["n"]]["error"] not in (None, "parser error")]
    if crashed:
        lines += ["Reference exceptions (scored 0 there):", "",
                  "| task | id | answer kind | response | ours | exception |",
                  "|---|---|---|---|---:|---|"]
        for a in crashed:
            lines.append(f"| {a['task']} | {a['id']} | {a['kind']} | `{_short(a['response'])}` | "
                         f"{ours[a['n']]['score']} | {_short(ref[a['n']]['error'], 90)} |")
        lines.append("")
    if data.get("skipped"):
        lines += ["Questions without answers (their stored data gives no gold answer):", ""]
        lines += [f"- {_short(x, 200)}" for x in data["skipped"]] + [""]
    if data.get("notes"):
        lines += ["Wrong answers left out (the problem cannot give them):", ""]
        lines += [f"- {_short(x, 200)}" for x in data["notes"]] + [""]
    lines += _where_ours_goes(tasks, by_task, ours)
    if profiles:
        lines += ["## Profile of our side (cProfile, the tasks where we spend the most CPU)", "",
                  "Each task scored again alone under cProfile (cold caches as above). "
                  "cProfile's overhead inflates pure-Python loops several times, so read "
                  "shares, not seconds.", ""]
        for t, plines in profiles.items():
            lines += [f"### {t}", ""] + plines
    text = "\n".join(lines)
    return text + ("\n" + kept if kept else "")


def _where_ours_goes(tasks: list[str], by_task: dict[str, list[dict]],
                     ours: dict[int, dict]) -> list[str]:
    """Our CPU by how each verdict was reached, and the share of first answers."""
    first = {}
    for rows in by_task.values():
        for a in rows:
            first.setdefault(a["record"], a["n"])
    lines = ["## Where our CPU goes", "",
             "By the evidence our scorer gives for its verdict (`records.EVIDENCE`). The "
             "first answer to each question also pays for parsing and grounding its problem "
             "(first-answer columns).", "",
             "| task | evidence | answers | of them None | of them first | CPU s | CPU s on "
             "first answers | median ms | max ms |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for t in tasks:
        groups: dict[str, list[dict]] = defaultdict(list)
        for a in by_task[t]:
            groups[ours[a["n"]]["evidence"]].append(a)
        for ev, rows in sorted(groups.items(), key=lambda kv: -sum(ours[a["n"]]["cpu"]
                                                                      for a in kv[1])):
            cpu = [ours[a["n"]]["cpu"] for a in rows]
            firsts = [a for a in rows if first[a["record"]] == a["n"]]
            lines.append(f"| {t} | {ev} | {len(rows)} | "
                         f"{sum(a['response'].strip() == 'None' for a in rows)} | "
                         f"{len(firsts)} | {sum(cpu):.2f} | "
                         f"{sum(ours[a['n']]['cpu'] for a in firsts):.2f} | {_med_ms(cpu)} | "
                         f"{1000 * max(cpu):.0f} |")
    firsts = [a for rows in by_task.values() for a in rows if first[a["record"]] == a["n"]]
    nones = [a for rows in by_task.values() for a in rows if a["response"].strip() == "None"]
    total = sum(r["cpu"] for r in ours.values())
    return lines + ["", f"Of our {total:.2f} CPU s, first answers to a question take "
                    f"{sum(ours[a['n']]['cpu'] for a in firsts):.2f} s ({len(firsts)} answers) "
                    f"and `None` answers {sum(ours[a['n']]['cpu'] for a in nones):.2f} s "
                    f"({len(nones)} answers; the two overlap where the gold answer is None).",
                    ""]


# ---------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions", nargs="?", type=Path, help="a questions folder or file")
    ap.add_argument("--ref-python", default=DEFAULT_REF_PYTHON,
                    help="python of the reference venv, or 'none' for our side only")
    ap.add_argument("--ref-src", type=Path, default=None,
                    help="the reference's src/ (default: <ref venv>/acpbench/src)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    ap.add_argument("--per-task", type=int, default=None,
                    help="only the first N questions of each task (a quick look)")
    ap.add_argument("--profile-tasks", type=int, default=3,
                    help="profile our side on this many of our most expensive tasks")
    ap.add_argument("--_ours", nargs=2, type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--_profile", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._ours:
        score_ours(args._ours[0], args._ours[1], args._profile)
        return
    if args.questions is None:
        ap.error("the questions folder is required")

    ref_python = None if args.ref_python.lower() == "none" else args.ref_python
    ref_src = args.ref_src or (Path(ref_python).absolute().parent.parent / "acpbench" / "src"
                               if ref_python else None)
    if ref_python and not (ref_src / "evaluators").is_dir():
        ap.error(f"no reference evaluators in {ref_src} (see the setup in the docstring)")
    load_start = os.getloadavg()[0]
    data = build_answers(args.questions, tuple(args.tasks), args.per_task)
    kept = ""
    if args.out.exists() and FINDINGS in args.out.read_text():
        old = args.out.read_text()
        kept = old[old.index(FINDINGS):]
    with tempfile.TemporaryDirectory(prefix="acp-ref-bench-") as tmp:
        tmp = Path(tmp)
        driver = tmp / "ref_driver.py"
        driver.write_text(REF_DRIVER)
        startup: dict[str, list[float]] = defaultdict(list)
        wall: dict[str, float] = defaultdict(float)
        ours: dict[int, dict] = {}
        ref: dict[int, dict] | None = {} if ref_python else None
        cost: dict[str, float] = defaultdict(float)
        for t in TASKS:  # task by task, the two sides back to back: alike load
            path = _task_answers(tmp, data, t)
            if path is None:
                continue
            if ref is not None:  # first: a broken reference setup fails before ours runs
                _side(startup, wall, ref, "ref", [ref_python, str(driver), str(ref_src),
                                                  str(path), str(tmp / f"ref-{t}.jsonl"),
                                                  json.dumps(WARM_UP)],
                      tmp / f"ref-{t}.jsonl")
            _side(startup, wall, ours, "ours", _ours_cmd(path, tmp / f"ours-{t}.jsonl"),
                  tmp / f"ours-{t}.jsonl")
            cost[t] = sum(ours[a["n"]]["cpu"] for a in data["answers"] if a["task"] == t)
        profiles = {}
        for t in sorted(cost, key=cost.get, reverse=True)[:args.profile_tasks]:
            path = _task_answers(tmp, data, t)
            _run(_ours_cmd(path, tmp / f"prof-{t}.jsonl", tmp / f"{t}.prof"),
                 tmp / f"prof-{t}.jsonl")
            profiles[t] = _profile_lines(tmp / f"{t}.prof")
    text = render(args.questions, data, ours, ref, startup, wall, profiles, kept, load_start)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
