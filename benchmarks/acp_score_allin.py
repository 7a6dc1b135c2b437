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
replaces the "All-in" section of ``benchmarks/results/acp_score.md``. ``--peer TREE`` measures
another source tree (``git archive COMMIT | tar -x -C TREE``) the same way, the two taking
turns process by process, and puts its CPU beside these; the run stops if any verdict
differs. The children run with byte-code
caches (``PYTHONDONTWRITEBYTECODE`` removed; an untimed first run writes them), as an
installed package has them. Usage::

    python benchmarks/acp_score_allin.py [--verdicts FILE] [--write] [--runs 3] [--peer TREE]
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
    # keyed by (task, id): ids repeat across tasks (6 in the dev split), and keying by id
    # alone spread those tasks' answers over 10 files (65 processes instead of 40)
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for q, _kind, response in _answers(_questions()):
        k = seen[q.task, q.id]
        seen[q.task, q.id] += 1
        per_file[q.task, k].append({"id": q.id, "response": response})
    out: dict[str, list[Path]] = defaultdict(list)
    for (task, k), rows in sorted(per_file.items()):
        path = folder / f"{task}.{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        out[task].append(path)
    first = out["land"][0].read_text().splitlines()[0]
    (folder / "one.jsonl").write_text(first + "\n")
    return out


