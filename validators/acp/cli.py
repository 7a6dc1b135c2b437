"""``planning-core acp ...``: score model answers to ACPBench Hard, check the gold answers.

``acp score --questions Q --answers A --out R.jsonl`` scores every answer of ``A`` (JSON
Lines ``{"id", "response"[, "task"]}``) against the questions of ``Q`` (JSON list, JSON
Lines, parquet, or a folder of them), appends one row per answer to ``R.jsonl`` and prints
the summary of everything in ``R.jsonl``. Answers already in ``R.jsonl`` with the same
response (by its SHA-256) are skipped, so an interrupted run is resumed by running the same
command again; an edited response is scored again and its new row supersedes the old. Each
row carries the CPU seconds its scoring took (``cpu_s``). The file is locked for the run (a
second run on it stops with a message) and a torn last line is cut off. Rows are written
in the order of ``A``; every row is journalled in ``R.jsonl.pending`` as it arrives, so a
killed run loses no computed row: the rerun writes them into ``R.jsonl`` in their places
instead of scoring them again (:class:`~planning_core.results_file.ResultsWriter`). ``A``
may also be lm-evaluation-harness ``--log_samples`` output. An unusable answer row (not
JSON, no id, a repeated or unknown id) is recorded as a ``bad-input`` row and the run goes
on (``--strict``: stop at it instead); a response over ``--max-response-bytes`` is scored
unknown (``too-large``) unread; an unexpected error while scoring one answer becomes its
``internal-error`` row.

``acp check-gold --questions Q`` builds the gold answer of every question from its stored
data and scores it; every one must score 1.

Exit codes: 0 done (check-gold: every gold answer scored 1); 1 check-gold found a gold
answer that did not score 1; 2 bad input (missing or malformed file, bad arguments, no
answer that could be scored, results file held by another run).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from planning_core.cli import ArgumentParser, ExitCode
from planning_core.cli.args import positive_int, seconds
from planning_core.cli.executor_args import add_executor_options, executor_for
from planning_core.cli.tables import add_format_option
from planning_core.errors import InputError
from planning_core.validators.acp.defaults import DEFAULT_BUDGET, MAX_RESPONSE_BYTES
from planning_core.cli.args import add_bad_row_options

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``acp`` command group to ``planning-core``'s subcommands."""
    acp = subparsers.add_parser("acp", help="score answers to ACPBench Hard questions",
                                description="ACPBench Hard (Kokel et al. 2025): score model "
                                            "answers and check the dataset's gold answers.")
    sub = acp.add_subparsers(dest="acp_command", metavar="ACP_COMMAND",
                             parser_class=ArgumentParser)
    sub.required = True

    p = sub.add_parser("score", help="score a JSON Lines file of answers")
    p.add_argument("--questions", required=True, metavar="FILE",
                   help="questions: JSON list, JSON Lines, parquet, or a folder of them")
    p.add_argument("--answers", required=True, metavar="FILE",
                   help='answers, JSON Lines: {"id": ..., "response": ...[, "task": ...]}, '
                        "or lm-evaluation-harness --log_samples output (a samples_*.jsonl "
                        "file or a folder of them)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results, JSON Lines (appended; answers already there are skipped)")
    p.add_argument("--report", metavar="FILE",
                   help="also write a summary (Markdown; CSV or LaTeX with --format)")
    p.add_argument("--plot", metavar="FILE",
                   help="also write a domain x task heatmap (.png, .pdf or .svg)")
    add_format_option(p, "the --report file")
    _common(p)
    add_executor_options(p, unit="problem")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_bad_row_options(p, default_bytes=MAX_RESPONSE_BYTES,
                        too_large="scored unknown (too-large)", bad_row="bad-input",
                        bad_rows="not JSON, no id, a repeated or unknown id")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("check-gold", help="score every question's stored gold answer")
    p.add_argument("--questions", required=True, metavar="FILE",
                   help="questions: JSON list, JSON Lines, parquet, or a folder of them")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    _common(p)
    add_executor_options(p, unit="problem")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_check_gold)

    from planning_core.validators.acp.run_cli import add_run_commands
    add_run_commands(sub)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--budget", type=positive_int, default=DEFAULT_BUDGET, metavar="N",
                   help="expanded states per search before a verdict is unknown "
                        f"(deterministic; default {DEFAULT_BUDGET:,})")
    p.add_argument("--time-limit", type=seconds, default=None, metavar="S",
                   help="optional wall-clock safety limit per search (default off); a hit "
                        "gives unknown verdicts that may depend on machine load")
    p.add_argument("--trust-stored-none", action="store_true",
                   help="take an empty stored set as proof that None is right (reach, "
                        "areach, land), as the dataset and the reference scorer do, "
                        "instead of searching for a witness")


# ------------------------------------------------------------------------ score

