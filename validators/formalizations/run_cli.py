"""``planning-core cope run``: added to the ``cope`` command group by the console script.

It lives here, not in ``cope``, because it drives the formalizer pipelines, which build on
``cope``; :mod:`planning_core.console` hands :func:`add_run_command` to ``cope``'s
``register``.

``cope run --method planner|pddl|smt|ltl --model NAME [--base-url URL] --dataset D
--out R.jsonl [--revisions K] [--mode generate|edit] [--report R.md]`` prompts the model for
every pair of ``D`` (:mod:`planning_core.validators.formalizations.live`), runs the revision loop with
the solver's or validator's feedback, judges the final answer against the ground truth and
appends one row per pair (with every turn's prompt and response) as it finishes, to a
results file locked for the run with a torn last line cut off
(:func:`planning_core.results_file.open_results`). By default the pairs run in the model
client's thread pool (``--concurrency``); with ``--workers N`` or ``--scheduler ADDRESS``
each pair's whole loop -- requests and judgements, whose planner runs cost seconds of CPU
-- is one task on local worker processes or a Dask cluster, each worker building its own
client from the same options. Pairs already in ``R.jsonl`` without an
error are skipped; failed ones are asked again. A rerun whose setting differs from the rows
already there for the method (model, base URL, system prompt, sampling parameters,
``--mode``, ``--revisions``, or a pair's first prompt: the templates' wording or the pair's
descriptions changed) is refused, or with ``--force`` starts a new run of the method (the
file is copied to ``R.jsonl.N``; the other methods' rows stay). ``--report`` writes
the paper's correctness table. Exit 0 done, 1 some requests failed (rerun to fill them in),
2 bad input or an unusable endpoint.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from planning_core.cli import ExitCode
from planning_core.cli.args import positive_int, seconds, whole_number_between
from planning_core.cli.executor_args import add_executor_options, executor_for
from planning_core.errors import InputError
from planning_core.executor import TaskFailed, worker_state

__all__ = ["add_run_command"]


def add_run_command(sub) -> None:
    from planning_core.cli.tables import add_format_only
    from planning_core.validators.formalizations.methods import LIVE_METHODS
    from planning_core.validators.models.options import add_model_arguments

    p = sub.add_parser("run", help="prompt a model on every pair, revise with feedback, "
                                   "judge against the ground truth")
    p.add_argument("--method", required=True, choices=LIVE_METHODS,
                   help="planner: the model writes the plan; pddl/smt/ltl: the model "
                        "formalizes and our solver plans")
    p.add_argument("--dataset", required=True, metavar="DIR",
                   help="a CoPE dataset folder, or a folder holding several")
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results JSONL; appended to, pairs already answered are skipped")
    p.add_argument("--report", metavar="FILE",
                   help="write the report here (Markdown; CSV or LaTeX with --format)")
    add_format_only(p, "the --report file")
    p.add_argument("--revisions", type=whole_number_between(0, 20), default=0, metavar="K",
                   help="revise up to K times on errors the model can see without the "
                        "ground truth (pddl, smt, ltl; the paper uses 3)")
    p.add_argument("--mode", choices=("generate", "edit"), default="generate",
                   help="pddl only: write both files at once, or first the unconstrained "
                        "task then edit it")
    p.add_argument("--categories", metavar="C,C",
                   help="only these constraint categories (baseline, initial, goal, action, "
                        "state)")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="only the first N pairs (after --categories)")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="solver seconds per judgement (default 30)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--force", action="store_true",
                   help="when --out holds rows of this method from another setting (model, "
                        "base URL, parameters, --mode, --revisions): move them aside "
                        "(OUT.1, ...) and start a new run instead of refusing")
    add_model_arguments(p)
    add_executor_options(p, unit="pair")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from planning_core.cli.tables import markdown_as
    from planning_core.results_file import open_results
    from planning_core.validators.cope.cli import _load
    from planning_core.validators.cope.evaluate import read_results
    from planning_core.validators.cope.report import render_eval_report
    from planning_core.validators.formalizations.live import done_keys, row_key
    from planning_core.validators.formalizations.methods import METHODS
    from planning_core.validators.models.options import model_from_args

    if args.method == "planner" and args.revisions:
        print("note: the planner method is not revised (its only judge is the ground "
              "truth); --revisions is ignored", file=sys.stderr)
    model = model_from_args(args)
    loaded = _load(args.dataset)
    if loaded is None:
        return ExitCode.BAD_INPUT
    pairs, _ = loaded
    if args.categories:
        wanted = {c.strip() for c in args.categories.split(",") if c.strip()}
        pairs = [p for p in pairs if p.category in wanted]
    if args.limit:
        pairs = pairs[:args.limit]
    out = Path(args.out)
    from planning_core.validators.models.run_setting import check_resume, setting_of, supersede

    setting = setting_of(model, mode=args.mode if args.method == "pddl" else None,
                         max_revisions=args.revisions if args.method != "planner" else 0)
    f, _ = open_results(out)   # locked for the run (ResultsLocked), a torn last line cut off
    with f:
        done_rows, warnings = read_results(out)
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        try:
            check_resume(done_rows, setting, ("mode", "max_revisions"), out,
                         select=lambda row: row.get("method") == args.method)
            _check_prompts(done_rows, pairs, args.method, out)
        except InputError:
            if not args.force:
                raise
            from planning_core.results_file import append_row

            moved = supersede(f, out)
            # the rows of other methods were not compared with this setting: they stay
            done_rows = [r for r in done_rows if r.get("method") != args.method]
            try:
                for row in done_rows:
                    append_row(f, row)
            except OSError as err:
                raise InputError(f"cannot write: {err.strerror or err}", file=str(out)) \
                    from None
            print(f"--force: the {args.method} rows of the earlier run moved to {moved} "
                  f"(a copy of the whole file); a new {args.method} run starts in {out}",
                  file=sys.stderr)
        done = done_keys(done_rows)
        todo = [p for p in pairs if (*p.key, args.method) not in done]
        if len(pairs) > len(todo):
            print(f"{len(pairs) - len(todo)} pair(s) already in {out}; skipped",
                  file=sys.stderr)
        with executor_for(args, len(todo)) as executor:
            if executor.name != "serial":
                correct, failed, fatal = _ask_on_executor(args, executor, todo, f)
            else:
                correct, failed, fatal = _ask_all(args, model, todo, f)
    if fatal is not None:
        raise fatal
    rows, _ = read_results(out)
    latest: dict[tuple, dict] = {}
    for row in rows:
        key = row_key(row)
        if key not in latest or "error" not in row or "error" in latest[key]:
            latest[key] = row
    judged = [r for r in latest.values() if "error" not in r]
    errors = len(latest) - len(judged)
    print(f"{len(todo)} pair(s) run with {args.method}: {correct} correct, {failed} failed "
          f"requests; results in {out}", file=sys.stderr)
    if errors:
        print(f"{errors} pair(s) have no answer (request failed); run the same command "
              "again to ask them again", file=sys.stderr)
    from planning_core.validators.models.run_setting import cached_samples_note

    asked = {(*p.key, args.method) for p in todo}
    reused = cached_samples_note(model, sum(
        1 for key, row in latest.items() if key in asked
        for turn in row.get("turns") or () if isinstance(turn, dict) and turn.get("cache_hit")))
    if reused:
        print(f"note: {reused}", file=sys.stderr)
    if args.report:
        order = {name: m.outcomes for name, m in METHODS.items()}
        import json

        text = render_eval_report(judged, order, title=f"CoPE run: {model.name}")
        text += (f"\nSetting: method {args.method}, model {setting['model']} at "
                 f"{setting['base_url'] or 'the OpenAI API'}, mode {setting['mode']}, up to "
                 f"{setting['max_revisions']} revision(s), parameters "
                 f"{json.dumps(setting['params'], sort_keys=True)}"
                 + (f", sample {setting['sample']}" if setting.get("sample") else "") + ".\n")
        try:
            Path(args.report).write_text(markdown_as(text, args.format), encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}",
                             file=args.report) from None
    return ExitCode.NEGATIVE if errors else ExitCode.OK


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What every pair of one ``cope run`` on an executor shares (picklable, hashable)."""

    model_options: tuple[tuple[str, object], ...]
    method: str
    revisions: int
    mode: str
    time_limit: float

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "RunSettings":
        from planning_core.validators.models.options import model_options

        return cls(model_options(args), args.method, args.revisions, args.mode,
                   args.time_limit)

    def setup(self):
        """The worker's model client and evaluation context, built once per process."""
        from planning_core.validators.cope.results import EvalContext
        from planning_core.validators.models.breaker import DEFAULT_THRESHOLD, arm
        from planning_core.validators.models.options import model_from_options

        model = model_from_options(self.model_options)
        arm(model, DEFAULT_THRESHOLD)   # each worker's own breaker
        return model, EvalContext(time_limit=self.time_limit)


