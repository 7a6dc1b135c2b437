"""``planning-core acp run`` and ``acp lm-eval-tasks`` (registered by ``acp``'s ``register``).

``acp run --model NAME [--base-url URL] --questions Q --out R.jsonl [--report R.md]
[--plot H.png] [--shots N] [--shot-source paper|questions] [--force]`` asks the model every
question of ``Q`` in the paper's setting (by default: the paper's two static examples as
user/assistant turns, then the question; the paper's stop sequences; temperature 0 and
1000 tokens for ordinary chat models), scores each answer as it arrives, appends one row
per question to ``R.jsonl`` (see :mod:`planning_core.validators.acp.run`) and prints the
same table as ``acp score``. Rerunning the same command asks only what is missing or
failed; a rerun with another model, base URL, sampling parameter, shots or prompt is
refused (exit 2) unless ``--force`` starts a new run (the old rows moved to ``R.jsonl.N``).
Every row records the scorer's ``--budget`` (expanded states per search); a rerun with a
larger ``--budget`` scores again, from the stored response, the answers whose verdict
stopped at a smaller one (``--retry-unknown``: at any), and says how many on stderr.
Exit 0 when every question has an answer, 1 when some requests failed (their rows say why;
rerun to fill them in), 2 on bad input or an unusable endpoint (bad key, unknown model,
server down).

``acp lm-eval-tasks`` prints the folder of the lm-evaluation-harness task package, for
``lm_eval --include_path``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from planning_core.cli import ExitCode
from planning_core.cli.args import non_negative_int, positive_int, seconds
from planning_core.cli.executor_args import add_executor_options, executor_for
from planning_core.cli.tables import add_format_option

__all__ = ["add_run_commands"]


def add_run_commands(sub) -> None:
    from planning_core.validators.acp.defaults import DEFAULT_BUDGET
    from planning_core.validators.acp.prompts import PAPER_SHOTS, SENT_STOP, SHOT_SOURCES
    from planning_core.validators.models.options import add_model_arguments

    p = sub.add_parser("run", help="ask a model every question and score its answers",
                       description="Ask a model (OpenAI-compatible endpoint or a command) "
                                   "the ACPBench Hard questions with the paper's prompts, "
                                   "score every answer, write rows, report and heatmap.")
    p.add_argument("--questions", required=True, metavar="FILE",
                   help="questions: JSON list, JSON Lines, parquet, or a folder of them")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results, JSON Lines (appended; questions already answered with the "
                        "same prompt are skipped, failed ones asked again)")
    p.add_argument("--report", metavar="FILE",
                   help="also write a summary (Markdown; CSV or LaTeX with --format)")
    p.add_argument("--plot", metavar="FILE",
                   help="also write a domain x task heatmap (.png, .pdf or .svg)")
    p.add_argument("--shots", type=non_negative_int, default=PAPER_SHOTS, metavar="N",
                   help=f"solved examples in front of each question, as user/assistant "
                        f"turns (default {PAPER_SHOTS}, the paper's setting; 0: zero-shot)")
    p.add_argument("--shot-source", choices=SHOT_SOURCES, default="paper",
                   help="paper: the paper's static examples (grid and logistics, at most "
                        "2; the default); questions: the first N other questions of the "
                        "same task in --questions, with their gold answers")
    p.add_argument("--force", action="store_true",
                   help="when --out holds rows of another setting (model, base URL, "
                        "parameters, shots, prompts): move them aside (OUT.1, ...) and "
                        "start a new run instead of refusing")
    p.add_argument("--tasks", metavar="T,T",
                   help="only these tasks (comma-separated, e.g. app,prog)")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="only the first N questions of each task")
    p.add_argument("--budget", type=positive_int, default=DEFAULT_BUDGET, metavar="N",
                   help="expanded states per scoring search before a verdict is unknown "
                        f"(deterministic; default {DEFAULT_BUDGET:,}); every row records "
                        "it, and a rerun with a larger one scores again the stored answers "
                        "that were unknown at a smaller one (the model is not asked again)")
    p.add_argument("--retry-unknown", action="store_true",
                   help="score again every stored answer of --out whose verdict stopped at "
                        "its budget, whatever the budget (answers unknown at a smaller "
                        "--budget are always scored again)")
    p.add_argument("--time-limit", type=seconds, default=None, metavar="S",
                   help="optional wall-clock safety limit per scoring search (default off; "
                        "verdicts are bounded by deterministic budgets)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_model_arguments(p, max_tokens=1000, temperature=0.0, stop=SENT_STOP)
    add_executor_options(p, unit="question")
    add_format_option(p, "the --report file")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="several results files as one table (the paper's "
                                      "Table 2 layout)",
                       description="One row per model (per results file of acp run or acp "
                                   "score), one column per task, each cell the accuracy "
                                   "(right / answers) with its 95% interval (Wald, as "
                                   "lm-evaluation-harness reports standard errors, or Wilson "
                                   "with --interval wilson); the choice is printed under the "
                                   "table.")
    p.add_argument("results", nargs="+", metavar="RESULTS",
                   help="results files (JSON Lines) of acp run or acp score")
    p.add_argument("--names", metavar="A,B",
                   help="row names, one per file (default: the model and shots the rows "
                        "name, else the file name)")
    p.add_argument("--out", metavar="FILE", help="write the table here too")
    add_format_option(p, "the table (printed and --out)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("lm-eval-tasks",
                       help="print the lm-evaluation-harness task folder (--include_path)")
    p.set_defaults(func=cmd_lm_eval_tasks)


def _select(questions, tasks: str | None, limit: int | None):
    from planning_core.errors import InputError
    from planning_core.validators.acp.records import TASKS

    if tasks:
        wanted = [t.strip() for t in tasks.split(",") if t.strip()]
        unknown = [t for t in wanted if t not in TASKS]
        if unknown:
            raise InputError(f"unknown task(s) {', '.join(unknown)}; known: {', '.join(TASKS)}")
        questions = [q for q in questions if q.task in wanted]
    if limit:
        seen: dict[str, int] = {}
        kept = []
        for q in questions:
            seen[q.task] = seen.get(q.task, 0) + 1
            if seen[q.task] <= limit:
                kept.append(q)
        questions = kept
    return questions


def cmd_run(args: argparse.Namespace) -> int:
    from planning_core.errors import InputError
    from planning_core.validators.acp.dataset import load_questions, read_results
    from planning_core.validators.acp.prompts import PAPER_SHOTS
    from planning_core.validators.acp.report import (
        check_plot_path,
        heatmap,
        markdown_report,
        summarize,
        text_table,
    )
    from planning_core.validators.acp.run import (
        RunSettings,
        latest_rows,
        plan_items,
        rescored,
        row_key,
        run_on_executor,
        run_questions,
    )
    from planning_core.results_file import LimitRetry
    from planning_core.validators.acp.scoring import AnswerScorer
    from planning_core.validators.models.options import model_from_args, model_options
    from planning_core.validators.models.run_loop import run_items, unanswered_note
    from planning_core.validators.models.run_setting import setting_of

    out = Path(args.out)
    if args.plot:
        check_plot_path(args.plot)
    if args.shot_source == "paper" and args.shots > PAPER_SHOTS:
        raise InputError(f"the paper has {PAPER_SHOTS} examples per task; for more, "
                         "--shot-source questions")
    model = model_from_args(args)
    notes: list[str] = []
    pool = load_questions(args.questions, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    questions = _select(pool, args.tasks, args.limit)
    items = plan_items(questions, args.shots, pool, args.shot_source)
    setting = setting_of(model, shots=args.shots,
                         shot_source=args.shot_source if args.shots else None)

    scorer = AnswerScorer(time_limit=args.time_limit, budget=args.budget)

    def produce(todo):
        executor = executor_for(args, len(todo))
        try:
            if executor.name != "serial":
                # each worker asks the model and scores in its own process
                yield from run_on_executor(executor, RunSettings(
                    model_options(args), args.time_limit, args.budget), todo)
            else:
                yield from run_questions(model, todo, scorer=scorer,
                                         concurrency=args.concurrency)
        finally:
            executor.close()

    # an answer whose verdict stopped at a smaller --budget (or at any, --retry-unknown) is
    # scored again from its stored response; its new row supersedes the old one
    retry = LimitRetry(args.budget, lambda row: row["score"] is None
                       and row.get("evidence") == "limit", retry_unknown=args.retry_unknown,
                       field="budget", unit="expanded states")
    tally = run_items(out, items, produce, noun="question", read=read_results,
                      row_key=row_key, check=lambda rows: _check_resume(rows, setting, items,
                                                                          out),
                      verdict=lambda row: None if row["score"] is None else row["score"] == 1,
                      force=args.force, progress=not args.no_progress, retry=retry,
                      rescore=lambda item, row: rescored(item, row, scorer))
    cached = tally.cached
    rows = latest_rows(read_results(out))
    answered = [r for r in rows if "error" not in r]
    errors = [r for r in rows if "error" in r]
    summary = summarize(answered)
    print(text_table(summary, args.interval))
    if errors:
        print(unanswered_note(len(errors), "question", out), file=sys.stderr)
    from planning_core.validators.models.run_setting import cached_samples_note

    reused = cached_samples_note(model, cached)
    if reused:
        print(f"note: {reused}", file=sys.stderr)
    cut = _truncated_note(answered)
    if cut:
        print(f"note: {cut}", file=sys.stderr)
    if args.report:
        from planning_core.validators.models.options import describe

        text = markdown_report(summary, title=f"ACPBench Hard scores: {describe(model)['model']}",
                               fmt=args.format, method=args.interval)
        notes = _setting_note(setting) + _usage_note(answered)
        notes += f"\n{cut}\n" if cut else ""
        if errors:
            notes += f"\n{len(errors)} question(s) failed to get an answer and are not counted.\n"
        text += notes if args.format == "markdown" else _as_comments(notes, args.format)
        try:
            Path(args.report).write_text(text, encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=args.report) from None
    if args.plot:
        heatmap(summary, args.plot)
    return ExitCode.NEGATIVE if errors else ExitCode.OK


def _check_resume(rows: list[dict], setting: dict, items, out: Path) -> None:
    """Refuse (``InputError``) to resume ``out`` when its rows come from another setting,
    or asked one of this run's questions with another prompt."""
    from planning_core.errors import InputError
    from planning_core.validators.models.run_setting import check_resume

    # a row with fewer examples than its run asked for says what was asked
    check_resume([{**row, **row["asked"]} if isinstance(row.get("asked"), dict) else row
                  for row in rows], setting, ("shots", "shot_source"), out)
    wanted = {(i.question.task, i.question.id): i.prompt_hash for i in items}
    for row in rows:
        key = (str(row.get("task")), str(row.get("id")))
        if key in wanted and row.get("prompt_hash") not in (None, wanted[key]):
            raise InputError(f"asked {key[0]} question {key[1]} with another prompt (the "
                             "questions or the prompts changed); resuming would mix them: "
                             "give another --out, or --force to start a new run (the old "
                             "rows are moved beside the file)", file=str(out))


