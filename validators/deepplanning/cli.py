"""``planning-core deepplanning ...``: generate tasks, run agents, score, report, queries.

* ``deepplanning generate {travel,shopping} --n N --seed S --out DIR``: tasks with proved
  unique optima in the released layout (shopping: ``--levels 1,2,3``, N per level).
* ``deepplanning run --domain {travel,shopping,both} --tasks DIR --out R.jsonl`` with
  ``--agent oracle`` or a model (``--model NAME [--base-url URL]`` for OpenAI-compatible
  function calling, or ``--command CMD``); ``--queries FILE --database DIR`` for the
  official data; ``--runs K`` repeats (the paper averages four); ``--max-tool-calls``
  (default 400); ``--concurrency N`` tasks at a time.  One JSON line per task and run,
  every turn kept; scored rows already in ``R.jsonl`` are skipped (resume), error rows
  are retried, and so are tasks stopped at a smaller cap than this run's (their row's
  ``cap``; ``--retry-unknown``: at any cap); the new row supersedes the old in reports.
* ``deepplanning score {travel,shopping}``: score answers already written (travel:
  ``--plans DIR`` of ``id_N.json``/``id_N_converted.json``; shopping: each case's
  ``cart.json``).
* ``deepplanning report R.jsonl``: Table 2 per run and averaged, and the error taxonomy.
  ``run``, ``score`` and ``report`` print it with N and a 95% interval per cell
  (``--interval wilson|wald`` for a Case Accuracy), as Markdown, CSV or LaTeX
  (``--format``), and write it to a file (``--report``; ``report``: ``--out``).
* ``deepplanning queries FILE``: queries and constraint kinds of a released query file.

``--scoring paper`` (default) or ``released`` everywhere a score is computed.
Exit codes: 0 done; 1 some task failed (generate: none could be built; run/score: a model
error or an unreadable answer file); 2 bad input (run/score: some task's database could not
be read or its id is not a folder name; that task is a recorded failed case with a
``bad_input`` field, counted in N, and the others are run or scored).  In ``run`` a model
error (no answer: the request failed, an unreadable turn) is an error row with no score,
left out of N, and the next run with the same ``--out`` retries it.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from planning_core.cli import ArgumentParser, ExitCode, error_line
from planning_core.cli.args import positive_int
from planning_core.errors import InputError
from planning_core.validators.models.options import add_model_arguments

#: ``score``: longest itinerary or cart file read (``--max-response-bytes``); a longer one
#: is that task's failed case, unread (the released itineraries are a few KB)
MAX_ANSWER_BYTES = 10_000_000

__all__ = ["register"]


def register(subparsers) -> None:
    top = subparsers.add_parser("deepplanning", help="DeepPlanning travel and shopping tasks",
                                description="DeepPlanning: sandboxes, tools, exact scores, "
                                            "tasks with proved unique optima.")
    sub = top.add_subparsers(dest="deepplanning_command", metavar="DEEPPLANNING_COMMAND",
                             parser_class=ArgumentParser)
    sub.required = True

    p = sub.add_parser("generate", help="generate tasks with proved unique optima")
    p.add_argument("domain", choices=("travel", "shopping"), help="which tasks to generate")
    p.add_argument("--n", type=positive_int, default=120, help="tasks (per level for "
                                                                 "shopping; default 120)")
    p.add_argument("--seed", type=int, default=0,
                   help="random seed; the same seed gives the same tasks (default 0)")
    p.add_argument("--levels", default="1,2,3", help="shopping levels (default 1,2,3)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="folder to write the query files and databases to (the released "
                        "layout)")
    p.add_argument("--json", action="store_true", help="one JSON line per task")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("run", help="run an agent on tasks")
    p.add_argument("--domain", choices=("travel", "shopping", "both"), default="both",
                   help="which tasks to run (default both)")
    p.add_argument("--tasks", metavar="DIR", default=".",
                   help="folder with the query files and databases (default .)")
    p.add_argument("--queries", metavar="FILE",
                   help="a query file (with --domain travel or shopping)")
    p.add_argument("--database", metavar="DIR",
                   help="its database folder (database_en/ or database_levelL/); read in "
                        "the released layout")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="travel query file and database language in --tasks (default en)")
    p.add_argument("--agent", choices=("model", "oracle"), default="model",
                   help="model: the --model/--command model calls the tools; oracle: the "
                        "proved optimum is played through the tools (a check of the "
                        "sandbox; default model)")
    p.add_argument("--runs", type=positive_int, default=1,
                   help="runs per task, averaged by report (the paper runs four; default 1)")
    p.add_argument("--limit", type=positive_int, metavar="N", help="first N tasks per file")
    p.add_argument("--max-tool-calls", type=positive_int, default=None, metavar="N",
                   help="cap: tool calls per task (the paper's, line 176; default 400 unless "
                        "--max-model-calls is given)")
    p.add_argument("--max-model-calls", nargs="?", const="released", default=None,
                   metavar="N", help="cap: model calls per task instead, as the released "
                                     "agents cap them; without N the released defaults "
                                     "(150 travel, 400 shopping)")
    p.add_argument("--retry-unknown", action="store_true",
                   help="run again every task of --out that stopped at its cap, whatever "
                        "the cap (tasks stopped at a smaller cap of the same kind than this "
                        "run's are always run again)")
    p.add_argument("--convert", action="store_true",
                   help="travel: turn the final answer into itinerary JSON with the model "
                        "first (the paper's conversion step; every try kept in the row); "
                        "default: the answer is read as JSON directly")
    p.add_argument("--scoring", choices=("paper", "released"), default="paper",
                   help="paper: the paper's definitions; released: the released evaluation "
                        "code's (docs/deepplanning.md lists the differences; default paper)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results, JSON Lines (rows already there are kept: a rerun resumes)")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar on stderr (it shows on a terminal only; each "
                        "finished task is also a numbered line on stdout)")
    p.add_argument("--report", metavar="FILE",
                   help="also write the report of --out here (Markdown; CSV or LaTeX with "
                        "--format)")
    add_model_arguments(p)
    _add_report_format(p, "the report (printed at the end and --report)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("score", help="score answers already written")
    p.add_argument("domain", choices=("travel", "shopping"), help="which answers to score")
    p.add_argument("--tasks", metavar="DIR", default=".",
                   help="folder with the query files and databases (default .)")
    p.add_argument("--queries", metavar="FILE", help="a query file instead of --tasks")
    p.add_argument("--database", metavar="DIR", help="its database folder")
    p.add_argument("--lang", choices=("en", "zh"), default="en",
                   help="travel query file and database language in --tasks (default en)")
    p.add_argument("--plans", metavar="DIR",
                   help="travel: folder of id_N.json itineraries (must exist); shopping "
                        "scores each case's cart.json")
    p.add_argument("--scoring", choices=("paper", "released"), default="paper",
                   help="paper or released definitions (default paper)")
    p.add_argument("--json", action="store_true", help="one JSON line per task")
    p.add_argument("--max-response-bytes", type=positive_int, default=MAX_ANSWER_BYTES,
                   metavar="N", help="longest itinerary or cart read; a longer one is a "
                                     f"failed case, unread (default {MAX_ANSWER_BYTES})")
    p.add_argument("--report", metavar="FILE",
                   help="also write the report here (Markdown; CSV or LaTeX with --format)")
    _add_report_format(p, "the report (printed after the tasks' lines and --report)")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("report", help="Table 2 from run results")
    p.add_argument("results", help="JSON Lines from deepplanning run")
    p.add_argument("--out", metavar="FILE", help="also write the table here")
    p.add_argument("--json", action="store_true")
    _add_report_format(p, "the table (printed and --out)")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("queries", help="describe a released query file")
    p.add_argument("file")
    p.add_argument("--database", metavar="DIR", help="check constraints against it")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_queries)


def _add_report_format(parser, what: str) -> None:
    """``--format`` and ``--interval`` (Wilson's by default for a Case Accuracy, as these
    reports always gave; the paper gives no intervals)."""
    from planning_core.cli.tables import add_format_option

    add_format_option(parser, what, interval_default="wilson")


def _write_report(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=path) from None


def _exit_code(bad: int, failed: int) -> int:
    """``run``'s and ``score``'s exit: 2 when tasks had bad input (said on stderr), 1 when
    some failed, else 0 (module doc)."""
    if bad:
        print(f"error: {bad} task(s) with bad input, recorded as failed cases",
              file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.FAILED if failed else ExitCode.OK


def _levels(text: str) -> tuple[int, ...]:
    try:
        levels = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        levels = ()
    if not levels or any(l not in (1, 2, 3) for l in levels):
        raise InputError(f"--levels must list levels 1-3, not {text!r}")
    return levels


def cmd_generate(args: argparse.Namespace) -> int:
    def show(row: dict) -> None:
        if args.json:
            print(json.dumps(row))
        else:
            p = row["proof"]
            done[0] += 1
            print(f"[{done[0]}/{total}] {args.domain} {row.get('level', '')} id {row['id']}: "
                  f"{p['status']} "
                  f"({p['solver']}, {p['cpu_seconds']:.3f} s CPU, {p['attempts']} draw(s))")
        sys.stdout.flush()

    levels = _levels(args.levels)
    done = [0]
    total = args.n * (len(levels) if args.domain == "shopping" else 1)
    try:
        if args.domain == "travel":
            from planning_core.validators.deepplanning.travel_gen import generate_many

            generate_many(args.n, args.seed, args.out, on_done=show)
        else:
            from planning_core.validators.deepplanning.shopping_gen import generate_level

            for level in levels:
                generate_level(args.n, args.seed, level, args.out, on_done=show)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror}", file=err.filename or args.out) \
            from None
    return ExitCode.OK


def _tool_model(args: argparse.Namespace):
    from planning_core.validators.deepplanning.chat_tools import (CommandToolModel,
                                                                  OpenAIToolModel)
    from planning_core.validators.models.cache import ResponseCache, default_cache_path
    from planning_core.validators.models.retry import RetryPolicy

    if args.command:
        if args.model or args.base_url:
            raise InputError("give either --command or --model/--base-url, not both")
        return CommandToolModel(args.command, timeout_s=args.timeout)
    if not args.model:
        raise InputError("say which model to run: --model NAME (with --base-url for a local "
                         "server), --command CMD, or --agent oracle")
    cache = None if args.no_cache else ResponseCache(args.cache or default_cache_path())
    return OpenAIToolModel(args.model, base_url=args.base_url, api_key_env=args.api_key_env,
                           temperature=args.temperature, max_tokens=args.max_tokens,
                           seed=args.seed, timeout_s=args.timeout,
                           retry=RetryPolicy(retries=args.retries, base_s=args.backoff),
                           cache=cache, sample=args.sample or 0)


def _tasks(args: argparse.Namespace, domains: tuple[str, ...]):
    from planning_core.validators.deepplanning.tasks import find_tasks

    out = []
    for d in domains:
        if len(domains) > 1 and d == "travel" and \
                not (Path(args.tasks) / f"travelplanning_query_{args.lang}.json").is_file():
            continue    # --domain both on a folder with shopping cases only
        found = list(find_tasks(args.tasks, d, args.database, args.queries, lang=args.lang))
        per_file: dict = {}
        for t in found:
            k = t.meta.get("level")
            if args.__dict__.get("limit") and per_file.get(k, 0) >= args.limit:
                continue
            per_file[k] = per_file.get(k, 0) + 1
            out.append(t)
    if not out:
        raise InputError("no task found (expected travelplanning_query_en.json or "
                         "level_N_query_meta.json)", file=args.tasks)
    return out


def _caps(args: argparse.Namespace, domain: str) -> tuple[int | None, int | None]:
    """(tool-call cap, model-call cap) of a task: the paper's 400 tool calls by default;
    ``--max-model-calls``: model calls (released: 150 travel, 400 shopping), tool calls
    then uncapped unless ``--max-tool-calls`` is also given."""
    from planning_core.validators.deepplanning.agent import (MAX_TOOL_CALLS,
                                                             RELEASED_MODEL_CALLS)
    m = args.max_model_calls
    if m is None:
        return args.max_tool_calls or MAX_TOOL_CALLS, None
    if m == "released":
        n = RELEASED_MODEL_CALLS[domain]
    else:
        try:
            n = int(m)
        except ValueError:
            n = 0
        if n <= 0:
            raise InputError(f"--max-model-calls takes a positive number, not {m!r}")
    return args.max_tool_calls, n


def _stopped_by_cap(args: argparse.Namespace, rows: list[dict]) -> set:
    """``(key, run)`` of the tasks whose latest scored row stopped at its cap (``status``
    incomplete) when that cap was smaller than this run's of the same kind (tool or model
    calls), or at any cap with ``--retry-unknown``: run again, and said so on stderr (the
    shared :class:`~planning_core.results_file.LimitRetry` rule, per domain)."""
    from planning_core.results_file import LimitRetry

    latest: dict = {}
    for r in rows:
        if r.get("score") is not None:
            latest[(r.get("key"), r.get("run"))] = r
    again = set()
    for domain in ("travel", "shopping"):
        tool_cap, model_cap = _caps(args, domain)
        kind, cap = ("model_calls", model_cap) if model_cap else ("tool_calls", tool_cap)
        retry = LimitRetry(cap, lambda r: r.get("status") == "incomplete",
                           retry_unknown=args.retry_unknown, field=kind,
                           unit=kind.replace("_", " "))
        for key, r in latest.items():
            if r.get("domain") != domain:
                continue
            # the row's cap of this run's kind (None: a cap of the other kind, not compared;
            # no field: an older row that records no cap)
            view = {k: v for k, v in r.items() if k != kind}
            if isinstance(r.get("cap"), dict):
                view[kind] = r["cap"].get(kind)
            if retry.takes(view):
                retry.retried += 1
                again.add(key)
        note = retry.note(args.out)
        if note:
            print(f"note: {domain}: {note}", file=sys.stderr)
    return again


class _TaskRun:
    """Run ``run`` of ``task``: an item of the shared run loop, keyed as its rows are."""

    __slots__ = ("run", "task")

    def __init__(self, run: int, task) -> None:
        self.run, self.task = run, task

    @property
    def key(self) -> tuple:
        return (self.task.key, self.run)


def cmd_run(args: argparse.Namespace) -> int:
    from planning_core.validators.deepplanning.agent import (run_episode, score_episode,
                                                             shopping_oracle, travel_oracle)
    from planning_core.validators.deepplanning.chat_tools import ScriptedToolModel
    from planning_core.validators.models.completion import RequestFailed

    if (args.queries or args.database) and args.domain == "both":
        raise InputError("--queries/--database need --domain travel or shopping")
    domains = ("travel", "shopping") if args.domain == "both" else (args.domain,)
    _caps(args, "travel")   # a bad --max-model-calls is refused before any task runs
    tasks = _tasks(args, domains)
    model = None if args.agent == "oracle" else _tool_model(args)
    out = Path(args.out)
    # --sample K of a sampling model: another sample, not mixed into one results file
    # (the report averages a file's rows per run)
    sample = getattr(model, "run_sample", 0) or 0
    again: set = set()

    def check(old: list[dict]) -> None:
        """Refuse a file of another scoring mode or sample; note the tasks a larger cap
        runs again."""
        modes = {r["score"].get("mode", "paper") for r in old if r.get("score")}
        if modes - {args.scoring}:
            raise InputError(f"holds rows scored in {sorted(map(str, modes))} mode; use "
                             f"another --out for --scoring {args.scoring}", file=str(out))
        samples = {r.get("sample") or 0 for r in old}
        if samples - {sample}:
            raise InputError(f"holds rows of sample {sorted(samples)[0]}; use another --out "
                             f"for sample {sample} (--sample)", file=str(out))
        # a task stopped by a smaller cap than this run's (or any, --retry-unknown) is run
        # again
        again.update(_stopped_by_cap(args, old))

    def one(run: int, task) -> dict:
        row = {"key": task.key, "run": run, "domain": task.domain, "task": task.task_id,
               "level": task.meta.get("level"), **({"sample": sample} if sample else {})}
        if task.lang:
            row["lang"] = task.lang
        try:
            # a task that cannot be loaded (its database missing or unreadable, its id
            # refused) is a failed case, counted in N as ``score`` counts it; no agent runs
            if task.domain == "travel":
                task.travel_db()
            else:
                task.shopping_case()
        except InputError as err:
            row.update(status="bad_input", error=error_line(err),
                       score=_bad_input_verdict(task.domain, args.scoring, task, str(err)))
            return row
        try:
            if model is None:
                policy = travel_oracle(task) if task.domain == "travel" else \
                    shopping_oracle(task)
                agent = ScriptedToolModel(policy, "oracle")
            else:   # run r of --runs: its own cache entries when the model samples
                agent = model.for_run(run) if hasattr(model, "for_run") else model
            tool_cap, model_cap = _caps(args, task.domain)
            ep = run_episode(agent, task, tool_cap, model_cap)
            ep["cap"] = ({"model_calls": model_cap} if model_cap else
                         {"tool_calls": tool_cap})
            if args.convert and task.domain == "travel" and ep["status"] == "answered" \
                    and model is not None:
                from planning_core.validators.deepplanning.agent import convert_answer
                ep["converted"], ep["conversions"] = convert_answer(agent, ep["final"] or "")
            row.update(model=agent.name, **{k: v for k, v in ep.items()
                                            if k not in ("task", "domain", "level")})
            row["score"] = score_episode(task, ep, args.scoring)
        except (RequestFailed, ValueError, InputError) as err:
            row.update(status="error", error=str(err), score=None)
        return row

    from concurrent.futures import ThreadPoolExecutor, as_completed

    from planning_core.validators.deepplanning.report import load_rows
    from planning_core.validators.models.run_loop import run_items

    items = [_TaskRun(run, task) for run in range(args.runs) for task in tasks]
    counts = {"failed": 0, "bad": 0, "finished": 0, "todo": 0}

    def produce(todo):
        # tasks run --concurrency at a time (each is one long conversation); rows are
        # written by the loop's thread only, as each task finishes
        counts["todo"] = len(todo)
        with ThreadPoolExecutor(max_workers=args.concurrency) as pool:
            futures = [pool.submit(one, item.run, item.task) for item in todo]
            for fut in as_completed(futures):
                yield fut.result()

    def finish(row: dict) -> None:
        counts["failed"] += row.get("status") == "error"
        if row.get("status") == "bad_input":
            counts["bad"] += 1
            print(f"{row['error']} (task {row['task'][:80]!r})", file=sys.stderr)

    def written(row: dict) -> None:
        counts["finished"] += 1
        s = row.get("score") or {}
        print(f"[{counts['finished']}/{counts['todo']}] run {row['run']} {row['key']}: "
              f"{row.get('status')} tool_calls={row.get('tool_calls', 0)} "
              f"case_acc={s.get('case_acc')}"
              + (f" error={row['error']}" if row.get("error") else ""))
        sys.stdout.flush()

    # the results file is locked against a second run on it, its torn tail (a write cut
    # off by a kill) cut off; rows are ASCII JSON, so a lone surrogate in a model's text
    # ("\\ud800") is written as the escape it is inside a JSON string. A row with a score
    # is done (an error row -- a model error: no answer, no score -- is retried), unless a
    # larger cap runs its task again.
    run_items(out, items, produce, noun="task", read=lambda path: load_rows(
                  path, torn_tail=True),
              row_key=lambda r: (r.get("key"), r.get("run")), check=check,
              verdict=lambda row: None, label=None, progress=not args.no_progress,
              finish=finish, written=written,
              done=lambda r: r.get("score") is not None
              and (r.get("key"), r.get("run")) not in again)
    failed, bad = counts["failed"], counts["bad"]
    from planning_core.validators.deepplanning.report import render, table

    # the report of the whole file (this run's rows and the ones it resumed from)
    text = render(table(load_rows(out), args.interval), args.format)
    print(text, end="")
    if args.report:
        _write_report(args.report, text)
    return _exit_code(bad, failed)


def _answer(path: Path, max_bytes: int) -> tuple[str | None, str | None]:
    """``(text, None)`` of an answer file (a bad UTF-8 byte replaced, as the released
    scorer reads it), or ``(None, why)`` when it is longer than ``max_bytes``: read by the
    shared bounded reader (a FIFO or device is an ``InputError``, that task's bad input),
    never more than ``max_bytes`` (a 1 GB itinerary took 48 s and 2.1 GB, and one over the
    machine's memory ended the whole run)."""
    from planning_core.pddl.files import FileTooLarge, read_bytes

    try:
        data = read_bytes(path, max_bytes=max_bytes)
    except FileTooLarge:
        return None, (f"answer file longer than {max_bytes} bytes (--max-response-bytes); "
                      "not read")
    return data.decode("utf-8", errors="replace"), None


def _score_one(args: argparse.Namespace, task) -> tuple[dict, bool]:
    """The verdict of one task's written answer, and whether it failed without being read
    (its answer file missing, or over ``--max-response-bytes``)."""
    from planning_core.validators.deepplanning.shopping_score import score_cart
    from planning_core.validators.deepplanning.travel_score import score_travel

    limit = getattr(args, "max_response_bytes", MAX_ANSWER_BYTES)
    if args.domain == "travel":
        plans = Path(args.plans)
        db = task.travel_db()      # InputError (no folder, bad id) before any plan is read
        path = next((p for p in (plans / f"id_{task.task_id}.json",
                                 plans / f"id_{task.task_id}_converted.json")
                     if p.exists()), None)
        text, why = _answer(path, limit) if path else ("", "no plan file")
        v = score_travel(text or "", task.meta, db, task_id=task.task_id,
                         mode=args.scoring).to_json()
        if why is not None:
            v["parse_error"] = why
        return v, why is not None
    case = task.shopping_case()
    cart_path = task.folder / "cart.json"
    cart, why = _answer(cart_path, limit) if cart_path.exists() else ("{}", None)
    stock = {i: p.get("stock_quantity") for i, p in case.by_id.items()}
    v = dict(score_cart(cart or "{}", case.truth, set(case.by_id), task_id=task.task_id,
                        mode=args.scoring, stock=stock, case=case).to_json(),
             level=task.meta.get("level"))
    if why is not None:
        v["parse_error"] = why
    return v, why is not None


def _bad_input_verdict(domain: str, mode: str, task, reason: str) -> dict:
    """A task whose database cannot be read: a failed case (the paper counts every case),
    every checkpoint failed, marked ``bad_input`` with the reason."""
    if domain == "travel":
        from planning_core.validators.deepplanning.travel_db import TravelDB
        from planning_core.validators.deepplanning.travel_score import score_travel

        v = score_travel("", task.meta, TravelDB(), task_id=task.task_id,
                         mode=mode).to_json()
        v["parse_error"] = f"bad input: {reason}"
    else:
        v = {"task": task.task_id, "domain": "shopping", "mode": mode,
             "parse_error": f"bad input: {reason}", "match": 0.0, "matched": 0,
             "expected": 0, "case_acc": 0, "completed": False, "cart_products": [],
             "truth_products": [], "unknown_products": [], "bad_quantities": [],
             "failed": ["bad_input"], "level": task.meta.get("level")}
    v["bad_input"] = reason
    return v


def cmd_score(args: argparse.Namespace) -> int:
    if args.domain == "travel" and not args.plans:
        raise InputError("score travel needs --plans DIR")
    if args.plans and not Path(args.plans).is_dir():
        # a mistyped folder would score every task 0 with no plan file: an error instead
        raise InputError("no such folder (--plans DIR: the folder of id_N.json itineraries)",
                         file=str(args.plans))
    failed = bad = 0
    rows = []
    for task in _tasks(args, (args.domain,)):
        # one task's missing or unreadable database, or an id that is not a folder name,
        # is recorded as that task's failed case and the others are scored (exit 2 at end)
        try:
            v, missing = _score_one(args, task)
            failed += missing
        except InputError as err:
            bad += 1
            v = _bad_input_verdict(args.domain, args.scoring, task, str(err))
            print(f"{error_line(err)} (task {task.task_id[:80]!r})", file=sys.stderr)
        rows.append({"domain": args.domain, "task": task.task_id, "score": v, "run": 0})
        if args.json:
            print(json.dumps(v, ensure_ascii=False))
        else:
            extra = f"CS={v['commonsense']:.3f} PS={v['personalized']}" \
                if args.domain == "travel" else f"match={v['match']:.3f}"
            print(f"{args.domain} {task.meta.get('level') or ''} id {task.task_id}: {extra} "
                  f"case_acc={v['case_acc']}"
                  + (f" bad_input={v['bad_input']}" if v.get("bad_input") else "")
                  + (f" failed={v['failed']}" if v.get("failed") and not v.get("bad_input")
                     else ""))
    from planning_core.validators.deepplanning.report import render, table

    text = render(table(rows, args.interval), args.format)
    if not args.json:
        print(text)
    if args.report:
        _write_report(args.report, text)
    return _exit_code(bad, failed)


def cmd_report(args: argparse.Namespace) -> int:
    from planning_core.validators.deepplanning.report import load_rows, render, table

    t = table(load_rows(args.results), args.interval)
    text = render(t, args.format)
    if args.json:
        print(json.dumps(t, indent=2))
    else:
        print(text, end="")
    if args.out:
        _write_report(args.out, text)
    return ExitCode.OK


def cmd_queries(args: argparse.Namespace) -> int:
    from planning_core.validators.deepplanning.queries import describe_queries

    r = describe_queries(args.file, args.database)
    verdict = ExitCode.FAILED if r["flagged"] else ExitCode.OK
    if args.json:
        print(json.dumps(r, indent=2, ensure_ascii=False))
        return verdict
    print(f"{r['file']}: {r['queries']} {r['domain']} queries")
    for k, n in r["kinds"].items():
        print(f"  {k}: {n}")
    for k, why in r["cannot_check"].items():
        print(f"  cannot check {k}: {why}")
    if r.get("note"):
        print(f"  {r['note']}")
    for u in r.get("ungrounded", []):
        print(f"  id {u['id']} {u['kind']}: {u['reason']}")
    if r["flagged"]:
        print("flagged: kinds we cannot check or not in the released table, or "
              "constraints the database cannot answer (above)", file=sys.stderr)
    return verdict