def run_pair_task(settings: RunSettings, pair) -> dict:
    """One executor task: the whole revision loop of one pair -- its model requests and its
    judgements, which a revision needs before the next prompt -- on a worker.
    ``{"row": ...}``, or ``{"unavailable": message}`` when the endpoint cannot answer at
    all (the run stops, as in the client's thread pool)."""
    from planning_core.validators.formalizations.live import run_pair
    from planning_core.validators.models.completion import ModelUnavailable

    model, context = worker_state(settings, settings.setup)
    try:
        return {"row": run_pair(model, pair, settings.method, revisions=settings.revisions,
                                mode=settings.mode, context=context)}
    except ModelUnavailable as err:
        return {"unavailable": str(err)}


class _Tally:
    """Appends each finished row to the results file and counts it on the progress bar."""

    def __init__(self, handle, bar, out: str) -> None:
        self.handle, self.bar, self.out = handle, bar, out
        self.correct = self.failed = 0

    def keep(self, row: dict) -> None:
        from planning_core.results_file import append_row

        try:
            append_row(self.handle, row)
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=self.out) from None
        self.failed += "error" in row
        self.correct += row.get("correct") is True
        self.bar.set_postfix_str(f"correct {self.correct}")
        self.bar.update()


def _ask_on_executor(args: argparse.Namespace, executor, todo, handle
                     ) -> tuple[int, int, Exception | None]:
    """As :func:`_ask_all`, with one executor task per pair (``--workers N`` local
    processes or a Dask cluster): the planner runs of the judgements, seconds of CPU each,
    spread over the workers; each worker asks the model itself. Rows are appended as they
    finish. A pair whose worker keeps dying gets an error row, asked again on a rerun."""
    from planning_core.validators.cope.cli import _bar
    from planning_core.validators.models.completion import ModelUnavailable

    fatal = None
    with _bar(len(todo), args.no_progress, "pair") as bar:
        tally = _Tally(handle, bar, args.out)
        for index, result in executor.run(run_pair_task, RunSettings.from_args(args), todo):
            if isinstance(result, TaskFailed):
                pair = todo[index]
                result = {"row": {"dataset": pair.dataset, "category": pair.category,
                                  "problem": pair.problem, "constraint": pair.constraint,
                                  "method": args.method, "turns": [],
                                  "error": f"not run: {result.message}"}}
            if "unavailable" in result:
                fatal = ModelUnavailable(result["unavailable"])
                break   # leaving the loop stops the executor's remaining tasks
            tally.keep(result["row"])
    return tally.correct, tally.failed, fatal


