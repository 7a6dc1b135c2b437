"""Make the plans of the PDDL 2.1 differential: every IPC 2002 numeric, time and simple-time
task given to LPG-td (``up-lpg``), ENHSP (``up-enhsp``) and TAMER (``up-tamer``), each under
a per-task CPU limit; a plan found within it is written to
``benchmarks/pddl21_plans/<planner>/<variant>/instance-N.plan`` and every attempt is one row
of ``benchmarks/pddl21_plans/runs.jsonl`` (solved or why not, CPU seconds).

The planners run as child processes under ``RLIMIT_CPU`` (and ``RLIMIT_AS``; ENHSP, a JVM,
gets a heap cap instead), one at a time, at the priority the caller gives (run it with
``nice -n 10``). Which planner tries which variants:

* LPG-td: all 15 (its binary reads PDDL 2.1 levels 2 and 3), ``-n 1 -seed 2002``;
* ENHSP: the 5 numeric variants (its temporal support is not what the IPC 2002 tracks use),
  with unified-planning's own search setting ``-h hadd -s gbfs``;
* TAMER: the 10 time and simple-time variants, through unified-planning's PDDL reader in a
  child process.

Each task is lower-cased (ENHSP is case-sensitive) and ``(either ...)`` is replaced by
``object`` (unified-planning's reader refuses ``either``) in a temporary copy; the plans are
judged against the original files. A variant whose first two tasks a planner's *reader*
refuses (an error before any search, not a limit; the domain file is shared by all tasks of
a variant) is not tried further; the refusal is recorded. Usage::

    nice -n 10 python benchmarks/pddl21_make_plans.py [--planner lpg|enhsp|tamer]...
        [--cpu-lpg 5] [--cpu-enhsp 8] [--cpu-tamer 8] [--variant SUBSTRING] [--fresh]

Resumable: a (planner, variant, instance) already in ``runs.jsonl`` is skipped unless
``--fresh``.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
DATA = SHARED / "pddl21" / "ipc2002"
PLANS = ROOT / "benchmarks" / "pddl21_plans"
LOG = PLANS / "runs.jsonl"
MEMORY = 3 * 1024 ** 3


def normalised(text: str) -> str:
    return re.sub(r"\(\s*either[^)]*\)", "object", text.lower())


def instances(variant: str) -> list[Path]:
    return sorted((DATA / variant / "instances").glob("instance-*.pddl"),
                  key=lambda p: int(p.stem.split("-")[1]))


def _pkgdir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{name} is not installed (pip install {name.replace('_', '-')})")
    return Path(spec.origin).parent


def _limited(cmd: list[str], cwd: Path, cpu: int, memory: bool = True):
    """Run under RLIMIT_CPU (and RLIMIT_AS); (completed, CPU seconds of the child, limited)."""
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if memory:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, preexec_fn=limits,
                              timeout=cpu * 20 + 60)
        timed_out = False
    except subprocess.TimeoutExpired as exc:
        done = subprocess.CompletedProcess(cmd, -9, exc.stdout or "", exc.stderr or "")
        timed_out = True
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if isinstance(done.stdout, bytes):
        done.stdout, done.stderr = done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")
    limited = timed_out or done.returncode in (-9, -24, 137, 152) or used >= cpu - 0.05
    return done, used, limited


_TIMED = re.compile(r"^\s*([0-9.]+)\s*:\s*\(([^)]*)\)\s*(?:\[\s*(?:D:)?\s*([0-9.]+)[^\]]*\])?")


def _fmt(x: float) -> str:
    text = f"{x:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def plan_text(steps, temporal: bool) -> str:
    if temporal:
        return "".join(f"{_fmt(t)}: ({a}) [{_fmt(d)}]\n" if d is not None else f"{_fmt(t)}: ({a})\n"
                       for t, a, d in steps)
    return "".join(f"({a})\n" for t, a, d in sorted(steps, key=lambda s: s[0]))


def lpg(work: Path, cpu: int):
    binary = _pkgdir("up_lpg") / "lpg"
    done, used, limited = _limited([str(binary), "-o", "d.pddl", "-f", "p.pddl", "-n", "1",
                                    "-seed", "2002", "-out", "plan"], work, cpu)
    sol = work / "plan_1.SOL"
    if not sol.exists():
        return None, used, limited, False, (done.stdout[-300:] + done.stderr[-300:])
    steps = []
    for line in sol.read_text().splitlines():
        found = _TIMED.match(line)
        if found:
            steps.append((float(found.group(1)), " ".join(found.group(2).lower().split()),
                          None if found.group(3) is None else float(found.group(3))))
    return steps, used, limited, False, ""


def enhsp(work: Path, cpu: int):
    jar = _pkgdir("up_enhsp") / "ENHSP" / "enhsp.jar"
    done, used, limited = _limited(
        ["java", "-Xmx2g", "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1", "-jar", str(jar),
         "-o", "d.pddl", "-f", "p.pddl", "-sp", "plan", "-npm", "-h", "hadd", "-s", "gbfs"],
        work, cpu, memory=False)
    sol = work / "plan"
    if not sol.exists():
        out = done.stdout + done.stderr
        reader = not limited and "Exception" in out and "Search" not in out
        return None, used, limited, reader, out[-300:]
    steps = [(float(i), " ".join(line.strip()[1:-1].lower().split()), None)
             for i, line in enumerate(sol.read_text().splitlines()) if line.strip().startswith("(")]
    return steps, used, limited, False, ""


_TAMER_CHILD = r'''
import warnings; warnings.simplefilter("ignore")
from unified_planning.io import PDDLReader
from unified_planning.shortcuts import OneshotPlanner, get_environment
get_environment().credits_stream = None
try:
    prob = PDDLReader().parse_problem("d.pddl", "p.pddl")
except Exception as exc:
    print("READER", type(exc).__name__, str(exc)[:200]); raise SystemExit(2)
try:
    with OneshotPlanner(name="tamer", problem_kind=prob.kind) as pl:
        r = pl.solve(prob)
except Exception as exc:
    print("READER", type(exc).__name__, str(exc)[:200]); raise SystemExit(2)
print("STATUS", r.status.name)
if r.plan is not None:
    for s, ai, d in r.plan.timed_actions:
        args = " ".join(str(a) for a in ai.actual_parameters)
        print("STEP %r|%s %s|%r" % (float(s), ai.action.name, args, None if d is None else float(d)))
'''


def tamer(work: Path, cpu: int):
    (work / "child.py").write_text(_TAMER_CHILD)
    done, used, limited = _limited([sys.executable, "child.py"], work, cpu)
    steps = []
    for line in done.stdout.splitlines():
        if line.startswith("STEP "):
            start, action, dur = line[5:].split("|")
            steps.append((float(start), " ".join(action.lower().split()),
                          None if dur == "None" else float(dur)))
    if not steps:
        reader = "READER" in done.stdout
        return None, used, limited, reader, (done.stdout[-300:] + done.stderr[-300:])
    return steps, used, limited, False, ""


PLANNERS = {"lpg": (lpg, None), "enhsp": (enhsp, "-numeric-"), "tamer": (tamer, "-time")}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--planner", action="append", choices=sorted(PLANNERS))
    ap.add_argument("--variant", default="", help="only variants whose name contains this")
    ap.add_argument("--cpu-lpg", type=int, default=5)
    ap.add_argument("--cpu-enhsp", type=int, default=8)
    ap.add_argument("--cpu-tamer", type=int, default=8)
    ap.add_argument("--fresh", action="store_true", help="forget runs.jsonl (plans rewritten)")
    args = ap.parse_args()
    done = set()
    if LOG.exists() and not args.fresh:
        done = {(r["planner"], r["variant"], r["instance"])
                for r in map(json.loads, LOG.read_text().splitlines())}
    elif args.fresh and LOG.exists():
        LOG.unlink()
    PLANS.mkdir(parents=True, exist_ok=True)
    for planner in args.planner or ["lpg", "enhsp", "tamer"]:
        solver, only = PLANNERS[planner]
        cpu = getattr(args, f"cpu_{planner}")
        variants = [v for v in sorted(p.name for p in DATA.iterdir() if p.is_dir())
                    if (not only or only in v) and args.variant in v]
        # instance-major (every variant's instance 1, then every instance 2, ...): a run cut
        # short covers every variant's smaller tasks
        work_list = sorted(((variant, inst) for variant in variants for inst in instances(variant)),
                           key=lambda vi: (int(vi[1].stem.split("-")[1]), vi[0]))
        refusals: dict[str, int] = {}
        for variant, inst in work_list:
            temporal = "-time" in variant
            key = (planner, variant, inst.stem)
            if key in done:
                continue
            row = {"planner": planner, "variant": variant, "instance": inst.stem,
                   "cpu_limit": cpu}
            if refusals.get(variant, 0) >= 2:
                row.update(solved=False, why="not tried: the reader refused the first two tasks")
            else:
                work = Path(tempfile.mkdtemp(prefix="pddl21plans_"))
                try:
                    (work / "d.pddl").write_text(normalised((DATA / variant / "domain.pddl").read_text()))
                    (work / "p.pddl").write_text(normalised(inst.read_text()))
                    steps, used, limited, reader, err = solver(work, cpu)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                refusals[variant] = refusals.get(variant, 0) + 1 if reader else 0
                row.update(solved=steps is not None, cpu=round(used, 2),
                           steps=len(steps or []),
                           why="" if steps is not None else
                           ("cpu limit" if limited else "reader refused" if reader
                            else "no plan") + (": " + " ".join(err.split())[-200:] if err else ""))
                if steps is not None:
                    out = PLANS / planner / variant / f"{inst.stem}.plan"
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_text(plan_text(steps, temporal))
            with LOG.open("a") as f:
                f.write(json.dumps(row, sort_keys=True) + "\n")
            print(planner, variant, inst.stem, row["solved"], row.get("cpu"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
