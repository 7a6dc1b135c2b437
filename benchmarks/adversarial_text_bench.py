"""CPU time of every reader of model text on adversarial inputs (issue 9, items 6 and 7).

Each case feeds one reader a crafted answer that made an earlier version quadratic (a
prefix rescanned per marker, a bracket matched from every opening, a lazy fenced-block
pattern retried from every opening fence) or recursive (``[`` x 2000). Each case runs in
its own child process under ``RLIMIT_CPU`` (``--cpu-limit``, default 60 s), so a quadratic
reader shows up as ``>limit`` instead of hanging the benchmark; the figure is the child's
user+system CPU time for the call alone (import and set-up excluded), best of one run.
The machine is shared, so CPU (not wall) time is reported.
It writes ``benchmarks/results/adversarial_text.md``. Usage::

    python benchmarks/adversarial_text_bench.py [--cpu-limit S] [--label NAME]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "adversarial_text.md"
SHARED = ROOT.parent / "shared" / "data" / "cope" / "BlocksWorld-100"


def _pair():
    from planning_core.validators.cope.dataset import load_dataset
    return next(p for p in load_dataset(SHARED) if p.category == "baseline")


def _acp(text):
    from planning_core.validators.acp.answers.parsers import parse_action_list
    from planning_core.validators.acp.answers.values import UnparseableAnswer
    try:
        parse_action_list(text)
    except UnparseableAnswer:
        pass


def _plans(text):
    from planning_core.validators.cope.plans import normalize_plan
    normalize_plan(text, _pair())


def _smt_extract(text):
    from planning_core.validators.formalizations.smt import extract_program
    extract_program(text)


def _smt_output(text):
    from planning_core.validators.formalizations.smt import plan_from_output
    plan_from_output(text, _pair())


def _pddl(text):
    from planning_core.validators.formalizations.pddl_text import extract_pddl
    extract_pddl(text)


def _ltl(text):
    from planning_core.validators.formalizations.ltl import extract_ltl
    extract_ltl(text)


#: (name, reader, builder of the adversarial text)
CASES = (
    ("acp: 'answer ' x 200k (1.4 MB), no marker", _acp, lambda: "answer " * 200_000),
    ("acp: 'Answer: x' x 100k (1.0 MB)", _acp, lambda: "Answer: x\n" * 100_000),
    ("cope plans: '[' x 32k", _plans, lambda: "[" * 32_000),
    ("cope plans: '{' x 32k", _plans, lambda: "{" * 32_000),
    ("cope plans: '[\"a\"]' lines x 8k (40 KB)", _plans,
     lambda: '["pick-up b1"]\n' * 8_000),
    ("cope plans: '[' x 2000 (nesting)", _plans, lambda: "[" * 2000 + "]" * 2000),
    ("smt fence: '```python' lines x 3k (32 KB)", _smt_extract,
     lambda: "```python\nx\n" * 3_000),
    ("smt output: '[' x 2000 (nesting)", _smt_output, lambda: "[" * 2000),
    ("smt output: '[' x 32k", _smt_output, lambda: "[" * 32_000),
    ("pddl: unclosed '(define (domain d)' x 4k", _pddl,
     lambda: "(define (domain d)\n" * 4_000),
    ("pddl: '{' x 64k", _pddl, lambda: '{"a' * 64_000),
    ("pddl: '```' lines x 8k", _pddl, lambda: "```pddl\n(x)\n" * 8_000),
    ("ltl: '```ltl' lines x 3k", _ltl, lambda: "```ltl\nG p\n" * 3_000),
)


def _child(index: int, cpu_limit: int, queue) -> None:
    name, reader, build = CASES[index]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))
    text = build()
    reader("warm up")                      # imports and caches outside the measurement
    start = time.process_time()
    try:
        reader(text)
        outcome = "ok"
    except RecursionError:
        outcome = "RecursionError"
    except Exception as err:  # noqa: BLE001 - the benchmark reports what escaped
        outcome = type(err).__name__
    queue.put((time.process_time() - start, outcome))


def run_case(index: int, cpu_limit: int) -> tuple[str, str]:
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(index, cpu_limit, queue))
    proc.start()
    proc.join()
    if queue.empty():
        return f">{cpu_limit}", f"killed ({proc.exitcode})"
    cpu, outcome = queue.get()
    return f"{cpu:.3f}", outcome


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cpu-limit", type=int, default=60)
    parser.add_argument("--label", default="after")
    parser.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    parser.add_argument("--before", metavar="FILE",
                        help="the --json of a run on the code before the fix: write the "
                             "Markdown table with both columns")
    args = parser.parse_args()
    rows = []
    for index, (name, _, _) in enumerate(CASES):
        cpu, outcome = run_case(index, args.cpu_limit)
        rows.append((name, cpu, outcome))
        print(f"{name:48s} {cpu:>8s} s  {outcome}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"label": args.label, "rows": rows}, indent=1))
    if args.before:
        before = {name: (cpu, outcome) for name, cpu, outcome in
                  json.loads(Path(args.before).read_text())["rows"]}
        lines = ["# Readers of model text on adversarial inputs", "",
                 "CPU seconds of one call (child process, `RLIMIT_CPU` "
                 f"{args.cpu_limit} s: `>N` = killed at the limit). Before: the code at "
                 "issue 9; after: this tree. Shared machine (2 cores, other jobs running); "
                 "CPU time, not wall time.", "",
                 "| input | before (s) | outcome | after (s) | outcome |", "|---|---:|---|---:|---|"]
        for name, cpu, outcome in rows:
            old_cpu, old_outcome = before.get(name, ("-", "-"))
            lines.append(f"| {name} | {old_cpu} | {old_outcome} | {cpu} | {outcome} |")
        RESULTS.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
