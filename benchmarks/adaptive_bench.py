"""Adaptive planning at AdaPlanBench's scale: the 307 generated household-jobs problems,
their tier sizes beside the paper's Table 2, the scripted agents' Table-3 rows per tier,
the dual ablation, the per-turn plot, and what building and judging cost.

Everything is deterministic except the timings. The paper is AdaPlanBench (Liu et al.
2026); its text, cited by line, is the seeds file listed in docs/adaptive.md.

* Tier sizes: ``adaptive generate`` (seed 0, 307 problems), world and user constraints
  per tier, averaged, beside Table 2 (L46-L48).
* Table 3 (L85-L96): Acc (Wald 95%), VPR, Avg Turns, AWRV, AURV, ATWC, ATUC per tier, and
  the shares of early stops (the paper: 17.91% on average, L99) and of turn-budget stops
  (the paper: one case in all its runs, L413), for the three scripted agents over every
  generated problem (N = 307 per tier), standard protocol (T = 20, tau = 2).
* The dual ablation (L128): ``oracle-no-user`` with world constraints only, user only, both.
* Cost: CPU seconds to build one profile, and the wall time to judge one turn on the high
  tier (``env.step`` on the base plan), beside one LLM-judged turn of the paper (6 calls,
  at least 2 in sequence; 4.47 s per call is a measured mean of gpt-4.1-mini answering in
  short JSON, 32 samples, rewards-assistant-docs.fetchrewards.com, "Landing Page Agent
  Latency Optimization", 2025-12-08; a lower bound for the paper's larger judges).

    python benchmarks/adaptive_bench.py [--out benchmarks/results/adaptive.md]
        [--plot benchmarks/results/adaptive_turns.png] [--count 307]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALL_S = 4.47
CALLS_PER_TURN = 6
CRITICAL_CALLS = 2
TIERS = ("low", "mid", "high")
AGENT_NAMES = ("same", "oracle-no-user", "oracle")
# Table 3 of the paper (L85-L96), three of its ten rows, for scale
PAPER_ROWS = (("Qwen3-8B", "14.38", "82.35", "4.493", "0.242", "0.614", "0.608", "1.888"),
              ("Gemini-3-Flash", "43.32", "90.23", "5.824", "0.065", "0.391", "0.756",
               "2.442"),
              ("GPT-5", "67.75 ± 5.23", "89.58", "6.212", "0.199", "0.195", "1.191",
               "3.269"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "adaptive.md"))
    ap.add_argument("--plot", default=str(ROOT / "benchmarks" / "results" /
                                          "adaptive_turns.png"))
    ap.add_argument("--count", type=int, default=307)
    args = ap.parse_args(argv)

    from planning_core.validators.adaptive import household as hh
    from planning_core.validators.adaptive.agents import AGENTS, WordsAgent, run_episode
    from planning_core.validators.adaptive.env import AdaptiveEnv
    from planning_core.validators.adaptive.metrics import METRICS, SHARES, RUBRIC_NOTE, \
        metrics_by_tier, plot_degradation
    from planning_core.validators.adaptive.tasks import load_task

    tmp = Path(tempfile.mkdtemp(prefix="adaptive-bench-"))
    t0 = time.process_time()
    rows = hh.generate(tmp, count=args.count)
    build_cpu = time.process_time() - t0
    failed = [r for r in rows if "error" in r]
    profiles = sorted((tmp / "profiles" / "household-jobs").glob("*.json"))
    tasks = [load_task(p) for p in profiles]
    print(f"generated {len(rows)} problems in {build_cpu:.1f} s CPU", file=sys.stderr)

    sizes = {side: [] for side in ("world", "user")}
    for i, tier in enumerate(TIERS):
        w = [r["world"][tier] for r in rows if "error" not in r]
        u = [r["tiers"][tier] - r["world"][tier] for r in rows if "error" not in r]
        sizes["world"].append((statistics.mean(w), min(w), max(w), statistics.pstdev(w)))
        sizes["user"].append((statistics.mean(u), min(u), max(u), statistics.pstdev(u)))

    def run(agent: str, tiers=TIERS, condition: str = "pddl", **options) -> list:
        episodes = []
        for path, (profile, domain, problem) in zip(profiles, tasks):
            for tier in tiers:
                env = AdaptiveEnv(domain, problem, profile, tier, task_id=str(path.name),
                                  condition=condition, **options)
                make = AGENTS[agent]()
                episodes.append(run_episode(env, make if condition == "pddl"
                                            else WordsAgent(make)))
        return episodes

    results, words = {}, {}
    for agent in AGENT_NAMES:
        t0 = time.perf_counter()
        results[agent] = run(agent)
        print(f"{agent}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        t0 = time.perf_counter()
        words[agent] = run(agent, condition="words")
        print(f"{agent} (words): {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    ablation = {c: run("oracle-no-user", tiers=("mid",), constraints=c)
                for c in ("world", "user", "both")}
    plot_degradation(results["oracle-no-user"], args.plot)

    # one judged turn on the high tier (the base plan), median of 5, over a size spread
    turn_times = []
    for path, (profile, domain, problem) in list(zip(profiles, tasks))[::31]:
        env = AdaptiveEnv(domain, problem, profile, "high")
        plan = "\n".join(profile.base_plan)
        for _ in range(5):
            env.reset()
            t0 = time.perf_counter()
            env.step(plan)
            turn_times.append(time.perf_counter() - t0)
    turn = statistics.median(turn_times)

    lines = [
        "# Adaptive planning at AdaPlanBench's scale",
        "",
        f"`python benchmarks/adaptive_bench.py`: {len(rows)} household-jobs problems and "
        "profiles written by `planning-core adaptive generate --count "
        f"{args.count} --seed 0` ({len(failed)} failed), three tiers each, the paper's two "
        "constraint kinds only (object_unavailable; avoid_attribute_use, task-wide or on one "
        "item). Paper line numbers (L) refer to the text of AdaPlanBench, "
        "`../shared/seeds/000_412af33225388945.txt` (docs/adaptive.md, Sources). Everything "
        "but the timings is deterministic. Run niced on a shared 2-core machine.",
        "",
        "## Tier sizes beside Table 2 (L46-L48)",
        "",
        "Average constraints per profile (min-max in brackets; sd the standard deviation "
        "over the problems). Each problem's counts are drawn around the paper's means "
        "(`household.draw_quotas`: the mean times the problem's size, its jobs over three, "
        "times a factor uniform in 1 ± 0.2), so they vary from problem to problem as the "
        "paper's averages over varied queries do; a problem whose sampled plans run out of "
        "candidates (attributes the reference solution allows) holds fewer, which is why "
        "the high tier's user count is a little short.",
        "",
        "| tier | world (ours) | sd | world (paper) | ratio | user (ours) | sd | "
        "user (paper) | ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for i, tier in enumerate(TIERS):
        w, u = sizes["world"][i], sizes["user"][i]
        pw, pu = hh.PAPER_TABLE2["world"][i], hh.PAPER_TABLE2["user"][i]
        lines.append(f"| {tier} | {w[0]:.2f} [{w[1]}-{w[2]}] | {w[3]:.2f} | {pw} | "
                     f"{w[0] / pw:.3f} | {u[0]:.2f} [{u[1]}-{u[2]}] | {u[3]:.2f} | {pu} | "
                     f"{u[0] / pu:.3f} |")
    lines += [
        "",
        "## Scripted agents, Table 3's columns per tier, in both conditions",
        "",
        "Symbolic mode (the judged mode needs judge models; none is run here). Condition "
        "`pddl`: the task as PDDL, plans as PDDL steps (the default). Condition `words`: "
        "the agent is shown the household request only (no PDDL, no list of usable tools "
        "or materials); the scripted agents write each step as a sentence "
        "(`pick up: iron, hall`), and the rules reader maps it back (a model reader, "
        "`--reader MODEL`, reads free words; none is run here). The scripted agents plan "
        "from the environment whatever they are shown, so the two conditions must give "
        "the same numbers: the table checks that the words pipeline loses nothing.",
        "",
        "Standard protocol: T = 20 turns, early stop after tau = 2 consecutive turns "
        "without a new disclosure, world violations disclosed first, withheld ones never "
        "mentioned, every constraint judged on every step of the plan. N = "
        f"{len(profiles)} queries per tier. Acc, VPR, ES (early stops) and MT (turn budget "
        "reached) in percent with Wald 95% intervals; the means with normal 95% intervals. "
        "`same` proposes one plan, made without constraints, every turn; `oracle` plans "
        "with every constraint disclosed so far; `oracle-no-user` the same but ignores the "
        "user's. " + RUBRIC_NOTE,
        "",
    ]
    head = "| agent | condition | tier | " + " | ".join(METRICS) + " |"
    lines += [head, "|---|---|---|" + "---:|" * len(METRICS)]
    for agent in AGENT_NAMES:
        for condition, eps in (("pddl", results[agent]), ("words", words[agent])):
            table = metrics_by_tier(eps)
            for tier, row in table.items():
                cells = [row[m].render(percent=m in SHARES) for m in METRICS]
                lines.append(f"| {agent} | {condition} | {tier} | " + " | ".join(cells)
                             + " |")
    same_numbers = all(
        metrics_by_tier(results[a])[t][m].value == metrics_by_tier(words[a])[t][m].value
        for a in AGENT_NAMES for t in TIERS for m in METRICS)
    lines += ["", "The two conditions give " + ("identical numbers for every agent, tier "
                                                "and metric." if same_numbers else
                                                "DIFFERENT numbers (a defect to look at).")]
    oracle = metrics_by_tier(results["oracle"], overall=True)
    same = metrics_by_tier(results["same"], overall=True)
    lines += [
        "",
        f"Reading: `oracle` never repeats a disclosed constraint and always succeeds, in "
        f"{oracle['mid']['Avg Turns'].value:.2f} turns on the mid tier and "
        f"{oracle['high']['Avg Turns'].value:.2f} on the high one (the paper's models take "
        f"4.49-6.39 on mid, L87-L96); it reaches the turn budget on "
        f"{oracle['overall']['MT'].value * 100:.1f}% of the queries. `same` stops early on "
        f"{same['overall']['ES'].value * 100:.1f}%: on the high tier its plan always breaks "
        f"a world constraint, so its user violations stay withheld (AURV "
        f"{same['high']['AURV'].value:.2f}). `oracle-no-user` repeats the user's "
        "constraints until it stops early; the ablation below shows that it handles world "
        "constraints alone and fails on user constraints alone, the paper's finding that "
        "user constraints are the harder side (L128), here by construction.",
    ]
    lines += [
        "",
        "For scale, three of the paper's ten Table-3 rows (mid tier, LLM agents; "
        "Acc with the Wald interval of its Table 9 for GPT-5):",
        "",
        "| model | Acc | VPR | Avg Turns | AWRV | AURV | ATWC | ATUC |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += ["| " + " | ".join(r) + " |" for r in PAPER_ROWS]
    lines += [
        "",
        "## The dual ablation (L128), mid tier, `oracle-no-user`",
        "",
        "| constraints | Acc | VPR | Avg Turns | ATWC | ATUC | ES | MT |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c, eps in ablation.items():
        row = metrics_by_tier(eps)["mid"]
        lines.append(f"| {c} | " + " | ".join(
            row[m].render(percent=m in SHARES)
            for m in ("Acc", "VPR", "Avg Turns", "ATWC", "ATUC", "ES", "MT")) + " |")
    plot = Path(args.plot).resolve()
    shown = plot.relative_to(ROOT) if plot.is_relative_to(ROOT) else plot
    lines += [
        "",
        f"The per-turn plot of `oracle-no-user` by tier (cumulative Acc; among the episodes "
        f"still running, the share of plans that solve the task and that meet every "
        f"constraint): `{shown}`.",
        "",
        "## Cost",
        "",
        f"Building all {len(rows)} profiles (problem generation, three rounds of plan "
        f"sampling, the reference-plan proof, writing the files): {build_cpu:.1f} s CPU, "
        f"{1000 * build_cpu / max(1, len(rows)):.0f} ms per profile. Judging one turn on the "
        f"high tier ({sizes['world'][2][0] + sizes['user'][2][0]:.0f} constraints on "
        f"average; `env.step` on the base plan, median of "
        f"{len(turn_times)} runs on a shared machine): {turn * 1000:.1f} ms. One turn of the "
        f"paper costs {CALLS_PER_TURN} LLM calls, at least {CRITICAL_CALLS} in sequence: "
        f"{CALL_S * CRITICAL_CALLS:.1f} s or more at {CALL_S} s per call (a measured "
        "gpt-4.1-mini mean, not the paper's judges; the paper reports no latency).",
    ]
    # the "## Build time" section is adaptive_build_bench.py's (pasted from its output):
    # kept as it is
    out = Path(args.out)
    kept = ""
    if out.is_file():
        old = out.read_text(encoding="utf-8")
        if "\n## Build time" in old:
            kept = "\n" + old[old.index("\n## Build time") + 1:]
    out.write_text("\n".join(lines) + "\n" + kept, encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
