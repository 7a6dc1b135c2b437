"""Answer-parsing speed on the ACPBench Hard dev set's gold answers.

For each of the 320 dev questions (8 tasks x 40) the gold answer is written as a model
would write it and parsed with the task's parser from
``planning_core.validators.acp.answers.parsers``:

* ``clean``: the JSON list style (``["(a x)", "(b y)"]``; ``[3]`` for val; two JSON lists
  for prog; one item in a list for single-answer tasks, ``[]`` for None);
* ``chatty``: the same inside prose -- a ``<think>`` block, a header line, a markdown
  bullet list under ``**Answer:**`` and a trailing explanation that mentions another action.

The gold answer for just is the question's plan minus the first removable piece the
dataset lists; for single-answer tasks it is the first acceptable item. Each parse is
timed alone (``time.perf_counter``, best of 3 to damp noise from other processes); the
table reports median and maximum per task. It writes
``benchmarks/results/acp_answer_parse.md``. Usage::

    python benchmarks/acp_answer_parse_bench.py
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data" / "acpbench_hard"
RESULTS = ROOT / "benchmarks" / "results" / "acp_answer_parse.md"
TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")

sys.path.insert(0, str(ROOT))
from planning_core.validators.acp.answers.grammar import answer_parser  # noqa: E402
from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS  # noqa: E402


def _simplified_plan(record: dict) -> list[str]:
    question = record["question"]
    plan = re.findall(r"\([^()]*\)", question[question.index("Simplify the plan"):
                                              question.index("by removing")])
    piece = record["answer"][0]
    drop = piece[:2] if len(piece) == 3 and piece[2] == "-1" else piece[:1]
    for i in range(len(plan)):
        if plan[i:i + len(drop)] == drop:
            return plan[:i] + plan[i + len(drop):]
    return plan


def _gold_items(task: str, record: dict):
    """The gold answer as a list of item strings (or an int for val, a pair for prog)."""
    answer = record["answer"]
    if task == "app":
        return answer
    if task == "just":
        return _simplified_plan(record)
    if task == "prog":
        return answer["pos"], answer["neg"]
    if task == "val":
        return int(answer)
    items = answer["yes"] if task in ("land", "nexta") else answer
    return items[:1]


def _clean(task: str, gold) -> str:
    if task == "val":
        return json.dumps([gold])
    if task == "prog":
        return f"{json.dumps(gold[0])} {json.dumps(gold[1])}"
    return json.dumps(gold)


def _chatty(task: str, gold) -> str:
    think = "<think>Let me check each action. (board c9 l9) needs the ferry.</think>\n"
    tail = "\n\nThis follows because (at-ferry l9) does not hold."
    if task == "val":
        body = f"The first inapplicable action is at index {gold}."
    elif task == "prog":
        body = ("**Positive effects:**\n" + "\n".join(f"- {a}" for a in gold[0]) +
                "\n\n**Negative effects:**\n" + ("\n".join(f"- {a}" for a in gold[1]) or "None"))
    elif not gold:
        body = "None"
    else:
        body = "\n".join(f"- {a}" for a in gold)
    return think + "Here is my answer.\n\n**Answer:**\n" + body + tail


def _time(parse, text: str) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        try:
            parse(text)
        except Exception:  # noqa: BLE001 - failures are counted by the caller, not timed apart
            pass
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    build_start = time.perf_counter()
    answer_parser()
    build = time.perf_counter() - build_start
    rows, every = [], {"clean": [], "chatty": []}
    for task in TASKS:
        records = json.loads((SHARED / task / "dev.gen.json").read_text())
        parse = ANSWER_PARSERS[task]
        times = {"clean": [], "chatty": []}
        for record in records:
            gold = _gold_items(task, record)
            for style, render in (("clean", _clean), ("chatty", _chatty)):
                times[style].append(_time(parse, render(task, gold)))
        for style in times:
            every[style].extend(times[style])
        rows.append((task, len(records), times))
    lines = [
        "# ACPBench Hard answer parsing: time per answer",
        "",
        f"Gold answers of the dev set ({sum(r[1] for r in rows)} questions), parsed by "
        "`planning_core.validators.acp.answers.parsers`; best of 3 per answer, milliseconds. "
        f"Parser build (once per process): {build * 1000:.0f} ms. Load average during the run: "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (a shared machine: times scale with "
        "it). Produced by `benchmarks/acp_answer_parse_bench.py`.",
        "",
        "| task | questions | clean median | clean max | chatty median | chatty max |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for task, count, times in rows:
        lines.append(f"| {task} | {count} | {statistics.median(times['clean']) * 1000:.2f} | "
                     f"{max(times['clean']) * 1000:.2f} | "
                     f"{statistics.median(times['chatty']) * 1000:.2f} | "
                     f"{max(times['chatty']) * 1000:.2f} |")
    lines.append(f"| all | {len(every['clean'])} | {statistics.median(every['clean']) * 1000:.2f} | "
                 f"{max(every['clean']) * 1000:.2f} | "
                 f"{statistics.median(every['chatty']) * 1000:.2f} | "
                 f"{max(every['chatty']) * 1000:.2f} |")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
