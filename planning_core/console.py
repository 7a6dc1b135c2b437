"""The ``planning-core`` console script: the engine's commands and the validators' in one.

This module is the top of the house and the only one that knows both: it lists every
command group, in the order ``planning-core --help`` shows them, and hands the list to
:func:`planning_core.cli.main`. The engine (``planning_core.cli`` and below) never imports
``planning_core.validators``; the validators import the engine's public
:class:`~planning_core.cli.ArgumentParser` and :class:`~planning_core.cli.ExitCode`.
A new command group is one ``register(subparsers)`` function and one entry in
:data:`COMMAND_GROUPS` (STYLE: explicit registries, no discovery).

Every group is a :class:`~planning_core.cli.LazyGroup`: its commands' names and one-line
helps are written here, and its module is imported only when one of its commands runs, so
``planning-core acp score --help`` imports the ACP room and nothing of CoPE, the
formalizations, the adaptive, tool-use or DeepPlanning rooms (issue 32;
``benchmarks/results/cli_start.md``). ``tests/cli/test_console_lazy.py`` checks that the
names and helps here are the ones each ``register`` adds.
"""
from __future__ import annotations

import sys

from planning_core import cli
from planning_core.cli import LazyGroup

TYPE_CHECKING = False   # typing.TYPE_CHECKING, without importing typing (and with it re,
if TYPE_CHECKING:       # collections...): a third of what `planning-core --help` costs
    from collections.abc import Sequence

__all__ = ["COMMAND_GROUPS", "main"]


def _validate():
    from planning_core.cli import validate
    return validate.register


def _engine():
    from planning_core.cli import engine
    return engine.register


def _acp():
    from planning_core.validators.acp import cli as acp_cli
    return acp_cli.register


def _cope():
    from functools import partial

    from planning_core.validators.cope import cli as cope_cli
    from planning_core.validators.formalizations.methods import METHODS
    from planning_core.validators.formalizations.run_cli import add_run_command
    return partial(cope_cli.register, methods=METHODS, extra=(add_run_command,))


def _adaptive():
    from planning_core.validators.adaptive import cli as adaptive_cli
    return adaptive_cli.register


def _toolplans():
    from planning_core.validators.toolplans import cli as toolplans_cli
    return toolplans_cli.register


def _deepplanning():
    from planning_core.validators.deepplanning import cli as deepplanning_cli
    return deepplanning_cli.register


COMMAND_GROUPS: tuple[LazyGroup, ...] = (
    LazyGroup([("validate", "validate plans (VAL-style)")], _validate),
    LazyGroup([("ground", "ground a task and print its size"),
               ("reachable", "relaxed-reachable atoms and actions"),
               ("landmarks", "RHW fact landmarks and their orderings"),
               ("solve", "find a plan (optimal with --optimal)")], _engine),
    LazyGroup([("acp", "score answers to ACPBench Hard questions")], _acp),
    LazyGroup([("cope", "CoPE constrained planning: check ground truth, evaluate model "
                        "outputs")], _cope),
    LazyGroup([("adaptive", "adaptive planning under revealed constraints")], _adaptive),
    LazyGroup([("toolplans", "tool-use plans as planning tasks (compile, check, solve)")],
              _toolplans),
    LazyGroup([("deepplanning", "DeepPlanning travel and shopping tasks")], _deepplanning),
)


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words[:1] == ["validate"]:
        # a common `validate` call (FILEs and VAL's options) is read without argparse, as
        # the `validate` script's is (planning_core.cli.validate.read_common_argv); any
        # other line is argparse's, with `planning-core validate` in its messages
        from planning_core.cli.validate import read_common_argv, validate_files

        args = read_common_argv(words[1:])
        if args is not None:
            if argv is None:   # as cli.main: a process of our own
                cli.CAP_ADDRESS_SPACE = True
                cli.short_process()
            code = cli.run(validate_files, args)
            sys.stdout.flush()
            return cli.exit_process(int(code)) if argv is None else int(code)
    return cli.main(argv, COMMAND_GROUPS)


if __name__ == "__main__":
    sys.exit(main())
