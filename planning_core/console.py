"""The ``planning-core`` console script: the engine's commands and the validators' in one.

This module is the top of the house and the only one that knows both: it lists every
command group, in the order ``planning-core --help`` shows them, and hands the list to
:func:`planning_core.cli.main`. The engine (``planning_core.cli`` and below) never imports
``planning_core.validators``; the validators import the engine's public
:class:`~planning_core.cli.ArgumentParser` and :class:`~planning_core.cli.ExitCode`.
A new command group is one ``register(subparsers)`` function and one line in
:data:`COMMAND_GROUPS` (STYLE: explicit registries, no discovery).

Registering costs nothing at start-up: every group imports its heavy modules inside its
handlers, and the CoPE method registry loads each method on first use.
"""
from __future__ import annotations

import sys
from functools import partial
from typing import Sequence

from planning_core import cli
from planning_core.cli import engine, validate
from planning_core.validators.acp import cli as acp_cli
from planning_core.validators.adaptive import cli as adaptive_cli
from planning_core.validators.cope import cli as cope_cli
from planning_core.validators.deepplanning import cli as deepplanning_cli
from planning_core.validators.formalizations.methods import METHODS
from planning_core.validators.formalizations.run_cli import add_run_command as add_cope_run
from planning_core.validators.toolplans import cli as toolplans_cli

__all__ = ["COMMAND_GROUPS", "main"]

COMMAND_GROUPS: tuple[cli.CommandGroup, ...] = (
    validate.register,
    engine.register,
    acp_cli.register,
    partial(cope_cli.register, methods=METHODS, extra=(add_cope_run,)),
    adaptive_cli.register,
    toolplans_cli.register,
    deepplanning_cli.register,
)


def main(argv: Sequence[str] | None = None) -> int:
    return cli.main(argv, COMMAND_GROUPS)


if __name__ == "__main__":
    sys.exit(main())