def _env(source: Path | None) -> dict[str, str]:
    """The children's environment: byte-code caches on (an installed package has them; a
    shell with ``PYTHONDONTWRITEBYTECODE`` would compile every module in every process), and
    ``PYTHONPATH`` set to the source tree measured."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(source or ROOT)
    return env


def _cpu_of(argv: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _score(task: str, answers: Path, out: Path) -> list[str]:
    out.unlink(missing_ok=True)
    return [sys.executable, "-m", "planning_core.console", "acp", "score",
            "--questions", str(SHARED / task / "dev.gen.json"), "--answers", str(answers),
            "--out", str(out), "--no-progress"]


def _rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()]


def measure(files: dict[str, list[Path]], folder: Path, envs: dict[str, dict[str, str]],
            runs: int) -> dict[str, tuple[dict[str, float], dict[str, int], float, list[dict]]]:
    """Per source tree: CPU per task (smallest of ``runs``), answers per task, start-up CPU
    (smallest of ``3 * runs``) and the verdict rows. The trees take turns process by
    process, so a change of load on a shared machine falls on both alike."""
    cpu = {tag: {t: [0.0] * runs for t in TASKS} for tag in envs}
    answers = {tag: {t: 0 for t in TASKS} for tag in envs}
    verdicts: dict[str, list[dict]] = {tag: [] for tag in envs}
    start = {tag: float("inf") for tag in envs}
    for tag, env in envs.items():      # an untimed run writes the byte-code caches
        _cpu_of(_score("land", folder / "one.jsonl", folder / f"warm.{tag}.jsonl"), env)
    for run in range(runs):
        for task in TASKS:
            for path in files[task]:
                for tag, env in envs.items():
                    out = folder / f"out.{tag}.{task}.{path.stem}.jsonl"
                    cpu[tag][task][run] += _cpu_of(_score(task, path, out), env)
                    if run == 0:
                        for row in _rows(out):
                            answers[tag][task] += 1
                            verdicts[tag].append({"task": task, "file": path.stem,
                                                  "id": row["id"], "score": row.get("score"),
                                                  "evidence": row.get("evidence"),
                                                  "reason": row.get("reason")})
        for _ in range(3):
            for tag, env in envs.items():
                start[tag] = min(start[tag], _cpu_of(_score(
                    "land", folder / "one.jsonl", folder / f"one.{tag}.jsonl"), env))
    return {tag: ({t: min(v) for t, v in cpu[tag].items()}, answers[tag], start[tag],
                  verdicts[tag]) for tag in envs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verdicts", type=Path)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--runs", type=int, default=1,
                    help="repeat the whole measurement; the smallest CPU per task is kept")
    ap.add_argument("--peer", type=Path,
                    help="another source tree (e.g. `git archive` of an earlier commit) "
                         "measured the same way, its columns beside these; the verdicts "
                         "of both must be identical")
    ap.add_argument("--peer-name", default="before")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = _write_answers(folder)
        envs = {"this": _env(None)}
        if args.peer:
            envs = {"peer": _env(args.peer), **envs}
        measured = measure(files, folder, envs, args.runs)
        peer = measured.get("peer")
        cpu, answers, start, verdicts = measured["this"]
    if peer is not None and peer[3] != verdicts:
        differ = sum(a != b for a, b in zip(peer[3], verdicts)) + abs(len(peer[3]) - len(verdicts))
        raise SystemExit(f"the verdicts differ from {args.peer}'s on {differ} row(s)")
    processes = sum(len(files[t]) for t in TASKS)
    if args.verdicts:
        args.verdicts.write_text("".join(json.dumps(v, sort_keys=True) + "\n"
                                         for v in verdicts))
    total = sum(cpu.values())
    load = os.getloadavg()[0]
    n = sum(answers.values())
    lines = [SECTION, "",
             f"The same {n} answers as above, as {processes} "
             f"`planning-core acp score` processes ({FILES} answers files per task, one "
             "answer per question each, as a model's run gives), one after another; CPU "
             "seconds (user + system) of each process, its start included, with byte-code "
             "caches (as an installed package has). Start-up: one "
             "process scoring one answer that needs no search (interpreter, imports, reading "
             f"the questions, the report), {start:.2f} s, times the processes. "
             f"Smallest of {args.runs} run(s); "
             f"load average at the end {load:.1f} on 2 cores (a shared machine). Produced by "
             "`benchmarks/acp_score_allin.py`"
             + (f" `--peer` ({args.peer_name}: {peer[2]:.2f} s start-up; verdicts identical)."
                if peer else "."), ""]
    if peer:
        pcpu, _, pstart, _ = peer
        lines += [f"| task | answers | processes | {args.peer_name} CPU s | CPU s | "
                  f"{args.peer_name} ms per answer | ms per answer | start-up s | "
                  "scoring s (CPU - start-up) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    else:
        lines += ["| task | answers | processes | CPU s | ms per answer | of which start-up s |",
                  "|---|---:|---:|---:|---:|---:|"]
    for t in TASKS:
        k = len(files[t])
        if peer:
            lines.append(f"| {t} | {answers[t]} | {k} | {pcpu[t]:.2f} | {cpu[t]:.2f} | "
                         f"{1000 * pcpu[t] / max(1, answers[t]):.1f} | "
                         f"{1000 * cpu[t] / max(1, answers[t]):.1f} | {k * start:.2f} | "
                         f"{cpu[t] - k * start:.2f} |")
        else:
            lines.append(f"| {t} | {answers[t]} | {k} | {cpu[t]:.2f} | "
                         f"{1000 * cpu[t] / max(1, answers[t]):.1f} | {k * start:.2f} |")
    share = f"{processes * start:.2f} ({100 * processes * start / total:.0f}%)"
    if peer:
        ptotal = sum(pcpu.values())
        lines.append(f"| all | {n} | {processes} | {ptotal:.2f} | {total:.2f} | "
                     f"{1000 * ptotal / max(1, n):.1f} | {1000 * total / max(1, n):.1f} | "
                     f"{share} | {total - processes * start:.2f} |")
    else:
        lines.append(f"| all | {n} | {processes} | {total:.2f} | "
                     f"{1000 * total / max(1, n):.1f} | {share} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.write:
        old = RESULTS.read_text()
        keep = old.split(SECTION)[0].rstrip("\n")
        RESULTS.write_text(keep + "\n\n" + text)


if __name__ == "__main__":
    main()