def _ask_all(args: argparse.Namespace, model, todo, handle) -> tuple[int, int, Exception | None]:
    """Run every pair of ``todo`` in the model client's thread pool and append each row to
    ``handle`` as it finishes; ``(correct, failed requests, the fatal error or None)``.

    Rows are written as they finish, not in dataset order (unlike ``cope check`` and
    ``cope eval``): each row is paid for with model requests, and a row held back for
    order would be lost if the run were killed before the rows ahead of it; the report
    sorts them. Judging stays in the pair's thread, next to its requests: the revision
    loop needs each judgement before it can write the next prompt (on an executor the
    whole loop of a pair is one task for the same reason: :func:`_ask_on_executor`).
    """
    import concurrent.futures as cf

    from planning_core.validators.cope.cli import _bar
    from planning_core.validators.cope.results import EvalContext
    from planning_core.validators.formalizations.live import run_pair
    from planning_core.validators.models.breaker import arm
    from planning_core.validators.models.completion import ModelUnavailable

    context = EvalContext(time_limit=args.time_limit)
    arm(model, len(todo))   # a server that answers none of the first requests stops the run
    fatal = None
    with _bar(len(todo), args.no_progress, "pair") as bar, \
            cf.ThreadPoolExecutor(max_workers=args.concurrency) as pool:
        tally = _Tally(handle, bar, args.out)
        futures = [pool.submit(run_pair, model, pair, args.method, revisions=args.revisions,
                               mode=args.mode, context=context) for pair in todo]
        for fut in cf.as_completed(futures):
            if fut.cancelled():
                continue
            try:
                row = fut.result()
            except ModelUnavailable as err:
                fatal = fatal or err
                for other in futures:
                    other.cancel()
                continue
            tally.keep(row)
    return tally.correct, tally.failed, fatal


def _check_prompts(rows, pairs, method: str, out: Path) -> None:
    """Refuse (``InputError``) to resume ``out`` when a pair of this run was asked there
    with another first prompt than this run would send (the templates' wording or the
    pair's descriptions changed): resuming would mix the two under one report. Rows that
    do not say which template they rendered are not compared."""
    from planning_core.validators.formalizations.live import row_key
    from planning_core.validators.formalizations.prompts import render

    by_key = {tuple(map(str, (*p.key, method))): p for p in pairs}
    for row in rows:
        if row.get("method") != method or "error" in row:
            continue
        pair = by_key.get(row_key(row))
        turns = row.get("turns")
        if pair is None or not isinstance(turns, list) or not turns \
                or not isinstance(turns[0], dict):
            continue
        name, sent = turns[0].get("template"), turns[0].get("prompt")
        try:
            now = render(name, pair)
        except (KeyError, TypeError, ValueError):   # not a template the pair alone fills
            continue
        if sent != now:
            raise InputError(f"asked {' / '.join(pair.key)} with another prompt (the "
                             "prompt templates or the pair's descriptions changed); "
                             "resuming would mix them: give another --out, or --force to "
                             "start a new run (the old rows are moved beside the file)",
                             file=str(out))