def cmd_score(args: argparse.Namespace) -> int:
    from planning_core.validators.acp.batch import Job, ScoreSettings, match_answers, \
        score_arrivals
    from planning_core.validators.acp.dataset import (
        current_rows,
        done_keys,
        is_done,
        load_answers,
        load_questions,
        read_results,
        scored_hashes,
    )
    from planning_core.validators.acp.report import (
        check_plot_path,
        heatmap,
        markdown_report,
        summarize,
        text_table,
    )
    from planning_core.results_file import ResultsWriter

    out = Path(args.out)
    if args.plot:
        check_plot_path(args.plot)  # before scoring, not after minutes of work
    if not out.parent.exists():
        raise InputError("the folder does not exist", file=str(out.parent))
    notes: list[str] = []
    questions = load_questions(args.questions, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    bad: list | None = None if args.strict else []
    answers = load_answers(args.answers, bad)
    jobs = match_answers(questions, answers, args.answers, bad)
    # locked until the end, a torn last line cut off; rows a killed run computed but had
    # not written yet (held back for input order) are taken from its journal
    with ResultsWriter(out, key=_row_key) as writer:
        if writer.note():
            print(writer.note(), file=sys.stderr)
        rows = read_results(out)
        scored = scored_hashes(rows)
        done = done_keys(rows)
        todo = [j for j in jobs
                if not is_done((j.question.task, j.question.id), j.response, scored)]
        skipped = len(jobs) - len(todo)
        edited = sum((j.question.task, j.question.id) in scored for j in todo)
        if skipped:
            print(f"{skipped} answer(s) already in {out}: skipped", file=sys.stderr)
        if edited:
            print(f"{edited} answer(s) changed since they were scored: scored again (the new "
                  "row supersedes the old)", file=sys.stderr)
        new_bad = [b for b in bad or () if ("bad-input", b.source) not in done]
        for row in new_bad:
            print(f"warning: {row.source}: {row.message}; recorded as a bad-input row",
                  file=sys.stderr)
        # the answers' lines in their order: a bad line's row is written in its place, not
        # first (issue 32)
        entries = sorted([*todo, *new_bad], key=lambda e: _position(
            answers[e.index].source if isinstance(e, Job) else e.source))
        ready = {p: e.to_row() for p, e in enumerate(entries) if not isinstance(e, Job)}
        fresh = writer.resume([_job_key(e) if isinstance(e, Job) else ("bad-input", e.source)
                               for e in entries], ready)
        work = [entries[k] for k in fresh]
        settings = ScoreSettings(args.time_limit, args.budget, args.trust_stored_none,
                                 provenance=True, max_response_bytes=args.max_response_bytes)
        with executor_for(args) as executor:
            bar = _progress(len(work), disabled=args.no_progress)
            right = scored_n = 0
            try:
                for _, row in writer.in_order(score_arrivals(
                        work, settings, executor, on_done=bar.update if bar else None)):
                    scored_n += 1
                    right += row["score"] == 1
                    if bar and scored_n % 16 == 0:
                        bar.set_postfix_str(f"right {right / scored_n:.1%}", refresh=False)
            finally:
                if bar:
                    bar.close()
        rows = read_results(out)
    summary = summarize(current_rows(rows))
    print(text_table(summary, args.interval))
    if bad:
        print(f"{len(bad)} answer row(s) could not be used (evidence bad-input in {out})",
              file=sys.stderr)
    if args.report:
        try:
            Path(args.report).write_text(markdown_report(summary, fmt=args.format,
                                                         method=args.interval),
                                         encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=args.report) from None
    if args.plot:
        heatmap(summary, args.plot)
    if not jobs and not any(r.get("evidence") != "bad-input" for r in rows):
        print(f"{args.answers}: error: no answer could be scored", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.OK


def _position(source: str) -> tuple[Path, int]:
    """Where an answer line is (``FILE:LINE``), for sorting in the answers' order (the files
    of a folder in the order they are read, sorted)."""
    file, _, line = source.rpartition(":")
    return (Path(file), int(line)) if file and line.isdigit() else (Path(source), 0)


def _row_key(row: dict) -> tuple[str, str, str | None] | None:
    """What a results row is the score of: the answer (task, id) and its response's hash
    (None for a row marked ``retry``: a journalled one must not stand in for the retry)."""
    if row.get("retry"):
        return None
    return str(row.get("task")), str(row.get("id")), row.get("response_sha256")


def _job_key(job) -> tuple[str, str, str]:
    """:func:`_row_key` of the row scoring ``job`` will give."""
    from planning_core.validators.acp.dataset import response_hash

    return str(job.question.task), str(job.question.id), response_hash(job.response)


def _progress(total: int, disabled: bool, unit: str = "answer"):
    if disabled or total == 0:
        return None
    from tqdm import tqdm

    # disable=None: drawn on a terminal only, so logs and pipes stay clean
    return tqdm(total=total, unit=unit, file=sys.stderr, dynamic_ncols=True, disable=None)


# ------------------------------------------------------------------- check-gold

def cmd_check_gold(args: argparse.Namespace) -> int:
    from planning_core.validators.acp.batch import ScoreSettings, check_gold
    from planning_core.validators.acp.dataset import load_questions
    from planning_core.validators.acp.records import TASKS

    questions = load_questions(args.questions)
    settings = ScoreSettings(time_limit=args.time_limit, budget=args.budget,
                             trust_stored_none=args.trust_stored_none)
    with executor_for(args) as executor:
        bar = _progress(len(questions), disabled=args.no_progress, unit="question")
        try:
            results = check_gold(questions, settings, executor,
                                 on_done=bar.update if bar else None)
        finally:
            if bar:
                bar.close()
    counts: dict[str, list[int]] = {}
    failures = []
    for r in results:
        tally = counts.setdefault(r["task"], [0, 0])
        tally[1] += 1
        if r["score"] == 1:
            tally[0] += 1
        else:
            failures.append(r)
    order = [t for t in TASKS if t in counts] + sorted(t for t in counts if t not in TASKS)
    total_ok = sum(c[0] for c in counts.values())
    if args.json:
        print(json.dumps({"questions": len(questions), "gold_right": total_ok,
                          "by_task": {t: {"right": counts[t][0], "questions": counts[t][1]}
                                      for t in order},
                          "failures": failures}, indent=2))
    else:
        for t in order:
            print(f"{t:7s} {counts[t][0]:4d}/{counts[t][1]}")
        print(f"{'all':7s} {total_ok:4d}/{len(questions)}")
        for f in failures:
            print(f"FAIL {f['task']} {f['id']} ({f['domain']}): {f['reason']}")
    return ExitCode.OK if not failures else ExitCode.FAILED