def _setting_note(setting: dict) -> str:
    """The setting the report's rows were produced with (resume is keyed on it)."""
    import json

    shots = setting.get("shots") or 0
    where = setting.get("base_url") or "the OpenAI API"
    params = json.dumps(setting.get("params") or {}, sort_keys=True, ensure_ascii=False)
    sample = f"; sample {setting['sample']}" if setting.get("sample") else ""
    return (f"\nSetting: model {setting['model']} at {where}; "
            f"{shots}-shot" + (f" ({setting.get('shot_source')} examples)" if shots else "")
            + f"; parameters {params}{sample}.\n")


def _truncated_note(rows: list[dict]) -> str:
    """How many answers the token limit cut off (a reasoning model that spent its budget
    reasoning answers nothing) and how many others are empty, or "" when none."""
    cut = empty = 0
    for r in rows:
        if r.get("truncated") or r.get("finish_reason") == "length":
            cut += 1
        elif isinstance(r.get("response"), str) and not r["response"].strip():
            empty += 1
    notes = []
    if cut:
        notes.append(f"{cut} of {len(rows)} answers were cut off by the token limit "
                     "(finish_reason length) and are scored as they stand; a reasoning "
                     "model may need a larger --max-tokens (or --max-completion-tokens)")
    if empty:
        notes.append(f"{empty} of {len(rows)} answers are empty: a stop sequence (the "
                     "paper's blank line) may have ended them before the answer; --stop "
                     "replaces the paper's stop sequences")
    return "; ".join(notes)


