"""One served-model run of APB end to end: ``toolplans run`` against a stub OpenAI-compatible
server (the tests' ``ChatServer``), through the real openai client, the shared cache and
retries, the checker and the report.

The stub is a deterministic "model" of mixed quality, keyed on a hash of the prompt: on
six prompts in ten it answers with the case's reference in the paper's format, on one it
drops the last call (holistic) or concludes at once (step-wise), on one it misspells the
first tool's name, on one it refuses in plain words, on one it answers in prose with no
JSON; on an unsolvable case it refuses on half of the prompts and plans blindly on the
others. Its numbers say nothing about any real model: they show the pipeline (prompts,
answers, verdicts, Tables 1 and 2, per-horizon results) end to end.

Refinement (C.7, lines 742-767; Table 4): the same cases of the holistic and step-wise
settings asked again with ``--refine self+`` (the stub reviews its own answer) and
``--refine critic+`` (a second served model, the same stub server under the name
``stub-critic``, reviews it). The stub's review is one fixed sentence naming E2; asked
for its final answer after a review, it gives the case's reference on eight prompts in
ten and repeats its first answer on the other two. So the refined rate is a property of
the stub, not a finding about refinement.

Usage: ``python benchmarks/apb_stub_run.py [--limit 60] [--scale 1]``; appends its section to
``benchmarks/results/toolplans.md``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "toolplans.md"
HEAD = "## APB: a served model (stub) through `toolplans run`"


def _paper(case: dict, calls: list[dict]) -> str:
    setting = case["setting"]
    base = case.get("base") or ("stepwise" if setting in ("stepwise", "broken") else "holistic")
    if base == "stepwise":
        k = case.get("k") or 1
        steps = [{"role": "assistant", "thought": f"call {c['name']}",
                  "tool_calls": [{"type": "function", "function": {
                      "name": c["name"], "arguments": c["arguments"]}}]} for c in calls]
        while len(steps) < k:
            steps.append({"role": "assistant", "thought": "the task is done", "tool_calls": []})
        return json.dumps(steps[0] if k == 1 else steps[:k])
    return json.dumps({"plan": "Call the tools in order.", "tool_chain": [
        {"name": c["name"], "parameter_description": c["arguments"], "reason": "needed"}
        for c in calls]})


def stub_answer(case: dict, prompt: str) -> str:
    h = int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 10
    ref = case["reference"]
    if case["setting"] == "unsolvable":
        return ("I cannot do this: something the request needs is not available to me."
                if h % 2 == 0 else _paper(case, ref))
    if h < 6:
        return _paper(case, ref)
    if h == 6:
        return _paper(case, ref[:-1])
    if h == 7:
        bad = [dict(ref[0], name=ref[0]["name"].title().replace("_", ""))] + ref[1:]
        return _paper(case, bad)
    if h == 8:
        return "I am unable to complete this request with the tools I have."
    return "First I would look things up, then put the results together for you."


REVIEW = ("E2_TASK_COMPLETENESS: the answer may stop before every requested output is "
          "made; check each required output against the calls.")


def stub_turn(by_prompt: dict, messages: list[dict]) -> str:
    """The stub's answer to any turn of a run: a first answer (one user turn holding a
    case's prompt), a review (C.7's reflection prompt, Figures 42-43), or the final answer
    after a review (the refinement turn, whose last message starts "A review of your
    answer")."""
    first = messages[0]["content"]
    if len(messages) == 1 and first in by_prompt:
        return stub_answer(by_prompt[first], first)
    last = messages[-1]["content"]
    if last.startswith("A review of your answer") and first in by_prompt:
        h = int(hashlib.sha256(("refined:" + first).encode()).hexdigest(), 16) % 10
        case = by_prompt[first]
        if case["setting"] == "unsolvable":
            return "I cannot do this: something the request needs is not available to me."
        return _paper(case, case["reference"]) if h < 8 else messages[1]["content"]
    return REVIEW


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=60, help="cases per setting (default 60)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    from planning_core.console import main as cli
    from planning_core.validators.toolplans.apb import build_sets, extraneous_bases, load_domains
    from planning_core.validators.toolplans.prompts import case_prompt
    from tests.models.chat_server import ChatServer, answer

    cases = build_sets(load_domains(), seed=args.seed, scale=args.scale)
    by_prompt = {case_prompt(c): c for c in cases + extraneous_bases(cases)}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "cases.jsonl")
        path.write_text("".join(json.dumps(c) + "\n" for c in cases))
        report = Path(tmp, "report.md")
        t0 = time.perf_counter()
        with ChatServer(lambda req, n: answer(stub_turn(by_prompt, req["messages"]),
                                              model=req.get("model") or "stub")) as server:
            code = cli(["toolplans", "run", "--model", "stub", "--base-url", server.base_url,
                        "--cases", str(path), "--out", str(Path(tmp, "r.jsonl")),
                        "--limit", str(args.limit), "--no-cache", "--no-progress",
                        "--report", str(report), "--name", "stub"])
            asked = len(server.requests)
            wall = time.perf_counter() - t0
            text = report.read_text().split("\n", 2)[2]
            refined = []
            for mode in ("self+", "critic+"):
                rep = Path(tmp, f"refine{mode[:-1]}.md")
                extra = (["--critic-model", "stub-critic", "--critic-base-url", server.base_url]
                         if mode.startswith("critic") else [])
                rcode = cli(["toolplans", "run", "--model", "stub", "--base-url",
                             server.base_url, "--cases", str(path), "--out",
                             str(Path(tmp, f"refine{mode[:-1]}.jsonl")), "--settings",
                             "holistic,stepwise", "--limit", str(args.limit), "--no-cache",
                             "--no-progress", "--refine", mode, *extra, "--report", str(rep),
                             "--name", "stub"])
                table = rep.read_text().split("### Table 4 (refinement)\n\n", 1)[1]
                refined.append((mode, rcode, table.split("\n\nSetting:", 1)[0].strip("\n")
                                .splitlines()))
            asked_all = len(server.requests)
    body = (f"{HEAD}\n\nMade by `python benchmarks/apb_stub_run.py --scale {args.scale:g} --limit {args.limit}`: the "
            f"first {args.limit} cases of each setting of `build_sets(seed={args.seed}, "
            f"scale={args.scale:g})` (and each extraneous base without its distractors), asked through the "
            "real openai client of a stub OpenAI-compatible server on 127.0.0.1 whose "
            "deterministic answers mix the reference, a dropped last call, a misspelled tool, "
            "plain-words refusals and prose (see the script's docstring); scored as they "
            f"arrive. {asked} requests, {wall:.0f} s wall clock on the shared 2-core machine; "
            f"exit code {code}. **The stub is a stub**: a deterministic script, not a "
            "language model; the numbers describe the stub, not any model.\n\n" + text)
    lines = refined[0][2][:2] + [t[2][2] for t in refined]
    body += ("\n### Table 4 (refinement, C.7) from the same stub server\n\n"
             f"`toolplans run --refine self+` and `--refine critic+` (critic: the same stub "
             f"server under the name `stub-critic`) on the first {args.limit} holistic and "
             f"step-wise cases; exit codes {', '.join(f'{m} {c}' for m, c, _ in refined)}; "
             f"{asked_all - asked} further requests (first answer, review, final answer per "
             "case). The stub's review is one fixed sentence and its final answer after a "
             "review is the reference on 8 prompts in 10 (see the docstring): the table shows "
             "the refinement pipeline (initial verdict, review by the same or a second model, "
             "refined verdict, Table 4's Base / Refined / Δ), not an effect of refinement.\n\n"
             + "\n".join(lines) + "\n")
    code = code or max(c for _, c, _ in refined)
    old = OUT.read_text(encoding="utf-8")
    cut = old.find(HEAD)
    OUT.write_text((old[:cut] if cut >= 0 else old.rstrip("\n") + "\n\n") + body,
                   encoding="utf-8")
    print(body)
    return code


if __name__ == "__main__":
    sys.exit(main())
