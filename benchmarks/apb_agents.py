"""Scripted agents on the APB-sized sets: each must give the Table-1 row written by hand.

Five agents answer every case in the paper's formats (holistic ``{"plan", "tool_chain"}``
with prose ``parameter_description``; step-wise ``{"role", "thought", "tool_calls"}`` per
step; ``{"status": "REJECT"}``):

* ``perfect``: the reference chain (holistic: described in prose, dynamic values as "the X
  returned by step N"), the next k reference actions (a concluding text step when the
  request is done), the replacement tool after a broken one, REJECT on unsolvable cases;
* ``distractor``: as perfect, plus one call of a distractor tool whose inputs are held
  (holistic: at the end; step-wise: in place of the last predicted action) when the task
  has distractors;
* ``stops_early``: the reference chain without its last call; step-wise a single step that
  concludes with text;
* ``retries``: as perfect, but after a broken tool it calls the broken tool again;
* ``refuses``: REJECT everywhere.

Usage: ``python benchmarks/apb_agents.py [--scale 1.0] [--seed 0]``; writes the tables to
``benchmarks/results/toolplans.md`` (section "APB settings") and exits non-zero when a row
differs from the expected one.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "toolplans.md"


def _prose(ref: list[dict], values: dict) -> list[dict]:
    """Reference calls as APB holistic tool_chain entries (arguments described)."""
    chain = []
    for k, call in enumerate(ref, start=1):
        desc = {}
        for p, v in call["arguments"].items():
            if isinstance(v, str) and v.startswith("$"):
                tool, _, typ = v[1:].partition(".")
                if not typ:     # $type: the latest one made
                    desc[p] = f"The {tool.replace('_', ' ')} obtained earlier"
                    continue
                step = max(i for i, c in enumerate(ref[:k - 1], start=1) if c["name"] == tool)
                desc[p] = f"The {typ.replace('_', ' ')} returned by step {step} ({tool})"
            else:
                desc[p] = v
        chain.append({"name": call["name"], "parameter_description": desc,
                      "reason": f"step {k} of the plan"})
    return chain


def holistic(ref, plan="Call the tools in order, each on the previous outputs."):
    return json.dumps({"plan": plan, "tool_chain": _prose(ref, {})})


def step(call=None, thought="next action"):
    calls = [] if call is None else [{"type": "function", "function": {
        "name": call["name"], "arguments": json.dumps(call["arguments"])}}]
    return {"role": "assistant", "thought": thought, "tool_calls": calls}


def stepwise(calls, k):
    steps = [step(c) for c in calls]
    while len(steps) < k:
        steps.append(step(None, "the request is complete"))
    return json.dumps(steps[0] if k == 1 else steps)


REJECT = json.dumps({"status": "REJECT", "reason": "the request cannot be completed"})


def _distractor_call(case, held_types: set[str]):
    """A call of a distractor whose inputs are held, else of the first distractor."""
    task = case["task"]
    tools = {t["name"]: t for t in task["tools"]}
    values = {}
    for i in task["items"]:
        values.setdefault(i["type"], i["value"])
    names = task.get("extraneous", [])
    if not names:
        return None

    def types(name):
        props = tools[name]["parameters"]["properties"]
        return {p: (sch.get("x-data-type"), sch.get("enum")) for p, sch in props.items()}
    ready = [n for n in names if all(t is None or t in held_types for t, _ in types(n).values())]
    name = (ready or names)[0]
    args = {p: (e[0] if e else "x") if t is None else values.get(t, f"${t}")
            for p, (t, e) in types(name).items()}
    return {"name": name, "arguments": args}


def _held(case, calls) -> set[str]:
    tools = {t["name"]: t for t in case["task"]["tools"]}
    held = {i["type"] for i in case["task"]["items"] if i.get("accessible", True)}
    for c in calls:
        held |= set(tools[c["name"]]["x-planning"]["produces"])
    return held


def answer(agent: str, case: dict) -> str:
    s, ref = case["setting"], case["reference"]
    base = case.get("base") or ("stepwise" if s in ("stepwise", "broken") else "holistic")
    k = case.get("k", 1)
    if agent == "refuses" or (s == "unsolvable" and agent != "stops_early"):
        return REJECT
    if agent == "stops_early":
        return holistic(ref[:-1]) if base == "holistic" else json.dumps(
            step(None, "the task is done") if k == 1 else [step(None, "the task is done")])
    if s == "broken":
        if agent == "retries":
            broken = case["prefix"][-1]
            return stepwise([broken], 1)
        return stepwise(ref, 1)
    if agent == "distractor" and case["task"].get("extraneous"):
        if base == "holistic":
            extra = _distractor_call(case, _held(case, ref))
            return holistic(ref + ([extra] if extra else []))
        calls = list(ref[:k])
        extra = _distractor_call(case, _held(case, case["prefix"] + calls[:-1]))
        if extra:
            calls = calls[:-1] + [extra] if len(calls) == k else calls + [extra]
        return stepwise(calls, k)
    return holistic(ref) if base == "holistic" else stepwise(ref[:k], k)


AGENTS = ("perfect", "distractor", "stops_early", "retries", "refuses")


def expected(agent: str, t: dict) -> dict:
    """The Table-1 cells each agent must give, by construction (written by hand; ``None``:
    not asserted). Step-wise ks are 1, 2, 3 in equal shares (E3 for k > 1 when one step is
    given: a third of the rows have k = 1)."""
    perfect = {"holistic": {"CR": 100.0, "Grade": 1.0, "E2": 0.0, "E3": 0.0, "E4": 0.0,
                            "E5": 0.0, "E6": 0.0},
               "stepwise": {"CR": 100.0, "Grade": 1.0, "E2": 0.0, "E3": 0.0, "E4": 0.0,
                            "E5": 0.0, "E6": 0.0},
               "extraneous": {"CR": 100.0, "Grade": 1.0, "E2": 0.0, "E5": 0.0},
               "broken": {"replace": 100.0, "alter": 0.0, "retry": 0.0, "refusal": 0.0,
                          "other": 0.0},
               "unsolvable": {"Conf": 100.0, "Info": 100.0, "Tool": 100.0, "Vis": 100.0}}
    if agent == "perfect":
        return perfect
    for setting in ("holistic", "stepwise", "extraneous"):
        perfect[setting]["E1"] = 0.0      # every intent met (the requests state theirs)
    if agent == "distractor":
        # CR 0 and E5 everywhere by construction; where no distractor's inputs are held
        # the call also lacks them (E4) or names data no tool makes (E6): not asserted
        return {**perfect, "extraneous": {"CR": 0.0, "E5": 100.0, "E1": 0.0, "E2": 0.0}}
    if agent == "retries":
        return {**perfect, "broken": {"replace": 0.0, "alter": 0.0, "retry": 100.0,
                                      "refusal": 0.0, "other": 0.0}}
    if agent == "stops_early":
        # one concluding step: E2; for k = 2, 3 (two thirds of the rows) also E3 (one step
        # of k): grade 0.4 for k = 1, 0.2 otherwise, mean 0.27
        # holistic E2 is not asserted: when the last call is a tool the request mandates
        # ("you must use X"), dropping it breaks the constraint (E3) and may leave every
        # required output made
        return {"holistic": {"CR": 0.0, "E1": 0.0, "E5": 0.0, "E6": 0.0},
                "stepwise": {"CR": 0.0, "Grade": 0.27, "E1": 0.0, "E2": 100.0, "E3": 66.7,
                             "E4": 0.0, "E5": 0.0, "E6": 0.0},
                "extraneous": {"CR": 0.0, "E2-H": 100.0, "E2-S": 100.0, "E5": 0.0},
                "broken": {"replace": 0.0, "alter": 0.0, "retry": 0.0, "refusal": 0.0,
                           "other": 100.0},
                "unsolvable": {"Conf": 0.0, "Info": 0.0, "Tool": 0.0, "Vis": 0.0}}
    return {"holistic": {"CR": 0.0, "Grade": 0.0, "E1": None, "E2": 100.0, "E3": 0.0, "E4": 0.0,
                         "E5": 0.0, "E6": 0.0},
            "stepwise": {"CR": 0.0, "Grade": 0.4, "E2": 100.0, "E3": 0.0, "E4": 0.0,
                         "E5": 0.0, "E6": 0.0},
            "extraneous": {"CR": 0.0, "E2": 100.0, "E5": 0.0},
            "broken": {"replace": 0.0, "alter": 0.0, "retry": 0.0, "refusal": 100.0,
                       "other": 0.0},
            "unsolvable": {"Conf": 100.0, "Info": 100.0, "Tool": 100.0, "Vis": 100.0}}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    from collections import Counter
    from planning_core.validators.toolplans import TaskContext, parse_task
    from planning_core.validators.toolplans.apb import build_sets, extraneous_bases, \
        length_buckets, load_domains
    from planning_core.validators.toolplans.apb_report import check_case, format_horizons, \
        format_table1, format_table2, horizons, paper_table, table1, table2
    t0 = time.perf_counter()
    domains = load_domains(ROOT / "domains" / "toolplans")
    cases = build_sets(domains, seed=args.seed, scale=args.scale)
    gen_s = time.perf_counter() - t0
    lengths = [len(c["reference"]) for c in cases if c["setting"] == "holistic"]
    # Table 2's CR_B: each extraneous base without its distractors (as toolplans run asks)
    bases = extraneous_bases(cases)
    counts = Counter(c["setting"] for c in cases)
    contexts: dict[str, TaskContext] = {}
    failures, blocks, times, tables, tables2 = [], [], {}, {}, {}
    for agent in AGENTS:
        t1 = time.perf_counter()
        rows = []
        for case in cases + bases:
            key = json.dumps(case["task"], sort_keys=True)
            ctx = contexts.get(key)
            if ctx is None:
                ctx = contexts[key] = TaskContext(parse_task(case["task"]))
            rows.append(check_case(ctx, case, answer(agent, case)))
        times[agent] = time.perf_counter() - t1
        t = table1(rows)
        tables[agent] = t
        blocks.append(f"### {agent}\n\n" + format_table1(t, agent) + "\nTable 2 (lines "
                      "159-173) and ExtUse per n_e (Tables 16-17):\n\n"
                      + format_table2(table2(rows), agent) + "\nStep-wise by horizon "
                      "(Figure 5):\n\n" + format_horizons(horizons(rows), agent))
        tables2[agent] = table2(rows)
        for setting, cells in expected(agent, t).items():
            got = t.get(setting, {})
            for key, want in cells.items():
                if got.get(key) != want:
                    failures.append(f"{agent} {setting} {key}: expected {want}, got {got.get(key)}")
    doms = sorted({c["domain"] for c in cases})
    text = ["## APB settings: scripted agents (`benchmarks/apb_agents.py`)", "",
            f"Sets built by `build_sets(seed={args.seed}, scale={args.scale:g})` over "
            f"{len(doms)} tool domains ({', '.join(doms)}) in {gen_s:.1f} s: "
            + ", ".join(f"{s} {counts[s]}" for s in ("holistic", "stepwise", "extraneous",
                                                       "broken", "unsolvable"))
            + f" ({len(cases)} cases; the paper has 1109, 900, 1500, 300, 400 = 4209). "
            "Checking time per agent: " + ", ".join(f"{a} {s:.0f} s" for a, s in times.items())
            + " (wall clock, shared 2-core machine).", "",
            "Cells in % (Grade: mean Plan Grade). E1 is decided only where the goal is formal "
            "(the generated requests state their values per call, `intent`; a refusal leaves "
            "it undecided): '-' when no row decides it, with the count of undecided rows. Extraneous E2 is split "
            "into E2 of holistic bases (H) and step-wise bases (S), as in Table 1.", ""]
    buckets = length_buckets(lengths)
    hidden = [c for c in cases if c.get("kind") in ("missing_input", "visual_missing")]
    stated = sum(1 for c in hidden for w in c["withheld"]     # as a whole word
                 if re.search(rf"(?<![\w.]){re.escape(str(w['value']))}(?![\w])",
                              c["task"]["request"]))
    constrained = sum(1 for c in cases if c["setting"] == "holistic"
                      and (c["task"]["forbidden"] or c["task"]["constraints"]))
    text += [f"Holistic reference chains: mean {sum(lengths) / len(lengths):.2f} calls, max "
             f"{max(lengths)}; 1-10: {buckets[0]}, 11-20: {buckets[1]}, >20: {buckets[2]} (the "
             "paper: mean 12.48; 434 / 590 / 85, Table 10, line 856). Holistic requests with a query "
             f"constraint (forbidden tool, order, mandated tool, call limit): {constrained} of "
             f"{len(lengths)}. Missing-input and visual-missing requests stating a withheld "
             f"value: {stated} of {len(hidden)}.", ""]
    text += ["### Table 1 (the paper's layout, lines 93-121), one row per agent", "",
             paper_table(tables), "### Table 2 (lines 159-173), one row per agent", "",
             "| Model | Hol. TC | CR_B | CR_E | Δ | Step TC | CR_B | CR_E | Δ |",
             "|---|" + "---:|" * 8]
    for agent, t2 in tables2.items():
        text.append(format_table2(t2, agent).splitlines()[2])
    text += ["", "### Details per agent", ""]
    text += [b.replace("### ", "#### ") for b in blocks]
    text += ["", "Every expected cell (written by hand in `expected()`) matched: "
             + ("yes" if not failures else "NO: " + "; ".join(failures[:10]))]
    body = "\n".join(text) + "\n"
    old = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    cut = old.find("## APB settings")
    stub = old.find("## APB: a served model")     # apb_stub_run.py's section stays
    tail = "\n" + old[stub:] if stub >= 0 else ""
    OUT.write_text((old[:cut] if cut >= 0 else old + "\n") + body + tail, encoding="utf-8")
    print(body)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