def _usage_note(rows: list[dict]) -> str:
    """Requests, cache hits, tokens and latency of the answered rows, for the report."""
    if not rows:
        return ""
    hits = sum(1 for r in rows if r.get("cache_hit"))
    tokens = {k: sum((r.get("usage") or {}).get(k, 0) for r in rows)
              for k in ("prompt_tokens", "completion_tokens")}
    asked = [r.get("latency_s") or 0.0 for r in rows if not r.get("cache_hit")]
    latency = f"{sum(asked) / len(asked):.2f} s" if asked else "-"
    return (f"\n{len(rows)} answers ({hits} from the cache); tokens: "
            f"{tokens['prompt_tokens']} prompt, {tokens['completion_tokens']} completion; "
            f"mean latency of a request: {latency}.\n")


def _run_name(rows: list[dict], path: Path) -> str:
    models = sorted({str(r["model"]) for r in rows if r.get("model")})
    if len(models) != 1:
        return path.stem
    # a row is the user's file: a shots that is not a number names no setting (and a list
    # would not go into the set)
    shots = sorted({r["shots"] for r in rows if type(r.get("shots")) is int})
    return models[0] + (f" ({shots[0]}-shot)" if len(shots) == 1 else "")


def cmd_report(args: argparse.Namespace) -> int:
    from planning_core.errors import InputError
    from planning_core.validators.acp.dataset import current_rows, read_results
    from planning_core.validators.acp.report import models_table, summarize
    from planning_core.validators.acp.run import latest_rows

    names = [n.strip() for n in args.names.split(",")] if args.names else None
    if names is not None and len(names) != len(args.results):
        raise InputError(f"--names gives {len(names)} name(s) for {len(args.results)} file(s)")
    runs = []
    for k, file in enumerate(args.results):
        path = Path(file)
        if not path.is_file():
            raise InputError("no such file", file=file)
        rows = read_results(path)
        rows = latest_rows(rows) if any("prompt_hash" in r for r in rows) else \
            current_rows(rows)
        answered = [r for r in rows if "error" not in r and "score" in r]
        if not answered:
            raise InputError("holds no scored answer", file=file)
        runs.append((names[k] if names else _run_name(answered, path), summarize(answered)))
    from planning_core.cli.tables import interval_note

    note = (f"Accuracy is right / answers. {interval_note(args.interval)} (Nu): N verdicts "
            "unknown (not right).")
    text = models_table(runs, fmt=args.format, method=args.interval)
    text += ("\n\n" + note if args.format == "markdown" else
             "\n" + _as_comments(note, args.format).strip("\n"))
    print(text)
    if args.out:
        try:
            Path(args.out).write_text(text + "\n", encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=args.out) from None
    return ExitCode.OK


def _as_comments(text: str, fmt: str) -> str:
    """Notes under a CSV (``#``) or LaTeX (``%``) table, as comment lines."""
    mark = "#" if fmt == "csv" else "%"
    return "\n" + "".join(f"{mark} {line}\n" for line in text.strip().splitlines() if line.strip())


def cmd_lm_eval_tasks(args: argparse.Namespace) -> int:
    from planning_core.validators.acp.lm_eval_tasks import task_folder

    print(task_folder())
    return ExitCode.OK
