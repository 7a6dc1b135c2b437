"""CPU per profile of `planning-core adaptive build`, paired against another checkout.

    python benchmarks/adaptive_build_bench.py [--baseline DIR] [--pairs N] [--extended-kinds]
        [TASKS...]

Each run is a fresh `planning-core adaptive build TASKS --out TMP` process; its CPU is the
process's and its children's (K* runs as a subprocess), read from ``RUSAGE_CHILDREN``.
``--baseline DIR`` names a tree laid out as the installed package (``DIR/planning_core``
with ``validators`` and ``grammars`` inside it, e.g. from ``git archive``): it is put first
on ``PYTHONPATH`` and run from a neutral folder, alternating with this checkout (the order
flips every pair), and the two runs' profiles are compared byte for byte. The default tasks
are p01-p03 of the bundled domains the committed profiles come from. The machine is shared:
read pairs, not single runs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("adl-showcase", "blocksworld", "coins", "costs", "ferry", "grid", "gripper",
           "logistics", "household")
RUN = "import sys; from planning_core.console import main; sys.exit(main())"


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(tasks: list[str], extra: list[str], baseline: str | None) -> tuple[float, int, str]:
    env = dict(os.environ)
    if baseline:
        env["PYTHONPATH"] = baseline
    with tempfile.TemporaryDirectory(prefix="adaptive-build-bench-") as out:
        before = _cpu()
        subprocess.run([sys.executable, "-c", RUN, "adaptive", "build", *tasks, "--out", out,
                        *extra], env=env, cwd=tempfile.gettempdir(), check=True,
                       stdout=subprocess.DEVNULL)
        cpu = _cpu() - before
        files = sorted(Path(out).rglob("*.json"))
        digest = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:16]
    return cpu, len(files), digest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="*")
    ap.add_argument("--baseline", help="a package tree to compare against (module docstring)")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--extended-kinds", action="store_true")
    args = ap.parse_args(argv)
    tasks = args.tasks or [str(p) for f in FOLDERS
                           for p in sorted((ROOT / "domains" / f).glob("p0[123].pddl"))]
    tasks = [str(Path(t).resolve()) for t in tasks]
    extra = ["--extended-kinds"] if args.extended_kinds else []
    variants = [("this", None)] + ([("baseline", args.baseline)] if args.baseline else [])
    for i in range(args.pairs):
        for name, base in (variants if i % 2 else variants[::-1]):
            cpu, n, digest = run(tasks, extra, base)
            print(json.dumps({"pair": i, "variant": name, "cpu_s": round(cpu, 2),
                              "profiles": n, "cpu_per_profile_s": round(cpu / max(n, 1), 3),
                              "profiles_sha256": digest}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
