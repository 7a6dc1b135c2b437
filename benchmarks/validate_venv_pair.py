"""One warm ``validate`` call, CPU per process, in two venvs side by side (two commits).

Each venv has planning_core installed from a wheel build of one tree (``pip install
--no-deps TREE`` and ``pip install lark``, nothing else), so the two differ only in the code.
Per task, the two ``validate`` scripts alternate round after round (the order flips every
round), each with its own warm parse cache (three warm-up calls fill it and the bytecode
caches); the child's user+system CPU is read with ``os.wait4``. Reported: each side's median
and the median (and quartiles) of the per-round ratio, the figure that machine load moves
least. Written for the review of issue 28's codec and enum changes (review3): the digest,
the class-table checks and the byte count must not cost a warm call anything measurable.

    python benchmarks/validate_venv_pair.py BEFORE_VENV AFTER_VENV [--rounds 150]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
from pathlib import Path

DOMAINS = Path(__file__).resolve().parent.parent / "domains"
TASKS = [("blocksworld", "p01"), ("adl-showcase", "p01")]


def one_call(venv: str, files: list[str], cache: str) -> float:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
    env["PLANNING_CORE_PARSE_CACHE_DIR"] = cache
    child = subprocess.Popen([os.path.join(venv, "bin", "validate"), *files], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("before")
    p.add_argument("after")
    p.add_argument("--rounds", type=int, default=150)
    args = p.parse_args(argv)
    sides = {"before": args.before, "after": args.after}
    print("| task | before: CPU ms (median) | after | after/before per round: median "
          "(quartiles) |\n|---|---:|---:|---|")
    with tempfile.TemporaryDirectory() as caches:
        for task, problem in TASKS:
            folder = DOMAINS / task
            files = [str(folder / f"{problem}.plan"), str(folder / "domain.pddl"),
                     str(folder / f"{problem}.pddl")]
            cpu: dict[str, list[float]] = {k: [] for k in sides}
            for side, venv in sides.items():
                for _ in range(3):
                    one_call(venv, files, os.path.join(caches, side))
            for r in range(args.rounds):
                for side in (("before", "after") if r % 2 else ("after", "before")):
                    cpu[side].append(one_call(sides[side], files, os.path.join(caches, side)))
            ratios = [a / b for a, b in zip(cpu["after"], cpu["before"])]
            q1, _, q3 = statistics.quantiles(ratios, n=4)
            print(f"| {task} {problem} | {statistics.median(cpu['before']) * 1e3:.1f} | "
                  f"{statistics.median(cpu['after']) * 1e3:.1f} | "
                  f"{statistics.median(ratios):.3f} ({q1:.3f}-{q3:.3f}) |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
