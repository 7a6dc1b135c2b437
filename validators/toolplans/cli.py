"""``planning-core toolplans ...``: compile tool-use tasks to PDDL, check chains, solve.

* ``compile TASK [--tools T] [--mode pddl3|folded] [--out-dir D]``: the PDDL domain and
  problem (printed, or written to ``D/domain.pddl`` and ``D/problem.pddl``).
* ``check TASK OUTPUT``: the verdict on a model output (a file, or ``-`` for stdin).
* ``solve TASK``: solvable or not (with the kind of infeasibility), the optimal chain.
* ``next TASK --prefix P --call C``: the step-wise judgement of one proposed call.
* ``predict TASK --prefix P --output O [--k K] [--replacement T]``: APB's step-wise setting.
* ``generate --out C.jsonl [--seed S] [--scale X]``: APB-sized cases of the five settings.
* ``report RESULTS.jsonl``: Table 1 of APB (CR, Plan Grade, E1-E6 incidence per setting,
  tool-broken behaviour shares, unsolvable refusal rates per kind).
* ``batch --rows R.jsonl --out O.jsonl``: check every row, append results, resume.
* ``run --cases C.jsonl --out R.jsonl (--model NAME [--base-url URL] | --command CMD)``:
  ask a model every case with the paper's prompts, score each answer, resume, report
  (Tables 1, 2 and 4 and the per-horizon step-wise results).

Exit codes: 0 correct / solvable / optimal / done; 1 incorrect / unsolvable / not optimal;
2 bad input; 3 unknown (a solver limit was hit).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from planning_core.cli import ArgumentParser, ExitCode
from planning_core.cli.args import add_retry_option, seconds
from planning_core.cli.executor_args import add_executor_options, executor_for
from planning_core.errors import InputError

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``toolplans`` command group to ``planning-core``'s subcommands."""
    from planning_core.cli.tables import add_format_only

    group = subparsers.add_parser(
        "toolplans", help="tool-use plans as planning tasks (compile, check, solve)",
        description="Agent tool chains judged exactly: tools in OpenAI/MCP JSON-schema "
                    "format compiled to PDDL, chains checked by the core validator.")
    sub = group.add_subparsers(dest="toolplans_command", metavar="TOOLPLANS_COMMAND",
                               parser_class=ArgumentParser)
    sub.required = True

    def task_args(p):
        p.add_argument("task", help="task JSON (items, goal, broken, forbidden, constraints"
                                    "[, tools]), or DATASET.json#ID")
        p.add_argument("--tools", metavar="FILE", help="tool set JSON (else the task's 'tools')")

    def solver_args(p):
        p.add_argument("--engine", choices=("auto", "internal", "fd"), default="auto",
                       help="solver for optimal costs and solvability (default auto)")
        p.add_argument("--time-limit", type=seconds, default=60.0, metavar="S",
                       help="CPU seconds before an answer is unknown: reading and grounding "
                            "the task and the search share them (default 60)")

    p = sub.add_parser("compile", help="write the task as a PDDL domain and problem")
    task_args(p)
    p.add_argument("--mode", choices=("pddl3", "folded"), default="pddl3",
                   help="constraints as PDDL3 (default) or folded into the domain (for "
                        "planners without PDDL3, such as Fast Downward)")
    p.add_argument("--out-dir", metavar="DIR", help="write domain.pddl and problem.pddl here")
    p.add_argument("--json", action="store_true", help="print {domain, problem} as JSON")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("check", help="check a model's tool chain or refusal")
    task_args(p)
    p.add_argument("output", help="model output file (JSON calls, tool_calls, or one call "
                                  "per line), or - for stdin")
    p.add_argument("--no-grade", action="store_true",
                   help="skip the solver: no optimal cost, no unsolvability check of chains")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    solver_args(p)
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("solve", help="solvability, infeasibility kind and optimal chain")
    task_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    solver_args(p)
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("next", help="judge a proposed next call after a prefix (step-wise)")
    task_args(p)
    p.add_argument("--prefix", default="[]", metavar="FILE_OR_TEXT",
                   help="the calls so far (a file, or the text itself; default none)")
    p.add_argument("--call", required=True, metavar="FILE_OR_TEXT", help="the proposed call")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="CPU seconds before the judgement is unknown: reading and grounding "
                        "the task and every h* computation share them (default 30)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_next)

    p = sub.add_parser("predict", help="judge a prediction of the next k actions (APB step-wise)")
    task_args(p)
    p.add_argument("--prefix", default="[]", metavar="FILE_OR_TEXT",
                   help="the calls so far (a file, or the text itself; default none); a last "
                        "call of a broken tool is the one that returned an error")
    p.add_argument("--output", required=True, metavar="FILE_OR_TEXT",
                   help="the prediction: APB's {role, thought, tool_calls} (an array of k for "
                        "k > 1), our calls, or {\"status\": \"REJECT\"}")
    p.add_argument("--k", type=int, choices=(1, 2, 3), default=None,
                   help="the number of actions asked for (a different number is E3)")
    p.add_argument("--replacement", metavar="TOOL",
                   help="tool-broken setting: the replacement tool offered (classifies the "
                        "next action as replace/alter/retry/refusal/other)")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="CPU seconds before the judgement is unknown: reading and grounding "
                        "the task and every h* computation share them (default 30)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_predict)

    p = sub.add_parser("generate", help="write APB-sized cases of the five settings (JSON Lines)")
    p.add_argument("--root", default=None, metavar="DIR",
                   help="folder with tools/*.json (or *.json), one tool domain per file "
                        "(default: the eleven tool domains installed with planning-core)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="fraction of the paper's counts 1109/900/1500/300/400 (default 1)")
    p.add_argument("--out", required=True, metavar="FILE", help="cases, JSON Lines")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("report", help="Table 1 of APB from batch results (JSON Lines)")
    p.add_argument("results", help="results of toolplans batch on generated cases")
    p.add_argument("--name", default="agent", help="the row label (default agent)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_format_only(p, "the tables")
    p.set_defaults(func=cmd_report)

    add_run_command(sub)

    p = sub.add_parser("batch", help="check a JSON Lines file of (tools, task, output) rows")
    p.add_argument("--rows", required=True, metavar="FILE",
                   help='JSON Lines: {"id", "task", ["tools"], "output"} or '
                        '{"id", "task", "prefix", "next"}')
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results, JSON Lines (appended; ids already there are skipped)")
    p.add_argument("--report", metavar="FILE",
                   help="also write a summary (Markdown; CSV or LaTeX with --format)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_format_only(p, "the --report file")
    solver_args(p)
    add_retry_option(p)
    add_executor_options(p, unit="task's rows")
    p.set_defaults(func=cmd_batch)


def _context(args):
    """The task of ``args.task``: a task file, or ``DATASET.json#ID`` for one task of a
    dataset file (``domains/toolplans/travel.json#travel-02``)."""
    from planning_core.validators.toolplans.context import TaskContext
    from planning_core.validators.toolplans.dataset import read_task
    from planning_core.validators.toolplans.spec import read_tools

    path, _, task_id = args.task.rpartition("#")
    dataset_task = bool(path and task_id) and not Path(args.task).is_file()
    tools = read_tools(args.tools) if args.tools and not dataset_task else None
    return TaskContext(read_task(args.task, tools))


def _text(value: str, *, file_only: bool = False, lenient: bool = False) -> str:
    """A file's text (``-``: stdin), or ``value`` itself when it names no file. ``lenient``
    reads bytes that are not UTF-8 as replacement characters: a model's output that is not
    text gets a verdict (malformed output), not a refusal to read it."""
    if value == "-":
        return sys.stdin.read()
    p = Path(value)
    try:
        is_file = p.is_file()
    except (OSError, ValueError):   # a long JSON text is no file name (ENAMETOOLONG, NUL)
        is_file = False
    if file_only or is_file:
        from planning_core.pddl.files import read_bytes

        try:   # the shared bounded reader: a regular file only (a FIFO is refused)
            data = read_bytes(p)
            return data.decode("utf-8", errors="replace" if lenient else "strict")
        except InputError as err:
            raise InputError(f"cannot read: {err.message}", file=value) from None
        except UnicodeDecodeError as err:
            raise InputError(f"cannot read: {err}", file=value) from None
    return value


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None


def _within_limit(args: argparse.Namespace, run) -> int:
    """``run(args)`` under the command's budget (``--time-limit`` CPU seconds, the default
    memory limit), made active (:func:`planning_core.limits.metering`) for everything it
    does: reading the task, grounding it (2,000 copies of one tool grounded for 16 CPU-s at
    ``--time-limit 1``), the search and every h* call (given what is left). A limit is an
    ``unknown`` answer naming it, exit 3, as a ``toolplans batch`` row is."""
    from planning_core.limits import LimitReached, Limits, metering

    budget = Limits(time_s=args.time_limit).budget()
    try:
        with metering(budget):
            return run(args)
    except LimitReached as stop:
        message = f"stopped at the {stop.limit} ({stop.detail}); no verdict"
        if args.json:
            print(json.dumps({"verdict": "unknown", "limit": stop.limit, "error": message,
                              "cpu_s": round(budget.cpu_s(), 6)}))
        else:
            print(f"unknown: {message}")
        return ExitCode.UNKNOWN


def cmd_compile(args: argparse.Namespace) -> int:
    from planning_core.validators.toolplans.compile import compile_task

    ctx = _context(args)
    domain, problem = compile_task(ctx.task, args.mode).texts()
    if args.out_dir:
        out = Path(args.out_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot make the folder: {err.strerror or err}", file=str(out)) from None
        _write(out / "domain.pddl", domain)
        _write(out / "problem.pddl", problem)
        print(f"wrote {out / 'domain.pddl'} and {out / 'problem.pddl'}")
    elif args.json:
        print(json.dumps({"domain": domain, "problem": problem}))
    else:
        print(domain)
        print(problem, end="")
    return ExitCode.OK


def cmd_check(args: argparse.Namespace) -> int:
    return _within_limit(args, _check)


def _check(args: argparse.Namespace) -> int:
    from planning_core.validators.toolplans.check import check_output

    ctx = _context(args)
    output = _text(args.output, file_only=True, lenient=True)
    rep = check_output(ctx, output, grade=not args.no_grade, engine=args.engine,
                       time_limit=args.time_limit)
    if args.json:
        print(json.dumps(rep.to_dict()))
    else:
        print(f"{rep.verdict}: {rep.calls} call(s)")
        for f in rep.faults:
            where = f"call {f.step}" if f.step else "chain"
            print(f"  {f.code or '--'} {f.kind} ({where}): {f.message}")
        if rep.extraneous:
            print(f"  extraneous calls: {', '.join(map(str, rep.extraneous))}")
        if rep.correct and rep.optimal_cost is not None:
            print(f"  cost {rep.cost:g}, optimal {rep.optimal_cost:g}, excess {rep.excess_cost:g}")
        elif not rep.refused and rep.correct is False:
            print(f"  valid prefix {rep.valid_prefix} call(s), required outputs produced "
                  f"{rep.outputs_produced:.0%}")
        if rep.refused and rep.feasibility is not None and rep.feasibility.kind:
            print(f"  unsolvable ({rep.feasibility.kind}): {rep.feasibility.detail}")
        if rep.grade is not None:
            classes = ", ".join(f"{c} ({', '.join('chain' if k is None else f'call {k}' for k in ks)})"
                                for c, ks in rep.classes.items()) or "none"
            print(f"  plan grade {rep.grade}; classes: {classes}; E1: "
                  f"{'undecided' if rep.e1 is None else rep.e1}")
        if rep.undecided:
            print("  read by type only (prose): " + ", ".join(f"call {k} {p}" for k, p in rep.undecided))
    return {True: ExitCode.OK, False: ExitCode.NEGATIVE, None: ExitCode.UNKNOWN}[rep.correct]


def cmd_solve(args: argparse.Namespace) -> int:
    return _within_limit(args, _solve)


def _solve(args: argparse.Namespace) -> int:
    from planning_core.validators.toolplans.feasibility import plan_calls

    ctx = _context(args)
    feas = ctx.feasibility(engine=args.engine, time_limit=args.time_limit)
    calls = plan_calls(ctx, feas.plan) if feas.plan is not None else None
    if args.json:
        print(json.dumps({**feas.to_dict(), "optimal_calls": calls}))
    elif feas.solvable:
        print(f"solvable: {len(calls)} call(s), optimal cost {feas.cost:g}")
        for k, c in enumerate(calls, start=1):
            args_text = ", ".join(f"{a}={json.dumps(v)}" for a, v in c["arguments"].items())
            print(f"  {k}. {c['name']}({args_text})")
    elif feas.solvable is False:
        print(f"unsolvable ({feas.kind}): {feas.detail}")
    else:
        print(f"unknown: {feas.reason}")
    return {True: ExitCode.OK, False: ExitCode.NEGATIVE, None: ExitCode.UNKNOWN}[feas.solvable]


def cmd_next(args: argparse.Namespace) -> int:
    return _within_limit(args, _next)


def _next(args: argparse.Namespace) -> int:
    from planning_core.validators.toolplans.stepwise import judge_next

    ctx = _context(args)
    rep = judge_next(ctx, _text(args.prefix), _text(args.call), time_limit=args.time_limit)
    if args.json:
        print(json.dumps(rep.to_dict()))
    else:
        state = ("bad prefix" if rep.applicable is None else "not applicable"
                 if not rep.applicable else {True: "optimal", False: "not optimal",
                                             None: "unknown"}[rep.optimal])
        print(f"{state}: {rep.message}")
    if rep.applicable is None:
        return ExitCode.BAD_INPUT
    return {True: ExitCode.OK, False: ExitCode.NEGATIVE, None: ExitCode.UNKNOWN}[rep.optimal if rep.applicable else False]


def cmd_predict(args: argparse.Namespace) -> int:
    return _within_limit(args, _predict)


def _predict(args: argparse.Namespace) -> int:
    from planning_core.validators.toolplans.stepwise import judge_prediction

    ctx = _context(args)
    if args.replacement and ctx.task.tool(args.replacement.lower()) is None:
        # a typo would silently class every answer Alter or Other
        raise InputError(f"--replacement {args.replacement!r} is not a tool of the task")
    rep = judge_prediction(ctx, _text(args.prefix), _text(args.output, lenient=True), args.k,
                           replacement=args.replacement.lower() if args.replacement else None,
                           time_limit=args.time_limit)
    if args.json:
        print(json.dumps(rep.to_dict()))
    else:
        state = {True: "correct", False: "incorrect", None: "unknown"}[rep.correct]
        print(f"{state}: grade {rep.grade}, {rep.steps} step(s)"
              + (f", behaviour {rep.behaviour}" if rep.behaviour else "")
              + ("" if rep.optimal is None else f", optimal {'yes' if rep.optimal else 'no'}"))
        for f in rep.faults:
            where = f"call {f.step}" if f.step else "prediction"
            print(f"  {f.code or '--'} {f.kind} ({where}): {f.message}")
        print(f"  E1: {'undecided' if rep.e1 is None else rep.e1}")
    return {True: ExitCode.OK, False: ExitCode.NEGATIVE, None: ExitCode.UNKNOWN}[rep.correct]


def cmd_generate(args: argparse.Namespace) -> int:
    from collections import Counter

    from planning_core.validators.toolplans.apb import build_sets, load_domains

    if not 0 < args.scale <= 10:   # also NaN
        raise InputError(f"--scale must be in (0, 10], not {args.scale:g}")
    domains = load_domains(args.root)
    if not domains:
        raise InputError("no tool domains (tools/*.json or *.json) in this folder",
                         file=args.root or "the installed tool domains")
    cases = build_sets(domains, seed=args.seed, scale=args.scale)
    _write(Path(args.out), "".join(json.dumps(c) + "\n" for c in cases))
    counts = Counter(c["setting"] for c in cases)
    print(f"wrote {len(cases)} case(s) over {len(domains)} tool domain(s) to {args.out}: "
          + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return ExitCode.OK


def cmd_report(args: argparse.Namespace) -> int:
    from planning_core.cli.tables import markdown_as
    from planning_core.validators.acp.dataset import read_results
    from planning_core.validators.toolplans.apb_report import format_table1, row_fault, table1

    path = Path(args.results)
    if not path.is_file():
        raise InputError("no such results file", file=args.results)
    rows = [r for r in read_results(path) if isinstance(r, dict)]
    for k, r in enumerate(rows, start=1):
        fault = row_fault(r)
        if fault:
            raise InputError(f"result row {k} (id {r.get('id')!r}): {fault}", file=args.results)
    t = table1(rows)
    if not t:
        raise InputError("no APB rows (rows with a 'setting') in the results", file=args.results)
    if args.json:
        from planning_core.validators.toolplans.apb_report import horizons, table2
        print(json.dumps({**t, "table2": table2(rows),
                          "horizons": {str(k): v for k, v in horizons(rows).items()}}))
        return ExitCode.OK
    from planning_core.validators.toolplans.apb_report import (format_horizons, format_table2,
                                                               horizons, table2)
    text = format_table1(t, args.name)
    t2 = table2(rows)
    if t2:
        text += "\nTable 2 (extraneous tools):\n\n" + format_table2(t2, args.name)
    h = horizons(rows)
    if h:
        text += "\nStep-wise by prediction horizon:\n\n" + format_horizons(h, args.name)
    print(markdown_as(text, args.format), end="")
    return ExitCode.OK


def cmd_batch(args: argparse.Namespace) -> int:
    from planning_core.cli.tables import markdown_as
    from planning_core.validators.acp.cli import _progress
    from planning_core.validators.acp.dataset import read_results
    from planning_core.results_file import LimitRetry, ResultsWriter
    from planning_core.validators.toolplans.batch import CheckSettings, check_arrivals, \
        markdown_report, read_rows, summarize, text_table

    rows = read_rows(_text(args.rows, file_only=True), args.rows)
    out = Path(args.out)
    # locked until the end, a torn last line cut off, a killed run's journal taken
    # a journalled row marked retry must not stand in for the retry; rows that stopped at a
    # smaller --time-limit (or any, --retry-unknown) are checked again
    retry = LimitRetry(args.time_limit, lambda row: row["verdict"] == "unknown"
                       and "limit" in row, retry_unknown=args.retry_unknown)
    with ResultsWriter(out, key=lambda row: None if row.get("retry")
                       else str(row.get("id")), retry=retry) as writer:
        # a row marked retry (its worker died) is not done: checked again
        done = {str(r.get("id")) for r in read_results(out) if not r.get("retry")}
        todo = [r for r in rows if r.id not in done]
        if len(rows) - len(todo):
            print(f"{len(rows) - len(todo)} row(s) already in {out}: skipped", file=sys.stderr)
        if writer.note():
            print(writer.note(), file=sys.stderr)
        again = {r.id for r in todo}   # a retried row replaces its old one: one row per id
        writer.drop(lambda row: bool(row.get("retry")) and str(row.get("id")) in again)
        fresh = writer.resume([r.id for r in todo])
        work = [todo[k] for k in fresh]
        with executor_for(args) as executor:
            bar = _progress(len(work), disabled=args.no_progress)
            try:
                for _ in writer.in_order(check_arrivals(
                        work, CheckSettings(args.engine, args.time_limit), executor,
                        on_done=bar.update if bar else None)):
                    pass
            finally:
                if bar:
                    bar.close()
    latest = {str(r.get("id")): r for r in read_results(out)}   # a retried row supersedes
    summary = summarize(list(latest.values()))
    print(text_table(summary))
    if args.report:
        _write(Path(args.report), markdown_as(markdown_report(summary), args.format))
    return ExitCode.OK


# ------------------------------------------------------------------ toolplans run

def add_run_command(sub) -> None:
    from planning_core.cli.args import positive_int
    from planning_core.cli.tables import add_format_only
    from planning_core.validators.models.options import add_model_arguments
    from planning_core.validators.toolplans.settings import REFINE_MODES, SETTINGS

    p = sub.add_parser("run", help="ask a model the APB cases with the paper's prompts and "
                                   "score every answer",
                       description="Ask a model (OpenAI-compatible endpoint or a command) "
                                   "every case of toolplans generate in its setting, with the "
                                   "APB paper's prompts; score each answer with the checker; "
                                   "write rows (resumable) and Tables 1, 2 and 4.")
    p.add_argument("--cases", required=True, metavar="FILE",
                   help="cases of toolplans generate (JSON Lines)")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results, JSON Lines (appended; cases already answered with the same "
                        "prompt are skipped, failed ones asked again)")
    p.add_argument("--report", metavar="FILE",
                   help="also write the report (Markdown; CSV or LaTeX with --format)")
    add_format_only(p, "the --report file")
    p.add_argument("--settings", metavar="S,S",
                   help="only these settings (comma-separated: " + ", ".join(SETTINGS) + ")")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="only the first N cases of each setting")
    p.add_argument("--refine", choices=REFINE_MODES,
                   help="inference-time refinement (paper C.7): self or critic, with (+) or "
                        "without (-) the error taxonomy; applies to the holistic and "
                        "step-wise settings")
    p.add_argument("--critic-model", metavar="NAME", help="the critic of --refine critic+/-")
    p.add_argument("--critic-base-url", metavar="URL", help="the critic's base URL")
    p.add_argument("--critic-api-key-env", metavar="VAR", help="the critic's API key variable")
    p.add_argument("--critic-command", metavar="CMD", help="the critic as a command")
    p.add_argument("--force", action="store_true",
                   help="when --out holds rows of another setting: move them aside (OUT.1, "
                        "...) and start a new run instead of refusing")
    p.add_argument("--name", help="the report's row label (default: the model's name)")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="seconds per h* computation when scoring (default 30); every row "
                        "records it, and a rerun with a larger one checks again the stored "
                        "answers that were unknown at a smaller one (the model is not asked "
                        "again)")
    p.add_argument("--retry-unknown", action="store_true",
                   help="check again every stored answer of --out whose verdict is unknown, "
                        "whatever its limit (answers unknown at a smaller --time-limit are "
                        "always checked again)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_model_arguments(p, temperature=0.0)
    p.set_defaults(func=cmd_run)


def _read_cases(path: str) -> list[dict]:
    from planning_core.validators.toolplans.apb import SETTINGS
    from planning_core.validators.toolplans.batch import read_rows

    rows = read_rows(_text(path, file_only=True), path)
    cases = []
    for r in rows:
        if r.error:
            raise InputError(r.error)
        if r.data.get("setting") not in SETTINGS or not isinstance(r.data.get("task"), dict):
            raise InputError(f"line {r.line}: not an APB case (a 'setting' of "
                             f"{', '.join(SETTINGS)} and a 'task' object)", file=path)
        cases.append(r.data)
    return cases


def _select_cases(cases: list[dict], settings: str | None, limit: int | None) -> list[dict]:
    from planning_core.validators.toolplans.apb import SETTINGS, extraneous_bases

    if settings:
        wanted = [s.strip() for s in settings.split(",") if s.strip()]
        unknown = [s for s in wanted if s not in SETTINGS]
        if unknown:
            raise InputError(f"unknown setting(s) {', '.join(unknown)}; known: "
                             f"{', '.join(SETTINGS)}")
        cases = [c for c in cases if c["setting"] in wanted]
    if limit:
        seen: dict[str, int] = {}
        kept = []
        for c in cases:
            seen[c["setting"]] = seen.get(c["setting"], 0) + 1
            if seen[c["setting"]] <= limit:
                kept.append(c)
        cases = kept
    # each extraneous base is asked without its distractors too (Table 2's CR_B)
    return cases + extraneous_bases(cases)


def _critic(args):
    from planning_core.validators.models.options import model_from_args

    if not (args.refine or "").startswith("critic"):
        if args.critic_model or args.critic_command:
            raise InputError("--critic-model/--critic-command need --refine critic+ or critic-")
        return None
    if not (args.critic_model or args.critic_command):
        raise InputError(f"--refine {args.refine} needs a critic: --critic-model NAME (with "
                         "--critic-base-url) or --critic-command CMD")
    ns = argparse.Namespace(**{**vars(args), "model": args.critic_model,
                               "base_url": args.critic_base_url,
                               "api_key_env": args.critic_api_key_env,
                               "command": args.critic_command, "sample": None})
    return model_from_args(ns)


def cmd_run(args: argparse.Namespace) -> int:
    from planning_core.cli.tables import markdown_as
    from planning_core.validators.acp.dataset import read_results
    from planning_core.validators.models.options import model_from_args
    from planning_core.validators.models.run_loop import run_items, unanswered_note
    from planning_core.validators.models.run_setting import (cached_samples_note, check_resume,
                                                               setting_of)
    from planning_core.results_file import LimitRetry
    from planning_core.validators.toolplans.run import (Scorer, latest_rows, plan_items,
                                                        rescored, row_key, run_cases)

    cases = _select_cases(_read_cases(args.cases), args.settings, args.limit)
    if not cases:
        raise InputError("no case to run", file=args.cases)
    model = model_from_args(args)
    critic = _critic(args)
    critic_setting = None
    if critic is not None:
        cs = setting_of(critic)
        critic_setting = {"model": cs["model"], "base_url": cs["base_url"], "params": cs["params"]}
    setting = setting_of(model, refine=args.refine, critic=critic_setting)
    items = plan_items(cases, args.refine)
    out = Path(args.out)

    def finish(row: dict) -> None:
        row.update(refine=args.refine, critic=critic_setting)

    # an answer whose check stopped at a smaller --time-limit (or at any, --retry-unknown)
    # is checked again from its stored response; its new row supersedes the old one
    retry = LimitRetry(args.time_limit, lambda row: row["verdict"] == "unknown",
                       retry_unknown=args.retry_unknown)
    scorer = Scorer(args.time_limit)
    tally = run_items(out, items, lambda todo: run_cases(
                          model, todo, refine=args.refine, critic=critic,
                          concurrency=args.concurrency, time_limit=args.time_limit),
                      noun="case", read=read_results, row_key=row_key,
                      check=lambda rows: check_resume([_with_setting(r) for r in rows],
                                                      setting, ("refine", "critic"), out),
                      verdict=lambda row: row.get("correct") if row.get("correct") is None
                      else row["correct"] is True,
                      label="CR", force=args.force, progress=not args.no_progress,
                      finish=finish, retry=retry,
                      rescore=lambda item, row: rescored(item, row, scorer))
    cached = tally.cached
    wanted = {i.key for i in items}
    rows = [r for r in latest_rows(read_results(out))
            if row_key(r) in wanted]
    answered = [r for r in rows if "error" not in r]
    errors = [r for r in rows if "error" in r]
    name = args.name or setting["model"]
    text = run_report(answered, name, setting, args.refine)
    print(text, end="")
    if errors:
        print(unanswered_note(len(errors), "case", out), file=sys.stderr)
    reused = cached_samples_note(model, cached)
    if reused:
        print(f"note: {reused}", file=sys.stderr)
    if args.report:
        extra = (f"\n{len(errors)} case(s) failed to get an answer and are not counted.\n"
                 if errors else "")
        _write(Path(args.report), markdown_as(f"# APB results: {name}\n\n" + text + extra,
                                              args.format))
    return ExitCode.NEGATIVE if errors else ExitCode.OK


def _with_setting(row: dict) -> dict:
    """A row as check_resume reads it (its refinement fields default to none)."""
    return {**row, "refine": row.get("refine"), "critic": row.get("critic")}


def run_report(rows: list[dict], name: str, setting: dict, refine: str | None) -> str:
    """Tables 1 and 2, the per-horizon step-wise results and (with refinement) Table 4 of
    the answered rows, and the setting they were produced with."""
    from planning_core.validators.toolplans.apb_report import (format_horizons,
                                                               format_refinement,
                                                               format_table1, format_table2,
                                                               horizons, refinement, table1,
                                                               table2)

    parts = ["### Table 1\n\n", format_table1(table1(rows), name)]
    t2 = table2(rows)
    if t2:
        parts += ["\n### Table 2 (extraneous tools)\n\n", format_table2(t2, name)]
    h = horizons(rows)
    if h:
        parts += ["\n### Step-wise by prediction horizon (Figure 5)\n\n",
                  format_horizons(h, name)]
    if refine:
        parts += ["\n### Table 4 (refinement)\n\n",
                  format_refinement(refinement(rows), name, refine)]
    params = json.dumps(setting.get("params") or {}, sort_keys=True)
    where = setting.get("base_url") or "the OpenAI API"
    parts.append(f"\nSetting: model {setting['model']} at {where}; parameters {params}"
                 + (f"; refinement {refine}" if refine else "")
                 + (f" (critic {setting['critic']['model']})" if setting.get("critic") else "")
                 + f"; {len(rows)} answered case(s).\n")
    return "".join(parts)
