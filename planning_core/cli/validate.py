"""The ``validate`` command (also ``planning-core validate``): files in, reports out, an
honest exit code.

Users type ``validate plan.txt domain.pddl problem.pddl``; VAL's users type
``Validate domain.pddl problem.pddl plan1 plan2``. Both work because each file's role is
told apart by its content: a ``(define (domain ...``, a ``(define (problem ...``, and
everything else is a plan. Every failure to read or understand an input is reported with
file, line and column and gives exit code 2; no input produces a traceback.

VAL compatibility: the flags VAL's users pass in scripts are accepted: ``-v`` (per-step
trace), ``-t TOLERANCE`` (VAL's tolerance for comparing times; classical plans have no
durations, so it changes nothing there), ``-s`` (silent: only failed plans are reported),
``-S`` (one line per plan: its value, or ``failed``), ``-c`` (VAL's option to go on after
an error; each plan here always gets its own verdict, so it changes nothing). After the
reports comes VAL's summary, ``Successful plans:`` (``Value: V`` and `` PLAN V`` per plan)
and ``Failed plans:`` (`` PLAN`` per plan), which scripts grep for.

``validate --batch MANIFEST.jsonl [--out RESULTS.jsonl]`` validates many (plan, domain,
problem) triples in one run, each task parsed once, on local workers or a Dask cluster
(:mod:`planning_core.cli.validate_batch`).

Validation has a time budget (``--time-limit``, CPU seconds, default
``DEFAULT_TIME_LIMIT_S``): nested quantifiers in derived predicates can take minutes per
plan, and a plan that hits the limit is reported ``unknown`` (exit code 3 when no plan is
invalid), never valid or invalid.
"""
from __future__ import annotations

import sys

from planning_core.cli import ExitCode, error_line, exit_process, run, short_process
from planning_core.errors import InputError, PlanningError
from planning_core.pddl.files import read_text

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import TextIO

    from planning_core.pddl import ast as pddl

DEFAULT_TIME_LIMIT_S = 60.0
#: ``validate --batch``: longest plan read, in bytes (``--max-response-bytes``); a longer
#: plan is a ``bad_input`` row, unread
BATCH_MAX_PLAN_BYTES = 10_000_000
#: ``validate --batch``: longest domain or problem file read, in bytes
#: (``--max-task-bytes``; the row's memory limit caps it too); a longer one is a
#: ``bad_input`` row, read only that far (the largest IPC problems are tens of MB)
BATCH_MAX_TASK_BYTES = 200_000_000

