"""Throughput of ``acp run`` against a local OpenAI-compatible server, beside the bare client.

A scripted server (the tests' :mod:`tests.models.chat_server`, in its own process so it
does not share the GIL with the client) answers every ACPBench Hard dev question with its
gold answer after a fixed delay (``LATENCY_S``, standing in for a model's generation time).
At concurrency 1, 8 and 32 the same prompts are sent:

* ``acp run``: :func:`planning_core.validators.acp.run.run_questions` with the real
  :class:`~planning_core.validators.models.openai_chat.ChatModel` (no cache), scoring each
  answer in the calling thread as it arrives, as the command does;
* peer, ``bare client``: the ``openai`` package's client in a thread pool of the same size,
  no scoring, no rows: the ceiling the harness can reach on this server.

Reported: requests per second of each, their ratio, and the scoring time per answer
(measured around each scorer call); first zero-shot at each concurrency, then, at
concurrency 8, one row per prompt setting (zero-shot, and the paper's 2-shot: its two
static examples as user/assistant turns) with what each question sends: messages,
characters and estimated tokens (characters / 4, the usual rule of thumb for English
text with OpenAI's tokenizers; no tokenizer file is available offline). Writes
``benchmarks/results/acp_run.md``. Usage::

    python benchmarks/acp_run_bench.py
"""
from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PLANNING_CORE_SHARED_DATA", ROOT.parent / "shared" / "data"))
RESULTS = ROOT / "benchmarks" / "results" / "acp_run.md"
PER_TASK = 20
LATENCY_S = 0.05
LEVELS = (1, 8, 32)
SETTING_LEVEL = 8

sys.path.insert(0, str(ROOT))
from planning_core.validators.acp.dataset import load_questions  # noqa: E402
from planning_core.validators.acp.gold import gold_answer  # noqa: E402
from planning_core.validators.acp.prompts import SENT_STOP, question_text  # noqa: E402
from planning_core.validators.acp.run import plan_items, run_questions  # noqa: E402
from planning_core.validators.acp.scoring import AnswerScorer  # noqa: E402
from planning_core.validators.models.openai_chat import ChatModel, ChatSettings  # noqa: E402


def _questions():
    questions = load_questions(SHARED / "acpbench_hard")
    kept, seen = [], {}
    for q in questions:
        seen[q.task] = seen.get(q.task, 0) + 1
        if seen[q.task] <= PER_TASK:
            kept.append(q)
    return kept


def _serve(port_queue, gold) -> None:
    from tests.models.chat_server import ChatServer, answer

    server = ChatServer(lambda req, n: answer(gold[req["messages"][-1]["content"]],
                                              delay_s=LATENCY_S))
    with server:
        port_queue.put(server.base_url)
        while True:
            time.sleep(3600)


class _TimedScorer(AnswerScorer):
    def __init__(self) -> None:
        super().__init__()
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, record, response):
        t0 = time.perf_counter()
        try:
            return super().__call__(record, response)
        finally:
            self.seconds += time.perf_counter() - t0
            self.calls += 1


def _measure(items, base_url, level, warm):
    """(acp run req/s, bare client req/s, scoring ms per answer) for ``items``."""
    import openai

    scorer = _TimedScorer()
    scorer.cache = warm.cache
    model = ChatModel(ChatSettings(model="scripted", base_url=base_url, timeout_s=60,
                                   max_tokens=1000, stop=SENT_STOP))
    t0 = time.perf_counter()
    rows = list(run_questions(model, items, scorer=scorer, concurrency=level))
    ours = time.perf_counter() - t0
    right = sum(r.get("score") == 1 for r in rows)
    assert right == len(items), f"{right}/{len(items)} right"
    client = openai.OpenAI(base_url=base_url, api_key="x", max_retries=0)

    def bare(messages) -> str:
        r = client.chat.completions.create(model="scripted", messages=messages,
                                           temperature=0.0, max_tokens=1000,
                                           stop=list(SENT_STOP))
        return r.choices[0].message.content

    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(level) as pool:
        list(pool.map(bare, [item.conversation for item in items]))
    peer = time.perf_counter() - t0
    n = len(items)
    return n / ours, n / peer, 1000 * scorer.seconds / scorer.calls


def main() -> None:
    questions = _questions()
    gold = {question_text(q): gold_answer(q) for q in questions}
    queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=_serve, args=(queue, gold), daemon=True)
    server.start()
    base_url = queue.get(timeout=60)
    items = plan_items(questions)
    lines, settings = [], []
    try:
        warm = _TimedScorer()  # parse and ground every problem once, outside the timings
        for item in items:
            warm(item.question, gold[item.prompt])
        for level in LEVELS:
            ours, peer, scoring = _measure(items, base_url, level, warm)
            lines.append(f"| {level} | {len(items)} | {ours:.1f} | {peer:.1f} | "
                         f"{ours / peer:.2f} | {scoring:.2f} |")
            print(lines[-1], flush=True)
        for shots, name in ((0, "0-shot"), (2, "2-shot (the paper's, as turns)")):
            setting_items = plan_items(questions, shots, source="paper")
            ours, peer, _ = _measure(setting_items, base_url, SETTING_LEVEL, warm)
            chars = [sum(len(m["content"]) for m in item.conversation)
                     for item in setting_items]
            mean_chars = sum(chars) / len(chars)
            settings.append(f"| {name} | {len(setting_items)} | {ours:.1f} | {peer:.1f} | "
                            f"{ours / peer:.2f} | {len(setting_items[0].conversation)} | "
                            f"{mean_chars:,.0f} | {mean_chars / 4:,.0f} |")
            print(settings[-1], flush=True)
    finally:
        server.terminate()
    RESULTS.write_text(
        "# `acp run` throughput against a local OpenAI-compatible server\n\n"
        f"{len(items)} ACPBench Hard dev questions ({PER_TASK} per task), every answer the "
        f"gold answer, served after {LATENCY_S * 1000:.0f} ms by a scripted server in its "
        "own process on 127.0.0.1. `acp run` = `run_questions` with the real openai-based "
        "client, no cache, scoring every answer as it arrives (problems already parsed "
        "and ground: a warm scorer cache); peer = the bare `openai` client in a thread "
        "pool of the same size, no scoring. All answers scored 1. The machine was shared "
        "with other engineers' jobs (2 cores), so absolute numbers vary; the ratio "
        "compares both sides under the same load.\n\n"
        "Zero-shot prompts, by concurrency (ratio = acp run / bare client):\n\n"
        "| concurrency | requests | acp run (req/s) | bare client (req/s) | ratio | "
        "scoring per answer (ms) |\n|---:|---:|---:|---:|---:|---:|\n"
        + "\n".join(lines) + "\n\n"
        f"By prompt setting, at concurrency {SETTING_LEVEL} (both sides send the same "
        "conversation, the paper's stop sequences, temperature 0 and 1000 tokens). Sent "
        "per question: the messages of the request, their characters, and an estimate of "
        "the tokens (characters / 4; no tokenizer is available offline, so read it as the "
        "ratio between the settings rather than any model's exact count):\n\n"
        "| setting | requests | acp run (req/s) | bare client (req/s) | ratio | messages "
        "| characters sent per question | ~tokens sent per question |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|\n"
        + "\n".join(settings) + "\n\n"
        "Produced by `python benchmarks/acp_run_bench.py`.\n", encoding="utf-8")


if __name__ == "__main__":
    main()
