"""Command-line entry points: ``validate`` and ``planning-core <command>``.

This is the only module that prints or exits. Exit codes (documented in the README):

==== ==============================================================================
0    success: every plan valid / task solved / command done
1    a plan is invalid (validate), or the task is proved unsolvable (solve)
2    bad input: missing or unreadable file, syntax or semantic error, bad arguments
3    unknown: a solver hit its time or memory limit (solve, landmarks)
4    internal error (a bug in planning_core: please report it; no traceback is shown
     unless PLANNING_CORE_DEBUG=1)
130  interrupted
==== ==============================================================================

Heavy modules (the grounder, search, unified-planning, the ACP and CoPE validators) are
imported inside the command that needs them, so ``validate`` starts in a fraction of a
second.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

from planning_core.cli_args import seconds
from planning_core.errors import PlanningError

EXIT_OK, EXIT_INVALID, EXIT_BAD_INPUT, EXIT_UNKNOWN, EXIT_INTERNAL = 0, 1, 2, 3, 4


class _ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with our bad-input code (2 is also argparse's own)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


# ----------------------------------------------------------------------- validate

def _add_validate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="a plan, a domain and a problem in any order (roles are told apart "
                        "by content); several plans may be given")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print VAL's per-step trace and the repair advice")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per plan, one per line")
    p.add_argument("--no-warnings", action="store_true", help="do not print warnings")


def _cmd_validate(args: argparse.Namespace) -> int:
    from planning_core.validate.command import run_validate

    return run_validate(args.files, verbose=args.verbose, as_json=args.json,
                        show_warnings=not args.no_warnings, out=sys.stdout, err=sys.stderr)


# ------------------------------------------------------------------------ engine

def _add_task_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("domain", help="domain file")
    p.add_argument("problem", help="problem file")
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _engine_command(name: str) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        from planning_core import cli_engine

        return getattr(cli_engine, f"cmd_{name}")(args)
    return run


def _add_engine_commands(sub) -> None:
    p = sub.add_parser("ground", help="ground a task and print its size")
    _add_task_arguments(p)
    p.add_argument("--dump", action="store_true", help="print the ground task")
    p.set_defaults(func=_engine_command("ground"))

    p = sub.add_parser("reachable", help="relaxed-reachable atoms and actions")
    _add_task_arguments(p)
    p.set_defaults(func=_engine_command("reachable"))

    p = sub.add_parser("landmarks", help="RHW fact landmarks and their orderings")
    _add_task_arguments(p)
    p.set_defaults(func=_engine_command("landmarks"))

    p = sub.add_parser("solve", help="find a plan (optimal with --optimal)")
    _add_task_arguments(p)
    p.add_argument("--optimal", action="store_true", help="find a cost-optimal plan")
    p.add_argument("--time-limit", type=seconds, default=60.0, metavar="S",
                   help="seconds before answering unknown (default 60)")
    p.add_argument("--engine", choices=("auto", "internal", "fd"), default="auto",
                   help="in-process search, Fast Downward, or chosen by task size")
    p.set_defaults(func=_engine_command("solve"))


# -------------------------------------------------------------------- validators

def _add_validator_commands(sub) -> None:
    """ACPBench Hard and CoPE commands, registered by their packages when installed."""
    try:
        from planning_core.validators.acp.cli import register as register_acp
    except ImportError:
        register_acp = None
    if register_acp is not None:
        register_acp(sub)
    try:
        from planning_core.validators.cope.cli import register as register_cope
    except ImportError:
        register_cope = None
    if register_cope is not None:
        register_cope(sub)
    try:
        from planning_core.validators.toolplans.cli import register as register_toolplans
    except ImportError:
        register_toolplans = None
    if register_toolplans is not None:
        register_toolplans(sub)


# --------------------------------------------------------------------------- main

def build_parser() -> argparse.ArgumentParser:
    parser = _ArgumentParser(prog="planning-core",
                             description="A symbolic planning engine with a PDDL toolchain.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_ArgumentParser)
    sub.required = True
    p = sub.add_parser("validate", help="validate plans (VAL-style)")
    _add_validate_arguments(p)
    p.set_defaults(func=_cmd_validate)
    _add_engine_commands(sub)
    _add_validator_commands(sub)
    return parser


def _run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return func(args)
    except PlanningError as err:
        print(f"error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # noqa: BLE001 - the promise is: no traceback for any input
        if os.environ.get("PLANNING_CORE_DEBUG") == "1":
            raise
        print(f"internal error: {type(err).__name__}: {err}\n"
              "This is a bug in planning_core; rerun with PLANNING_CORE_DEBUG=1 for details.",
              file=sys.stderr)
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    code = _run(args.func, args)
    sys.stdout.flush()
    return code


def validate_main(argv: Sequence[str] | None = None) -> int:
    parser = _ArgumentParser(prog="validate",
                             description="Validate plans against a PDDL domain and problem, "
                                         "as VAL does. Exit 0: all plans valid; 1: some plan "
                                         "invalid; 2: bad input.")
    _add_validate_arguments(parser)
    args = parser.parse_args(argv)
    return _run(_cmd_validate, args)


def _entry(func: Callable[[], int]) -> None:
    sys.exit(func())


if __name__ == "__main__":
    _entry(main)
