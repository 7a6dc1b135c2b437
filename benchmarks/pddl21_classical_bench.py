"""Does PDDL 2.1 support slow down classical validation? Two source trees side by side.

Issue 28 extends the AST, the grammar and the simulator; the classical fast paths must
stay as fast when a task has no numbers or durations. This runs ``validate_bench``'s
in-process measurement (every plan of ``../shared/data/val_oracle/ipc_cases.jsonl``:
validation alone with the task parsed once, and parse + check + validate per plan) in a
child process per tree, the trees alternating round after round so that machine load
hits both alike, and writes ``benchmarks/results/pddl21_classical.md``. Usage::

    python benchmarks/pddl21_classical_bench.py --base /path/to/main --rounds 3

``--base`` is the tree before the change (a checkout of main); this checkout is the other.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "pddl21_classical.md"

_CHILD = """
import json, sys, time
sys.path.insert(0, {bench!r})
import validate_bench as vb
cases = vb._cases()
t0 = time.process_time()
out = vb.bench_in_process(cases)
out["cpu"] = time.process_time() - t0
print(json.dumps(out))
"""


def _run(tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    code = _CHILD.format(bench=str(tree / "benchmarks"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=tree, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", required=True, type=Path, help="the tree before the change")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    trees = {"before (main)": args.base.resolve(), "after (this branch)": ROOT}
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            runs[name].append(_run(tree))
    lines = ["# Classical validation before and after PDDL 2.1 support (issue 28)", "",
             "Written by `benchmarks/pddl21_classical_bench.py`: validate_bench's in-process "
             f"measurement on the {len(runs['before (main)'][0]['alone'])} VAL-judged IPC "
             f"plans of `shared/data/val_oracle/ipc_cases.jsonl`, {args.rounds} rounds, the "
             "two trees alternating (one child process per tree and round). Per-plan times "
             "are the median over rounds of each round's median over plans; totals are "
             "CPU seconds of the whole pass, median over rounds.", "",
             "| tree | validate alone, median ms/plan | parse+check+validate, median ms/plan "
             "| CPU s per pass (median) | agreement with VAL's verdicts |",
             "|---|---|---|---|---|"]
    for name, rs in runs.items():
        alone = statistics.median(statistics.median(r["alone"]) for r in rs) * 1000
        full = statistics.median(statistics.median(r["full"]) for r in rs) * 1000
        cpu = statistics.median(r["cpu"] for r in rs)
        agree = rs[0]["agree"]
        lines.append(f"| {name} | {alone:.3f} | {full:.2f} | {cpu:.2f} | "
                     f"{agree}/{len(rs[0]['alone'])} |")
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
