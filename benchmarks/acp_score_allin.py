"""``acp score`` all-in: CPU per task with every process start included (issue 32, item 1).

The answers are the dev split's (``../shared/data/acpbench_hard``) gold answer and four
constructed wrong answers per question (``benchmarks/acp_bench.py`` builds the same ones),
written as five answers files per task (``acp score`` takes one answer per question and
file, as a model's run gives): 8 tasks x 5 files = 40 ``planning-core acp score``
processes, run one after another as a user would, each with a fresh results file. The CPU
of each process (user + system, ``RUSAGE_CHILDREN``) includes the interpreter's start, the
imports, reading the questions, parsing and grounding every problem, and scoring.

The start-up share is the CPU of the same command on an answers file of one row that needs
no search (the first land question's gold answer, a stored landmark): the interpreter's
start, the imports, reading the questions and writing the report, times the number of
processes.

``--verdicts FILE`` writes every row's ``(task, file, id, score, evidence, reason)`` as JSON
Lines, to compare two versions of the scorer (the verdicts must be identical); ``--write``
replaces the "All-in" section of ``benchmarks/results/acp_score.md``. Usage::

    python benchmarks/acp_score_allin.py [--verdicts FILE] [--write] [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "acpbench_hard"
RESULTS = ROOT / "benchmarks" / "results" / "acp_score.md"
SECTION = "## All-in: one process per answers file"
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")
FILES = 5

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def _write_answers(folder: Path) -> dict[str, list[Path]]:
    from acp_bench import _answers, _questions
    per_file: dict[tuple[str, int], list[dict]] = defaultdict(list)
    seen: dict[str, int] = defaultdict(int)
    for q, _kind, response in _answers(_questions()):
        k = seen[q.id]
        seen[q.id] += 1
        per_file[q.task, k].append({"id": q.id, "response": response})
    out: dict[str, list[Path]] = defaultdict(list)
    for (task, k), rows in sorted(per_file.items()):
        path = folder / f"{task}.{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        out[task].append(path)
    first = out["land"][0].read_text().splitlines()[0]
    (folder / "one.jsonl").write_text(first + "\n")
    return out


def _cpu_of(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _score(task: str, answers: Path, out: Path) -> list[str]:
    out.unlink(missing_ok=True)
    return [sys.executable, "-m", "planning_core.console", "acp", "score",
            "--questions", str(SHARED / task / "dev.gen.json"), "--answers", str(answers),
            "--out", str(out), "--no-progress"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verdicts", type=Path)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--runs", type=int, default=1,
                    help="repeat the whole measurement; the smallest CPU per task is kept")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = _write_answers(folder)
        cpu = {t: float("inf") for t in TASKS}
        answers = {t: 0 for t in TASKS}
        verdicts = []
        for run in range(args.runs):
            for task in TASKS:
                total = 0.0
                for path in files[task]:
                    out = folder / f"out.{task}.{path.stem}.jsonl"
                    total += _cpu_of(_score(task, path, out))
                    if run == 0:
                        for line in out.read_text().splitlines():
                            row = json.loads(line)
                            answers[task] += 1
                            verdicts.append({"task": task, "file": path.stem, "id": row["id"],
                                             "score": row.get("score"),
                                             "evidence": row.get("evidence"),
                                             "reason": row.get("reason")})
                cpu[task] = min(cpu[task], total)
        start = min(_cpu_of(_score("land", folder / "one.jsonl", folder / "out.one.jsonl"))
                    for _ in range(3 * args.runs))
    processes = FILES * len(TASKS)
    if args.verdicts:
        args.verdicts.write_text("".join(json.dumps(v, sort_keys=True) + "\n"
                                         for v in verdicts))
    total = sum(cpu.values())
    load = os.getloadavg()[0]
    lines = [SECTION, "",
             f"The same {sum(answers.values())} answers as above, as {processes} "
             f"`planning-core acp score` processes ({FILES} answers files per task, one "
             "answer per question each, as a model's run gives), one after another; CPU "
             "seconds (user + system) of each process, its start included. Start-up: one "
             "process scoring one answer that needs no search (interpreter, imports, reading "
             f"the questions, the report), {start:.2f} s, times {processes}. Smallest of {args.runs} run(s); "
             f"load average at the end {load:.1f} on 2 cores (a shared machine). Produced by "
             "`benchmarks/acp_score_allin.py`.", "",
             "| task | answers | processes | CPU s | ms per answer | of which start-up s |",
             "|---|---:|---:|---:|---:|---:|"]
    for t in TASKS:
        lines.append(f"| {t} | {answers[t]} | {FILES} | {cpu[t]:.2f} | "
                     f"{1000 * cpu[t] / max(1, answers[t]):.1f} | {FILES * start:.2f} |")
    n = sum(answers.values())
    lines.append(f"| all | {n} | {processes} | {total:.2f} | {1000 * total / max(1, n):.1f} | "
                 f"{processes * start:.2f} ({100 * processes * start / total:.0f}%) |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.write:
        old = RESULTS.read_text()
        keep = old.split(SECTION)[0].rstrip("\n")
        RESULTS.write_text(keep + "\n\n" + text)


if __name__ == "__main__":
    main()
