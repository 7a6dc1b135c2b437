"""``planning-core cope ...``: check CoPE ground truth and evaluate model outputs.

``cope check --dataset DIR [--json] [--out FILE] [--time-limit S] [--retry-unknown]
[--limit N] [--workers N] [--executor local|dask] [--scheduler ADDRESS]``
    Solve and validate every ground-truth pair, compare with ``plan_exists``, and list
    ground-truth defects (with positions) and label disagreements (with the plan or the
    proof). ``DIR`` is a dataset, a folder of datasets, or the release's ``data/`` root.
    ``--out`` streams one row per pair to a file, in dataset order, and resumes from it;
    a pair unknown at a smaller ``--time-limit`` than this run's (or any unknown pair,
    ``--retry-unknown``) is checked again (:class:`~planning_core.results_file.LimitRetry`);
    the time limit is CPU time (:mod:`planning_core.validators.cope.solving`). ``--limit N``
    checks the first N pairs only. Exit 0 when
    every pair agrees with its label, 1 when a defect or disagreement was found, 3 when
    the only problems are solver limits, 2 on bad input.
``cope eval --dataset DIR --method M --outputs FILE.jsonl --out RESULTS.jsonl [--report MD]``
    Judge model outputs with method ``M`` (a key of the method registry that
    :mod:`planning_core.console` passes to :func:`register`,
    :data:`planning_core.validators.formalizations.methods.METHODS`), appending one result
    row per pair to ``--out``; pairs already there are skipped, so an interrupted run
    resumes (the file is locked for the run and a torn last line cut off). Rows are written
    in the order of the outputs file as soon as every earlier one is done, and journalled in
    ``RESULTS.jsonl.pending`` as they arrive, so killing the command loses no judged row
    (:class:`~planning_core.results_file.ResultsWriter`; ``cope check --out`` alike). An
    unusable output row is recorded as ``bad_input`` and the run goes on (``--strict``:
    stop instead); an output over ``--max-response-bytes`` is ``too_large``, unread; an
    exception while judging one output is its ``internal_error``. A progress bar goes to
    stderr. ``--report`` writes the markdown report of everything in ``--out``.
    Exit 0 when done, 2 on bad input (also when no output at all could be evaluated).

Both run their pairs on the executor of ``--executor/--scheduler/--workers``
(:mod:`planning_core.executor`: this process, local worker processes that die with the
CLI, or a Dask cluster); the CLI process is the one writer of ``--out``, and the same rows
come out whatever the executor. A pair whose task keeps killing its worker becomes an
``unknown`` check or an ``internal_error`` row instead of ending the run. Dataset paths
are read by the workers: on a cluster of other machines, give them as paths every worker
can open.

Handlers print and return exit codes; everything else is library code. Heavy modules are
imported by the handlers, so registering the commands costs nothing at start-up.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Callable, Mapping, Sequence

from planning_core.cli import ArgumentParser, ExitCode, error_line
from planning_core.cli.args import add_bad_row_options, add_retry_option, positive_int, seconds
from planning_core.cli.executor_args import add_executor_options, executor_for
from planning_core.validators.cope.dataset import MAX_RESPONSE_BYTES

__all__ = ["register"]


def register(subparsers, methods: Mapping[str, object],
             extra: Sequence[Callable[[object], None]] = ()) -> None:
    """Add ``cope check`` and ``cope eval`` to ``planning-core``'s subcommands.

    ``methods`` is the registry ``cope eval --method`` chooses from (name -> an object with
    ``name``, ``summary``, ``outcomes`` and ``evaluate(pair, output, context)``); it is
    passed in because the formalizer methods build on this package, not the other way.
    Each of ``extra`` adds more subcommands to the group (``cope run``, which drives the
    formalizers, for the same reason).
    """
    from planning_core.cli.tables import add_format_only

    cope = subparsers.add_parser("cope", help="CoPE constrained planning: check ground "
                                              "truth, evaluate model outputs")
    sub = cope.add_subparsers(dest="cope_command", metavar="COMMAND",
                              parser_class=ArgumentParser)
    sub.required = True

    p = sub.add_parser("check", help="solve and validate every ground-truth pair and compare "
                                     "with plan_exists")
    p.add_argument("--dataset", required=True, metavar="DIR",
                   help="a CoPE dataset folder, or a folder holding several")
    p.add_argument("--json", action="store_true", help="one JSON object per pair per line")
    p.add_argument("--out", metavar="FILE",
                   help="also append one JSON row per pair to FILE as each pair finishes; "
                        "pairs already there are skipped, so an interrupted check resumes")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="CPU seconds per pair before answering unknown (default 30); with "
                        "--out, pairs unknown at a smaller limit are checked again")
    add_retry_option(p)
    p.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="check only the first N pairs (in dataset order), to try a few")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_executor_options(p, unit="pair")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("eval", help="judge model outputs (JSONL) against the ground truth")
    p.add_argument("--dataset", required=True, metavar="DIR",
                   help="a CoPE dataset folder, or a folder holding several")
    p.add_argument("--method", required=True, choices=tuple(methods),
                   help="how the outputs are read: "
                        + "; ".join(f"{m.name}: {m.summary}" for m in methods.values()))
    p.add_argument("--outputs", required=True, metavar="FILE",
                   help='JSONL rows {"category", "problem", "constraint", "output"}')
    p.add_argument("--out", required=True, metavar="FILE",
                   help="results JSONL; appended to, pairs already there are skipped")
    p.add_argument("--report", metavar="FILE",
                   help="write a report here (Markdown; CSV or LaTeX with --format)")
    add_format_only(p, "the --report file")
    p.add_argument("--time-limit", type=seconds, default=30.0, metavar="S",
                   help="solver seconds per pair (default 30); outputs unknown at a smaller "
                        "limit in --out are judged again")
    add_retry_option(p)
    p.add_argument("--memory-limit", type=seconds, default=None, metavar="MB",
                   help="methods pddl and ltl: megabytes for reading, grounding and solving "
                        "a model's task before its row is unknown (default: half the "
                        "memory this process may use, cgroup and Slurm limits included; "
                        "Fast Downward 4096)")
    p.add_argument("--checks", metavar="FILE",
                   help="`cope check --json` output: our answers to \"does a plan exist?\", "
                        "used to flag doubtful labels without solving again")
    p.add_argument("--no-label-check", action="store_true",
                   help="do not solve the ground truth to flag doubtful plan_exists labels")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_executor_options(p, unit="output")
    add_bad_row_options(p, default_bytes=MAX_RESPONSE_BYTES, too_large="recorded as too_large",
                        bad_row="bad_input", bad_rows="not JSON, missing fields, an unknown, "
                                                   "ambiguous or repeated pair")
    p.add_argument("--unsafe-no-sandbox", action="store_true",
                   help="method smt: run model-written programs with resource limits only, "
                        "without the bubblewrap sandbox (they can then read, write and "
                        "connect to whatever this user can); without this flag a missing "
                        "sandbox makes every row sandbox_unavailable")
    p.set_defaults(func=_cmd_eval, methods=methods)
    for add in extra:
        add(sub)


def _load(dataset: str):
    from planning_core.validators.cope.dataset import load_dataset_report

    # absolute, here on the client: the pairs' file paths go to workers that may run in
    # another folder (a `dask worker` started elsewhere), where a relative path misleads
    root = Path(os.path.abspath(dataset))
    if not root.exists():
        print(f"{dataset}: error: no such folder", file=sys.stderr)
        return None
    pairs, notes = load_dataset_report(root)
    if not pairs:
        print(f"{dataset}: error: no CoPE pairs found (expected constraints/<category>/ "
              "folders)", file=sys.stderr)
        return None
    return pairs, notes


def _bar(total: int, disabled: bool, unit: str):
    from tqdm import tqdm

    return tqdm(total=total, file=sys.stderr, unit=unit, disable=True if disabled else None,
                dynamic_ncols=True)


# -------------------------------------------------------------------------- check

def _progress(bar) -> Callable[[object], None]:
    """What a finished check does to the progress bar: one more, and the running count of
    pairs that agree with their label."""
    agreed = 0

    def done(check) -> None:
        nonlocal agreed
        agreed += check.verdict == "agrees"
        bar.set_postfix_str(f"agrees {agreed}", refresh=False)
        bar.update()

    return done


def _cmd_check(args: argparse.Namespace) -> int:
    from planning_core.validators.cope.check import count_verdicts, iter_checks
    from planning_core.validators.cope.report import render_check_report

    loaded = _load(args.dataset)
    if loaded is None:
        return ExitCode.BAD_INPUT
    pairs, notes = loaded
    if args.limit is not None:
        pairs = pairs[:args.limit]
    if args.out:
        checks = _check_into(args, pairs)
        if checks is None:
            return ExitCode.BAD_INPUT
    else:
        with executor_for(args, len(pairs)) as executor, \
                _bar(len(pairs), args.no_progress, "pair") as bar:
            checks = tuple(iter_checks(pairs, executor, time_limit=args.time_limit,
                                       on_done=_progress(bar)))
    if args.json:
        for check in checks:
            print(json.dumps(check.to_json()))
        counts = count_verdicts(checks)
        for dataset, counter in counts.items():
            print(f"{dataset}: " + ", ".join(f"{n} {v}" for v, n in counter.items()),
                  file=sys.stderr)
    else:
        print(render_check_report(checks, notes), end="")
    verdicts = {c.verdict for c in checks}
    if verdicts & {"defect", "label_disagreement", "engine_disagreement"}:
        return ExitCode.FINDINGS
    return ExitCode.UNKNOWN if "unknown" in verdicts else ExitCode.OK


def _check_into(args: argparse.Namespace, pairs) -> tuple | None:
    """``cope check --out``: rows appended to the file in dataset order as they become
    ready (whatever the executor's completion order), journalled as they arrive, pairs
    already there skipped (resume); all checks of ``pairs`` in dataset order, or None on an
    error."""
    from planning_core.errors import InputError
    from planning_core.results_file import LimitRetry, ResultsWriter
    from planning_core.validators.cope.check import PairCheck, check_arrivals, is_final
    from planning_core.validators.cope.evaluate import read_checks

    # locked for the run; a torn tail cut off; a killed run's journal taken; rows unknown
    # at a smaller limit (or any with --retry-unknown) taken out, to be checked again
    retry = LimitRetry(args.time_limit, lambda row: row["status"] == "unknown",
                       retry_unknown=args.retry_unknown)
    try:
        writer = ResultsWriter(args.out, key=_pair_key, retry=retry)
    except InputError as err:
        print(error_line(err), file=sys.stderr)
        return None
    with writer:
        done, warnings = read_checks(Path(args.out))
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        # a check that is not final (its worker died, its files were unreadable where it
        # ran) is done again; the new row supersedes it
        known = {check.key: check for check in done if is_final(check)}
        todo = [pair for pair in pairs if pair.key not in known]
        if len(todo) < len(pairs):
            print(f"{len(pairs) - len(todo)} pair(s) already in {args.out}; skipped",
                  file=sys.stderr)
        if writer.note():
            print(writer.note(), file=sys.stderr)
        again = {pair.key for pair in todo}   # a redone check replaces its old row
        writer.drop(lambda row: "status" in row and _pair_key(row) is None
                    and _row_pair(row) in again)
        fresh = writer.resume([pair.key for pair in todo])
        work = [todo[k] for k in fresh]
        with executor_for(args, len(work)) as executor, \
                _bar(len(work), args.no_progress, "pair") as bar:
            computed = {}

            def arrived():
                for k, check in check_arrivals(work, executor, time_limit=args.time_limit,
                                               on_done=_progress(bar)):
                    computed[check.key] = check
                    yield k, check.to_json()

            for position, row in writer.in_order(arrived()):
                key = todo[position].key   # a row from the journal is read back
                check = computed.pop(key, None)
                known[key] = check if check is not None else PairCheck.from_json(row)
    return tuple(known[pair.key] for pair in pairs)


def _row_pair(row: dict) -> tuple:
    return tuple(row.get(field) for field in ("dataset", "category", "problem", "constraint"))


def _pair_key(row: dict) -> tuple | None:
    """The pair a ``cope check --out`` or ``cope eval`` row is the result of (None for a
    bad_input row, which names no pair that is done, and for a row that is not final: a
    rerun computes that pair again, so a journalled one must not stand in for it)."""
    if row.get("outcome") == "bad_input" or row.get("retry"):
        return None
    if "status" in row:   # a cope check row
        from planning_core.validators.cope.check import PairCheck, is_final

        try:
            if not is_final(PairCheck.from_json(row)):
                return None
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
    return _row_pair(row)


# --------------------------------------------------------------------------- eval

def _cmd_eval(args: argparse.Namespace) -> int:
    from planning_core.errors import InputError
    from planning_core.executor import TaskFailed
    from planning_core.validators.cope.evaluate import (BAD_INPUT, BATCH_OUTCOMES,
                                                        EvalSettings, eval_task,
                                                        failed_eval_row, plan_jobs,
                                                        read_checks, read_outputs,
                                                        read_results)
    from planning_core.cli.tables import markdown_as
    from planning_core.validators.cope.report import render_eval_report
    from planning_core.results_file import LimitRetry, ResultsWriter

    loaded = _load(args.dataset)
    if loaded is None:
        return ExitCode.BAD_INPUT
    pairs, _ = loaded
    # locked for the run; a torn tail cut off; a killed run's journal taken; rows unknown at
    # a smaller --time-limit (or any, --retry-unknown) taken out, to be judged again
    retry = LimitRetry(args.time_limit, lambda row: row["outcome"] == "unknown",
                       retry_unknown=args.retry_unknown)
    try:
        writer = ResultsWriter(args.out, key=_pair_key, retry=retry)
    except InputError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.BAD_INPUT
    with writer:
        rows, bad = read_outputs(Path(args.outputs))
        done, done_warnings = read_results(Path(args.out))
        _, check_warnings = read_checks(Path(args.checks)) if args.checks else ((), ())
        jobs, job_bad, skipped = plan_jobs(rows, pairs, done)
        bad = sorted(bad + job_bad, key=lambda b: b.line)   # file order
        for warning in done_warnings + check_warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if bad and args.strict:
            print(f"{bad[0].source}: error: {bad[0].message}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        recorded = {r.get("source") for r in done if r.get("outcome") == BAD_INPUT}
        new_bad = [b for b in bad if b.source not in recorded]
        for row in new_bad:
            print(f"warning: {row.source}: {row.message}; recorded as a bad_input row",
                  file=sys.stderr)
        if skipped:
            print(f"{skipped} pair(s) already in {args.out}; skipped", file=sys.stderr)
        if writer.note():
            print(writer.note(), file=sys.stderr)
        settings = EvalSettings(args.methods[args.method], args.time_limit,
                                not args.no_label_check,
                                str(Path(args.checks).resolve()) if args.checks else None,
                                "rlimits" if args.unsafe_no_sandbox else "bwrap",
                                args.max_response_bytes, os.urandom(8).hex(),
                                memory_limit=args.memory_limit)
        if args.unsafe_no_sandbox and args.method == "smt":
            print("warning: --unsafe-no-sandbox: model-written programs run without "
                  "isolation", file=sys.stderr)
        for row in new_bad:
            writer.write(row.to_row(args.method))
        fresh = writer.resume([job.pair.key for job in jobs])
        work = [(jobs[k].pair, jobs[k].row.output) for k in fresh]
        written: list[dict] = []
        with executor_for(args, len(work)) as executor, \
                _bar(len(work), args.no_progress, "output") as bar:
            def arrived():
                right = 0
                for index, row in executor.run(eval_task, settings, work):
                    if isinstance(row, TaskFailed):
                        row = failed_eval_row(args.method, work[index][0], row)
                    right += row["correct"] is True
                    bar.set_postfix_str(f"correct {right}", refresh=False)
                    bar.update()
                    yield index, row

            # in the order of the outputs file, whatever order the executor finishes in
            for _, row in writer.in_order(arrived()):
                written.append(row)
        all_rows, _ = read_results(Path(args.out))
    correct = sum(1 for r in written if r["correct"])
    print(f"{len(written)} output(s) evaluated with {args.method}: {correct} correct; "
          f"results in {args.out}", file=sys.stderr)
    if bad:
        print(f"{len(bad)} output row(s) could not be used (outcome bad_input in "
              f"{args.out})", file=sys.stderr)
    if args.report:
        order = {name: tuple(m.outcomes) + BATCH_OUTCOMES for name, m in args.methods.items()}
        try:
            Path(args.report).write_text(markdown_as(render_eval_report(all_rows, order),
                                                     args.format), encoding="utf-8")
        except OSError as err:
            print(f"{args.report}: error: cannot write: {err.strerror}", file=sys.stderr)
            return ExitCode.BAD_INPUT
        print(f"report written to {args.report}", file=sys.stderr)
    if not any(r.get("outcome") != BAD_INPUT for r in all_rows):
        print(f"{args.outputs}: error: no output could be evaluated", file=sys.stderr)
        return ExitCode.BAD_INPUT
    return ExitCode.OK
