"""CPU of each command group's ``--help`` beside a bare interpreter's (issue 32, item 1).

Every ``planning-core`` command used to import every room; with the lazy registry
(``planning_core/console.py``) a command imports its own group only. For each command below
the ``planning-core`` console script pip wrote beside the setup's interpreter runs (as a
user runs it: pip's wrapper imports ``re`` before our code) and the CPU it used (user + system, ``RUSAGE_CHILDREN``) is taken; the smallest of
``--runs`` runs is kept (the machine is shared, and load only ever adds). Byte-code caches
are warm (one run first, ``PYTHONDONTWRITEBYTECODE`` unset). A bare interpreter is
``python -c pass`` with the same interpreter and environment; ``python -c "import re"``
is listed too (the floor of any pip-written console script). The last row validates the
bundled blocksworld p01 plan (parse cache warm): the common command itself.

Setups, each ``NAME=PYTHON[:PYTHONPATH]``: the editable checkout (an interpreter whose
site-packages maps ``planning_core`` to the checkout, as ``pip install -e .`` does) and an
installed wheel (a venv with the wheel and its dependencies only); optionally an older
checkout for a before/after column. Usage::

    python benchmarks/cli_start.py --setup editable=/path/venv/bin/python:/path/checkout \\
        --setup wheel=/tmp/wheel-venv/bin/python [--setup before=...] [--runs 7] [--write]
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "cli_start.md"
BW = ROOT / "domains" / "blocksworld"
VALIDATE = f"validate {BW / 'p01.plan'} {BW / 'domain.pddl'} {BW / 'p01.pddl'}"
COMMANDS = ("--help", "--version", "validate --help", "solve --help", "acp --help",
            "acp score --help", "acp run --help", "acp report --help", "cope --help",
            "cope check --help", "cope run --help", "adaptive --help", "toolplans --help",
            "deepplanning --help", VALIDATE)


def _cpu(argv: list[str], env: dict[str, str], runs: int) -> float:
    best = float("inf")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "cwd": "/"}
    subprocess.run(argv, env=env, **quiet)
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, env=env, **quiet)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="append", required=True, metavar="NAME=PYTHON[:PATH]")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    setups = []
    for spec in args.setup:
        name, _, rest = spec.partition("=")
        python, _, path = rest.partition(":")
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        if path:
            env["PYTHONPATH"] = path
        setups.append((name, python, env))
    bare = {name: _cpu([py, "-c", "pass"], env, args.runs) for name, py, env in setups}
    with_re = {name: _cpu([py, "-c", "import re"], env, args.runs) for name, py, env in setups}
    table = {(name, c): _cpu([str(Path(py).parent / "planning-core"), *c.split()], env,
                             args.runs)
             for c in COMMANDS for name, py, env in setups}
    load = os.getloadavg()[0]
    head = " | ".join(f"{n} CPU s | {n} / bare" for n, _, _ in setups)
    lines = [
        "# `planning-core` start-up: each command's `--help` beside a bare interpreter",
        "",
        "CPU seconds (user + system) of one process, the smallest of "
        f"{args.runs} runs, byte-code caches warm; the ratio is to a bare interpreter "
        "(`python -c pass`) of the same setup. Setups: "
        + "; ".join(f"**{n}** (`{py}`)" for n, py, _ in setups)
        + f". Load average at the end {load:.1f} on 2 cores (a shared machine: CPU times "
        "grow with load). Produced by `benchmarks/cli_start.py`.",
        "",
        f"| command | {head} |",
        "|---|" + "---:|---:|" * len(setups),
        "| bare interpreter | " + " | ".join(f"{bare[n]:.3f} | 1.00" for n, _, _ in setups)
        + " |",
        "| `python -c \"import re\"` (what pip's script imports first) | "
        + " | ".join(f"{with_re[n]:.3f} | {with_re[n] / bare[n]:.2f}" for n, _, _ in setups)
        + " |",
    ]
    for c in COMMANDS:
        cells = " | ".join(f"{table[n, c]:.3f} | {table[n, c] / bare[n]:.2f}"
                           for n, _, _ in setups)
        shown = ("validate domains/blocksworld/p01.plan domain.pddl p01.pddl" if c == VALIDATE
                 else c)
        lines.append(f"| `planning-core {shown}` | {cells} |")
    lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.write:
        RESULTS.write_text(text)


if __name__ == "__main__":
    sys.exit(main())