#: what :func:`classify` answers: a domain or problem starts so (compiled only for a file
#: the ASCII reader below leaves to it: compiling it costs each call ~0.5 ms, issue 28)
_DEFINE = r"\A(?:\s|;[^\n]*(?:\n|\Z))*\(\s*define\s*\(\s*(domain|problem)\b"
#: the ASCII characters ``\s`` matches (``str.isspace``, as ``re`` for a str pattern)
_ASCII_SPACE = frozenset(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")


def classify(text: str) -> str:
    """``"domain"``, ``"problem"`` or ``"plan"`` by the file's first definition: what
    ``re.match(_DEFINE, text, re.I)`` says (``tests/cli/test_validate_argv.py`` compares)."""
    role = _classify_ascii(text)
    if role is None:   # a character outside ASCII where case or blank space matters
        import re   # only here and below: importing it costs a call ~5 ms (issue 28)

        m = re.match(_DEFINE, text, re.I)
        role = m.group(1).lower() if m else "plan"
    return role


def _skip_space(text: str, i: int, comments: bool = False) -> int:
    """The index after the blank space (and, with ``comments``, ``;`` comments) at ``i``;
    -1 at a character outside ASCII (the regex's blank space takes some of those)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c in _ASCII_SPACE:
            i += 1
        elif comments and c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c.isascii():
            return i
        else:
            return -1
    return i


def _classify_ascii(text: str) -> str | None:
    """:func:`classify` for a text whose head is ASCII, without compiling the regex; None
    where a character outside ASCII decides (``re.I`` folds some onto ASCII letters)."""
    i = _skip_space(text, 0, comments=True)
    if i < 0:
        return None
    if text[i:i + 1] != "(":
        return "plan"
    i = _skip_space(text, i + 1)
    if i < 0:
        return None
    word = text[i:i + 6]
    if not word.isascii():
        return None
    if word.lower() != "define":
        return "plan"
    i = _skip_space(text, i + 6)
    if i < 0:
        return None
    if text[i:i + 1] != "(":
        return "plan"
    i = _skip_space(text, i + 1)
    if i < 0:
        return None
    for role in ("domain", "problem"):
        word = text[i:i + len(role) + 1]
        if not word.isascii():
            return None
        if word[:len(role)].lower() == role:
            after = word[len(role):]
            return "plan" if after and (after.isalnum() or after == "_") else role
    return "plan"


_LOOKS_LIKE_PDDL = r"\(\s*(?:define\b|:(?:domain|action|predicates|objects|init|goal)\b)"


def _misread_as_plan(path: str, text: str) -> PlanningError | None:
    """Why a file that looks meant as a domain or problem is not one, if it looks so.

    An empty ``domain.pddl`` or one with ``(defne (domain`` is taken for a plan by
    :func:`classify`; the user then deserves that file's own located syntax error rather
    than only "no domain file given".
    """
    import re

    if not (path.lower().endswith(".pddl") or re.search(_LOOKS_LIKE_PDDL, text, re.I)):
        return None
    from planning_core.pddl.parser import parse

    try:
        parse(text, path)
    except PlanningError as err:
        return err
    return None


class _Inputs:
    """The files given, by role: (path, text) each."""

    __slots__ = ("domain", "problem", "plans")

    def __init__(self) -> None:
        self.domain: tuple[str, str] | None = None
        self.problem: tuple[str, str] | None = None
        self.plans: list[tuple[str, str]] = []


def _sort_roles(paths: list[str], max_bytes: int | None = None
                ) -> tuple[_Inputs, list[PlanningError]]:
    from planning_core.limits import LimitReached

    inputs = _Inputs()
    problems: list[PlanningError] = []
    for path in paths:
        try:
            text = read_text(path, expected="text (a PDDL domain, problem or plan)",
                             max_bytes=max_bytes)
        except PlanningError as err:
            problems.append(err)
            continue
        except LimitReached as stop:   # the first plan's budget ran out (run_validate)
            stop.file = path
            raise
        role = classify(text)
        if role == "plan":
            inputs.plans.append((path, text))
        elif getattr(inputs, role) is not None:
            problems.append(InputError(f"a second {role} file (the first is "
                                       f"{getattr(inputs, role)[0]}); expected one domain and "
                                       "one problem", file=path, line=1, column=1))
        else:
            setattr(inputs, role, (path, text))
    if not problems:
        if inputs.domain is None or inputs.problem is None:
            problems.extend(e for e in (_misread_as_plan(*plan) for plan in inputs.plans)
                            if e is not None)
        for role in ("domain", "problem"):
            if getattr(inputs, role) is None:
                problems.append(InputError(f"no {role} file given; expected a plan, a domain "
                                           "and a problem (in any order)"))
        if not inputs.plans:
            problems.append(InputError("no plan file given; expected a plan, a domain and a "
                                       "problem (in any order)"))
    return inputs, problems


def _print_diagnostics(diags, err: TextIO, show_warnings: bool) -> None:
    for d in diags:
        if d.severity == "error" or show_warnings:
            print(str(d), file=err)


def _bad_input_json(plans, errors, warnings, out: TextIO) -> None:
    import json   # here and below: a call without --json does not pay for it

    for path in plans or [None]:
        print(json.dumps({"plan": path, "valid": False, "verdict": "bad_input", "step": None,
                          "action": None, "unsatisfied": [], "advice": [],
                          "unsatisfied_goals": [], "cost": None,
                          "errors": [e.to_dict() for e in errors],
                          "warnings": [w.to_dict() for w in warnings]}), file=out)


def _parse_domain(text: str, path: str) -> pddl.Domain:
    from planning_core.pddl.parser import parse_domain

    return parse_domain(text, path)


def _parse_problem(text: str, path: str) -> pddl.Problem:
    from planning_core.pddl.parser import parse_problem

    return parse_problem(text, path)


def load_task(domain_path: str, domain_text: str, problem_path: str, problem_text: str,
              *, cache: bool = False, pending: list | None = None
              ) -> tuple[pddl.Domain, pddl.Problem, tuple[pddl.Diagnostic, ...]]:
    """Parse and check; raises the first syntax error, returns semantic diagnostics.

    With ``cache``, a domain or problem parsed by an earlier call is read back from the
    parse cache (:mod:`planning_core.pddl.parse_cache`) instead of being parsed again: the
    parser (and lark) is then not even imported; the checker's diagnostics for the pair
    are read back too (``parse_cache.cached_check``), so neither is the checker. With
    ``pending`` too, new entries are left in it to be stored later
    (``parse_cache.write_pending``), not under the active budget."""
    from planning_core.pddl import ast

    def check() -> tuple[pddl.Diagnostic, ...]:
        from planning_core.pddl.checker import check_domain, check_problem

        return check_domain(domain) + check_problem(domain, problem)

    if cache:
        from planning_core.pddl.parse_cache import cached_check, cached_parse

        domain = cached_parse("domain", domain_path, domain_text, _parse_domain, ast.Domain,
                              pending)
        problem = cached_parse("problem", problem_path, problem_text, _parse_problem,
                               ast.Problem, pending)
        return domain, problem, cached_check((domain_path, domain_text),
                                             (problem_path, problem_text), check, pending)
    domain = _parse_domain(domain_text, domain_path)
    problem = _parse_problem(problem_text, problem_path)
    return domain, problem, check()


def run_validate(paths: list[str], *, verbose: bool, as_json: bool, show_warnings: bool,
                 out: TextIO, err: TextIO, time_limit: float | None = DEFAULT_TIME_LIMIT_S,
                 silent: str = "", memory_limit: float | None = None,
                 tolerance: float | None = None) -> int:
    """Validate every plan among ``paths``; print the reports to ``out``, problems to ``err``.

    The parser, checker and simulator are imported here, not at the top, so that
    registering the command costs ``planning-core``'s other commands nothing. The first
    plan's budget starts before the files are read: reading, parsing (or loading the parse
    cache's entry) and checking count against it, and a task too big to read in time
    leaves every plan unknown. New parse-cache entries are stored after the last report,
    under a budget of their own (the same limits), so no plan's verdict or resources depend
    on whether the cache was warm.
    """
    pending: list = []
    try:
        return _run_validate(paths, verbose=verbose, as_json=as_json,
                             show_warnings=show_warnings, out=out, err=err,
                             time_limit=time_limit, silent=silent, memory_limit=memory_limit,
                             pending=pending, tolerance=tolerance)
    finally:
        if pending:
            from planning_core.limits import Limits
            from planning_core.pddl.parse_cache import write_pending

            write_pending(pending, Limits(time_s=time_limit, memory_mb=memory_limit,
                                          wall_s=time_limit).budget())


def _run_validate(paths: list[str], *, verbose: bool, as_json: bool, show_warnings: bool,
                  out: TextIO, err: TextIO, time_limit: float | None, silent: str,
                  memory_limit: float | None, pending: list,
                  tolerance: float | None = None) -> int:
    from planning_core.limits import LimitReached, Limits, metering
    from planning_core.pddl.plans import parse_plan
    from planning_core.validate.render import render_text
    from planning_core.validate.report import ValidationReport, Verdict
    from planning_core.validate.simulator import validate_plan

    from planning_core.pddl.files import FileTooLarge

    limits = Limits(time_s=time_limit, memory_mb=memory_limit, wall_s=time_limit)
    budget, stopped = limits.budget(), None
    memory_mb = budget.memory_mb
    try:   # the first plan's budget (and the wall-clock guard) covers reading the files;
        with metering(budget):   # a file over the memory limit is not read whole
            inputs, problems = _sort_roles(paths, int(memory_mb * 2**20) if memory_mb
                                           else None)
    except MemoryError:   # RLIMIT_AS (a cluster's ulimit -v) ran out while reading
        print("unknown: memory limit: out of memory reading the files", file=err)
        return ExitCode.UNKNOWN
    except LimitReached as stop:
        print(f"{getattr(stop, 'file', '<input>')}: unknown: {stop.limit}: {stop.detail} "
              "while reading the files", file=err)
        return ExitCode.UNKNOWN
    too_large = [p for p in problems if isinstance(p, FileTooLarge)]
    if too_large:
        for p in too_large:
            print(f"{p.file}: unknown: memory limit: {p.message}", file=err)
        return ExitCode.UNKNOWN
    plan_paths = [p for p, _ in inputs.plans or []]
    if problems:
        if as_json:
            _bad_input_json(plan_paths, problems, [], out)
        for p in problems:  # a missing role has no file to name: say just what is missing
            print(error_line(p), file=err)
        return ExitCode.BAD_INPUT
    try:
        with metering(budget):
            domain, problem, diags = load_task(*inputs.domain, *inputs.problem, cache=True,
                                               pending=pending)
    except LimitReached as stop:
        domain = problem = None
        diags, stopped = (), ValidationReport(Verdict.UNKNOWN, limit=stop.limit, message=(
            f"validation stopped at the {stop.limit} ({stop.detail}) while reading the "
            "domain and problem; no verdict"))
    except PlanningError as e:
        if as_json:
            _bad_input_json(plan_paths, [e], [], out)
        print(error_line(e), file=err)
        return ExitCode.BAD_INPUT
    errors = tuple(d for d in diags if d.severity == "error")   # checker.errors_of
    warnings = tuple(d for d in diags if d.severity == "warning")
    if not as_json:
        _print_diagnostics(diags, err, show_warnings)
    if errors:
        if as_json:
            _bad_input_json(plan_paths, errors, warnings, out)
        return ExitCode.BAD_INPUT
    reports = []
    for path, text in inputs.plans:
        budget = budget or limits.budget()      # the first plan's counts the parsing too
        try:
            with metering(budget):              # reading a 300,000-step plan counts too
                plan = parse_plan(text, path)
        except LimitReached as stop:
            stopped_here = ValidationReport(Verdict.UNKNOWN, limit=stop.limit, message=(
                f"validation stopped at the {stop.limit} ({stop.detail}) while reading the "
                "plan; no verdict"))
        else:
            stopped_here = None
        try:
            report = stopped or stopped_here or validate_plan(domain, problem, plan,
                                                              trace=verbose, budget=budget,
                                                              tolerance=tolerance,
                                                              typecheck_first=True)
        except PlanningError as e:   # the domain cannot be simulated (derived predicates
            if as_json:              # that cannot be stratified): a located bad_input, as
                _bad_input_json(plan_paths, [e], warnings, out)   # the checker's errors
            print(error_line(e), file=err)
            return ExitCode.BAD_INPUT
        budget = None
        reports.append((path, report))
        if as_json:
            import json

            print(json.dumps(report.to_json(path, (), warnings if show_warnings else ())), file=out)
        elif silent == "values":
            print(_value(report.cost) if report.valid
                  else "unknown" if report.verdict is Verdict.UNKNOWN else "failed", file=out)
        elif not (silent == "errors" and report.valid):
            print(render_text(report, path, verbose=verbose), file=out)
        if not as_json and report.verdict.value in _PLAN_TEXT_ERRORS and report.line is not None:
            # a fault of the plan's text, located: also in the one error-line format of every
            # command (VAL's report above says it in its own words)
            print(f"{path}:{report.line}:{report.column or 1}: error: {report.message}",
                  file=err)
    if not as_json and not silent:
        print(_summary(reports, Verdict.UNKNOWN), file=out)
    if all(r.valid for _, r in reports):
        return ExitCode.OK
    if any(not r.valid and r.verdict is not Verdict.UNKNOWN for _, r in reports):
        return ExitCode.INVALID
    return ExitCode.UNKNOWN


#: verdicts that are faults of the plan's text (a step naming what the task does not have)
#: (values: the report module is imported by the command, not by this module's import)
_PLAN_TEXT_ERRORS = frozenset({"unknown_action", "wrong_arity", "unknown_object",
                               "type_error", "plan_syntax_error"})


def _value(cost) -> str:
    return "0" if cost is None else f"{cost:g}"


def _summary(reports, unknown) -> str:
    """VAL's closing summary: ``Successful plans:`` and ``Failed plans:`` (and, where VAL has
    no verdict to give, the plans that stopped at the time limit)."""
    lines = []
    good = [(p, r) for p, r in reports if r.valid]
    bad = [p for p, r in reports if not r.valid and r.verdict is not unknown]
    open_ = [p for p, r in reports if r.verdict is unknown]
    if good:
        lines.append("\nSuccessful plans:")
        for path, report in good:
            lines += [f"Value: {_value(report.cost)}", f" {path} {_value(report.cost)}"]
    if bad:
        lines.append("\nFailed plans:")
        lines += [f" {path}" for path in bad]
    if open_:
        lines.append("\nPlans without a verdict (time or memory limit):")
        lines += [f" {path}" for path in open_]
    return "\n".join(lines)


# ---------------------------------------------------------------- the command line

def _add_arguments(p: argparse.ArgumentParser) -> None:
    from planning_core.cli.args import seconds
    from planning_core.cli.executor_args import add_executor_options

    p.add_argument("files", nargs="*", metavar="FILE",
                   help="a plan, a domain and a problem in any order (roles are told apart "
                        "by content); several plans may be given")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print VAL's per-step trace and the repair advice")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per plan, one per line")
    p.add_argument("--no-warnings", action="store_true", help="do not print warnings")
    p.add_argument("--time-limit", type=seconds, default=DEFAULT_TIME_LIMIT_S, metavar="S",
                   help="CPU seconds (also wall-clock seconds) per plan before its verdict is "
                        f"unknown, exit 3 (default {DEFAULT_TIME_LIMIT_S:g})")
    p.add_argument("--memory-limit", type=seconds, default=None, metavar="MB",
                   help="megabytes per plan before its verdict is unknown, exit 3 (default: "
                        "half the memory this process may use, cgroup and Slurm limits "
                        "included, or $PLANNING_CORE_MEMORY_LIMIT_MB)")
    p.add_argument("-t", dest="tolerance", type=float, default=None, metavar="TOLERANCE",
                   help="VAL's tolerance for timed plans (default 0.01, as VAL's): "
                        "instants within a tenth of it are one happening, durations may miss "
                        "their constraint by less than it; no effect on classical plans")
    p.add_argument("-s", dest="silent", action="store_const", const="errors", default="",
                   help="silent, as VAL: report only plans that are not valid")
    p.add_argument("-S", dest="silent", action="store_const", const="values",
                   help="silent, as VAL: one line per plan, its value or 'failed'")
    p.add_argument("-c", dest="continue_", action="store_true",
                   help="VAL's 'continue after errors'; accepted (every plan gets its own "
                        "verdict anyway)")
    batch = p.add_argument_group(
        "many plans in one run (--batch)",
        "validate the (plan, domain, problem) triples a JSON Lines manifest names, each "
        "task parsed once for all its plans; one JSON row per plan")
    batch.add_argument("--batch", metavar="MANIFEST",
                       help='a JSONL file, one {"id", "plan" (or "plan_text"), "domain", '
                            '"problem"} per line, paths relative to its folder; no FILEs')
    batch.add_argument("--out", metavar="RESULTS",
                       help="--batch: append the rows to RESULTS (locked; ids already there "
                            "are skipped, so an interrupted run resumes) instead of printing "
                            "them")
    batch.add_argument("--no-progress", action="store_true",
                       help="--batch: no progress bar")
    from planning_core.cli.args import add_bad_row_options, add_retry_option, positive_int

    add_bad_row_options(batch, default_bytes=BATCH_MAX_PLAN_BYTES,
                        too_large="a bad_input row", bad_row="bad_input",
                        bad_rows="not JSON, missing fields, a repeated id")
    batch.add_argument("--max-task-bytes", type=positive_int, default=BATCH_MAX_TASK_BYTES,
                       metavar="N", help="--batch: longest domain or problem file read; a "
                                         "longer one is a bad_input row (default "
                                         f"{BATCH_MAX_TASK_BYTES})")
    add_retry_option(batch)
    add_executor_options(p, unit="(domain, problem)")


def cmd_validate(args: argparse.Namespace) -> int:
    if args.batch is not None:
        if args.files:
            raise InputError("--batch takes its plans from the manifest; give no FILE as well")
        if args.verbose or args.silent:
            raise InputError("--batch writes one JSON row per plan; -v, -s and -S are for "
                             "validating FILEs")
        from planning_core.cli.validate_batch import run_batch

        return run_batch(args.batch, out_path=args.out, executor_args=args,
                         strict=args.strict, time_limit=args.time_limit,
                         max_plan_bytes=args.max_response_bytes,
                         progress=not args.no_progress, out=sys.stdout, err=sys.stderr,
                         memory_limit=args.memory_limit,
                         max_task_bytes=args.max_task_bytes,
                         retry_unknown=args.retry_unknown, tolerance=args.tolerance)
    if not args.files:
        raise InputError("the following arguments are required: FILE (a plan, a domain "
                         "and a problem, in any order), or --batch MANIFEST")
    for flag in ("out", "no_progress", "strict", "executor", "scheduler", "cluster",
                 "no_workers_timeout", "retry_unknown"):
        if getattr(args, flag):
            raise InputError(f"--{flag.replace('_', '-')} is an option of --batch")
    return validate_files(args)


def validate_files(args) -> int:
    """``validate FILE...``: the plans among ``args.files`` (``args`` from argparse, or from
    :func:`read_common_argv`)."""
    return run_validate(args.files, verbose=args.verbose, as_json=args.json,
                        show_warnings=not args.no_warnings, out=sys.stdout, err=sys.stderr,
                        time_limit=args.time_limit, silent=args.silent,
                        memory_limit=args.memory_limit, tolerance=args.tolerance)


def register(subparsers) -> None:
    """Add ``validate`` to ``planning-core``'s subcommands."""
    p = subparsers.add_parser("validate", help="validate plans (VAL-style)")
    _add_arguments(p)
    p.set_defaults(func=cmd_validate)


class FileArgs:
    """What ``validate FILE...`` reads of its arguments (argparse's defaults until set)."""

    __slots__ = ("files", "verbose", "json", "no_warnings", "time_limit", "memory_limit",
                 "tolerance", "silent", "continue_")

    def __init__(self) -> None:
        self.files: list[str] = []
        self.verbose = self.json = self.no_warnings = self.continue_ = False
        self.time_limit: float = DEFAULT_TIME_LIMIT_S
        self.memory_limit: float | None = None
        self.tolerance: float | None = None
        self.silent = ""


#: the options :func:`read_common_argv` reads: switches (dest, value) ...
_SWITCHES = {"-v": ("verbose", True), "--verbose": ("verbose", True), "--json": ("json", True),
             "--no-warnings": ("no_warnings", True), "-s": ("silent", "errors"),
             "-S": ("silent", "values"), "-c": ("continue_", True)}
#: ... and options with a value (dest, the argparse ``type`` of :func:`_add_arguments`)
_VALUED = {"-t": ("tolerance", float), "--time-limit": ("time_limit", "seconds"),
           "--memory-limit": ("memory_limit", "seconds")}


def read_common_argv(words: Sequence[str]) -> FileArgs | None:
    """The arguments of a common ``validate`` call, read without :mod:`argparse`, or None.

    A user's loop calls ``validate`` once per plan, and importing argparse (with gettext
    and locale) and building validate's parser cost ~10 ms of a call that VAL makes in ~6
    (issue 28). This reads the common shape only: FILEs in one run, and the options of
    :data:`_SWITCHES` and :data:`_VALUED`, each spelt in full with its value as the next
    word. Anything else (``-h``, ``--version``, ``--batch``, ``--``, ``--opt=value``, an
    abbreviation, combined flags, a value that starts with ``-`` or that its type refuses,
    FILEs split by an option, no FILE) returns None, and argparse reads the whole line, so
    help, errors and their messages are argparse's own. Where it answers, it answers what
    argparse does (``tests/cli/test_validate_argv.py`` compares the two).
    """
    args = FileArgs()
    files_seen = False
    i, n = 0, len(words)
    while i < n:
        word = words[i]
        if not word.startswith("-"):
            if files_seen:
                return None    # FILEs after an option that followed FILEs: argparse's error
            j = i
            while j < n and not words[j].startswith("-"):
                j += 1
            args.files = list(words[i:j])
            files_seen, i = True, j
        elif word in _SWITCHES:
            dest, value = _SWITCHES[word]
            setattr(args, dest, value)
            i += 1
        elif word in _VALUED and i + 1 < n and not words[i + 1].startswith("-"):
            dest, kind = _VALUED[word]
            if kind == "seconds":
                from planning_core.cli.args import seconds as kind
            try:
                setattr(args, dest, kind(words[i + 1]))
            except Exception:  # noqa: BLE001 - argparse says what is wrong with the value
                return None
            i += 2
        else:
            return None
    return args if args.files else None


def validate_main(argv: Sequence[str] | None = None) -> int:
    """The ``validate`` console script."""
    args = read_common_argv(sys.argv[1:] if argv is None else list(argv))
    if args is not None:
        if argv is None:
            short_process()
        code = int(run(validate_files, args))
        return exit_process(code) if argv is None else code
    from planning_core.cli.parser import ArgumentParser, add_version

    parser = ArgumentParser(prog="validate",
                            description="Validate plans against a PDDL domain and problem, "
                                        "as VAL does. Exit 0: all plans valid; 1: some plan "
                                        "invalid; 2: bad input; 3: a plan hit the time "
                                        "limit (unknown).")
    _add_arguments(parser)
    add_version(parser)
    args = parser.parse_args(argv)
    return int(run(cmd_validate, args))


if __name__ == "__main__":   # `python -m planning_core.cli.validate ...` is the console script
    sys.exit(validate_main())
